//! MLflow 3's logged models (`/logged-models...`) and `runs/outputs`: create, get,
//! finalize, delete, search, tags, params and the listing of a model's artifacts, with
//! MLflow's JSON and error messages. Each model follows its experiment's permissions
//! ([`Policy::LoggedModel`], applied by `models::logged::require`).

use api_types::Level;
use axum::extract::State;
use axum::Json;
use serde_json::{json, Value};

use super::fields::Fields;
use super::request::Msg;
use super::wire::LoggedModelJson;
use super::{max_results, read, write, Policy};
use crate::artifacts::{ArtifactPath, Listing};
use crate::auth::Caller;
use crate::error::MlflowError;
use crate::models::inputs::{self, ModelOutput};
use crate::models::logged::{self, NewModel, Status};
use crate::models::search::{self, DatasetFilter, OrderBy, Query};
use crate::permissions as perm;
use crate::registry::logged_tag;
use crate::routes::{Access, Route};
use crate::tracking::filter::MAX_ORDER_BY;
use crate::tracking::{experiments, page_token, runs};
use crate::{AppState, Error};

type Reply = Result<Json<Value>, MlflowError>;

/// Most models in one search page.
const MAX_SEARCH_RESULTS: usize = 50_000;

/// This module's routes.
pub(super) fn routes() -> Vec<Route> {
    use Level::{CanEdit as Edit, CanRead as Read};
    use Policy::*;
    let m = Access::Mlflow;
    let one = "/logged-models/{model_id}";
    vec![
        Route::post("/logged-models", m(Experiment(Edit)), create),
        Route::post("/logged-models/search", m(SearchRuns), search_models),
        Route::get(one, m(LoggedModel(Read)), get),
        Route::patch(one, m(LoggedModel(Edit)), finalize),
        Route::delete(one, m(LoggedModel(Edit)), delete),
        Route::patch(
            "/logged-models/{model_id}/tags",
            m(LoggedModel(Edit)),
            set_tags,
        ),
        Route::delete(
            "/logged-models/{model_id}/tags/{tag_key}",
            m(LoggedModel(Edit)),
            delete_tag,
        ),
        Route::post(
            "/logged-models/{model_id}/params",
            m(LoggedModel(Edit)),
            log_params,
        ),
        Route::get(
            "/logged-models/{model_id}/artifacts/directories",
            m(LoggedModel(Read)),
            list_artifacts,
        ),
        Route::post("/runs/outputs", m(Run(Edit)), log_outputs),
    ]
}

fn model_reply(m: logged::LoggedModel) -> Reply {
    Ok(Json(json!({ "model": LoggedModelJson::from(m) })))
}

/// MLflow's rule for model names: non-empty, none of `/ : . % " '`.
fn validate_name(name: &str) -> Result<(), Error> {
    const BAD: [char; 6] = ['/', ':', '.', '%', '"', '\''];
    if name.is_empty() || name.contains(BAD) {
        return Err(Error::InvalidParameter(format!(
            "Invalid model name ('{name}') provided. Model name must be a non-empty string and \
             cannot contain the following characters: ('/', ':', '.', '%', '\"', \"'\")"
        )));
    }
    crate::tracking::validation::validate_length("Model name", name, 500)
}

/// `POST logged-models`: a new model, `LOGGED_MODEL_PENDING`. A source run the caller
/// cannot read is refused (as MLflow's auth app does).
async fn create(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let experiment_id = experiments::parse_id(&f.req_str("experiment_id")?)?;
    let name = f.opt_str("name")?.filter(|n| !n.is_empty());
    name.as_deref().map(validate_name).transpose()?;
    let new = NewModel {
        experiment_id,
        name,
        model_type: f.opt_str("model_type")?,
        source_run_id: f.opt_str("source_run_id")?.filter(|r| !r.is_empty()),
        params: f.key_values("params")?,
        tags: f.key_values("tags")?,
        creator: caller.username.clone(),
    };
    let model = write(&s, move |c| {
        if let Some(run_id) = &new.source_run_id {
            match perm::require_run(c, &caller, run_id, Level::CanRead) {
                Ok(_) | Err(Error::NotFound(_)) => {}
                Err(e) => return Err(e),
            }
        }
        let mut model = logged::create(c, new)?;
        logged_tag::hide_unreadable(c, &caller, std::slice::from_mut(&mut model))?;
        Ok(model)
    })
    .await?;
    model_reply(model)
}

