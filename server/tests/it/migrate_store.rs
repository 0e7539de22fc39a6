//! `runlens migrate-store` (docs/POSTGRES-PLAN.md §10 step 6): an embedded data dir copied
//! into PostgreSQL answers every read as before, takes new writes, keeps its artifacts; a
//! target with data is refused untouched; the 0.1.0 fixture moves too. These tests need a
//! PostgreSQL server (`RUNLENS_TEST_DATABASE_URL`, see `scripts/pg.sh`): they are ignored
//! (counted as skipped) in the SQLite run, and `cargo-test-pg` runs them.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::body::Body;
use axum::http::Request;
use axum::Router;
use serde_json::{json, Value};
use server::db::pg::{create_database, with_database, PgPool};
use server::store::copy::{migrate_store, CopyError, Report};
use server::{AppState, StaticConfig, Store};

use crate::helpers::{binary, oneshot, store::pg_url, TestApp};

/// An empty database of the test's own on the test server, dropped at the end.
struct Target {
    admin: String,
    name: String,
    url: String,
}

impl Target {
    /// A fresh database on the test server (these tests are ignored without one).
    fn new(test: &str) -> Target {
        let admin = pg_url().unwrap_or_else(|| {
            panic!("{test} needs RUNLENS_TEST_DATABASE_URL (scripts/pg.sh start DIR)")
        });
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "mig_{}_{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        create_database(&admin, &name, None).expect("create the target database");
        let url = with_database(&admin, &name);
        Target { admin, name, url }
    }

    /// Row counts of every table in the target, by name.
    fn counts(&self) -> Vec<(String, i64)> {
        let pool = PgPool::connect(&self.url, 1).expect("connect");
        let conn = pool.get().expect("connection");
        let tables: Vec<String> = conn
            .prepare("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")
            .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
            .expect("tables");
        tables
            .into_iter()
            .map(|t| {
                let n = conn
                    .query_row(&format!("SELECT count(*) FROM \"{t}\""), [], |r| r.get(0))
                    .expect("count");
                (t, n)
            })
            .collect()
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        if let Ok(pool) = PgPool::connect(&self.admin, 1) {
            if let Ok(conn) = pool.get() {
                let sql = format!("DROP DATABASE IF EXISTS \"{}\" WITH (FORCE)", self.name);
                let _ = conn.execute_batch(&sql);
            }
        }
    }
}

/// The real router over `store`, called with bearer tokens.
struct Api(Router);

impl Api {
    fn over(store: &Store) -> Api {
        Api(server::app(
            AppState::new(store.clone()),
            &StaticConfig::default(),
        ))
    }

    /// `method uri` as the token's user (none for ""), with an optional JSON body:
    /// (status, body as JSON, or as a JSON string when it is not JSON).
    async fn call(
        &self,
        token: &str,
        method: &str,
        uri: &str,
        body: Option<&Value>,
    ) -> (u16, Value) {
        let mut req = Request::builder()
            .method(method)
            .uri(uri)
            .header("content-type", "application/json");
        if !token.is_empty() {
            req = req.header("authorization", format!("Bearer {token}"));
        }
        let body = body.map_or_else(Body::empty, |b| Body::from(b.to_string()));
        let r = oneshot(&self.0, req.body(body).expect("request")).await;
        let body = match r.body {
            Value::Null => Value::String(r.text),
            json => json,
        };
        (r.status.as_u16(), body)
    }

    /// A call that must succeed (2xx).
    async fn ok(&self, token: &str, method: &str, uri: &str, body: Option<Value>) -> Value {
        let (status, v) = self.call(token, method, uri, body.as_ref()).await;
        assert!((200..300).contains(&status), "{method} {uri}: {status} {v}");
        v
    }
}

/// Rows copied of `table` in `report`.
fn rows(report: &Report, table: &str) -> u64 {
    report
        .tables
        .iter()
        .find(|t| t.table == table)
        .unwrap_or_else(|| panic!("{table} not copied"))
        .rows
}

