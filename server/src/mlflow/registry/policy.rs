//! The registry's policies (`Policy::RegisteredModel`, `Policy::CreateModelVersion`) and
//! the `registered_model` resource of MLflow 3's per-user permission endpoints.

use api_types::Level;

use crate::auth::Caller;
use crate::db::Conn;
use crate::mlflow::fields::Fields;
use crate::permissions as perm;
use crate::registry::source::{self, Anchor};
use crate::registry::{grants, validate};
use crate::Error;

/// The `resource_type` of registered models in `users/permissions/*`.
pub(crate) const RESOURCE_TYPE: &str = "registered_model";

/// `name` (checked) with at least `need`.
pub(crate) fn registered_model(
    conn: &Conn,
    caller: &Caller,
    f: &Fields,
    need: Level,
) -> Result<(), Error> {
    let name = f.req_str("name")?;
    validate::model_name("name", &name)?;
    grants::require(conn, caller, &name, need).map(drop)
}

/// The source fields of `model-versions/create`.
pub(crate) fn source_request(f: &Fields) -> Result<source::Request, Error> {
    Ok(source::Request {
        source: f.req_str("source")?,
        run_id: f.opt_str("run_id")?,
        model_id: f.opt_str("model_id")?,
    })
}

/// `model-versions/create`: EDIT on `name`, and READ on what the source comes from (the
/// run's or logged model's experiment, or the registered model it copies). An unknown run
/// or logged model is MLflow's 400 for a source its id does not vouch for.
pub(crate) fn create_version(conn: &Conn, caller: &Caller, f: &Fields) -> Result<(), Error> {
    registered_model(conn, caller, f, Level::CanEdit)?;
    let req = source_request(f)?;
    for anchor in source::anchors(&req) {
        let checked = match &anchor {
            Anchor::Run(id) => perm::require_run(conn, caller, id, Level::CanRead).map(drop),
            Anchor::LoggedModel(id) => crate::models::logged::experiment_of(conn, id)
                .and_then(|exp| perm::require_experiment(conn, caller, exp, Level::CanRead))
                .map(drop),
            Anchor::RegisteredModel(name) => {
                grants::require(conn, caller, name, Level::CanRead).map(drop)
            }
        };
        match (checked, &anchor) {
            (Err(Error::NotFound(_)), Anchor::Run(_)) => {
                return Err(source::unidentified(&req.source, "run_id"))
            }
            (Err(Error::NotFound(_)), Anchor::LoggedModel(_)) => {
                return Err(source::unidentified(&req.source, "model_id"))
            }
            (result, _) => result?,
        }
    }
    Ok(())
}

/// The registered model named by `resource_type` `registered_model` / `resource_id`, or
/// `None` for another resource type.
pub(crate) fn resource(f: &Fields) -> Result<Option<String>, Error> {
    if f.req_str("resource_type")? != RESOURCE_TYPE {
        return Ok(None);
    }
    let name = f.req_str("resource_id")?;
    if name == "*" {
        return Err(Error::InvalidParameter(
            "Wildcard resource_id '*' is not supported; grant per registered model.".into(),
        ));
    }
    validate::model_name("resource_id", &name)?;
    Ok(Some(name))
}

/// `users/permissions/grant|revoke` on a registered model: MANAGE on it.
pub(crate) fn manage_resource(conn: &Conn, caller: &Caller, name: &str) -> Result<(), Error> {
    grants::require(conn, caller, name, Level::CanManage).map(drop)
}

/// `users/permissions/get` on a registered model: admins, the user asked about, or its
/// managers.
pub(crate) fn get_user_permission(
    conn: &Conn,
    caller: &Caller,
    f: &Fields,
    name: &str,
) -> Result<(), Error> {
    if caller.is_admin || f.req_str("username")? == caller.username {
        return Ok(());
    }
    manage_resource(conn, caller, name)
}
