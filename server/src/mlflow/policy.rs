//! The MLflow dialect's permission table: every endpoint that decodes a request message
//! ([`super::request::Msg`]) is checked here before its handler runs, by the endpoint's
//! path. An endpoint missing from the table is refused (fail closed).

use api_types::Level;
use rusqlite::{Connection, OptionalExtension};

use super::fields::Fields;
use crate::auth::Caller;
use crate::permissions as perm;
use crate::tracking::experiments::parse_id;
use crate::Error;

/// What an endpoint requires of its caller.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// Any signed-in user; the endpoint touches no experiment.
    SignedIn,
    /// `experiment_id` with at least this level.
    Experiment(Level),
    /// `experiment_name` readable.
    ExperimentByName,
    /// `run_id` (or `run_uuid`) with at least this level on its experiment.
    Run(Level),
    /// Every known run of `run_ids` readable (unknown ones match nothing).
    Runs,
    /// Every known experiment of `experiment_ids` readable (as MLflow's auth app: 403).
    SearchRuns,
    /// `name` not under another user's `/Users/<other>/` folder.
    CreateExperiment,
    /// `experiment_id` renamed to `new_name` (see `permissions::require_rename`).
    RenameExperiment,
    /// The handler itself restricts its results to readable experiments.
    Filtered,
    /// `resource_type` `experiment`, `resource_id` managed by the caller.
    ManageResource,
    /// Admins, the user asked about, or managers of the resource.
    GetUserPermission,
}

/// The policy of an endpoint, by its path below `/api/<version>/mlflow`.
pub fn policy(endpoint: &str) -> Option<Policy> {
    use Level::{CanEdit as Edit, CanManage as Manage, CanRead as Read};
    use Policy::*;
    Some(match endpoint {
        "/experiments/create" => CreateExperiment,
        "/experiments/get" => Experiment(Read),
        "/experiments/get-by-name" => ExperimentByName,
        "/experiments/search" => Filtered,
        "/experiments/update" => RenameExperiment,
        "/experiments/delete" | "/experiments/restore" => Experiment(Manage),
        "/experiments/set-experiment-tag" | "/experiments/delete-experiment-tag" => {
            Experiment(Edit)
        }
        "/runs/create" => Experiment(Edit),
        "/runs/get" | "/metrics/get-history" => Run(Read),
        "/runs/update"
        | "/runs/delete"
        | "/runs/restore"
        | "/runs/log-metric"
        | "/runs/log-parameter"
        | "/runs/set-tag"
        | "/runs/delete-tag"
        | "/runs/log-batch"
        | "/runs/log-inputs" => Run(Edit),
        "/runs/search" => SearchRuns,
        "/metrics/get-history-bulk-interval" => Runs,
        "/logged-models/search" => SignedIn,
        "/users/permissions/grant" | "/users/permissions/revoke" => ManageResource,
        "/users/permissions/get" => GetUserPermission,
        _ => return None,
    })
}

/// Applies `policy` to a decoded request of `caller`.
pub fn enforce(
    conn: &Connection,
    caller: &Caller,
    policy: Policy,
    f: &Fields,
) -> Result<(), Error> {
    match policy {
        Policy::SignedIn | Policy::Filtered => Ok(()),
        Policy::Experiment(need) => {
            let id = parse_id(&f.req_str("experiment_id")?)?;
            perm::require_experiment(conn, caller, id, need).map(drop)
        }
        Policy::ExperimentByName => {
            let name = f.req_str("experiment_name")?;
            let id: Option<i64> = conn
                .prepare_cached("SELECT experiment_id FROM experiments WHERE name = ?1")?
                .query_row([&name], |r| r.get(0))
                .optional()?;
            let id = id.ok_or_else(|| {
                Error::NotFound(format!("Could not find experiment with name {name}"))
            })?;
            perm::require_experiment(conn, caller, id, Level::CanRead).map(drop)
        }
        Policy::Run(need) => perm::require_run(conn, caller, &f.run_id()?, need).map(drop),
        Policy::Runs => each_known_run(conn, caller, &f.str_list("run_ids")?),
        Policy::SearchRuns => each_known_experiment(conn, caller, &f.str_list("experiment_ids")?),
        Policy::CreateExperiment => perm::may_create(caller, &f.req_str("name")?),
        Policy::RenameExperiment => {
            let id = parse_id(&f.req_str("experiment_id")?)?;
            perm::require_rename(conn, caller, id, &f.req_str("new_name")?).map(drop)
        }
        Policy::ManageResource => {
            let id = super::permissions::experiment_resource(f)?;
            perm::require_experiment(conn, caller, id, Level::CanManage).map(drop)
        }
        Policy::GetUserPermission => {
            let id = super::permissions::experiment_resource(f)?;
            if caller.is_admin || f.req_str("username")? == caller.username {
                return Ok(());
            }
            perm::require_experiment(conn, caller, id, Level::CanManage).map(drop)
        }
    }
}

fn each_known_run(conn: &Connection, caller: &Caller, run_ids: &[String]) -> Result<(), Error> {
    for run_id in run_ids {
        match perm::require_run(conn, caller, run_id, Level::CanRead) {
            Ok(_) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn each_known_experiment(conn: &Connection, caller: &Caller, ids: &[String]) -> Result<(), Error> {
    // Ids that are not numbers name no experiment, so they match nothing.
    for id in ids.iter().filter_map(|id| id.trim().parse::<i64>().ok()) {
        match perm::require_experiment(conn, caller, id, Level::CanRead) {
            Ok(_) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
