//! `runlens token create|list|revoke`.

use clap::Subcommand;
use server::auth::{tokens, users};
use server::Store;

use super::{format_time, message};

#[derive(clap::Args)]
pub(crate) struct TokenArgs {
    #[command(subcommand)]
    command: TokenCommand,
}

#[derive(Subcommand)]
enum TokenCommand {
    /// Create a token; prints the secret (only this once) on stdout.
    Create {
        /// Owner of the token.
        #[arg(long)]
        user: String,
        /// Name to recognise it by, e.g. laptop or ci.
        #[arg(long)]
        name: String,
    },
    /// List a user's active tokens.
    List {
        /// Whose tokens.
        #[arg(long)]
        user: String,
    },
    /// Revoke a token by id or by name.
    Revoke {
        /// Owner of the token.
        #[arg(long)]
        user: String,
        /// Token id (from `token list`).
        #[arg(long, conflicts_with = "name", required_unless_present = "name")]
        id: Option<i64>,
        /// Token name (must match exactly one active token).
        #[arg(long)]
        name: Option<String>,
    },
}

fn user_id(c: &server::db::Conn, username: &str) -> Result<i64, server::Error> {
    users::find_user_id(c, username)?
        .ok_or_else(|| server::Error::NotFound(format!("User '{username}' does not exist.")))
}

/// Runs a `token` subcommand.
pub(crate) fn token(store: &Store, args: TokenArgs) -> Result<(), String> {
    match args.command {
        TokenCommand::Create { user, name } => {
            let created = store
                .blocking(|c| tokens::create_token(c, user_id(c, &user)?, &name))
                .map_err(message)?;
            eprintln!(
                "created token {} '{}' for '{user}'; it is shown only this once:",
                created.info.id, created.info.name
            );
            println!("{}", created.token);
        }
        TokenCommand::List { user } => {
            let list = store
                .blocking(|c| tokens::list_tokens(c, user_id(c, &user)?))
                .map_err(message)?;
            println!(
                "{:<6} {:<24} {:<10} {:<17} LAST USED",
                "ID", "NAME", "PREFIX", "CREATED"
            );
            for t in list {
                let used = t
                    .last_used
                    .map(format_time)
                    .unwrap_or_else(|| "never".into());
                println!(
                    "{:<6} {:<24} {:<10} {:<17} {used}",
                    t.id,
                    t.name,
                    t.prefix,
                    format_time(t.created)
                );
            }
        }
        TokenCommand::Revoke { user, id, name } => {
            let id = store
                .blocking(|c| {
                    let uid = user_id(c, &user)?;
                    let id = match (id, &name) {
                        (Some(id), _) => id,
                        (None, Some(n)) => by_name(c, uid, n)?,
                        (None, None) => unreachable_args()?,
                    };
                    tokens::revoke_token(c, uid, id).map(|()| id)
                })
                .map_err(message)?;
            eprintln!("revoked token {id} of '{user}'");
        }
    }
    Ok(())
}

fn unreachable_args() -> Result<i64, server::Error> {
    Err(server::Error::InvalidParameter(
        "give --id or --name".into(),
    ))
}

fn by_name(c: &server::db::Conn, uid: i64, name: &str) -> Result<i64, server::Error> {
    let matching: Vec<i64> = tokens::list_tokens(c, uid)?
        .into_iter()
        .filter(|t| t.name == name)
        .map(|t| t.id)
        .collect();
    match matching.as_slice() {
        [id] => Ok(*id),
        [] => Err(server::Error::NotFound(format!(
            "No active token named '{name}'."
        ))),
        _ => Err(server::Error::InvalidParameter(format!(
            "{} active tokens are named '{name}'; revoke one with --id.",
            matching.len()
        ))),
    }
}
