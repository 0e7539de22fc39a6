//! The agent against the real runlens server (its router in process, on a real port): `serve`
//! registration and heartbeats, and `runlens-agent run`.

mod helpers;
mod register;
mod run;
