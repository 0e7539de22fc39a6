//! The source of a new model version, checked and resolved as MLflow's server does:
//! `models:/m-<id>` (an MLflow 3 logged model: its files are the logged model's artifact
//! location), `models:/<name>/<version>` / `@alias` / `/latest` (another registered
//! version), `runs:/<run_id>/<path>`, `mlflow-artifacts:/...` (inside the run's or logged
//! model's artifact root), or any other remote URI. Local paths and `..` are refused.

use crate::db::Conn;

use super::{aliases, versions};
use crate::Error;

/// What the request names: `source`, and the `run_id` / `model_id` fields when sent.
#[derive(Debug, Clone, Default)]
pub(crate) struct Request {
    /// `source`.
    pub source: String,
    /// `run_id`, when the field is present (even empty).
    pub run_id: Option<String>,
    /// `model_id`, when the field is present (even empty).
    pub model_id: Option<String>,
}

/// A checked source: what the version stores.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Resolved {
    /// The source to store (a registered-model source becomes `models:/<name>/<version>`).
    pub source: String,
    /// Where the files are (what `get-download-uri` answers).
    pub storage_location: String,
    /// The run, if known.
    pub run_id: Option<String>,
    /// The logged model, if any.
    pub model_id: Option<String>,
}

/// What the caller must be able to read for a source (beyond EDIT on the target model).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Anchor {
    /// A run (CAN_READ on its experiment).
    Run(String),
    /// A logged model (CAN_READ on its experiment).
    LoggedModel(String),
    /// A registered model (READ on it).
    RegisteredModel(String),
}

/// MLflow's refusal of a source that `field` (`run_id` / `model_id`) does not vouch for.
pub(crate) fn unidentified(source: &str, field: &str) -> Error {
    Error::InvalidParameter(format!(
        "Invalid model version source: '{source}'. The {field} request parameter must \
         identify the resource that contains the source."
    ))
}

/// A `models:/` URI, parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum ModelsUri {
    /// `models:/m-...` (any single segment without `@`): a logged model id.
    LoggedModel(String),
    /// `models:/<name>/<n>`.
    Version(String, i64),
    /// `models:/<name>@<alias>`.
    Alias(String, String),
    /// `models:/<name>` or `models:/<name>/latest`.
    Latest(String),
    /// `models:/<name>/<stage>`.
    Stage(String, String),
}

fn improper(uri: &str) -> Error {
    Error::InvalidParameter(format!(
        "Invalid model version source: '{uri}'. The model_id request parameter must identify \
         the resource that contains the source."
    ))
}

/// Splits `scheme:rest` (a scheme of letters, digits, `+-.`, starting with a letter).
fn scheme_of(uri: &str) -> Option<(&str, &str)> {
    let (scheme, rest) = uri.split_once(':')?;
    let ok = scheme
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic())
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    ok.then_some((scheme, rest))
}

/// The authority (`//host`) and the path of what follows a scheme.
fn authority_and_path(rest: &str) -> (&str, &str) {
    match rest.strip_prefix("//") {
        Some(r) => match r.find('/') {
            Some(i) => (&r[..i], &r[i..]),
            None => (r, ""),
        },
        None => ("", rest),
    }
}

fn parse_models_uri(uri: &str, path: &str) -> Result<ModelsUri, Error> {
    let path = path.split(['?', '#']).next().unwrap_or("");
    let Some(path) = path.strip_prefix('/').filter(|p| !p.is_empty()) else {
        return Err(improper(uri));
    };
    let parts: Vec<&str> = path.split('/').collect();
    match parts[..] {
        [name, suffix] if !name.trim().is_empty() && !suffix.trim().is_empty() => {
            if suffix.chars().all(|c| c.is_ascii_digit()) {
                let n = suffix.parse::<i64>().map_err(|_| improper(uri))?;
                Ok(ModelsUri::Version(name.to_string(), n))
            } else if suffix.eq_ignore_ascii_case("latest") {
                Ok(ModelsUri::Latest(name.to_string()))
            } else {
                Ok(ModelsUri::Stage(name.to_string(), suffix.to_string()))
            }
        }
        [one] if !one.trim().is_empty() => match one.rsplit_once('@') {
            Some((name, alias)) if !alias.trim().is_empty() => {
                Ok(ModelsUri::Alias(name.to_string(), alias.to_string()))
            }
            Some(_) => Err(improper(uri)),
            None => Ok(ModelsUri::LoggedModel(one.to_string())),
        },
        _ => Err(improper(uri)),
    }
}