/// `GET logged-models/{model_id}` (`allow_deleted=true` finds deleted ones too).
async fn get(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let allow_deleted = f.opt_bool("allow_deleted")?.unwrap_or(false);
    let model = read(&s, move |c| {
        let mut model = logged::get_with(c, &model_id, allow_deleted)?;
        logged_tag::hide_unreadable(c, &caller, std::slice::from_mut(&mut model))?;
        Ok(model)
    })
    .await?;
    model_reply(model)
}

/// `PATCH logged-models/{model_id}`: sets the status (finalize).
async fn finalize(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let status = f
        .opt_enum("status", Status::parse)?
        .ok_or_else(|| f.missing("status"))?;
    let model = write(&s, move |c| {
        let mut model = logged::finalize(c, &model_id, status)?;
        logged_tag::hide_unreadable(c, &caller, std::slice::from_mut(&mut model))?;
        Ok(model)
    })
    .await?;
    model_reply(model)
}

/// `DELETE logged-models/{model_id}`
async fn delete(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    write(&s, move |c| logged::delete(c, &model_id)).await?;
    Ok(Json(json!({})))
}

/// `PATCH logged-models/{model_id}/tags`
async fn set_tags(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let tags = f.key_values("tags")?;
    write(&s, move |c| logged::set_tags(c, &model_id, &tags)).await?;
    Ok(Json(json!({})))
}

/// `DELETE logged-models/{model_id}/tags/{tag_key}`
async fn delete_tag(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let key = f.req_str("tag_key")?;
    write(&s, move |c| logged::delete_tag(c, &model_id, &key)).await?;
    Ok(Json(json!({})))
}

/// `POST logged-models/{model_id}/params`
async fn log_params(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let params = f.key_values("params")?;
    write(&s, move |c| logged::log_params(c, &model_id, &params)).await?;
    Ok(Json(json!({})))
}

/// Decodes the `order_by` messages of a search.
fn order_by(f: &Fields) -> Result<Vec<OrderBy>, Error> {
    let list = f.msg_list("order_by")?;
    if list.len() > MAX_ORDER_BY {
        return Err(Error::InvalidParameter(format!(
            "Invalid value for parameter 'order_by': at most {MAX_ORDER_BY} order_by keys are \
             supported, got {}.",
            list.len()
        )));
    }
    list.iter()
        .map(|o| {
            Ok(OrderBy {
                field_name: o.req_str("field_name")?,
                ascending: o.opt_bool("ascending")?.unwrap_or(true),
                dataset_name: o.opt_str("dataset_name")?.filter(|d| !d.is_empty()),
                dataset_digest: o.opt_str("dataset_digest")?.filter(|d| !d.is_empty()),
            })
        })
        .collect()
}

/// Decodes the `datasets` messages of a search (`dataset_name` required).
fn datasets(f: &Fields) -> Result<Vec<DatasetFilter>, Error> {
    f.msg_list("datasets")?
        .iter()
        .map(
            |d| match d.opt_str("dataset_name")?.filter(|n| !n.is_empty()) {
                Some(name) => Ok(DatasetFilter {
                    name,
                    digest: d.opt_str("dataset_digest")?.filter(|x| !x.is_empty()),
                }),
                None => Err(Error::InvalidParameter(
                    "`dataset_name` in the `datasets` clause must be specified.".into(),
                )),
            },
        )
        .collect()
}

