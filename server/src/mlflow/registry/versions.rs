//! Model-version endpoints: create, get, update, delete, search, download URI, stage
//! transitions and tags.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::super::request::Msg;
use super::super::{max_results, read, write};
use super::{policy, wire};
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::mlflow::fields::Fields;
use crate::registry::versions::NewVersion;
use crate::registry::{grants, logged_tag, search, source, validate, versions, Stage};
use crate::tracking::page_token;
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

fn name_and_version(f: &Fields) -> Result<(String, i64), Error> {
    let name = f.req_str("name")?;
    let version = validate::version(&f.req_str("version")?)?;
    Ok((name, version))
}

/// `POST model-versions/create`: EDIT on the model and READ on the source (see
/// `policy::create_version`); the version is READY at once.
pub(crate) async fn create(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let req = policy::source_request(&f)?;
    let mut new = NewVersion {
        run_link: f.opt_str("run_link")?.unwrap_or_default(),
        description: f.opt_str("description")?.unwrap_or_default(),
        tags: f.key_values("tags")?,
        user_id: caller.username.clone(),
        ..NewVersion::default()
    };
    let mv = write(&s, move |c| {
        let resolved = source::resolve(c, &req)?;
        new.source = resolved.source;
        new.storage_location = resolved.storage_location;
        new.run_id = resolved.run_id;
        new.model_id = resolved.model_id;
        let mv = versions::create(c, &name, &new)?;
        if let Some(model_id) = &mv.model_id {
            logged_tag::tag_logged_model(c, model_id, &name, mv.version)?;
        }
        Ok(mv)
    })
    .await?;
    Ok(Json(json!({ "model_version": wire::version(&mv) })))
}

/// `GET model-versions/get`
pub(crate) async fn get(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let mv = read(&s, move |c| versions::get(c, &name, version)).await?;
    Ok(Json(json!({ "model_version": wire::version(&mv) })))
}

/// `PATCH model-versions/update`: sets the description.
pub(crate) async fn update(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let description = f.opt_str("description")?;
    let mv = write(&s, move |c| {
        versions::set_description(c, &name, version, description.as_deref())
    })
    .await?;
    Ok(Json(json!({ "model_version": wire::version(&mv) })))
}

/// `POST model-versions/transition-stage`
pub(crate) async fn transition_stage(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let stage = Stage::parse(&f.req_str("stage")?)?;
    let archive = f.opt_bool("archive_existing_versions")?.unwrap_or(false);
    let mv = write(&s, move |c| {
        versions::transition(c, &name, version, stage, archive)
    })
    .await?;
    Ok(Json(json!({ "model_version": wire::version(&mv) })))
}

/// `DELETE model-versions/delete`
pub(crate) async fn delete(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    write(&s, move |c| versions::delete(c, &name, version)).await?;
    Ok(Json(json!({})))
}

/// `GET model-versions/get-download-uri`: where the version's files are (for a logged
/// model, its `mlflow-artifacts:/` location, which the stock client downloads through the
/// artifact proxy).
pub(crate) async fn download_uri(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let uri = read(&s, move |c| versions::download_uri(c, &name, version)).await?;
    Ok(Json(json!({ "artifact_uri": uri })))
}

/// `GET model-versions/search`: only versions of models the caller may read.
pub(crate) async fn search(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let limit = max_results(&f, search::VERSIONS_DEFAULT, search::VERSIONS_MAX)?;
    let offset = page_token::decode(f.opt_str("page_token")?.as_deref())?;
    let filter = f.opt_str("filter")?.unwrap_or_default();
    let order_by = f.str_list("order_by")?;
    let readable = grants::readable_sql(s.store.engine(), &caller, "v.registered_model_id");
    let mut found = read(&s, move |c| {
        search::search_versions(c, &readable, &filter, &order_by, offset, limit + 1)
    })
    .await?;
    let more = found.len() > limit;
    found.truncate(limit);
    let mut body = json!({});
    if !found.is_empty() {
        body["model_versions"] = found.iter().map(wire::version).collect();
    }
    if more {
        body["next_page_token"] = json!(page_token::encode(offset + limit));
    }
    Ok(Json(body))
}

/// `POST model-versions/set-tag`
pub(crate) async fn set_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let key = f.req_str("key")?;
    let value = f.opt_str("value")?.unwrap_or_default();
    write(&s, move |c| {
        versions::set_tag(c, &name, version, &key, &value)
    })
    .await?;
    Ok(Json(json!({})))
}

/// `DELETE model-versions/delete-tag`
pub(crate) async fn delete_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let (name, version) = name_and_version(&f)?;
    let key = f.req_str("key")?;
    write(&s, move |c| versions::delete_tag(c, &name, version, &key)).await?;
    Ok(Json(json!({})))
}
