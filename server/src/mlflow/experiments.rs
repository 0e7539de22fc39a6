//! Experiment endpoints: create, get, get-by-name, search, update, delete, restore and tags.

use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::fields::Fields;
use super::request::Msg;
use super::wire::ExperimentJson;
use super::{max_results, read, write};
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::tracking::filter::check_order_by_len;
use crate::tracking::search::search_experiments as search;
use crate::tracking::{experiments, page_token, ViewType};
use crate::{permissions, AppState};

type Reply = Result<Json<Value>, MlflowError>;

fn experiment_id(f: &Fields) -> Result<i64, MlflowError> {
    Ok(experiments::parse_id(&f.req_str("experiment_id")?)?)
}

/// `POST experiments/create`
/// (anywhere but another user's `/Users/<other>/`; the creator gets CAN_MANAGE)
pub(crate) async fn create_experiment(
    State(s): State<AppState>,
    caller: Caller,
    Msg(f): Msg,
) -> Reply {
    let name = f.req_str("name")?;
    let location = f.opt_str("artifact_location")?;
    let tags = f.key_values("tags")?;
    let id = write(&s, move |c| {
        let id = experiments::create(c, &name, location.as_deref(), &tags)?;
        permissions::grant_creator(c, id, caller.user_id)?;
        Ok(id)
    })
    .await?;
    Ok(Json(json!({ "experiment_id": id.to_string() })))
}

/// `GET experiments/get`
pub(crate) async fn get_experiment(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    let exp = read(&s, move |c| experiments::get(c, id)).await?;
    Ok(Json(json!({ "experiment": ExperimentJson::from(exp) })))
}

/// `GET experiments/get-by-name`
pub(crate) async fn get_experiment_by_name(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let name = f.req_str("experiment_name")?;
    let exp = read(&s, move |c| experiments::get_by_name(c, &name)).await?;
    Ok(Json(json!({ "experiment": ExperimentJson::from(exp) })))
}

/// `POST|GET experiments/search`: only experiments the caller may read (pages included).
pub(crate) async fn search_experiments(
    State(s): State<AppState>,
    caller: Caller,
    Msg(f): Msg,
) -> Reply {
    let limit = max_results(&f, 1000, 50000)?;
    let offset = page_token::decode(f.opt_str("page_token")?.as_deref())?;
    let filter = f.opt_str("filter")?.unwrap_or_default();
    let order_by = f.str_list("order_by")?;
    check_order_by_len(&order_by)?;
    let view = f
        .opt_enum("view_type", ViewType::parse)?
        .unwrap_or_default();
    let readable =
        permissions::readable_sql(s.store.engine(), &caller, "e.experiment_id", "e.name");
    let mut exps = read(&s, move |c| {
        search(c, &readable, &filter, &order_by, view, offset, limit + 1)
    })
    .await?;
    let more = exps.len() > limit;
    exps.truncate(limit);
    let mut body = json!({});
    if !exps.is_empty() {
        let list: Vec<ExperimentJson> = exps.into_iter().map(Into::into).collect();
        body["experiments"] = json!(list);
    }
    if more {
        body["next_page_token"] = json!(page_token::encode(offset + limit));
    }
    Ok(Json(body))
}

/// `POST experiments/update`
pub(crate) async fn update_experiment(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    let new_name = f.req_str("new_name")?;
    write(&s, move |c| experiments::rename(c, id, &new_name)).await?;
    Ok(Json(json!({})))
}

/// `POST experiments/delete`
pub(crate) async fn delete_experiment(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    write(&s, move |c| experiments::set_deleted(c, id, true)).await?;
    Ok(Json(json!({})))
}

/// `POST experiments/restore`
pub(crate) async fn restore_experiment(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    write(&s, move |c| experiments::set_deleted(c, id, false)).await?;
    Ok(Json(json!({})))
}

/// `POST experiments/set-experiment-tag`
pub(crate) async fn set_experiment_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    let key = f.req_str("key")?;
    let value = f.req_str("value")?;
    write(&s, move |c| experiments::set_tag(c, id, &key, &value)).await?;
    Ok(Json(json!({})))
}

/// `POST experiments/delete-experiment-tag`
pub(crate) async fn delete_experiment_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let id = experiment_id(&f)?;
    let key = f.req_str("key")?;
    write(&s, move |c| experiments::delete_tag(c, id, &key)).await?;
    Ok(Json(json!({})))
}
