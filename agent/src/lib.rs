//! runlens-agent: samples a node's GPUs (NVML) and host (`sysinfo`) into a bounded history
//! and serves them as JSON (`GET /v1/gpus`) and in the Prometheus text format
//! (`GET /metrics`, DCGM exporter names), registering with the runlens server when asked;
//! `run` launches a command as a job run (each attempt an MLflow run), ships its output
//! line by line through a disk spool, and logs the node's samples into the run as system
//! metrics.

pub mod cli;
pub mod client;
pub mod credential;
pub mod gpu;
pub mod host;
pub mod http;
pub mod node;
pub mod prometheus;
pub mod register;
pub mod ring;
pub mod run;
pub mod serve;
