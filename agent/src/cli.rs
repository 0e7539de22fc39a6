//! The command line: `runlens-agent serve ...` and `runlens-agent run ... -- CMD`.

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
    /// Run a command as an MLflow run, logging this node's GPUs and host as system metrics.
    Run(RunArgs),
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
    /// runlens server to register with (PUT /api/v1/nodes/NODE-NAME), e.g. http://10.0.0.1:8080.
    #[arg(long, env = "RUNLENS_SERVER", value_name = "URL")]
    pub server: Option<String>,
    /// An administrator's API token for --server (sent as Authorization: Bearer).
    #[arg(long, env = "RUNLENS_TOKEN", hide_env_values = true, value_name = "T")]
    pub server_token: Option<String>,
    /// The URL the server calls this agent at [default: http://<listen address>].
    #[arg(long, value_name = "URL")]
    pub advertise_url: Option<String>,
    /// Seconds between registration heartbeats.
    #[arg(long, default_value_t = crate::register::HEARTBEAT_SECS,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub heartbeat_secs: u64,
}

/// The options of `runlens-agent run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// runlens (or MLflow) server, e.g. http://10.0.0.1:8080.
    #[arg(long, env = "RUNLENS_SERVER", value_name = "URL")]
    pub server: String,
    /// API token, sent as Authorization: Bearer and given to CMD as MLFLOW_TRACKING_TOKEN.
    #[arg(long, env = "RUNLENS_TOKEN", hide_env_values = true, value_name = "T")]
    pub token: Option<String>,
    /// Experiment to log into (created when missing).
    #[arg(long, value_name = "NAME")]
    pub experiment: String,
    /// Name of the run [default: chosen by the server].
    #[arg(long, value_name = "N")]
    pub run_name: Option<String>,
    /// This node's name, in the metric keys (system/NODE/...) and the runlens.nodes tag
    /// [default: the host name].
    #[arg(long, value_name = "NAME")]
    pub node_name: Option<String>,
    /// Seconds between samples logged as system metrics (at least 1).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..))]
    pub interval_secs: u64,
    /// Simulate N GPUs instead of reading NVML (demos and tests only).
    #[arg(long, value_name = "N")]
    pub simulate_gpus: Option<u32>,
    /// Seed of the simulated GPUs.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// The command to run, after `--`.
    #[arg(last = true, required = true, num_args = 1.., value_name = "CMD")]
    pub command: Vec<String>,
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
            .command
        else {
            panic!("not serve");
        };
        assert_eq!((args.interval_secs, args.history_secs), (10, 7200));
        assert_eq!(args.heartbeat_secs, 30);
        assert!(args.advertise_url.is_none());
        assert!(args.simulate_gpus.is_none());
        let zero = ["--listen", "x", "--node-name", "n", "--interval-secs", "0"];
        assert!(parse(&zero).is_err());
    }

    #[test]
    fn run_takes_the_command_after_the_double_dash() {
        let parse = |args: &[&str]| Cli::try_parse_from([&["runlens-agent", "run"], args].concat());
        let base = ["--server", "http://s", "--experiment", "e"];
        let Command::Run(args) =
            parse(&[&base[..], &["--", "python", "-c", "x", "--flag"]].concat())
                .unwrap()
                .command
        else {
            panic!("not run");
        };
        assert_eq!(args.command, ["python", "-c", "x", "--flag"]);
        assert_eq!(args.interval_secs, 10);
        assert!(args.node_name.is_none() && args.run_name.is_none());
        assert!(parse(&base).is_err(), "a command is required");
        assert!(
            parse(&[&base[..], &["python"]].concat()).is_err(),
            "-- is required"
        );
        let zero = [&base[..], &["--interval-secs", "0", "--", "true"]].concat();
        assert!(parse(&zero).is_err());
    }
}
