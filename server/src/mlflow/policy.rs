//! The MLflow dialect's policies: every endpoint declares one in the route table
//! (`super::dialect`), and [`super::request::Msg`] applies it to the decoded message
//! before the handler runs.

use crate::db::Conn;
use api_types::Level;

use super::fields::Fields;
use super::registry::policy as registry;
use crate::auth::Caller;
use crate::models::logged;
use crate::permissions as perm;
pub(crate) use crate::routes::MlflowPolicy as Policy;
use crate::tracking::experiments::{find_id_by_name, parse_id};
use crate::Error;

/// Most experiment ids in one `runs/search`.
pub(crate) const MAX_SEARCH_EXPERIMENTS: usize = 10_000;

/// The experiment id named by `resource_type` / `resource_id` (experiments here;
/// registered models in `registry::policy::resource`; anything else is MLflow's
/// INVALID_PARAMETER_VALUE).
pub(crate) fn experiment_resource(f: &Fields) -> Result<i64, Error> {
    let kind = f.req_str("resource_type")?;
    if kind != "experiment" {
        return Err(Error::InvalidParameter(format!(
            "resource_type '{kind}' is not supported by the per-user permission convenience \
             APIs; runlens supports 'experiment' and 'registered_model'."
        )));
    }
    let id = f.req_str("resource_id")?;
    if id == "*" {
        return Err(Error::InvalidParameter(
            "Wildcard resource_id '*' is not supported; grant per experiment.".into(),
        ));
    }
    parse_id(&id)
}

fn require_admin(caller: &Caller) -> Result<(), Error> {
    if caller.is_admin {
        return Ok(());
    }
    Err(Error::PermissionDenied {
        message: "Permission denied: only administrators can manage users.".into(),
        grantors: Vec::new(),
    })
}

/// Applies `policy` to a decoded request of `caller`.
pub(crate) fn enforce(
    conn: &Conn,
    caller: &Caller,
    policy: Policy,
    f: &Fields,
) -> Result<(), Error> {
    match policy {
        Policy::SignedIn | Policy::Filtered => Ok(()),
        Policy::Admin => require_admin(caller),
        Policy::SelfOrAdmin => match f.req_str("username")? == caller.username {
            true => Ok(()),
            false => require_admin(caller),
        },
        Policy::Experiment(need) => {
            let id = parse_id(&f.req_str("experiment_id")?)?;
            perm::require_experiment(conn, caller, id, need).map(drop)
        }
        Policy::ExperimentByName => {
            let name = f.req_str("experiment_name")?;
            let id = find_id_by_name(conn, &name)?.ok_or_else(|| {
                Error::NotFound(format!("Could not find experiment with name {name}"))
            })?;
            perm::require_experiment(conn, caller, id, Level::CanRead).map(drop)
        }
        Policy::Run(need) => perm::require_run(conn, caller, &f.run_id()?, need).map(drop),
        Policy::Runs => {
            let ids = f.str_list("run_ids")?;
            // The handler answers with MLflow's message; never check 250,000 ids first.
            if ids.len() > crate::tracking::history::MAX_BULK_RUNS {
                return Ok(());
            }
            each_known_run(conn, caller, &ids)
        }
        Policy::SearchRuns => {
            let ids = f.str_list("experiment_ids")?;
            if ids.len() > MAX_SEARCH_EXPERIMENTS {
                return Err(Error::InvalidParameter(format!(
                    "Invalid value for parameter 'experiment_ids': at most \
                     {MAX_SEARCH_EXPERIMENTS} experiment ids per search, got {}.",
                    ids.len()
                )));
            }
            each_known_experiment(conn, caller, &ids)
        }
        Policy::CreateExperiment => perm::may_create(caller, &f.req_str("name")?),
        Policy::RenameExperiment => {
            let id = parse_id(&f.req_str("experiment_id")?)?;
            perm::require_rename(conn, caller, id, &f.req_str("new_name")?).map(drop)
        }
        Policy::ManageResource => {
            if let Some(name) = registry::resource(f)? {
                return registry::manage_resource(conn, caller, &name);
            }
            let id = experiment_resource(f)?;
            perm::require_experiment(conn, caller, id, Level::CanManage).map(drop)
        }
        Policy::GetUserPermission => {
            if let Some(name) = registry::resource(f)? {
                return registry::get_user_permission(conn, caller, f, &name);
            }
            let id = experiment_resource(f)?;
            if caller.is_admin || f.req_str("username")? == caller.username {
                return Ok(());
            }
            perm::require_experiment(conn, caller, id, Level::CanManage).map(drop)
        }
        Policy::LoggedModel(need) => logged::require(conn, caller, &f.req_str("model_id")?, need),
        Policy::RegisteredModel(need) => registry::registered_model(conn, caller, f, need),
        Policy::CreateModelVersion => registry::create_version(conn, caller, f),
    }
}

fn each_known_run(conn: &Conn, caller: &Caller, run_ids: &[String]) -> Result<(), Error> {
    for run_id in run_ids {
        match perm::require_run(conn, caller, run_id, Level::CanRead) {
            Ok(_) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn each_known_experiment(conn: &Conn, caller: &Caller, ids: &[String]) -> Result<(), Error> {
    // Ids that are not numbers name no experiment, so they match nothing.
    for id in ids.iter().filter_map(|id| id.trim().parse::<i64>().ok()) {
        match perm::require_experiment(conn, caller, id, Level::CanRead) {
            Ok(_) | Err(Error::NotFound(_)) => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
