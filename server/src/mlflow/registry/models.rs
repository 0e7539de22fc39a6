//! Registered-model endpoints: create, get, update, rename, delete, search, latest
//! versions, tags and aliases.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::super::request::Msg;
use super::super::{max_results, read, write};
use super::wire;
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::registry::{aliases, grants, models, search, validate, versions, Stage};
use crate::tracking::page_token;
use crate::AppState;

type Reply = Result<Json<Value>, MlflowError>;

/// `POST registered-models/create`: any signed-in user; the creator gets MANAGE.
pub(crate) async fn create(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let description = f.opt_str("description")?;
    let tags = f.key_values("tags")?;
    let rm = write(&s, move |c| {
        let id = models::create(c, &name, description.as_deref(), &tags, &caller.username)?;
        grants::grant_creator(c, id, caller.user_id)?;
        models::get(c, &name)
    })
    .await?;
    Ok(Json(json!({ "registered_model": wire::model(&rm) })))
}

/// `GET registered-models/get`
pub(crate) async fn get(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let rm = read(&s, move |c| models::get(c, &name)).await?;
    Ok(Json(json!({ "registered_model": wire::model(&rm) })))
}

/// `PATCH registered-models/update`: sets the description (absent: cleared, as MLflow).
pub(crate) async fn update(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let description = f.opt_str("description")?;
    let rm = write(&s, move |c| {
        models::set_description(c, &name, description.as_deref())
    })
    .await?;
    Ok(Json(json!({ "registered_model": wire::model(&rm) })))
}

/// `POST registered-models/rename`: versions, aliases, tags and grants go along.
pub(crate) async fn rename(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let new_name = f.opt_str("new_name")?.unwrap_or_default();
    let rm = write(&s, move |c| models::rename(c, &name, &new_name)).await?;
    Ok(Json(json!({ "registered_model": wire::model(&rm) })))
}

/// `DELETE registered-models/delete`
pub(crate) async fn delete(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    write(&s, move |c| models::delete(c, &name)).await?;
    Ok(Json(json!({})))
}

/// `GET registered-models/search`: only models the caller may read (pages included).
pub(crate) async fn search(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let limit = max_results(&f, search::MODELS_DEFAULT, search::MODELS_MAX)?;
    let offset = page_token::decode(f.opt_str("page_token")?.as_deref())?;
    let filter = f.opt_str("filter")?.unwrap_or_default();
    let order_by = f.str_list("order_by")?;
    let readable = grants::readable_sql(s.store.engine(), &caller, "r.registered_model_id");
    let mut found = read(&s, move |c| {
        search::search_models(c, &readable, &filter, &order_by, offset, limit + 1)
    })
    .await?;
    let more = found.len() > limit;
    found.truncate(limit);
    let mut body = json!({});
    if !found.is_empty() {
        body["registered_models"] = found.iter().map(wire::model).collect();
    }
    if more {
        body["next_page_token"] = json!(page_token::encode(offset + limit));
    }
    Ok(Json(body))
}

/// `POST|GET registered-models/get-latest-versions`: the latest version of each of
/// `stages` (every stage when none).
pub(crate) async fn latest_versions(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let stages = f
        .str_list("stages")?
        .iter()
        .map(|s| Stage::parse(s))
        .collect::<Result<Vec<_>, _>>()?;
    let list = read(&s, move |c| versions::latest_versions(c, &name, &stages)).await?;
    let mut body = json!({});
    if !list.is_empty() {
        body["model_versions"] = list.iter().map(wire::version).collect();
    }
    Ok(Json(body))
}

/// `POST registered-models/set-tag`
pub(crate) async fn set_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let key = f.req_str("key")?;
    let value = f.opt_str("value")?.unwrap_or_default();
    write(&s, move |c| models::set_tag(c, &name, &key, &value)).await?;
    Ok(Json(json!({})))
}

/// `DELETE registered-models/delete-tag`
pub(crate) async fn delete_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let key = f.req_str("key")?;
    write(&s, move |c| models::delete_tag(c, &name, &key)).await?;
    Ok(Json(json!({})))
}

/// `POST registered-models/alias`
pub(crate) async fn set_alias(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let alias = f.req_str("alias")?;
    let version = validate::version(&f.req_str("version")?)?;
    write(&s, move |c| aliases::set(c, &name, &alias, version)).await?;
    Ok(Json(json!({})))
}

/// `DELETE registered-models/alias`
pub(crate) async fn delete_alias(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let alias = f.req_str("alias")?;
    write(&s, move |c| aliases::delete(c, &name, &alias)).await?;
    Ok(Json(json!({})))
}

/// `GET registered-models/alias`: the version an alias names (`latest`: the newest).
pub(crate) async fn get_by_alias(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("name")?;
    let alias = f.req_str("alias")?;
    let mv = read(&s, move |c| aliases::version_of(c, &name, &alias)).await?;
    Ok(Json(json!({ "model_version": wire::version(&mv) })))
}
