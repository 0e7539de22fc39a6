//! `runlens grant --experiment <id|name> --user U|--group G --level read|edit|manage|none`
//! (or `--revoke` to remove the explicit grant), and `runlens grant --node N --user U|--group
//! G --level read` (may watch the node's GPUs; `--revoke` to stop).

use api_types::{Level, Principal, PrincipalKind};
use server::Store;

use super::message;

#[derive(clap::Args)]
pub(crate) struct GrantArgs {
    /// Experiment id or name (e.g. /Users/alice/sft).
    #[arg(long, conflicts_with = "node", required_unless_present = "node")]
    experiment: Option<String>,
    /// A GPU node's name instead: the grant lets the user or group watch it (`--level read`).
    #[arg(long)]
    node: Option<String>,
    /// The user to grant to.
    #[arg(long, conflicts_with = "group", required_unless_present = "group")]
    user: Option<String>,
    /// The group to grant to.
    #[arg(long)]
    group: Option<String>,
    /// read, edit, manage, or none (no access even to shared experiments).
    #[arg(long, value_parser = ["read", "edit", "manage", "none"],
          required_unless_present = "revoke", conflicts_with = "revoke")]
    level: Option<String>,
    /// Remove the explicit grant instead.
    #[arg(long)]
    revoke: bool,
}

/// Runs `grant`.
pub(crate) fn grant(store: &Store, args: GrantArgs) -> Result<(), String> {
    let principal = match (&args.user, &args.group) {
        (Some(u), _) => Principal {
            kind: PrincipalKind::User,
            name: u.clone(),
        },
        (None, Some(g)) => Principal {
            kind: PrincipalKind::Group,
            name: g.clone(),
        },
        (None, None) => return Err("give --user or --group".into()),
    };
    let level = match args.level.as_deref() {
        Some("read") => Some(Level::CanRead),
        Some("edit") => Some(Level::CanEdit),
        Some("manage") => Some(Level::CanManage),
        _ => None,
    };
    if let Some(node) = &args.node {
        return grant_node(store, node, &principal, &args);
    }
    let experiment = args.experiment.clone().unwrap_or_default();
    let id = store
        .blocking(|c| {
            let id = server::tracking::experiments::find_id(c, &experiment)?;
            match args.revoke {
                true => server::permissions::revoke_grant(c, id, &principal)?,
                false => server::permissions::set_grant(c, id, &principal, level)?,
            }
            Ok(id)
        })
        .map_err(message)?;
    let kind = match principal.kind {
        PrincipalKind::User => "user",
        PrincipalKind::Group => "group",
    };
    let who = format!("{kind} '{}'", principal.name);
    match (args.revoke, args.level.as_deref()) {
        (true, _) => eprintln!("removed the grant of {who} on experiment {id}"),
        (false, Some(l)) => eprintln!("{who} now has level '{l}' on experiment {id}"),
        (false, None) => {}
    }
    Ok(())
}

/// `grant --node`: lets `principal` watch `node`, or stops it (`--revoke`).
fn grant_node(
    store: &Store,
    node: &str,
    principal: &Principal,
    args: &GrantArgs,
) -> Result<(), String> {
    if !args.revoke && args.level.as_deref() != Some("read") {
        return Err(
            "a node grant is --level read (may watch the node's GPUs); --revoke removes it".into(),
        );
    }
    store
        .blocking(|c| match args.revoke {
            true => server::nodes::visibility::revoke(c, node, principal),
            false => server::nodes::visibility::grant(c, node, principal),
        })
        .map_err(message)?;
    match args.revoke {
        true => eprintln!("'{}' no longer watches node {node}", principal.name),
        false => eprintln!("'{}' may now watch node {node}", principal.name),
    }
    Ok(())
}
