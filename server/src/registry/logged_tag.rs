//! A logged model's `mlflow.modelVersions` tag: the registered versions made from it, as
//! MLflow's server writes it on registration, and the part of it a caller may see. The
//! tag names registered models, which have their own grants: a reader of the logged
//! model's experiment sees only the entries of registered models they may read.

use std::collections::{BTreeSet, HashSet};

use serde_json::Value as Json;

use super::grants;
use crate::auth::Caller;
use crate::db::{params_from_iter, Conn, Value};
use crate::models::logged::{self, LoggedModel};
use crate::tracking::filter::parse_filter;
use crate::Error;

/// The logged-model tag listing the registered versions made from it.
pub(crate) const MODEL_VERSIONS_TAG: &str = "mlflow.modelVersions";

/// Registered-model names looked up in one statement.
const NAMES_PER_QUERY: usize = 500;

/// Adds `name` / `version` to logged model `model_id`'s [`MODEL_VERSIONS_TAG`] (a JSON list
/// of `{"name", "version"}`), as MLflow's server does when it registers a logged model
/// (nothing when the logged model was deleted since).
pub(crate) fn tag_logged_model(
    conn: &Conn,
    model_id: &str,
    name: &str,
    version: i64,
) -> Result<(), Error> {
    let model = match logged::get(conn, model_id) {
        Err(Error::NotFound(_)) => return Ok(()),
        other => other?,
    };
    let mut list = entries(&model).unwrap_or_default();
    let entry = serde_json::json!({"name": name, "version": version});
    if !list.contains(&entry) {
        list.push(entry);
    }
    let value = Json::Array(list).to_string();
    logged::set_tags(conn, model_id, &[(MODEL_VERSIONS_TAG.to_string(), value)])
}

/// The entries of `model`'s [`MODEL_VERSIONS_TAG`], if it has one that is a JSON list.
fn entries(model: &LoggedModel) -> Option<Vec<Json>> {
    let (_, value) = model.tags.iter().find(|(k, _)| k == MODEL_VERSIONS_TAG)?;
    serde_json::from_str(value).ok()
}

/// The registered model an entry names, if it names one.
fn entry_name(entry: &Json) -> Option<&str> {
    entry.get("name").and_then(Json::as_str)
}

/// Removes from each model's [`MODEL_VERSIONS_TAG`] the entries naming a registered model
/// `caller` may not read (the tag itself when none is left), so that neither the name nor
/// the registration shows. Administrators read every model: theirs stay whole. A tag that
/// is no JSON list was written by a user, not the registry, and is left as it is.
pub(crate) fn hide_unreadable(
    conn: &Conn,
    caller: &Caller,
    models: &mut [LoggedModel],
) -> Result<(), Error> {
    if caller.is_admin {
        return Ok(());
    }
    let lists: Vec<Option<Vec<Json>>> = models.iter().map(entries).collect();
    let names: BTreeSet<&str> = lists
        .iter()
        .flatten()
        .flatten()
        .filter_map(entry_name)
        .collect();
    if names.is_empty() {
        return Ok(());
    }
    let readable = readable_names(conn, caller, &names)?;
    for (model, list) in models.iter_mut().zip(lists) {
        let Some(list) = list else { continue };
        let before = list.len();
        let kept: Vec<Json> = list
            .into_iter()
            .filter(|e| entry_name(e).is_none_or(|n| readable.contains(n)))
            .collect();
        if kept.len() == before {
            continue;
        }
        if kept.is_empty() {
            model.tags.retain(|(k, _)| k != MODEL_VERSIONS_TAG);
        } else if let Some((_, value)) =
            model.tags.iter_mut().find(|(k, _)| k == MODEL_VERSIONS_TAG)
        {
            *value = Json::Array(kept).to_string();
        }
    }
    Ok(())
}

/// Those of `names` that are registered models `caller` may read.
fn readable_names(
    conn: &Conn,
    caller: &Caller,
    names: &BTreeSet<&str>,
) -> Result<HashSet<String>, Error> {
    let readable = grants::readable_sql(conn.engine(), caller, "r.registered_model_id");
    let names: Vec<&str> = names.iter().copied().collect();
    let mut out = HashSet::new();
    for chunk in names.chunks(NAMES_PER_QUERY) {
        let marks = vec!["?"; chunk.len()].join(",");
        let sql = format!(
            "SELECT r.name FROM registered_models r WHERE r.name IN ({marks}) AND {}",
            readable.sql
        );
        let mut params: Vec<Value> = chunk.iter().map(|n| Value::Text(n.to_string())).collect();
        params.extend(readable.params.iter().cloned());
        let mut stmt = conn.prepare(&sql)?;
        for name in stmt.query_map(params_from_iter(params), |r| r.get::<_, String>(0))? {
            out.insert(name?);
        }
    }
    Ok(out)
}

/// Refuses a logged-model search filter on [`MODEL_VERSIONS_TAG`] to callers other than
/// administrators: which models match would spell out registered-model names the caller
/// may not read, one `LIKE` at a time.
pub(crate) fn check_search_filter(caller: &Caller, filter: &str) -> Result<(), Error> {
    if caller.is_admin {
        return Ok(());
    }
    let on_tag = parse_filter(filter)?.iter().any(|c| {
        matches!(c.ident.kind.as_deref(), Some("tags" | "tag")) && c.ident.key == MODEL_VERSIONS_TAG
    });
    if on_tag {
        return Err(Error::InvalidParameter(format!(
            "Logged models cannot be searched by the tag '{MODEL_VERSIONS_TAG}' except by an \
             administrator: it names registered models, which not every reader of the \
             experiment may see."
        )));
    }
    Ok(())
}
