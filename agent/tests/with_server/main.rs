//! The agent against the real runlens server (its router in process, on a real port): `serve`
//! registration and heartbeats, and `runlens-agent run` (the plain run, job runs with
//! several nodes, retries and signals, and log shipping across a server restart).

mod helpers;
mod jobs;
mod register;
mod run;
mod shipping;
mod tls;
