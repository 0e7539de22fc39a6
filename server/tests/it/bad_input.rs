//! Property test over every MLflow route: random and malformed bodies, wrong content types,
//! unknown fields, oversize batches, invalid keys, absurd page tokens, unknown ids, and
//! oversized filters, `order_by` lists and id lists.
//! Every answer must be 200, or a 4xx whose JSON body has `error_code` and `message`;
//! never a 5xx.

use crate::helpers::TestApp;
use axum::body::Body;
use axum::http::Request;
use proptest::prelude::*;
use serde_json::{Map, Value};

const POST_ROUTES: &[&str] = &[
    "/experiments/create",
    "/experiments/search",
    "/experiments/update",
    "/experiments/delete",
    "/experiments/restore",
    "/experiments/set-experiment-tag",
    "/experiments/delete-experiment-tag",
    "/runs/create",
    "/runs/update",
    "/runs/delete",
    "/runs/restore",
    "/runs/search",
    "/runs/log-metric",
    "/runs/log-parameter",
    "/runs/set-tag",
    "/runs/delete-tag",
    "/runs/log-batch",
    "/runs/log-inputs",
    "/logged-models/search",
    "/logged-models",
    "/runs/outputs",
    "/registered-models/create",
    "/registered-models/rename",
    "/registered-models/set-tag",
    "/registered-models/alias",
    "/registered-models/get-latest-versions",
    "/model-versions/create",
    "/model-versions/transition-stage",
    "/model-versions/set-tag",
];
const GET_ROUTES: &[&str] = &[
    "/experiments/get",
    "/experiments/get-by-name",
    "/experiments/search",
    "/runs/get",
    "/metrics/get-history",
    "/metrics/get-history-bulk-interval",
    "/artifacts/list",
    "/registered-models/get",
    "/registered-models/search",
    "/registered-models/alias",
    "/model-versions/get",
    "/model-versions/search",
    "/model-versions/get-download-uri",
];
const FIELDS: &[&str] = &[
    "run_id",
    "run_uuid",
    "experiment_id",
    "experiment_ids",
    "key",
    "value",
    "timestamp",
    "step",
    "metrics",
    "params",
    "tags",
    "name",
    "filter",
    "order_by",
    "page_token",
    "max_results",
    "view_type",
    "run_view_type",
    "status",
    "end_time",
    "start_time",
    "run_name",
    "new_name",
    "metric_key",
    "run_ids",
    "start_step",
    "end_step",
    "datasets",
    "dataset",
    "digest",
    "artifact_location",
    "user_id",
    "experiment_name",
    "models",
    "model_id",
    "version",
    "alias",
    "source",
    "stage",
    "description",
    "path",
    "archive_existing_versions",
    "source_run_id",
    "unknown",
];
/// Strings that reach deep code paths: the live run, ids, tokens, filters, odd keys.
const STRINGS: &[&str] = &[
    "RUN",
    "0",
    "1",
    "999999",
    "-1",
    "NaN",
    "Infinity",
    "-Infinity",
    "FINISHED",
    "ALL",
    "DELETED_ONLY",
    "eyJvZmZzZXQiOiAtMX0=",
    "eyJvZmZzZXQiOiAxMDAwMDAwMDAwMDAwMDB9",
    "eyJvZmZzZXQiOiAxfQ==",
    "!!notbase64",
    "metrics.loss < 1",
    "params.a = 'x'",
    "attributes.run_id IN ('a','b')",
    "name LIKE '%a%'",
    "tags.`x y` != 'z'",
    "metrics.a ASC",
    "start_time DESC",
    "a//b",
    "../x",
    "/abs",
    "ok_key",
    "x$y",
    "",
    " ",
    "0123456789abcdef0123456789abcdef",
    "9223372036854775808",
    "1e400",
];

fn string() -> impl Strategy<Value = String> {
    prop_oneof![
        prop::sample::select(STRINGS).prop_map(str::to_string),
        "\\PC{0,12}",
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        (-1e12f64..1e12).prop_map(Value::from),
        string().prop_map(Value::from),
    ]
}

fn json_value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            object(inner, 5),
        ]
    })
}

fn object(values: impl Strategy<Value = Value>, max: usize) -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(FIELDS), values), 0..max)
        .prop_map(|kv| Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()))
}

/// Replaces the placeholder "RUN" with the live run's id everywhere.
fn with_run(v: Value, run: &str) -> Value {
    match v {
        Value::String(s) if s == "RUN" => Value::String(run.to_string()),
        Value::Array(a) => Value::Array(a.into_iter().map(|x| with_run(x, run)).collect()),
        Value::Object(m) => Value::Object(
            m.into_iter()
                .map(|(k, x)| (k, with_run(x, run)))
                .collect::<Map<_, _>>(),
        ),
        other => other,
    }
}

struct Fixture {
    rt: tokio::runtime::Runtime,
    app: TestApp,
    run: String,
}

fn fixture() -> Fixture {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let app = TestApp::new();
    let run = rt.block_on(app.run("0", "target"));
    Fixture { rt, app, run }
}

impl Fixture {
    fn check(&self, req: Request<Body>) -> Result<(), TestCaseError> {
        let what = format!("{} {}", req.method(), req.uri());
        let (status, body) = self.rt.block_on(self.app.send(req));
        if status.as_u16() == 200 {
            prop_assert!(
                body.is_object(),
                "{what}: 200 without a JSON object: {body}"
            );
            return Ok(());
        }
        prop_assert!(
            status.is_client_error(),
            "{what}: status {status}, body {body}"
        );
        prop_assert!(
            body["error_code"].is_string(),
            "{what}: {status} without error_code: {body}"
        );
        prop_assert!(
            body["message"].is_string(),
            "{what}: {status} without message: {body}"
        );
        Ok(())
    }

