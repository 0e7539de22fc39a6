//! Matrix cases of the artifact routes (the MLflow artifact proxy, `artifacts/list`, and
//! the app API's artifact routes). Ids seeded by `fixture_artifacts` are `{name}`s:
//! `{amodel}` is a logged model of the fixture experiment with an `MLmodel`.

use super::cases::{case, with_ok, Case, E, R};

/// MLflow artifact proxy paths relative to `/api/2.0/mlflow-artifacts`.
macro_rules! ma {
    ($p:literal) => {
        concat!("/api/2.0/mlflow-artifacts", $p)
    };
}

/// The run's artifact folder in the proxy's paths.
macro_rules! run_dir {
    ($p:literal) => {
        concat!(
            "/api/2.0/mlflow-artifacts/artifacts/{exp}/{run}/artifacts",
            $p
        )
    };
}

const MPU: &str = r#"{"path": "big.bin", "num_parts": 2}"#;

/// The artifact routes' cases.
#[rustfmt::skip]
pub const CASES: &[Case] = &[
    case("GET", ma!("/artifacts"), R, ma!("/artifacts?path={exp}/{run}/artifacts"), None),
    case("GET", ma!("/artifacts/{*path}"), R, run_dir!("/secret-dir/secret.txt"), None),
    case("PUT", ma!("/artifacts/{*path}"), E, run_dir!("/new.txt"), Some(r#"{"secret": false}"#)),
    case("DELETE", ma!("/artifacts/{*path}"), E, run_dir!("/secret-dir/secret.txt"), None),
    with_ok(case("POST", ma!("/mpu/create/{*path}"), E, ma!("/mpu/create/{exp}/{run}/artifacts/big.bin"), Some(MPU)), &[501]),
    with_ok(case("POST", ma!("/mpu/complete/{*path}"), E, ma!("/mpu/complete/{exp}/{run}/artifacts/big.bin"), Some(r#"{"path": "big.bin", "upload_id": "u", "parts": []}"#)), &[501]),
    with_ok(case("POST", ma!("/mpu/abort/{*path}"), E, ma!("/mpu/abort/{exp}/{run}/artifacts/big.bin"), Some(r#"{"path": "big.bin", "upload_id": "u"}"#)), &[501]),
    case("GET", "/api/2.0/mlflow/artifacts/list", R, "/api/2.0/mlflow/artifacts/list?run_id={run}&path=secret-dir", None),
    case("GET", "/api/v1/runs/{id}/artifacts", R, "/api/v1/runs/{run}/artifacts?path=secret-dir", None),
    case("GET", "/api/v1/runs/{id}/artifacts/file", R, "/api/v1/runs/{run}/artifacts/file?path=secret-dir/secret.txt", None),
    case("GET", "/api/v1/runs/{id}/artifacts/zip", R, "/api/v1/runs/{run}/artifacts/zip?path=secret-dir", None),
    case("GET", "/api/v1/runs/{id}/artifacts/mlmodel", R, "/api/v1/runs/{run}/artifacts/mlmodel?path=model", None),
    case("GET", "/api/v1/logged-models/{id}/artifacts", R, "/api/v1/logged-models/{amodel}/artifacts", None),
    case("GET", "/api/v1/logged-models/{id}/artifacts/file", R, "/api/v1/logged-models/{amodel}/artifacts/file?path=MLmodel", None),
    case("GET", "/api/v1/logged-models/{id}/artifacts/zip", R, "/api/v1/logged-models/{amodel}/artifacts/zip", None),
    case("GET", "/api/v1/logged-models/{id}/artifacts/mlmodel", R, "/api/v1/logged-models/{amodel}/artifacts/mlmodel", None),
];
