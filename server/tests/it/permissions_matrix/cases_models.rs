//! Matrix cases of the logged-model, model-registry and dataset routes. Ids seeded by
//! `fixture_models` are `{name}`s: `{lmodel}` is a logged model of the fixture experiment
//! (param, tag `secret_model_tag`, a linked metric), output of the fixture run, which also
//! has a dataset input.

use super::cases::{case, with_marker, Case, Rule, E, M, R};

/// The fixture's registered model, as search answers show it.
const RMODEL: &str = "secret-rmodel";

/// MLflow dialect paths of registered models, relative to `/api/2.0/mlflow`.
macro_rules! rm {
    ($p:literal) => {
        concat!("/api/2.0/mlflow/registered-models", $p)
    };
}

/// MLflow dialect paths of model versions, relative to `/api/2.0/mlflow`.
macro_rules! mv {
    ($p:literal) => {
        concat!("/api/2.0/mlflow/model-versions", $p)
    };
}

/// MLflow dialect paths of a logged model, relative to `/api/2.0/mlflow`.
macro_rules! lm {
    ($p:literal) => {
        concat!("/api/2.0/mlflow/logged-models", $p)
    };
}

/// The model routes' cases.
#[rustfmt::skip]
pub const CASES: &[Case] = &[
    case("POST", lm!(""), E, lm!(""), Some(r#"{"experiment_id": "{exp}", "name": "another-model", "source_run_id": "{run}"}"#)),
    case("POST", lm!("/search"), R, lm!("/search"), Some(r#"{"experiment_ids": ["{exp}"]}"#)),
    case("GET", lm!("/{model_id}"), R, lm!("/{lmodel}"), None),
    case("PATCH", lm!("/{model_id}"), E, lm!("/{lmodel}"), Some(r#"{"model_id": "{lmodel}", "status": "LOGGED_MODEL_READY"}"#)),
    case("DELETE", lm!("/{model_id}"), E, lm!("/{lmodel}"), Some(r#"{"model_id": "{lmodel}"}"#)),
    case("PATCH", lm!("/{model_id}/tags"), E, lm!("/{lmodel}/tags"), Some(r#"{"tags": [{"key": "k", "value": "v"}]}"#)),
    case("DELETE", lm!("/{model_id}/tags/{tag_key}"), E, lm!("/{lmodel}/tags/secret_model_tag"), None),
    case("POST", lm!("/{model_id}/params"), E, lm!("/{lmodel}/params"), Some(r#"{"params": [{"key": "p", "value": "v"}]}"#)),
    case("GET", lm!("/{model_id}/artifacts/directories"), R, lm!("/{lmodel}/artifacts/directories"), None),
    case("POST", "/api/2.0/mlflow/runs/outputs", E, "/api/2.0/mlflow/runs/outputs", Some(r#"{"run_id": "{run}", "models": [{"model_id": "{lmodel}", "step": 2}]}"#)),
    case("GET", "/api/v1/runs/{id}/io", R, "/api/v1/runs/{run}/io", None),
    case("GET", "/api/v1/logged-models/{id}", R, "/api/v1/logged-models/{lmodel}", None),
    // The model registry: `secret-rmodel` (see `fixture_models`); each caller holds on it
    // the level it holds on the fixture experiment.
    case("POST", rm!("/create"), Rule::SignedIn, rm!("/create"), Some(r#"{"name": "another-rmodel"}"#)),
    case("GET", rm!("/get"), R, rm!("/get?name=secret-rmodel"), None),
    case("PATCH", rm!("/update"), E, rm!("/update"), Some(r#"{"name": "secret-rmodel", "description": "d"}"#)),
    case("POST", rm!("/rename"), E, rm!("/rename"), Some(r#"{"name": "secret-rmodel", "new_name": "renamed-rmodel"}"#)),
    case("DELETE", rm!("/delete"), M, rm!("/delete"), Some(r#"{"name": "secret-rmodel"}"#)),
    with_marker(case("GET", rm!("/search"), Rule::Filtered, rm!("/search"), None), RMODEL),
    case("POST", rm!("/get-latest-versions"), R, rm!("/get-latest-versions"), Some(r#"{"name": "secret-rmodel"}"#)),
    case("GET", rm!("/get-latest-versions"), R, rm!("/get-latest-versions?name=secret-rmodel"), None),
    case("POST", rm!("/set-tag"), E, rm!("/set-tag"), Some(r#"{"name": "secret-rmodel", "key": "k", "value": "v"}"#)),
    case("DELETE", rm!("/delete-tag"), E, rm!("/delete-tag"), Some(r#"{"name": "secret-rmodel", "key": "secret_rm_tag"}"#)),
    case("POST", rm!("/alias"), E, rm!("/alias"), Some(r#"{"name": "secret-rmodel", "alias": "another", "version": "2"}"#)),
    case("DELETE", rm!("/alias"), M, rm!("/alias"), Some(r#"{"name": "secret-rmodel", "alias": "champion"}"#)),
    case("GET", rm!("/alias"), R, rm!("/alias?name=secret-rmodel&alias=champion"), None),
    // Registering also needs CAN_READ on the source run's experiment (same level here).
    case("POST", mv!("/create"), E, mv!("/create"), Some(r#"{"name": "secret-rmodel", "source": "runs:/{run}/model", "run_id": "{run}"}"#)),
    case("GET", mv!("/get"), R, mv!("/get?name=secret-rmodel&version=1"), None),
    case("PATCH", mv!("/update"), E, mv!("/update"), Some(r#"{"name": "secret-rmodel", "version": "1", "description": "x"}"#)),
    case("POST", mv!("/transition-stage"), E, mv!("/transition-stage"), Some(r#"{"name": "secret-rmodel", "version": "1", "stage": "Staging"}"#)),
    case("DELETE", mv!("/delete"), M, mv!("/delete"), Some(r#"{"name": "secret-rmodel", "version": "2"}"#)),
    with_marker(case("GET", mv!("/search"), Rule::Filtered, mv!("/search"), None), RMODEL),
    case("GET", mv!("/get-download-uri"), R, mv!("/get-download-uri?name=secret-rmodel&version=1"), None),
    case("POST", mv!("/set-tag"), E, mv!("/set-tag"), Some(r#"{"name": "secret-rmodel", "version": "1", "key": "k", "value": "v"}"#)),
    case("DELETE", mv!("/delete-tag"), M, mv!("/delete-tag"), Some(r#"{"name": "secret-rmodel", "version": "1", "key": "secret_mv_tag"}"#)),
    case("POST", rm!("/permissions/create"), M, rm!("/permissions/create"), Some(r#"{"name": "secret-rmodel", "username": "target", "permission": "READ"}"#)),
    case("GET", rm!("/permissions/get"), M, rm!("/permissions/get?name=secret-rmodel&username=reader"), None),
    case("PATCH", rm!("/permissions/update"), M, rm!("/permissions/update"), Some(r#"{"name": "secret-rmodel", "username": "reader", "permission": "EDIT"}"#)),
    case("DELETE", rm!("/permissions/delete"), M, rm!("/permissions/delete"), Some(r#"{"name": "secret-rmodel", "username": "reader"}"#)),
    with_marker(case("GET", "/api/v1/registered-models", Rule::Filtered, "/api/v1/registered-models", None), RMODEL),
    case("GET", "/api/v1/registered-models/{name}", R, "/api/v1/registered-models/secret-rmodel", None),
];