    fn post(&self, route: &str, ctype: &str, body: Vec<u8>) -> Result<(), TestCaseError> {
        let mut req = Request::post(format!("/api/2.0/mlflow{route}"));
        if !ctype.is_empty() {
            req = req.header("content-type", ctype);
        }
        self.check(req.body(Body::from(body)).unwrap())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn random_json_bodies_never_5xx(route in prop::sample::select(POST_ROUTES), body in object(json_value(), 8)) {
        let f = fixture_once();
        let body = with_run(body, &f.run);
        f.post(route, "application/json", body.to_string().into_bytes())?;
    }

    #[test]
    fn raw_bodies_and_content_types_never_5xx(
        route in prop::sample::select(POST_ROUTES),
        ctype in prop::sample::select(&["application/json", "text/plain", "", "application/json; charset=utf-8", "multipart/form-data"][..]),
        body in prop_oneof![prop::collection::vec(any::<u8>(), 0..64), "\\PC{0,64}".prop_map(String::into_bytes), json_value().prop_map(|v| v.to_string().into_bytes())],
    ) {
        fixture_once().post(route, ctype, body)?;
    }

    #[test]
    fn random_queries_never_5xx(
        route in prop::sample::select(GET_ROUTES),
        pairs in prop::collection::vec((prop::sample::select(FIELDS), string()), 0..8),
    ) {
        let f = fixture_once();
        let query: String = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(pairs.iter().map(|(k, v)| (*k, if v == "RUN" { f.run.as_str() } else { v.as_str() })))
            .finish();
        let req = Request::get(format!("/api/2.0/mlflow{route}?{query}")).body(Body::empty()).unwrap();
        f.check(req)?;
    }

    #[test]
    fn oversize_batches_and_bad_keys_never_5xx(
        n_metrics in 0usize..1200,
        n_params in 0usize..120,
        key in prop_oneof![prop::sample::select(STRINGS).prop_map(str::to_string), "[a-z/._ :$-]{0,300}"],
        step in any::<i64>(),
        timestamp in any::<i64>(),
    ) {
        let f = fixture_once();
        let metrics: Vec<Value> = (0..n_metrics)
            .map(|i| serde_json::json!({"key": format!("{key}{}", i % 3), "value": i, "timestamp": timestamp, "step": step}))
            .collect();
        let params: Vec<Value> = (0..n_params)
            .map(|i| serde_json::json!({"key": format!("{key}{i}"), "value": "v"}))
            .collect();
        let body = serde_json::json!({"run_id": f.run, "metrics": metrics, "params": params});
        f.post("/runs/log-batch", "application/json", body.to_string().into_bytes())?;
    }
}

/// Oversized shapes that reach SQLite's limits: many filter clauses, long
/// `IN` lists, many `order_by` keys, many experiment or run ids.
#[derive(Debug, Clone)]
enum Oversized {
    Clauses(usize),
    InList(usize),
    OrderKeys(usize),
    ExperimentIds(usize),
    BulkRunIds(usize),
}

fn oversized() -> impl Strategy<Value = Oversized> {
    prop_oneof![
        (0usize..1_500).prop_map(Oversized::Clauses),
        (0usize..40_000).prop_map(Oversized::InList),
        (0usize..100).prop_map(Oversized::OrderKeys),
        (0usize..40_000).prop_map(Oversized::ExperimentIds),
        (0usize..300).prop_map(Oversized::BulkRunIds),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn oversized_filters_order_by_and_id_lists_never_5xx(shape in oversized(), metric in any::<bool>()) {
        let f = fixture_once();
        let kind = if metric { "metrics" } else { "params" };
        let search = |body: Value| f.post("/runs/search", "application/json", body.to_string().into_bytes());
        match shape {
            Oversized::Clauses(n) => {
                let filter = (0..n).map(|i| format!("{kind}.k{i} > 0")).collect::<Vec<_>>().join(" AND ");
                search(serde_json::json!({"experiment_ids": ["0"], "filter": filter}))?;
            }
            Oversized::InList(n) => {
                let items = vec!["'x'"; n.max(1)].join(",");
                let filter = format!("attributes.run_id IN ({items})");
                search(serde_json::json!({"experiment_ids": ["0"], "filter": filter}))?;
            }
            Oversized::OrderKeys(n) => {
                let keys: Vec<String> = (0..n).map(|i| format!("{kind}.k{i} DESC")).collect();
                search(serde_json::json!({"experiment_ids": ["0"], "order_by": keys}))?;
                f.post("/experiments/search", "application/json",
                    serde_json::json!({"order_by": keys}).to_string().into_bytes())?;
            }
            Oversized::ExperimentIds(n) => {
                let ids: Vec<String> = (0..n).map(|i| (i % 7).to_string()).collect();
                search(serde_json::json!({"experiment_ids": ids}))?;
            }
            Oversized::BulkRunIds(n) => {
                let mut q = form_urlencoded::Serializer::new(String::new());
                for _ in 0..n {
                    q.append_pair("run_ids", &f.run);
                }
                q.append_pair("metric_key", "m");
                let uri = format!("/api/2.0/mlflow/metrics/get-history-bulk-interval?{}", q.finish());
                f.check(Request::get(uri).body(Body::empty()).unwrap())?;
            }
        }
    }
}

/// One fixture per test thread, shared by all cases of that thread.
fn fixture_once() -> &'static Fixture {
    thread_local! {
        static FIXTURE: &'static Fixture = Box::leak(Box::new(fixture()));
    }
    FIXTURE.with(|f| *f)
}
