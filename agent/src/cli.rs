//! The command line: `runlens-agent serve ...`.

use clap::{Args, Parser, Subcommand};

/// The runlens node agent: samples this node's GPUs and host and serves them over HTTP.
#[derive(Debug, Parser)]
#[command(name = "runlens-agent", version)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The agent's subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Sample GPUs and host, serve GET /v1/gpus and GET /metrics.
    Serve(ServeArgs),
}

/// The options of `runlens-agent serve`.
#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on, e.g. 0.0.0.0:9400.
    #[arg(long)]
    pub listen: String,
    /// This node's name, as shown in the GPU panel and as the `Hostname` label.
    #[arg(long)]
    pub node_name: String,
    /// Bearer token required by GET /v1/gpus (which names processes). Required.
    #[arg(long, env = "RUNLENS_AGENT_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Bearer token for GET /metrics; without it /metrics is open, like the DCGM exporter's.
    #[arg(long, env = "RUNLENS_AGENT_METRICS_TOKEN", hide_env_values = true)]
    pub metrics_token: Option<String>,
    /// Simulate N GPUs instead of reading NVML (demos and tests only; marked simulated).
    #[arg(long, value_name = "N")]
    pub simulate_gpus: Option<u32>,
    /// Seed of the simulated GPUs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seconds between samples (at least 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub interval_secs: u64,
    /// Seconds of history kept in memory for back-fill.
    #[arg(long, default_value_t = 7200, value_parser = clap::value_parser!(u64).range(1..))]
    pub history_secs: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        Cli::try_parse_from([&["runlens-agent", "serve"], args].concat())
    }

    #[test]
    fn defaults_and_bounds() {
        let Command::Serve(args) = parse(&["--listen", "127.0.0.1:0", "--node-name", "n"])
            .unwrap()
            .command;
        assert_eq!((args.interval_secs, args.history_secs), (10, 7200));
        assert!(args.simulate_gpus.is_none());
        let zero = ["--listen", "x", "--node-name", "n", "--interval-secs", "0"];
        assert!(parse(&zero).is_err());
    }
}
