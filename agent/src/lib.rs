//! runlens-agent: samples a node's GPUs (NVML) and host (`sysinfo`) into a bounded history
//! and serves them as JSON (`GET /v1/gpus`) and in the Prometheus text format
//! (`GET /metrics`, DCGM exporter names).

pub mod cli;
pub mod gpu;
pub mod host;
pub mod http;
pub mod node;
pub mod prometheus;
pub mod ring;
pub mod serve;
