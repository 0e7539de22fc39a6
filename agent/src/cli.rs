//! The command line: `runlens-agent serve ...` and `runlens-agent run ... -- CMD`.

use std::path::PathBuf;

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
    /// Run a command as a job run: each attempt an MLflow run, its output shipped as log
    /// lines, this node's GPUs and host logged as system metrics.
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
    /// runlens server to register with (PUT /api/v1/nodes/NODE-NAME), e.g.
    /// `https://runlens.example.com`.
    #[arg(long, env = "RUNLENS_SERVER", value_name = "URL")]
    pub server: Option<String>,
    /// The file holding this node's credential for --server (`runlens node-credential
    /// create NODE-NAME`; mode 0600). Read again at every heartbeat, so a rotated credential
    /// takes effect without a restart.
    #[arg(long, env = "RUNLENS_NODE_CREDENTIAL_FILE", value_name = "FILE")]
    pub credential_file: Option<PathBuf>,
    /// A PEM file of CA certificates to trust besides the system's (a server whose
    /// certificate a private CA signed).
    #[arg(long, env = "RUNLENS_CA_CERT", value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Serve https with this certificate chain (PEM, leaf first); needs --tls-key.
    #[arg(
        long,
        env = "RUNLENS_AGENT_TLS_CERT",
        requires = "tls_key",
        value_name = "FILE"
    )]
    pub tls_cert: Option<PathBuf>,
    /// The private key of --tls-cert (PEM).
    #[arg(
        long,
        env = "RUNLENS_AGENT_TLS_KEY",
        requires = "tls_cert",
        value_name = "FILE"
    )]
    pub tls_key: Option<PathBuf>,
    /// The URL the server calls this agent at (default: `http(s)://<listen address>`).
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
    /// runlens server, e.g. `https://runlens.example.com` or `http://10.0.0.1:8080`.
    #[arg(long, env = "RUNLENS_SERVER", value_name = "URL")]
    pub server: String,
    /// API token, sent as Authorization: Bearer and given to CMD as MLFLOW_TRACKING_TOKEN.
    #[arg(long, env = "RUNLENS_TOKEN", hide_env_values = true, value_name = "T")]
    pub token: Option<String>,
    /// A PEM file of CA certificates to trust besides the system's (a server whose
    /// certificate a private CA signed); CMD gets it as MLFLOW_TRACKING_SERVER_CERT_PATH.
    #[arg(long, env = "RUNLENS_CA_CERT", value_name = "FILE")]
    pub ca_cert: Option<PathBuf>,
    /// Experiment whose runs the attempts are (created when missing).
    #[arg(
        long,
        value_name = "NAME",
        required_unless_present = "join",
        conflicts_with = "join"
    )]
    pub experiment: Option<String>,
    /// Name of the first attempt's run (later attempts add -attempt-N) [default: chosen by
    /// the server].
    #[arg(long, value_name = "N", conflicts_with = "join")]
    pub run_name: Option<String>,
    /// The job to submit a run of (created when missing) [default: the experiment's name].
    #[arg(long, value_name = "NAME", conflicts_with = "join")]
    pub job: Option<String>,
    /// Start K processes on this machine as the K nodes of the job run.
    #[arg(long, value_name = "K", default_value_t = 1, conflicts_with = "join",
          value_parser = clap::value_parser!(u32).range(1..=256))]
    pub nodes: u32,
    /// How many times a failed attempt is retried (each retry a new attempt: a new MLflow
    /// run in the same experiment).
    #[arg(long, value_name = "R", default_value_t = 0, conflicts_with = "join",
          value_parser = clap::value_parser!(u32).range(0..=100))]
    pub max_retries: u32,
    /// This node's name: the node label (with --nodes K > 1, NAME-0 .. NAME-(K-1)), in the
    /// metric keys (system/LABEL/...) [default: the host name].
    #[arg(long, value_name = "NAME", conflicts_with = "join")]
    pub node_name: Option<String>,
    /// Attach CMD as a node of this existing job run (its latest attempt), e.g. on another
    /// machine; needs --node.
    #[arg(long, value_name = "JOB_RUN_ID", requires = "node")]
    pub join: Option<i64>,
    /// The node label CMD joins as (with --join).
    #[arg(
        long,
        value_name = "N",
        requires = "join",
        conflicts_with = "experiment"
    )]
    pub node: Option<String>,
    /// Where lines wait on disk before they are sent [default: $XDG_STATE_HOME, else
    /// ~/.local/state, /runlens-agent/spool].
    #[arg(long, value_name = "DIR")]
    pub spool_dir: Option<PathBuf>,
    /// At the end, how long to wait at most for every line to be shipped.
    #[arg(long, value_name = "S", default_value_t = 120)]
    pub drain_timeout_secs: u64,
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
        assert_eq!(
            (args.nodes, args.max_retries, args.drain_timeout_secs),
            (1, 0, 120)
        );
        assert!(args.job.is_none() && args.join.is_none() && args.spool_dir.is_none());
    }

    #[test]
    fn run_submits_or_joins() {
        let parse = |args: &[&str]| Cli::try_parse_from([&["runlens-agent", "run"], args].concat());
        let ok = |args: &[&str]| match parse(args).map(|c| c.command) {
            Ok(Command::Run(run)) => run,
            other => panic!("{args:?}: {other:?}"),
        };
        let run = ok(&[
            "--server",
            "http://s",
            "--experiment",
            "e",
            "--nodes",
            "2",
            "--max-retries",
            "3",
            "--job",
            "j",
            "--spool-dir",
            "/tmp/x",
            "--",
            "true",
        ]);
        assert_eq!((run.nodes, run.max_retries), (2, 3));
        assert_eq!(run.job.as_deref(), Some("j"));
        let join = ok(&[
            "--server", "http://s", "--join", "7", "--node", "w1", "--", "true",
        ]);
        assert_eq!((join.join, join.node.as_deref()), (Some(7), Some("w1")));
        assert!(join.experiment.is_none());
        for bad in [
            &["--server", "http://s", "--", "true"][..],
            &["--server", "http://s", "--join", "7", "--", "true"],
            &[
                "--server",
                "http://s",
                "--experiment",
                "e",
                "--node",
                "w",
                "--",
                "true",
            ],
            &[
                "--server",
                "http://s",
                "--join",
                "7",
                "--node",
                "w",
                "--experiment",
                "e",
                "--",
                "t",
            ],
            &[
                "--server", "http://s", "--join", "7", "--node", "w", "--nodes", "2", "--", "t",
            ],
            &[
                "--server",
                "http://s",
                "--experiment",
                "e",
                "--nodes",
                "0",
                "--",
                "true",
            ],
            &[
                "--server",
                "http://s",
                "--experiment",
                "e",
                "--nodes",
                "257",
                "--",
                "true",
            ],
            &[
                "--server",
                "http://s",
                "--experiment",
                "e",
                "--max-retries",
                "101",
                "--",
                "t",
            ],
        ] {
            assert!(parse(bad).is_err(), "{bad:?}");
        }
    }
}
