//! Command-line parsing and dispatch: [`Cli`] (every subcommand and its flags) and [`run`];
//! each subcommand lives in its own file, the client commands over [`client`].

mod admin;
mod client;
mod grant;
mod jobs;
mod logs;
mod migrate_store;
mod node_credential;
mod serve;
mod token;

use std::io::BufRead;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use server::Store;

/// runlens: experiment tracking that speaks MLflow.
#[derive(Parser)]
#[command(name = "runlens", version, about)]
pub(crate) struct Cli {
    #[command(flatten)]
    data: DataDir,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Serve the tracking API and the web app.
    Serve(serve::ServeArgs),
    /// Manage users (add, list, passwd, disable, enable).
    User(admin::UserArgs),
    /// Manage groups (add, list, add-member, remove-member).
    Group(admin::GroupArgs),
    /// Manage API tokens (create, list, revoke).
    Token(token::TokenArgs),
    /// Grant (or revoke) a user or group a level on an experiment, or let them watch a node.
    Grant(grant::GrantArgs),
    /// Manage node credentials, one per GPU node's agent (create, list, revoke).
    NodeCredential(node_credential::NodeCredentialArgs),
    /// List and show job runs of a running server (over HTTP).
    Jobs(jobs::JobsArgs),
    /// Print, follow or download a job run's log lines from a running server (over HTTP).
    Logs(logs::LogsArgs),
    /// Copy an embedded data dir (SQLite) into an empty PostgreSQL database, verified.
    MigrateStore(migrate_store::MigrateStoreArgs),
}

/// Where the database lives; shared by every subcommand.
#[derive(clap::Args, Clone)]
pub(crate) struct DataDir {
    /// Directory for the database (created on first start) and, with a PostgreSQL
    /// database, for the files beside it (artifacts): every replica must see the same one.
    #[arg(long, env = "RUNLENS_DATA_DIR", default_value = "data", global = true)]
    pub data_dir: PathBuf,
    /// A PostgreSQL database instead of the embedded SQLite one:
    /// `postgres://user:password@host:port/database`.
    #[arg(
        long,
        env = "RUNLENS_DATABASE_URL",
        global = true,
        hide_env_values = true
    )]
    pub database_url: Option<String>,
}

/// Runs a parsed command line.
pub(crate) fn run(cli: Cli) -> Result<(), String> {
    let data = cli.data;
    match cli.command {
        Command::Serve(args) => serve::serve(&data, args),
        Command::User(args) => admin::user(&open_store(&data)?, args),
        Command::Group(args) => admin::group(&open_store(&data)?, args),
        Command::Token(args) => token::token(&open_store(&data)?, args),
        Command::Grant(args) => grant::grant(&open_store(&data)?, args),
        Command::NodeCredential(args) => {
            node_credential::node_credential(&open_store(&data)?, args)
        }
        Command::Jobs(args) => jobs::jobs(args),
        Command::Logs(args) => logs::logs(args),
        Command::MigrateStore(args) => migrate_store::migrate(&data, args),
    }
}

/// Opens the store (PostgreSQL when a URL is given, else SQLite in the data dir), turning
/// errors into the message printed to the terminal.
pub(crate) fn open_store(data: &DataDir) -> Result<Store, String> {
    match data.database_url.as_deref().filter(|u| !u.is_empty()) {
        Some(url) => {
            std::fs::create_dir_all(&data.data_dir)
                .map_err(|e| format!("cannot create {}: {e}", data.data_dir.display()))?;
            Store::open_postgres(url, &data.data_dir).map_err(message)
        }
        None => Store::open(&data.data_dir).map_err(message),
    }
}

/// The text of an error for the terminal (internal causes included: this is the admin).
pub(crate) fn message(e: server::Error) -> String {
    match e {
        server::Error::Internal(cause) => cause,
        other => other.to_string(),
    }
}

/// A password from the first line of stdin (`--password-stdin`) or the environment
/// variable `RUNLENS_PASSWORD`; never from argv, where other users could see it.
pub(crate) fn read_password(from_stdin: bool) -> Result<Option<String>, String> {
    if from_stdin {
        let mut line = String::new();
        std::io::stdin()
            .lock()
            .read_line(&mut line)
            .map_err(|e| format!("reading the password from stdin: {e}"))?;
        let p = line.trim_end_matches(['\r', '\n']).to_string();
        return Ok((!p.is_empty()).then_some(p));
    }
    Ok(std::env::var("RUNLENS_PASSWORD")
        .ok()
        .filter(|p| !p.is_empty()))
}

/// Milliseconds since the epoch as `YYYY-MM-DD HH:MM` UTC (for lists).
pub(crate) fn format_time(ms: i64) -> String {
    match chrono::DateTime::from_timestamp_millis(ms) {
        Some(at) => at.format("%Y-%m-%d %H:%M").to_string(),
        None => format!("{ms} ms after 1970"),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn formats_times() {
        assert_eq!(super::format_time(0), "1970-01-01 00:00");
        assert_eq!(super::format_time(1_700_000_000_000), "2023-11-14 22:13");
    }
}