/// The run id of `runs:/<run_id>/...`.
fn runs_uri_run(uri: &str, path: &str) -> Result<String, Error> {
    let run = path
        .strip_prefix('/')
        .and_then(|p| p.split('/').next())
        .filter(|r| !r.is_empty());
    run.map(str::to_string)
        .ok_or_else(|| unidentified(uri, "run_id"))
}

/// Percent-decodes `s` until it no longer changes (MLflow unquotes iteratively).
fn unquote_fully(s: &str) -> String {
    let mut cur = s.to_string();
    for _ in 0..8 {
        let next: String = percent_decode(&cur);
        if next == cur {
            break;
        }
        cur = next;
    }
    cur
}

fn percent_decode(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// Refuses sources with `..` segments or NUL (MLflow's relative-path check), also when
/// percent-encoded.
fn check_relative(source: &str) -> Result<(), Error> {
    let decoded = unquote_fully(source);
    if decoded.contains('\0') || decoded.split('/').any(|p| p == "..") {
        return Err(Error::InvalidParameter(format!(
            "Invalid model version source: '{source}'. If supplying a source as an http, \
             https, local file path, ftp, objectstore, or mlflow-artifacts uri, an absolute \
             path must be provided without relative path references present. Please provide \
             an absolute path."
        )));
    }
    Ok(())
}

/// Whether `source` lies inside `root` (same scheme and authority, `root`'s path segments a
/// prefix of `source`'s), as MLflow's `_is_uri_within_root`.
pub(crate) fn within_root(source: &str, root: &str) -> bool {
    fn parts(uri: &str) -> (String, String, Vec<String>) {
        let (scheme, rest) = scheme_of(uri).unwrap_or(("", uri));
        let (auth, path) = authority_and_path(rest);
        let path = path.split(['?', '#']).next().unwrap_or("");
        let segs = path
            .split('/')
            .filter(|p| !p.is_empty())
            .map(unquote_fully)
            .collect();
        (scheme.to_ascii_lowercase(), auth.to_ascii_lowercase(), segs)
    }
    let (s_scheme, s_auth, s_parts) = parts(source);
    let (r_scheme, r_auth, r_parts) = parts(root);
    s_scheme == r_scheme
        && s_auth == r_auth
        && !r_parts.is_empty()
        && s_parts.len() >= r_parts.len()
        && s_parts[..r_parts.len()] == r_parts[..]
}

/// Whether `source` is served by the artifact proxy (`mlflow-artifacts:` or an http(s) URL
/// through `/api/2.0/mlflow-artifacts/artifacts`).
fn is_proxied(source: &str) -> bool {
    match scheme_of(source) {
        Some((s, _)) if s.eq_ignore_ascii_case("mlflow-artifacts") => true,
        Some((s, _)) if s.eq_ignore_ascii_case("http") || s.eq_ignore_ascii_case("https") => {
            source.contains("/api/2.0/mlflow-artifacts/artifacts")
        }
        _ => false,
    }
}

/// Whether `source` is a local path (no scheme, or `file:`).
fn is_local(source: &str) -> bool {
    match scheme_of(source) {
        None => true,
        Some((s, _)) => s.eq_ignore_ascii_case("file") || s.len() == 1,
    }
}

fn present(field: &Option<String>) -> Option<&str> {
    field.as_deref().filter(|s| !s.is_empty())
}

/// What the caller must read to register `req`: the run and logged model it names (by
/// field or in the source), or the registered model of a `models:/<name>/...` source.
pub(crate) fn anchors(req: &Request) -> Vec<Anchor> {
    let mut out = Vec::new();
    if let Some((scheme, rest)) = scheme_of(&req.source) {
        let (_, path) = authority_and_path(rest);
        if scheme.eq_ignore_ascii_case("models") {
            match parse_models_uri(&req.source, path) {
                Ok(ModelsUri::LoggedModel(id)) => out.push(Anchor::LoggedModel(id)),
                Ok(
                    ModelsUri::Version(name, _)
                    | ModelsUri::Alias(name, _)
                    | ModelsUri::Latest(name)
                    | ModelsUri::Stage(name, _),
                ) => return vec![Anchor::RegisteredModel(name)],
                Err(_) => {}
            }
        }
    }
    if let Some(run) = present(&req.run_id) {
        out.push(Anchor::Run(run.to_string()));
    }
    if let Some(model) = present(&req.model_id) {
        let a = Anchor::LoggedModel(model.to_string());
        if !out.contains(&a) {
            out.push(a);
        }
    }
    out
}

/// A logged model's (artifact location, source run), or `None` when there is no such
/// (active) model.
fn logged_model(conn: &Conn, id: &str) -> Result<Option<(String, Option<String>)>, Error> {
    match crate::models::logged::get(conn, id) {
        Ok(m) => Ok(Some((m.artifact_uri, m.source_run_id))),
        Err(Error::NotFound(_)) => Ok(None),
        Err(e) => Err(e),
    }
}

/// A run's artifact URI, or `None` when there is no such run.
fn run_artifact_uri(conn: &Conn, run_id: &str) -> Result<Option<String>, Error> {
    use crate::db::OptionalExtension;
    Ok(conn
        .prepare_cached("SELECT artifact_uri FROM runs WHERE run_uuid = ?1")?
        .query_row([run_id], |r| r.get(0))
        .optional()?)
}

/// Checks `req` and works out what the new version stores.
pub(crate) fn resolve(conn: &Conn, req: &Request) -> Result<Resolved, Error> {
    let source = req.source.as_str();
    let run_id = present(&req.run_id).map(str::to_string);
    let model_id = present(&req.model_id).map(str::to_string);
    let plain = |storage: String, run_id: Option<String>| Resolved {
        source: source.to_string(),
        storage_location: storage,
        run_id,
        model_id: model_id.clone(),
    };
    if is_local(source) {
        return resolve_local(conn, source, run_id, model_id);
    }
    check_relative(source)?;
    let (scheme, rest) = scheme_of(source).unwrap_or(("", source));
    let (authority, path) = authority_and_path(rest);
    if scheme.eq_ignore_ascii_case("models") {
        if !authority.is_empty() {
            return Err(Error::InvalidParameter(format!(
                "Invalid model version source: '{source}'. Registered model sources must use \
                 the active model registry."
            )));
        }
        return resolve_models(conn, req, parse_models_uri(source, path)?);
    }
    if let Some(model) = &model_id {
        if scheme.eq_ignore_ascii_case("runs") {
            return Err(unidentified(source, "model_id"));
        }
        let (location, source_run) =
            logged_model(conn, model)?.ok_or_else(|| unidentified(source, "model_id"))?;
        if is_proxied(source) && !within_root(source, &location) {
            return Err(unidentified(source, "model_id"));
        }
        return Ok(plain(source.to_string(), run_id.or(source_run)));
    }
    if scheme.eq_ignore_ascii_case("runs") {
        if !authority.is_empty() || run_id.as_deref() != Some(&runs_uri_run(source, path)?) {
            return Err(unidentified(source, "run_id"));
        }
        return Ok(plain(source.to_string(), run_id));
    }
    if is_proxied(source) {
        let Some(run) = &run_id else {
            return Err(unidentified(source, "run_id"));
        };
        let root = run_artifact_uri(conn, run)?.ok_or_else(|| unidentified(source, "run_id"))?;
        if !within_root(source, &root) {
            return Err(unidentified(source, "run_id"));
        }
    }
    Ok(plain(source.to_string(), run_id))
}

/// A local path: only inside a local artifact root of the run or logged model named.
fn resolve_local(
    conn: &Conn,
    source: &str,
    run_id: Option<String>,
    model_id: Option<String>,
) -> Result<Resolved, Error> {
    let (root, field) = match (&model_id, &run_id) {
        (Some(m), _) => (logged_model(conn, m)?.map(|(loc, _)| loc), "model_id"),
        (None, Some(r)) => (run_artifact_uri(conn, r)?, "run_id"),
        (None, None) => (None, "run_id"),
    };
    let local_path = |uri: &str| -> String {
        let p = uri.strip_prefix("file://").unwrap_or(uri);
        p.strip_prefix("file:").unwrap_or(p).to_string()
    };
    let inside = root.as_deref().is_some_and(|root| {
        is_local(root)
            && !unquote_fully(source).split('/').any(|p| p == "..")
            && within_root(&local_path(source), &local_path(root))
    });
    if !inside {
        return Err(Error::InvalidParameter(format!(
            "Invalid model version source: '{source}'. To use a local path as a model version \
             source, the {field} request parameter has to be specified and the local path has \
             to be contained within the artifact directory of the run specified by the \
             {field}."
        )));
    }
    Ok(Resolved {
        source: source.to_string(),
        storage_location: source.to_string(),
        run_id,
        model_id,
    })
}

/// A `models:/` source: a logged model (its artifact location) or another registered
/// version (stored as `models:/<name>/<version>`, its files and lineage).
fn resolve_models(conn: &Conn, req: &Request, uri: ModelsUri) -> Result<Resolved, Error> {
    let source = req.source.as_str();
    let run_id = present(&req.run_id).map(str::to_string);
    let model_id = present(&req.model_id).map(str::to_string);
    let (name, version) = match uri {
        ModelsUri::LoggedModel(id) => {
            if model_id.as_deref() != Some(id.as_str()) {
                return Err(unidentified(source, "model_id"));
            }
            let (location, source_run) =
                logged_model(conn, &id)?.ok_or_else(|| unidentified(source, "model_id"))?;
            return Ok(Resolved {
                source: source.to_string(),
                storage_location: location,
                run_id: run_id.or(source_run),
                model_id: Some(id),
            });
        }
        ModelsUri::Version(name, v) => (name.clone(), versions::get(conn, &name, v)?),
        ModelsUri::Alias(name, alias) => (name.clone(), aliases::version_of(conn, &name, &alias)?),
        ModelsUri::Latest(name) => (name.clone(), aliases::version_of(conn, &name, "latest")?),
        ModelsUri::Stage(name, stage) => {
            let stage = super::Stage::parse(&stage)?;
            let latest = versions::latest_versions(conn, &name, &[stage])?;
            let mv = latest.into_iter().next().ok_or_else(|| {
                Error::NotFound(format!(
                    "No versions of model with name '{name}' and stage '{}' found",
                    stage.as_str()
                ))
            })?;
            (name, mv)
        }
    };
    let differs = |given: &Option<String>, have: &Option<String>| {
        given.is_some() && given.as_deref().unwrap_or("") != have.as_deref().unwrap_or("")
    };
    if differs(&req.run_id, &version.run_id) || differs(&req.model_id, &version.model_id) {
        return Err(Error::InvalidParameter(format!(
            "Invalid model version source: '{source}'. The run_id and model_id request \
             parameters must match the referenced model version."
        )));
    }
    Ok(Resolved {
        source: format!("models:/{name}/{}", version.version),
        storage_location: version.storage_location,
        run_id: run_id.or(version.run_id),
        model_id: model_id.or(version.model_id),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_uris_parse_like_mlflow() {
        let p = |u: &str| parse_models_uri(u, u.strip_prefix("models:").unwrap());
        assert_eq!(
            p("models:/m-abc").unwrap(),
            ModelsUri::LoggedModel("m-abc".into())
        );
        assert_eq!(
            p("models:/clf/3").unwrap(),
            ModelsUri::Version("clf".into(), 3)
        );
        assert_eq!(
            p("models:/clf@champion").unwrap(),
            ModelsUri::Alias("clf".into(), "champion".into())
        );
        assert_eq!(
            p("models:/clf/latest").unwrap(),
            ModelsUri::Latest("clf".into())
        );
        assert!(p("models:/").is_err() && p("models:/a/b/c").is_err());
    }

    #[test]
    fn within_root_compares_segments() {
        let root = "mlflow-artifacts:/1/abc/artifacts";
        assert!(within_root("mlflow-artifacts:/1/abc/artifacts/model", root));
        assert!(!within_root(
            "mlflow-artifacts:/1/abcd/artifacts/model",
            root
        ));
        assert!(!within_root(
            "mlflow-artifacts:/2/abc/artifacts/model",
            root
        ));
        assert!(!within_root("s3://b/1/abc/artifacts/model", root));
        assert!(check_relative("mlflow-artifacts:/1/abc/../x").is_err());
        assert!(check_relative("mlflow-artifacts:/1/abc/%2e%2e/x").is_err());
        assert!(check_relative("mlflow-artifacts:/1/abc/x").is_ok());
    }

    #[test]
    fn anchors_name_what_must_be_readable() {
        let req = Request {
            source: "models:/m-1".into(),
            run_id: None,
            model_id: Some("m-1".into()),
        };
        assert_eq!(anchors(&req), vec![Anchor::LoggedModel("m-1".into())]);
        let req = Request {
            source: "runs:/r1/model".into(),
            run_id: Some("r1".into()),
            model_id: None,
        };
        assert_eq!(anchors(&req), vec![Anchor::Run("r1".into())]);
        let req = Request {
            source: "models:/clf/1".into(),
            run_id: Some("r1".into()),
            model_id: None,
        };
        assert_eq!(anchors(&req), vec![Anchor::RegisteredModel("clf".into())]);
    }
}
