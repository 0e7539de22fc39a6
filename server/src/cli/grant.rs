//! `runlens grant --experiment <id|name> --user U|--group G --level read|edit|manage|none`
//! (or `--revoke` to remove the explicit grant).

use api_types::{Level, Principal, PrincipalKind};
use server::Store;

use super::message;

#[derive(clap::Args)]
pub struct GrantArgs {
    /// Experiment id or name (e.g. /Users/alice/sft).
    #[arg(long)]
    experiment: String,
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
pub fn grant(store: &Store, args: GrantArgs) -> Result<(), String> {
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
    let id = store
        .blocking(|c| {
            let id = server::tracking::experiments::find_id(c, &args.experiment)?;
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