/// A run in experiment `exp` named `name`, as the token's user; its id.
async fn new_run(api: &Api, token: &str, exp: &str, name: &str) -> String {
    let body =
        json!({ "experiment_id": exp, "run_name": name, "start_time": 1_700_000_000_000i64 });
    let v = api
        .ok(token, "POST", "/api/2.0/mlflow/runs/create", Some(body))
        .await;
    v["run"]["info"]["run_id"]
        .as_str()
        .expect("run id")
        .to_owned()
}

/// Logs points `(step, value)` of `key` ("NaN" and "Infinity" as MLflow sends them).
async fn log_points(api: &Api, token: &str, run: &str, key: &str, points: &[(i64, Value)]) {
    let metrics: Vec<Value> = points
        .iter()
        .map(|(step, v)| json!({ "key": key, "value": v, "timestamp": 1_700_000_000_000i64 + step, "step": step }))
        .collect();
    let body = json!({ "run_id": run, "metrics": metrics });
    api.ok(token, "POST", "/api/2.0/mlflow/runs/log-batch", Some(body))
        .await;
}

/// A logged model named `name` in the Default experiment; its id.
async fn model(api: &Api, token: &str, name: &str) -> String {
    let body = json!({ "experiment_id": "0", "name": name });
    let v = api
        .ok(token, "POST", "/api/2.0/mlflow/logged-models", Some(body))
        .await;
    v["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_owned()
}

/// Links `models` to `run` as its outputs, in this order.
async fn outputs(api: &Api, token: &str, run: &str, models: &[&str]) {
    let models: Vec<Value> = models
        .iter()
        .map(|m| json!({ "model_id": m, "step": 0 }))
        .collect();
    let body = json!({ "run_id": run, "models": models });
    api.ok(token, "POST", "/api/2.0/mlflow/runs/outputs", Some(body))
        .await;
}

/// The reads compared before and after the move: (method, uri, body), as the admin.
fn reads(
    app: &TestApp,
    nan_run: &str,
    log_run: &str,
) -> Vec<(&'static str, String, Option<Value>)> {
    let sft = app.run_id("sft-7b-lr2e-5");
    let alice_exp = app.experiment_id("/Users/alice/llm-sft");
    let all: Vec<String> = (0..5).map(|i| i.to_string()).collect();
    vec![
        ("POST", "/api/2.0/mlflow/experiments/search".into(), Some(json!({ "max_results": 100 }))),
        (
            "POST",
            "/api/2.0/mlflow/runs/search".into(),
            Some(json!({ "experiment_ids": all, "max_results": 1000 })),
        ),
        (
            "POST",
            "/api/2.0/mlflow/runs/search".into(),
            Some(json!({ "experiment_ids": all, "filter": "metrics.`train/loss` < 2", "order_by": ["metrics.`train/loss` ASC"] })),
        ),
        ("GET", format!("/api/2.0/mlflow/metrics/get-history?run_id={nan_run}&metric_key=odd"), None),
        (
            "GET",
            format!("/api/2.0/mlflow/metrics/get-history?run_id={sft}&metric_key=train/loss&max_results=25000"),
            None,
        ),
        ("GET", format!("/api/v1/runs/{sft}/series?key=train/loss&width=500"), None),
        ("GET", format!("/api/v1/runs/{sft}/series?key=train/loss&width=300&x_min=100&x_max=9000"), None),
        ("GET", format!("/api/v1/runs/{sft}"), None),
        ("GET", format!("/api/v1/runs/{sft}/io"), None),
        ("GET", format!("/api/v1/runs/{nan_run}/io"), None),
        ("GET", format!("/api/v1/runs/{sft}/artifacts"), None),
        ("GET", format!("/api/v1/runs/{sft}/artifacts/file?path=config.json"), None),
        ("GET", format!("/api/v1/experiments/{alice_exp}/runs"), None),
        ("GET", format!("/api/v1/experiments/{alice_exp}/access"), None),
        ("GET", format!("/api/v1/runs/{log_run}/logs?limit=10000&earliest=true"), None),
        ("GET", format!("/api/v1/runs/{log_run}/logs?q=Traceback&limit=100"), None),
        ("GET", format!("/api/v1/runs/{log_run}/job"), None),
        ("GET", "/api/v1/job-runs".into(), None),
        ("GET", "/api/2.0/mlflow/registered-models/search".into(), None),
        ("GET", "/api/2.0/mlflow/registered-models/alias?name=sft-7b-chat&alias=champion".into(), None),
        ("GET", "/api/2.0/mlflow/users/get?username=alice".into(), None),
    ]
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test]
async fn pg_a_demo_data_dir_moves_to_postgres_with_nothing_lost() {
    let target = Target::new("a_demo_data_dir_moves_to_postgres_with_nothing_lost");
    // The source: the demo (experiments, runs, metrics, jobs with log lines, users, a
    // group, grants, artifacts, a logged model, datasets, a registered model), nodes, and
    // a run with NaN and infinite points.
    let app = TestApp::sqlite();
    server::demo::load(&app.store).expect("demo");
    server::demo::load_artifacts(&AppState::new(app.store.clone()))
        .await
        .expect("demo artifacts");
    server::demo::register_nodes(&app.store, &[], "node-token").expect("nodes");
    let (admin, bob, carol) = (
        app.admin_token.clone(),
        app.token("bob"),
        app.token("carol"),
    );
    let before = Api::over(&app.store);
    let odd = new_run(&before, &admin, "0", "odd-values").await;
    let odd_points = [
        (0, json!(1.5)),
        (1, json!("NaN")),
        (2, json!("Infinity")),
        (3, json!("-Infinity")),
    ];
    log_points(&before, &admin, &odd, "odd", &odd_points).await;
    // Models a run produced, listed in the order they were linked (SQLite's rowid,
    // PostgreSQL's run_models.seq): b before a.
    let (b, a) = (
        model(&before, &admin, "b").await,
        model(&before, &admin, "a").await,
    );
    outputs(&before, &admin, &odd, &[&b, &a]).await;
    let log_run = app.run_id("sft-7b-lr1e-4");
    let reads = reads(&app, &odd, &log_run);
    let mut answers = Vec::new();
    for (method, uri, body) in &reads {
        answers.push(before.ok(&admin, method, uri, body.clone()).await);
    }

    let report = migrate_store(app.dir(), &target.url).expect("migrate-store");
    assert!(rows(&report, "metric_points") > 300_000, "{report:?}");
    assert_eq!(rows(&report, "users"), 4, "root and the demo's three");
    assert!(rows(&report, "log_chunks") > 0 && rows(&report, "metric_summaries") > 0);
    for t in &report.tables {
        assert!(t.rows == 0 || t.sampled > 0, "{} was not compared", t.table);
    }
    assert!(report.sequences.iter().any(|(c, _)| c == "log_chunks.id"));
    assert_eq!(rows(&report, "run_models"), 2);
    assert!(
        report.sequences.contains(&("run_models.seq".to_owned(), 2)),
        "{report:?}"
    );

    let pg = Store::open_postgres(&target.url, app.dir()).expect("open the copy");
    let after = Api::over(&pg);
    for ((method, uri, body), want) in reads.iter().zip(&answers) {
        let got = after.ok(&admin, method, uri, body.clone()).await;
        assert_eq!(&got, want, "{method} {uri} differs after the move");
    }
    // The reads compared are not empty ones.
    let answer = |part: &str| {
        let at = reads.iter().position(|r| r.1.contains(part)).expect(part);
        &answers[at]
    };
    let history = &answer("metric_key=odd")["metrics"];
    assert_eq!(history[1]["value"], "NaN", "{history}");
    assert_eq!(history[2]["value"], "Infinity", "{history}");
    assert_eq!(answer("width=500")["total_points"], 12_001);
    let lines = answer("earliest=true")["lines"]
        .as_array()
        .expect("lines")
        .len();
    assert!(lines > 1_000, "{lines} log lines");
    assert!(answer("file?path=config.json").to_string().len() > 20);
    assert!(answer(&format!("{odd}/io")).to_string().contains(&b));
    assert!(
        answer("runs/search")["runs"]
            .as_array()
            .expect("runs")
            .len()
            > 30
    );

    // Passwords, tokens and grants came along: alice signs in, bob reads alice's
    // experiment (a grant), carol may not.
    let signin = json!({ "username": "alice", "password": "alice-demo-pw" });
    let (status, v) = after
        .call("", "POST", "/api/v1/session", Some(&signin))
        .await;
    assert_eq!(status, 200, "{v}");
    let alice_exp = app.experiment_id("/Users/alice/llm-sft");
    let uri = format!("/api/2.0/mlflow/experiments/get?experiment_id={alice_exp}");
    assert_eq!(after.call(&bob, "GET", &uri, None).await.0, 200);
    assert_eq!(after.call(&carol, "GET", &uri, None).await.0, 403);

    // New rows get fresh ids past the copied ones (the sequences were moved).
    let v = after
        .ok(
            &admin,
            "POST",
            "/api/2.0/mlflow/experiments/create",
            Some(json!({ "name": "after-the-move" })),
        )
        .await;
    assert_eq!(v["experiment_id"], "5", "{v}");
    let run = new_run(&after, &admin, "5", "new-run").await;
    log_points(
        &after,
        &admin,
        &run,
        "loss",
        &[(0, json!(0.5)), (1, json!("NaN"))],
    )
    .await;
    let c = model(&after, &admin, "c").await;
    outputs(&after, &admin, &odd, &[&c]).await;
    let io = after
        .ok(&admin, "GET", &format!("/api/v1/runs/{odd}/io"), None)
        .await
        .to_string();
    let at = |m: &str| io.find(m).unwrap_or_else(|| panic!("{m} in {io}"));
    assert!(at(&b) < at(&a) && at(&a) < at(&c), "{io}");
    let user = json!({ "username": "dana", "password": "dana-password-1" });
    after
        .ok(&admin, "POST", "/api/2.0/mlflow/users/create", Some(user))
        .await;
    let model = json!({ "name": "after-the-move-model" });
    after
        .ok(
            &admin,
            "POST",
            "/api/2.0/mlflow/registered-models/create",
            Some(model),
        )
        .await;
    let job = after
        .ok(
            &admin,
            "POST",
            "/api/v1/jobs",
            Some(json!({ "name": "after-the-move-job" })),
        )
        .await;
    let body = json!({ "experiment_id": "5", "nodes": ["n1"], "max_retries": 0 });
    let job_run = after
        .ok(
            &admin,
            "POST",
            &format!("/api/v1/jobs/{}/runs", job["job_id"]),
            Some(body),
        )
        .await["job_run_id"]
        .as_i64()
        .expect("job run id");
    let attempt = after
        .ok(
            &admin,
            "POST",
            &format!("/api/v1/job-runs/{job_run}/attempts"),
            Some(json!({})),
        )
        .await;
    let line = json!({ "node": "n1", "first_seq": 0, "lines": [{ "ts_ms": 1_700_000_000_000i64, "stream": "stdout", "text": "written after the move" }] });
    after
        .ok(
            &admin,
            "POST",
            &format!("/api/v1/job-runs/{job_run}/attempts/1/logs"),
            Some(line),
        )
        .await;
    let page = after
        .ok(
            &admin,
            "GET",
            &format!(
                "/api/v1/runs/{}/logs?limit=10",
                attempt["run_id"].as_str().expect("run")
            ),
            None,
        )
        .await;
    assert_eq!(page["lines"][0]["text"], "written after the move", "{page}");
    let newest = pg
        .logs()
        .read(|c| server::logs::store::max_chunk_id(c))
        .expect("newest chunk");
    let copied = report
        .sequences
        .iter()
        .find(|(c, _)| c == "log_chunks.id")
        .expect("log_chunks")
        .1;
    assert!(newest > copied, "{newest} <= {copied}");
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test]
async fn pg_a_target_with_data_is_refused_and_left_unchanged() {
    let target = Target::new("a_target_with_data_is_refused_and_left_unchanged");
    let app = TestApp::sqlite();
    let exp = app.experiment("source-experiment").await;
    app.run(&exp, "source-run").await;
    {
        let pg = Store::open_postgres(&target.url, app.dir()).expect("open the target");
        pg.blocking(|c| {
            server::auth::users::create_user(c, "already-here", Some("a-password-1"), false)
        })
        .expect("user");
    }
    let before = target.counts();

    match migrate_store(app.dir(), &target.url) {
        Err(CopyError::NotEmpty(tables)) => assert_eq!(tables, ["users"]),
        other => panic!("expected NotEmpty, got {other:?}"),
    }
    let dir = app.dir().to_str().expect("utf-8 path");
    let out = binary::runlens(
        app.dir(),
        &[
            "migrate-store",
            "--from",
            &format!("sqlite:{dir}"),
            "--to",
            &target.url,
        ],
        None,
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains("not empty (rows in users)"), "{err}");
    assert_eq!(target.counts(), before, "the target was touched");
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test]
async fn pg_the_0_1_0_fixture_moves_to_postgres() {
    let target = Target::new("the_0_1_0_fixture_moves_to_postgres");
    let dir = tempfile::tempdir().expect("tempdir");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/v0_1_0/runlens.db");
    std::fs::copy(fixture, dir.path().join("runlens.db")).expect("copy the fixture");

    let report = migrate_store(dir.path(), &target.url).expect("migrate-store");
    for (table, n) in [
        ("users", 4),
        ("runs", 4),
        ("metric_points", 11),
        ("experiment_grants", 5),
        ("sessions", 1),
        ("api_tokens", 1),
    ] {
        assert_eq!(rows(&report, table), n, "{table}");
    }
    // The blocks and columns the SQLite migrations derived from 0.1.0's points came along.
    assert!(rows(&report, "metric_summaries") > 0 && rows(&report, "experiment_columns") > 0);

    let pg = Store::open_postgres(&target.url, dir.path()).expect("open the copy");
    let api = Api::over(&pg);
    let signin = json!({ "username": "alice", "password": "alice-pw-123" });
    let (status, v) = api.call("", "POST", "/api/v1/session", Some(&signin)).await;
    assert_eq!(status, 200, "{v}");
    let admin = server::auth::bootstrap::create_admin_with_token(&pg, "root").expect("admin");
    let run = pg
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT run_uuid FROM runs WHERE name = 'fixture-run-1'",
                [],
                |r| r.get::<_, String>(0),
            )?)
        })
        .expect("run");
    let h = api
        .ok(
            &admin,
            "GET",
            &format!("/api/2.0/mlflow/metrics/get-history?run_id={run}&metric_key=loss"),
            None,
        )
        .await;
    let values: Vec<&Value> = h["metrics"]
        .as_array()
        .expect("metrics")
        .iter()
        .map(|m| &m["value"])
        .collect();
    assert!(values.contains(&&json!("NaN")), "{h}");
    // bob's CAN_READ grant on alice's experiment still applies.
    let bob = pg
        .blocking(|c| {
            let id = server::auth::users::find_user_id(c, "bob")?.expect("bob");
            Ok(server::auth::tokens::create_token(c, id, "t")?.token)
        })
        .expect("bob's token");
    let exp = api
        .ok(
            &bob,
            "GET",
            "/api/2.0/mlflow/experiments/get-by-name?experiment_name=/Users/alice/fixture-sft",
            None,
        )
        .await;
    assert_eq!(exp["experiment"]["experiment_id"], "1", "{exp}");
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[test]
fn pg_the_binary_migrates_and_the_copy_serves() {
    let target = Target::new("the_binary_migrates_and_the_copy_serves");
    let dir = tempfile::tempdir().expect("tempdir");
    let exp = {
        // The source is a SQLite data dir.
        let mut server = binary::Server::start_with(
            dir.path(),
            &[],
            &[("RUNLENS_LOG", "warn"), ("RUNLENS_DATABASE_URL", "")],
        );
        let exp = server.ok(
            "POST",
            "/api/2.0/mlflow/experiments/create",
            Some(&json!({ "name": "moved" })),
        );
        let exp = exp["experiment_id"].as_str().expect("id").to_owned();
        let body = json!({ "experiment_id": exp, "run_name": "moved-run", "start_time": 1 });
        server.ok("POST", "/api/2.0/mlflow/runs/create", Some(&body));
        server.signal("TERM");
        server
            .wait_exit(std::time::Duration::from_secs(30))
            .expect("the server stops");
        exp
    };
    let from = format!("sqlite:{}", dir.path().display());
    let out = binary::runlens_ok(
        dir.path(),
        &["migrate-store", "--from", &from, "--to", &target.url],
        None,
    );
    assert!(out.contains("total: ") && out.contains("rows/s"), "{out}");
    assert!(out.contains("runlens serve --database-url"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("runs ") && l.contains(" 1  count, 1 rows compared")),
        "{out}"
    );

    // The copy serves: the administrator (same password) finds the run.
    let server = binary::Server::start_with(
        dir.path(),
        &["--database-url", &target.url],
        &[("RUNLENS_LOG", "warn")],
    );
    let found = server.ok(
        "POST",
        "/api/2.0/mlflow/runs/search",
        Some(&json!({ "experiment_ids": [exp] })),
    );
    assert_eq!(found["runs"][0]["info"]["run_name"], "moved-run", "{found}");
    drop(server);

    // A second copy into the same database is refused.
    let again = binary::runlens(
        dir.path(),
        &["migrate-store", "--from", &from, "--to", &target.url],
        None,
    );
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
}

