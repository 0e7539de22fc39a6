//! The summary of an `MLmodel` file ([`MlModelSummary`]): flavors, versions, ids, the
//! signature's columns and the `requirements.txt` beside it.

use api_types::artifacts::MlModelSummary;
use futures_util::StreamExt;
use serde_yaml_ng::Value;

use super::{ArtifactPath, ArtifactStore, Listing, Root};
use crate::Error;

/// Largest `MLmodel` (or `requirements.txt`) read, in bytes.
pub(crate) const MAX_MLMODEL_BYTES: u64 = 1024 * 1024;

/// The file name MLflow gives a model's metadata.
const MLMODEL: &str = "MLmodel";

/// Reads the whole small file at `path` (400 when larger than [`MAX_MLMODEL_BYTES`]).
async fn read_small(store: &dyn ArtifactStore, path: &ArtifactPath) -> Result<String, Error> {
    let obj = store.get(path, None).await?;
    if obj.size > MAX_MLMODEL_BYTES {
        return Err(Error::InvalidParameter(format!(
            "'{path}' is larger than {MAX_MLMODEL_BYTES} bytes"
        )));
    }
    let mut body = obj.body;
    let mut bytes = Vec::with_capacity(obj.size as usize);
    while let Some(chunk) = body.next().await {
        let chunk = chunk.map_err(|e| Error::Internal(format!("reading {path}: {e}")))?;
        bytes.extend_from_slice(&chunk);
        if bytes.len() as u64 > MAX_MLMODEL_BYTES {
            return Err(Error::InvalidParameter(format!("'{path}' is too large")));
        }
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The summary of the `MLmodel` at `rel` (the file, or a folder holding one).
pub(crate) async fn mlmodel_summary(
    store: &dyn ArtifactStore,
    root: &Root,
    rel: &str,
) -> Result<MlModelSummary, Error> {
    let rel = ArtifactPath::parse_or_root(rel)?;
    let file = if rel.file_name() == Some(MLMODEL) {
        rel
    } else {
        rel.join(MLMODEL)?
    };
    let full = root.resolve(&file)?;
    let text = read_small(store, &full).await?;
    let mut summary = parse(&text)?;
    summary.path = file.to_string();
    let requirements = full.parent().join("requirements.txt")?;
    if let Listing::File { .. } = store.list(&requirements).await? {
        summary.requirements = read_small(store, &requirements)
            .await?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_owned)
            .collect();
    }
    Ok(summary)
}

/// A scalar as text (`None` for absent, null and collections).
fn text(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// One line per column of a signature part (a JSON string in the YAML): `name: type`,
/// tensors as `name: tensor float64 (-1, 4)`.
fn columns(v: Option<&Value>) -> Vec<String> {
    let Some(raw) = text(v) else {
        return Vec::new();
    };
    let Ok(serde_json::Value::Array(cols)) = serde_json::from_str::<serde_json::Value>(&raw) else {
        return Vec::new();
    };
    cols.iter()
        .map(|c| {
            let ty = c.get("type").and_then(|t| t.as_str()).unwrap_or("?");
            let ty = match c.get("tensor-spec") {
                Some(spec) => {
                    let dtype = spec.get("dtype").and_then(|d| d.as_str()).unwrap_or("?");
                    let shape = spec
                        .get("shape")
                        .and_then(|s| s.as_array())
                        .map(|dims| {
                            let d: Vec<String> = dims.iter().map(|x| x.to_string()).collect();
                            format!(" ({})", d.join(", "))
                        })
                        .unwrap_or_default();
                    format!("{ty} {dtype}{shape}")
                }
                None => ty.to_owned(),
            };
            match c.get("name").and_then(|n| n.as_str()) {
                Some(name) => format!("{name}: {ty}"),
                None => ty,
            }
        })
        .collect()
}

/// Parses an `MLmodel` file (YAML); 400 when it is not a YAML mapping.
pub(crate) fn parse(yaml: &str) -> Result<MlModelSummary, Error> {
    let doc: Value = serde_yaml_ng::from_str(yaml)
        .map_err(|e| Error::InvalidParameter(format!("MLmodel is not valid YAML: {e}")))?;
    let Value::Mapping(map) = &doc else {
        return Err(Error::InvalidParameter(
            "MLmodel is not a YAML mapping".into(),
        ));
    };
    let flavors = match map.get("flavors") {
        Some(Value::Mapping(f)) => f.keys().filter_map(|k| text(Some(k))).collect(),
        _ => Vec::new(),
    };
    let signature = map.get("signature");
    Ok(MlModelSummary {
        path: String::new(),
        flavors,
        mlflow_version: text(map.get("mlflow_version")),
        model_id: text(map.get("model_id")),
        run_id: text(map.get("run_id")),
        created: text(map.get("utc_time_created")),
        signature_inputs: columns(signature.and_then(|s| s.get("inputs"))),
        signature_outputs: columns(signature.and_then(|s| s.get("outputs"))),
        requirements: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MLMODEL_TEXT: &str = r#"artifact_path: model
flavors:
  python_function:
    env:
      conda: conda.yaml
    loader_module: mlflow.sklearn
  sklearn:
    sklearn_version: 1.5.0
mlflow_version: 3.17.2
model_id: m-0123
run_id: abc
utc_time_created: '2026-01-01 00:00:00.000000'
signature:
  inputs: '[{"type": "double", "name": "x", "required": true}, {"type": "tensor", "tensor-spec": {"dtype": "float64", "shape": [-1, 4]}}]'
  outputs: '[{"type": "long", "required": true}]'
"#;

    #[test]
    fn parses_flavors_in_order_and_the_signature() {
        let s = parse(MLMODEL_TEXT).unwrap();
        assert_eq!(s.flavors, ["python_function", "sklearn"]);
        assert_eq!(s.mlflow_version.as_deref(), Some("3.17.2"));
        assert_eq!(s.model_id.as_deref(), Some("m-0123"));
        assert_eq!(s.run_id.as_deref(), Some("abc"));
        assert_eq!(s.created.as_deref(), Some("2026-01-01 00:00:00.000000"));
        assert_eq!(s.signature_inputs, ["x: double", "tensor float64 (-1, 4)"]);
        assert_eq!(s.signature_outputs, ["long"]);
    }

    #[test]
    fn refuses_non_mappings() {
        assert!(parse("- a\n- b\n").is_err());
        assert!(parse(": : :\n\t").is_err());
    }
}