/// `POST logged-models/search`; each model's `mlflow.modelVersions` tag as the caller may
/// see it, and no filter on that tag but an administrator's (see `registry::logged_tag`).
async fn search_models(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let ids = f.str_list("experiment_ids")?;
    if ids.is_empty() {
        return Err(f.missing("experiment_ids").into());
    }
    let limit = max_results(&f, search::DEFAULT_MAX_RESULTS, MAX_SEARCH_RESULTS)?;
    let offset = page_token::decode(f.opt_str("page_token")?.as_deref())?;
    let q = Query {
        // Ids that are not numbers name no experiment, so they match nothing.
        experiment_ids: ids.iter().filter_map(|id| id.trim().parse().ok()).collect(),
        filter: f.opt_str("filter")?.unwrap_or_default(),
        datasets: datasets(&f)?,
        order_by: order_by(&f)?,
        offset,
        limit,
    };
    logged_tag::check_search_filter(&caller, &q.filter)?;
    let (models, more) = read(&s, move |c| {
        let (mut models, more) = search::search(c, &q)?;
        logged_tag::hide_unreadable(c, &caller, &mut models)?;
        Ok((models, more))
    })
    .await?;
    let mut out = serde_json::Map::new();
    if !models.is_empty() {
        let models: Vec<LoggedModelJson> = models.into_iter().map(Into::into).collect();
        out.insert("models".into(), json!(models));
    }
    if more {
        out.insert(
            "next_page_token".into(),
            json!(page_token::encode(offset + limit)),
        );
    }
    Ok(Json(Value::Object(out)))
}

/// `GET logged-models/{model_id}/artifacts/directories`: one folder level of the model's
/// artifacts (`artifact_directory_path` relative to its root), as MLflow lists them.
async fn list_artifacts(State(s): State<AppState>, Msg(f): Msg) -> Reply {
    let model_id = f.req_str("model_id")?;
    let rel = f
        .opt_str("artifact_directory_path")?
        .filter(|p| !p.is_empty());
    let model = read(&s, move |c| logged::get(c, &model_id)).await?;
    let mut out = serde_json::Map::new();
    out.insert("root_uri".into(), json!(model.artifact_uri));
    // Only `mlflow-artifacts:` roots are stored by this server; others list nothing here.
    if let Ok(root) = ArtifactPath::from_uri(&model.artifact_uri) {
        let dir = match &rel {
            Some(r) => root.join(r)?,
            None => root,
        };
        if let Listing::Dir(entries) = s.artifacts.list(&dir).await.map_err(Error::from)? {
            let files: Vec<Value> = entries
                .into_iter()
                .map(|e| {
                    let path = match &rel {
                        Some(r) => format!("{}/{}", r.trim_end_matches('/'), e.name),
                        None => e.name,
                    };
                    match (e.is_dir, e.size) {
                        (false, Some(size)) => {
                            json!({"path": path, "is_dir": false, "file_size": size})
                        }
                        (is_dir, _) => json!({"path": path, "is_dir": is_dir}),
                    }
                })
                .collect();
            if !files.is_empty() {
                out.insert("files".into(), Value::Array(files));
            }
        }
    }
    Ok(Json(Value::Object(out)))
}

/// `POST runs/outputs`: links models to the run that produced them (`models` required).
/// Models the caller may not edit are refused, as MLflow's auth app does.
async fn log_outputs(State(s): State<AppState>, caller: Caller, Msg(f): Msg) -> Reply {
    let run_id = f.run_id()?;
    let list = f.msg_list("models")?;
    if list.is_empty() {
        return Err(f.missing("models").into());
    }
    let models = list
        .iter()
        .map(|m| {
            Ok(ModelOutput {
                model_id: m.req_str("model_id")?,
                step: m.opt_i64("step")?.unwrap_or(0),
            })
        })
        .collect::<Result<Vec<_>, Error>>()?;
    write(&s, move |c| {
        runs::get_active_info(c, &run_id)?;
        for m in &models {
            logged::require_if_known(c, &caller, &m.model_id, Level::CanEdit)?;
        }
        inputs::log_outputs(c, &run_id, &models)
    })
    .await?;
    Ok(Json(json!({})))
}
