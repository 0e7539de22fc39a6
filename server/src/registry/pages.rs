//! What the app's Models pages show of the registry: a page of the registered models the
//! caller may read, and one model with every version.

use api_types::models::{
    ModelVersionInfo, RegisteredModelDetail, RegisteredModelList, RegisteredModelSummary,
};
use api_types::{KeyValue, Level};

use super::{grants, models, versions, ModelVersion, RegisteredModel};
use crate::auth::Caller;
use crate::db::Conn;
use crate::tracking::page_token;
use crate::Error;

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

/// The registered models `caller` may read whose name contains `needle`
/// (case-insensitive), by name, [`PAGE_SIZE`] from `offset`.
pub(crate) fn list_page(
    c: &Conn,
    caller: &Caller,
    needle: &str,
    offset: usize,
) -> Result<RegisteredModelList, Error> {
    let readable = grants::readable_sql(c.engine(), caller, "r.registered_model_id");
    let mut found = models::list(c, &readable, needle, offset, PAGE_SIZE + 1)?;
    let more = found.len() > PAGE_SIZE;
    found.truncate(PAGE_SIZE);
    let models = found
        .iter()
        .map(|m| summary(c, m))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RegisteredModelList {
        models,
        next_page_token: more.then(|| page_token::encode(offset + PAGE_SIZE)),
    })
}

/// Registered model `name` (id `id`) and every version, newest first, with what `level`
/// (the caller's) lets them do.
pub(crate) fn detail(
    c: &Conn,
    name: &str,
    id: i64,
    level: Level,
) -> Result<RegisteredModelDetail, Error> {
    let m = models::get(c, name)?;
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
}