#[ignore = "PostgreSQL only: cargo-test-pg runs it"]
#[tokio::test]
async fn pg_a_trigger_that_fires_on_insert_is_off_during_the_copy() {
    let target = Target::new("a_trigger_that_fires_on_insert_is_off_during_the_copy");
    let app = TestApp::sqlite();
    let exp = app.experiment("with-params").await;
    let run = app.run(&exp, "r").await;
    let body = json!({ "run_id": run, "params": [{ "key": "lr", "value": "0.1" }] });
    app.ok("/runs/log-batch", body).await;
    // A trigger deriving rows from params, as one maintaining a derived table would: were
    // it on during the copy, meta would get a row the source does not have.
    let pg = Store::open_postgres(&target.url, app.dir()).expect("open the target");
    pg.blocking(|c| {
        c.execute_batch(
            "CREATE FUNCTION derive() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN INSERT INTO meta (key, value) VALUES ('derived:' || NEW.key, NEW.value);
                   RETURN NULL; END; $$;
             CREATE TRIGGER derive AFTER INSERT ON params FOR EACH ROW EXECUTE FUNCTION derive();",
        )?;
        Ok(())
    })
    .expect("trigger");
    drop(pg);

    let report = migrate_store(app.dir(), &target.url).expect("migrate-store");
    assert_eq!(report.triggers, ["params.derive"]);
    assert_eq!(rows(&report, "params"), 1);
    let pg = Store::open_postgres(&target.url, app.dir()).expect("open the copy");
    let enabled: String = pg
        .blocking(|c| {
            Ok(c.query_row(
                "SELECT tgenabled::text FROM pg_trigger WHERE tgname = 'derive'",
                [],
                |r| r.get(0),
            )?)
        })
        .expect("trigger state");
    assert_eq!(enabled, "O", "enabled again");
}
