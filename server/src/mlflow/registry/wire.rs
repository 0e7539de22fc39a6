//! The registry's JSON shapes, as MLflow's server writes them (`RegisteredModel`,
//! `ModelVersion` of `model_registry.proto`): versions as strings, empty repeated fields
//! left out, a version's `description`, `run_id` and `run_link` always present.

use serde_json::{json, Map, Value};

use crate::registry::{ModelVersion, RegisteredModel};

fn tags(list: &[(String, String)]) -> Value {
    Value::Array(
        list.iter()
            .map(|(k, v)| json!({"key": k, "value": v}))
            .collect(),
    )
}

/// A model version. Never a `user_id`: MLflow's server leaves it empty (runlens keeps who
/// registered a version for its own Models pages only). `aliases` only where `mv` holds
/// them (not in `model-versions/search`, as in MLflow).
pub(crate) fn version(mv: &ModelVersion) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(mv.name));
    m.insert("version".into(), json!(mv.version.to_string()));
    m.insert("creation_timestamp".into(), json!(mv.creation_time));
    m.insert("last_updated_timestamp".into(), json!(mv.last_updated_time));
    m.insert("current_stage".into(), json!(mv.stage.as_str()));
    m.insert("description".into(), json!(mv.description));
    m.insert("source".into(), json!(mv.source));
    m.insert("run_id".into(), json!(mv.run_id.as_deref().unwrap_or("")));
    m.insert("status".into(), json!(mv.status));
    if !mv.tags.is_empty() {
        m.insert("tags".into(), tags(&mv.tags));
    }
    m.insert("run_link".into(), json!(mv.run_link));
    if !mv.aliases.is_empty() {
        m.insert("aliases".into(), json!(mv.aliases));
    }
    if let Some(id) = &mv.model_id {
        m.insert("model_id".into(), json!(id));
    }
    Value::Object(m)
}

/// A registered model with its latest versions, tags and aliases.
pub(crate) fn model(rm: &RegisteredModel) -> Value {
    let mut m = Map::new();
    m.insert("name".into(), json!(rm.name));
    m.insert("creation_timestamp".into(), json!(rm.creation_time));
    m.insert("last_updated_timestamp".into(), json!(rm.last_updated_time));
    if let Some(d) = rm.description.as_deref().filter(|d| !d.is_empty()) {
        m.insert("description".into(), json!(d));
    }
    if !rm.latest_versions.is_empty() {
        let latest: Vec<Value> = rm.latest_versions.iter().map(version).collect();
        m.insert("latest_versions".into(), Value::Array(latest));
    }
    if !rm.tags.is_empty() {
        m.insert("tags".into(), tags(&rm.tags));
    }
    if !rm.aliases.is_empty() {
        let aliases: Vec<Value> = rm
            .aliases
            .iter()
            .map(|(a, v)| json!({"alias": a, "version": v.to_string()}))
            .collect();
        m.insert("aliases".into(), Value::Array(aliases));
    }
    Value::Object(m)
}
