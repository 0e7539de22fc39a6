//! Hardening: one module per problem an independent security probe found.
//! Each test here failed on the code before its fix.

mod body_limits;
mod caching_and_lengths;
mod csrf;
mod downloads;
mod limiter;
mod rename;
mod sizes;
mod slow_clients;
