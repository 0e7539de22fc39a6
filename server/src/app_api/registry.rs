//! The Models pages: registered models the caller may read (`GET /registered-models`) and
//! one model with every version (`GET /registered-models/{name}`).

use api_types::models::{
    ModelVersionInfo, RegisteredModelDetail, RegisteredModelList, RegisteredModelSummary,
};
use api_types::{KeyValue, Level};
use axum::extract::State;
use axum::Json;

use super::guard::{RegisteredModelGuard, READ};
use super::query::QueryParams;
use crate::auth::Caller;
use crate::db::Conn;
use crate::registry::{grants, models, versions, ModelVersion, RegisteredModel};
use crate::tracking::page_token;
use crate::{AppState, Error};

/// Models per page of the list.
pub(crate) const PAGE_SIZE: usize = 100;

fn key_values(list: &[(String, String)]) -> Vec<KeyValue> {
    list.iter()
        .map(|(key, value)| KeyValue {
            key: key.clone(),
            value: value.clone(),
        })
        .collect()
}

fn summary(c: &Conn, m: &RegisteredModel) -> Result<RegisteredModelSummary, Error> {
    let (version_count, latest) = versions::count_and_latest(c, m.id)?;
    Ok(RegisteredModelSummary {
        name: m.name.clone(),
        description: m.description.clone().unwrap_or_default(),
        creation_time: m.creation_time,
        last_updated_time: m.last_updated_time,
        version_count,
        latest_version: latest.map(|v| v.to_string()),
        aliases: m
            .aliases
            .iter()
            .map(|(alias, v)| KeyValue {
                key: alias.clone(),
                value: v.to_string(),
            })
            .collect(),
        tags: key_values(&m.tags),
    })
}

fn version_info(mv: ModelVersion) -> ModelVersionInfo {
    ModelVersionInfo {
        version: mv.version.to_string(),
        source: mv.source,
        run_id: mv.run_id.filter(|r| !r.is_empty()),
        model_id: mv.model_id,
        status: mv.status,
        stage: mv.stage.as_str().to_string(),
        aliases: mv.aliases,
        description: mv.description,
        user_id: mv.user_id,
        creation_time: mv.creation_time,
        tags: key_values(&mv.tags),
    }
}

/// `GET /api/v1/registered-models?q=&page_token=`: the models the caller may read whose
/// name contains `q` (case-insensitive), by name, [`PAGE_SIZE`] per page.
pub(crate) async fn list_registered_models(
    State(state): State<AppState>,
    caller: Caller,
    query: QueryParams,
) -> Result<Json<RegisteredModelList>, Error> {
    let needle = query.get("q").unwrap_or("").to_string();
    let offset = page_token::decode(query.get("page_token"))?;
    let readable = grants::readable_sql(state.store.engine(), &caller, "r.registered_model_id");
    let (models, more) = state
        .store
        .call(move |c| {
            let mut found = models::list(c, &readable, &needle, offset, PAGE_SIZE + 1)?;
            let more = found.len() > PAGE_SIZE;
            found.truncate(PAGE_SIZE);
            let list = found
                .iter()
                .map(|m| summary(c, m))
                .collect::<Result<Vec<_>, _>>()?;
            Ok((list, more))
        })
        .await?;
    Ok(Json(RegisteredModelList {
        models,
        next_page_token: more.then(|| page_token::encode(offset + PAGE_SIZE)),
    }))
}

/// `GET /api/v1/registered-models/{name}`: the model and every version, newest first.
pub(crate) async fn get_registered_model(
    State(state): State<AppState>,
    guard: RegisteredModelGuard<READ>,
) -> Result<Json<RegisteredModelDetail>, Error> {
    let (name, id, level) = (guard.name, guard.id, guard.level);
    let detail = state
        .store
        .call(move |c| {
            let m = models::get(c, &name)?;
            let versions = versions::all_of(c, id)?
                .into_iter()
                .map(version_info)
                .collect();
            Ok(RegisteredModelDetail {
                model: summary(c, &m)?,
                versions,
                can_edit: level >= Level::CanEdit,
                can_manage: level >= Level::CanManage,
            })
        })
        .await?;
    Ok(Json(detail))
}
