//! `runlens node-credential create|list|revoke`: the credentials node agents hold (one node
//! each; see README "Deployment").

use clap::Subcommand;
use server::auth::node_credentials;
use server::Store;

use super::{format_time, message};

#[derive(clap::Args)]
pub(crate) struct NodeCredentialArgs {
    #[command(subcommand)]
    command: NodeCredentialCommand,
}

#[derive(Subcommand)]
enum NodeCredentialCommand {
    /// Create a credential for one node; prints the secret (only this once) on stdout, for
    /// the agent's credential file (mode 0600).
    Create {
        /// The node it registers and heartbeats (`runlens-agent serve --node-name`).
        node: String,
        /// The administrator recorded as its maker.
        #[arg(long, default_value = "admin")]
        by: String,
    },
    /// List the active node credentials.
    List {
        /// Only this node's.
        #[arg(long)]
        node: Option<String>,
    },
    /// Revoke a credential by id (from `list`): its agent's next call is refused.
    Revoke {
        /// Credential id.
        id: i64,
    },
}

/// Runs a `node-credential` subcommand.
pub(crate) fn node_credential(store: &Store, args: NodeCredentialArgs) -> Result<(), String> {
    let now = server::util::now_ms();
    match args.command {
        NodeCredentialCommand::Create { node, by } => {
            let made = store
                .blocking(|c| node_credentials::create(c, &node, &by, now))
                .map_err(message)?;
            eprintln!(
                "created node credential {} for node '{node}'; it is shown only this once:",
                made.info.id
            );
            println!("{}", made.credential);
        }
        NodeCredentialCommand::List { node } => {
            let list = store
                .blocking(|c| node_credentials::list(c, node.as_deref()))
                .map_err(message)?;
            println!(
                "{:<6} {:<24} {:<11} {:<12} {:<17} LAST USED",
                "ID", "NODE", "PREFIX", "BY", "CREATED"
            );
            for n in list {
                let used = n
                    .last_used
                    .map(format_time)
                    .unwrap_or_else(|| "never".into());
                println!(
                    "{:<6} {:<24} {:<11} {:<12} {:<17} {used}",
                    n.id,
                    n.node,
                    n.prefix,
                    n.created_by,
                    format_time(n.created)
                );
            }
        }
        NodeCredentialCommand::Revoke { id } => {
            let info = store
                .blocking(|c| node_credentials::revoke(c, id, now))
                .map_err(message)?;
            eprintln!("revoked node credential {id} of node '{}'", info.node);
        }
    }
    Ok(())
}
