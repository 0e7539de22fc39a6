//! Run endpoints: create, get, update, delete, restore and search. Creates and changes go
//! to the live bus (`crate::live`) after the commit.

use axum::extract::State;
use axum::Json;
use serde::Serialize;
use serde_json::{json, Value};

use super::request::Msg;
use super::wire::{RunInfoJson, RunJson};
use super::{max_results, read, write};
use crate::error::MlflowError;
use crate::models::inputs::{of_run, of_runs};
use crate::tracking::filter::check_order_by_len;
use crate::tracking::model::RunStatus;
use crate::tracking::runs::{self, NewRun};
use crate::tracking::validation::{validate_run_name, validate_user_id};
use crate::tracking::{experiments, page_token, search, ViewType};
use crate::AppState;

type Reply = Result<Json<Value>, MlflowError>;

/// Parses a run status by name or protobuf number (1..=5).
fn parse_status(s: &str) -> Option<RunStatus> {
    RunStatus::parse(s).or_else(|| {
        let n: usize = s.parse().ok()?;
        RunStatus::ALL.get(n.checked_sub(1)?).copied()
    })
}

/// `POST runs/create`
pub(crate) async fn create_run(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let experiment_id = experiments::parse_id(&f.req_str("experiment_id")?)?;
    let user_id = f.opt_str("user_id")?.unwrap_or_default();
    validate_user_id(&user_id)?;
    let run_name = f.opt_str("run_name")?;
    run_name.as_deref().map(validate_run_name).transpose()?;
    let new = NewRun {
        experiment_id,
        user_id,
        run_name,
        start_time: f.opt_i64("start_time")?,
        tags: f.key_values("tags")?,
    };
    let run = write(&s, move |c| {
        let id = runs::create(c, new)?;
        runs::get(c, &id)
    })
    .await?;
    s.live.run_changed(&run.info);
    Ok(Json(json!({ "run": RunJson::from(run) })))
}

/// `GET runs/get`
pub(crate) async fn get_run(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let (run, io) = read(&s, move |c| {
        Ok((runs::get(c, &run_id)?, of_run(c, &run_id)?))
    })
    .await?;
    Ok(Json(json!({ "run": RunJson::with_io(run, io) })))
}

/// `POST runs/update`
pub(crate) async fn update_run(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let status = f.opt_enum("status", parse_status)?;
    let end_time = f.opt_i64("end_time")?;
    let run_name = f.opt_str("run_name")?;
    run_name.as_deref().map(validate_run_name).transpose()?;
    let info = write(&s, move |c| {
        runs::update(c, &run_id, status, end_time, run_name.as_deref())
    })
    .await?;
    s.live.run_changed(&info);
    Ok(Json(json!({ "run_info": RunInfoJson::from(info) })))
}

/// `POST runs/delete`
pub(crate) async fn delete_run(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    set_deleted(s, f.run_id()?, true).await
}

/// `POST runs/restore`
pub(crate) async fn restore_run(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    set_deleted(s, f.run_id()?, false).await
}

/// Deletes or restores a run, then tells the live streams.
async fn set_deleted(s: AppState, run_id: String, deleted: bool) -> Reply {
    let listening = s.live.listening();
    let info = write(&s, move |c| {
        runs::set_deleted(c, &run_id, deleted)?;
        listening.then(|| runs::get_info(c, &run_id)).transpose()
    })
    .await?;
    if let Some(info) = info {
        s.live.run_changed(&info);
    }
    Ok(Json(json!({})))
}

/// The `runs/search` answer.
#[derive(Serialize)]
pub(crate) struct SearchRuns {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    runs: Vec<RunJson>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next_page_token: Option<String>,
}

/// `POST runs/search`. Page tokens are keyset positions (the last run's sort-key values,
/// see `tracking::search::search_run_page`), so a page costs the same however deep it is;
/// still opaque base64 to clients.
pub(crate) async fn search_runs(
    State(s): State<AppState>,
    Msg(f): Msg,
) -> Result<Json<SearchRuns>, MlflowError> {
    // Ids that are not numbers name no experiment, so they match nothing.
    let experiment_ids: Vec<i64> = f
        .str_list("experiment_ids")?
        .iter()
        .filter_map(|id| id.trim().parse().ok())
        .collect();
    let filter = f.opt_str("filter")?.unwrap_or_default();
    let order_by = f.str_list("order_by")?;
    check_order_by_len(&order_by)?;
    let view = f
        .opt_enum("run_view_type", ViewType::parse)?
        .unwrap_or_default();
    let limit = max_results(&f, 1000, 50000)?;
    let token = f.opt_str("page_token")?.filter(|t| !t.is_empty());
    // An offset token (`{"offset": N}`, from a runlens before keyset pages) is still honoured.
    let offset = token
        .as_deref()
        .and_then(|t| page_token::decode(Some(t)).ok());
    let (found, mut io, next_page_token) = read(&s, move |c| {
        let (ids, next) = match offset {
            Some(offset) => {
                let mut ids = search::search_run_ids(
                    c,
                    &experiment_ids,
                    &filter,
                    &order_by,
                    view,
                    offset,
                    limit + 1,
                )?;
                let more = ids.len() > limit;
                ids.truncate(limit);
                (ids, more.then(|| page_token::encode(offset + limit)))
            }
            None => {
                let page = search::search_run_page(
                    c,
                    &search::RunQuery {
                        experiment_ids: &experiment_ids,
                        filter: &filter,
                        order_by: &order_by,
                        view,
                    },
                    token.as_deref(),
                    limit,
                    false,
                )?;
                (page.ids, page.next_page_token)
            }
        };
        Ok((runs::load_runs(c, &ids)?, of_runs(c, &ids)?, next))
    })
    .await?;
    Ok(Json(SearchRuns {
        runs: found
            .into_iter()
            .map(|r| {
                let run_io = io.remove(&r.info.run_id).unwrap_or_default();
                RunJson::with_io(r, run_io)
            })
            .collect(),
        next_page_token,
    }))
}
