//! Jobs, job runs and attempts end to end on the real router: what each job
//! level allows (own and group grants, admins, the owner), the sharing rules, attempts as
//! MLflow runs with their tags, status transitions, listing, and the two permissions a
//! job-backed run has (the experiment's and the job's).

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// A job `nightly` owned by alice in alice's experiment `/Users/alice/train`, with grants:
/// bob CAN_VIEW, carol CAN_MANAGE_RUN, group `ops` (dave) CAN_MANAGE on the job; carol
/// CAN_EDIT and frank CAN_READ on the experiment; eve nothing.
struct World {
    app: TestApp,
    root: String,
    alice: String,
    bob: String,
    carol: String,
    dave: String,
    eve: String,
    frank: String,
    exp: String,
    job: i64,
}

impl World {
    async fn new() -> World {
        let app = TestApp::new();
        let root = app.admin_token.clone();
        let [alice, bob, carol, dave, eve, frank] =
            ["alice", "bob", "carol", "dave", "eve", "frank"].map(|n| app.user_token(n, false));
        app.store
            .blocking(|c| {
                server::auth::groups::create_group(c, "ops")?;
                server::auth::groups::add_member(c, "ops", "dave")
            })
            .expect("group");
        let (s, v) = app.create_as(&alice, "/Users/alice/train").await;
        assert_eq!(s, 200, "{v}");
        let exp = v["experiment_id"].as_str().expect("id").to_string();
        let (s, v) = app
            .call_as(
                &alice,
                "POST",
                "/api/v1/jobs",
                Some(json!({"name": "nightly"})),
            )
            .await;
        assert_eq!(s, 201, "{v}");
        assert_eq!(v["owner"], "alice");
        assert_eq!(v["your_level"], "IS_OWNER");
        let job = v["job_id"].as_i64().expect("job id");
        let w = World {
            app,
            root,
            alice,
            bob,
            carol,
            dave,
            eve,
            frank,
            exp,
            job,
        };
        for (kind, name, level) in [
            ("user", "bob", "CAN_VIEW"),
            ("user", "carol", "CAN_MANAGE_RUN"),
            ("group", "ops", "CAN_MANAGE"),
        ] {
            let (s, v) = w.job_grant(&w.alice, kind, name, level).await;
            assert_eq!(s, 204, "{v}");
        }
        for (name, level) in [("carol", "CAN_EDIT"), ("frank", "CAN_READ")] {
            let body = json!({"principal": {"kind": "user", "name": name}, "level": level});
            let uri = format!("/api/v1/experiments/{}/access", w.exp);
            let (s, v) = w.app.call_as(&w.alice, "PUT", &uri, Some(body)).await;
            assert_eq!(s, 204, "{v}");
        }
        w
    }

    async fn call(
        &self,
        token: &str,
        method: &str,
        uri: &str,
        body: Option<Value>,
    ) -> (u16, Value) {
        self.app.call_as(token, method, uri, body).await
    }

    async fn job_grant(&self, token: &str, kind: &str, name: &str, level: &str) -> (u16, Value) {
        let body = json!({"principal": {"kind": kind, "name": name}, "level": level});
        let uri = format!("/api/v1/jobs/{}/access", self.job);
        self.call(token, "PUT", &uri, Some(body)).await
    }

    /// Submits a job run of `nightly` as `token`; its id.
    async fn job_run(&self, token: &str, nodes: &[&str], max_retries: u32) -> i64 {
        let body = json!({"experiment_id": self.exp, "nodes": nodes, "max_retries": max_retries});
        let uri = format!("/api/v1/jobs/{}/runs", self.job);
        let (s, v) = self.call(token, "POST", &uri, Some(body)).await;
        assert_eq!(s, 201, "{v}");
        assert_eq!(v["status"], "QUEUED");
        v["job_run_id"].as_i64().expect("job run id")
    }

    /// Starts the next attempt of job run `id` as `token`; the attempt.
    async fn attempt(&self, token: &str, id: i64, body: Option<Value>) -> Value {
        let uri = format!("/api/v1/job-runs/{id}/attempts");
        let (s, v) = self.call(token, "POST", &uri, body).await;
        assert_eq!(s, 201, "{v}");
        v
    }

    async fn status(&self, token: &str, id: i64, status: &str) -> (u16, Value) {
        let uri = format!("/api/v1/job-runs/{id}/status");
        self.call(token, "POST", &uri, Some(json!({"status": status})))
            .await
    }

    /// The MLflow run `run_id` as the MLflow dialect shows it to the admin.
    async fn mlflow_run(&self, run_id: &str) -> Value {
        self.app.ok_get(&format!("/runs/get?run_id={run_id}")).await["run"].clone()
    }
}

fn tag<'a>(run: &'a Value, key: &str) -> Option<&'a str> {
    run["data"]["tags"]
        .as_array()?
        .iter()
        .find(|t| t["key"] == key)?["value"]
        .as_str()
}

#[tokio::test]
async fn each_job_level_allows_what_it_names_and_no_more() {
    let w = World::new().await;
    let job = format!("/api/v1/jobs/{}", w.job);
    let access = format!("{job}/access");
    let runs = format!("{job}/runs");
    let submit = json!({"experiment_id": w.exp, "nodes": ["n0"], "max_retries": 0});
    let reuse = json!({"name": "nightly"});

    // No grant: nothing, and the refusal names whom to ask.
    let (s, v) = w.call(&w.eve, "GET", &job, None).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    assert_eq!(v["message"], "You don't have access to this job.");
    assert_eq!(v["grantors"], json!(["alice"]));
    assert_eq!(w.call(&w.eve, "GET", &access, None).await.0, 403);
    let (s, v) = w
        .call(&w.eve, "POST", "/api/v1/jobs", Some(reuse.clone()))
        .await;
    assert_eq!(s, 403, "{v}");
    let msg = v["message"].as_str().unwrap_or("");
    assert!(
        msg.contains("'nightly'") && msg.contains("alice, group ops"),
        "{msg}"
    );

    // CAN_VIEW: see the job and its grants; submit nothing, grant nothing.
    let (s, v) = w.call(&w.bob, "GET", &job, None).await;
    assert_eq!(
        (s, v["your_level"].as_str()),
        (200, Some("CAN_VIEW")),
        "{v}"
    );
    assert_eq!(w.call(&w.bob, "GET", &access, None).await.0, 200);
    assert_eq!(
        w.call(&w.bob, "POST", "/api/v1/jobs", Some(reuse.clone()))
            .await
            .0,
        403
    );
    let (s, v) = w.call(&w.bob, "POST", &runs, Some(submit.clone())).await;
    assert_eq!(s, 403, "{v}");
    assert_eq!(
        v["message"],
        "You need CAN_MANAGE_RUN on this job to do this."
    );
    assert_eq!(w.job_grant(&w.bob, "user", "eve", "CAN_VIEW").await.0, 403);

    // CAN_MANAGE_RUN: reuse the job by name and submit; grant nothing.
    let (s, v) = w
        .call(&w.carol, "POST", "/api/v1/jobs", Some(reuse.clone()))
        .await;
    assert_eq!((s, v["job_id"].as_i64()), (200, Some(w.job)), "{v}");
    assert_eq!(v["your_level"], "CAN_MANAGE_RUN");
    assert_eq!(
        w.call(&w.carol, "POST", &runs, Some(submit.clone()))
            .await
            .0,
        201
    );
    assert_eq!(
        w.job_grant(&w.carol, "user", "eve", "CAN_VIEW").await.0,
        403
    );

    // CAN_MANAGE through a group: grant and revoke.
    let (s, v) = w.call(&w.dave, "GET", &job, None).await;
    assert_eq!(
        (s, v["your_level"].as_str()),
        (200, Some("CAN_MANAGE")),
        "{v}"
    );
    assert_eq!(w.job_grant(&w.dave, "user", "eve", "CAN_VIEW").await.0, 204);
    let (s, v) = w.call(&w.eve, "GET", &job, None).await;
    assert_eq!(
        (s, v["your_level"].as_str()),
        (200, Some("CAN_VIEW")),
        "{v}"
    );
    let revoke = format!("{access}?kind=user&name=eve");
    assert_eq!(w.call(&w.dave, "DELETE", &revoke, None).await.0, 204);
    assert_eq!(w.call(&w.eve, "GET", &job, None).await.0, 403);
    assert_eq!(w.call(&w.dave, "DELETE", &revoke, None).await.0, 404);

    // Admins act as owners.
    let (s, v) = w.call(&w.root, "GET", &job, None).await;
    assert_eq!(
        (s, v["your_level"].as_str()),
        (200, Some("IS_OWNER")),
        "{v}"
    );
    assert_eq!(
        w.job_grant(&w.root, "user", "frank", "CAN_VIEW").await.0,
        204
    );

    // The access listing: owner, users then groups by name.
    let (s, v) = w.call(&w.bob, "GET", &access, None).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["owner"], "alice");
    assert_eq!(v["job_name"], "nightly");
    let grants: Vec<String> = v["grants"]
        .as_array()
        .expect("grants")
        .iter()
        .map(|g| {
            format!(
                "{}:{}:{}",
                g["principal"]["kind"], g["principal"]["name"], g["level"]
            )
        })
        .collect();
    assert_eq!(
        grants,
        [
            r#""user":"bob":"CAN_VIEW""#,
            r#""user":"carol":"CAN_MANAGE_RUN""#,
            r#""user":"frank":"CAN_VIEW""#,
            r#""group":"ops":"CAN_MANAGE""#
        ]
    );
}

#[tokio::test]
async fn the_owner_is_never_granted_nor_revoked_and_is_owner_is_not_grantable() {
    let w = World::new().await;
    let access = format!("/api/v1/jobs/{}/access", w.job);
    let (s, v) = w.job_grant(&w.alice, "user", "eve", "IS_OWNER").await;
    assert_eq!(
        (s, v["code"].as_str()),
        (400, Some("INVALID_PARAMETER")),
        "{v}"
    );
    let (s, v) = w.job_grant(&w.root, "user", "alice", "CAN_VIEW").await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = w
        .call(
            &w.root,
            "DELETE",
            &format!("{access}?kind=user&name=alice"),
            None,
        )
        .await;
    assert_eq!(s, 400, "{v}");
    assert!(v["message"]
        .as_str()
        .unwrap_or("")
        .contains("alice owns this job"));
    let (s, v) = w
        .call(
            &w.dave,
            "DELETE",
            &format!("{access}?kind=user&name=alice"),
            None,
        )
        .await;
    assert_eq!(s, 400, "{v}");
    let (s, v) = w.job_grant(&w.alice, "user", "nobody", "CAN_VIEW").await;
    assert_eq!((s, v["code"].as_str()), (404, Some("NOT_FOUND")), "{v}");
    let (s, _) = w.job_grant(&w.alice, "group", "nogroup", "CAN_VIEW").await;
    assert_eq!(s, 404);
    let (s, _) = w
        .call(&w.alice, "PUT", &access, Some(json!({"level": "CAN_VIEW"})))
        .await;
    assert_eq!(s, 400);
    // Changing a level replaces it; the owner still owns.
    assert_eq!(
        w.job_grant(&w.alice, "user", "bob", "CAN_MANAGE").await.0,
        204
    );
    let (_, v) = w.call(&w.bob, "GET", &access, None).await;
    assert_eq!(v["your_level"], "CAN_MANAGE");
    let (_, v) = w.call(&w.alice, "GET", &access, None).await;
    assert_eq!(v["your_level"], "IS_OWNER");
}

#[tokio::test]
async fn job_names_and_ids_are_checked() {
    let w = World::new().await;
    for bad in [
        json!({"name": ""}),
        json!({"name": "a\nb"}),
        json!({"name": "x".repeat(257)}),
    ] {
        let (s, v) = w.call(&w.bob, "POST", "/api/v1/jobs", Some(bad)).await;
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{v}"
        );
    }
    let (s, v) = w
        .call(&w.bob, "POST", "/api/v1/jobs", Some(json!({})))
        .await;
    assert_eq!((s, v["code"].as_str()), (400, Some("BAD_REQUEST")), "{v}");
    let long = "é".repeat(256);
    let (s, v) = w
        .call(&w.bob, "POST", "/api/v1/jobs", Some(json!({"name": long})))
        .await;
    assert_eq!((s, v["owner"].as_str()), (201, Some("bob")), "{v}");
    for uri in [
        "/api/v1/jobs/424242",
        "/api/v1/jobs/abc",
        "/api/v1/job-runs/424242",
        "/api/v1/job-runs/x1",
    ] {
        let (s, v) = w.call(&w.bob, "GET", uri, None).await;
        assert_eq!(
            (s, v["code"].as_str()),
            (404, Some("NOT_FOUND")),
            "{uri}: {v}"
        );
    }
}

#[tokio::test]
async fn attempts_are_mlflow_runs_with_the_job_tags_in_the_job_runs_experiment() {
    let w = World::new().await;
    let id = w.job_run(&w.carol, &["n0", "n1"], 1).await;
    let (s, v) = w
        .call(&w.bob, "GET", &format!("/api/v1/job-runs/{id}"), None)
        .await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["job"], json!({"job_id": w.job, "name": "nightly"}));
    assert_eq!(v["experiment_id"], w.exp.as_str());
    assert_eq!(v["nodes"], json!(["n0", "n1"]));
    assert_eq!(
        (v["max_retries"].as_u64(), v["created_by"].as_str()),
        (Some(1), Some("carol"))
    );
    assert_eq!(v["attempts"], json!([]));

    let first = w.attempt(&w.carol, id, None).await;
    assert_eq!(
        (first["number"].as_u64(), first["status"].as_str()),
        (Some(1), Some("RUNNING"))
    );
    assert_eq!(first["run_name"], format!("nightly-{id}-attempt-1"));
    let run = w
        .mlflow_run(first["run_id"].as_str().expect("run id"))
        .await;
    assert_eq!(run["info"]["experiment_id"], w.exp.as_str());
    assert_eq!(run["info"]["user_id"], "carol");
    assert_eq!(run["info"]["status"], "RUNNING");
    assert_eq!(tag(&run, "runlens.job"), Some("nightly"));
    assert_eq!(
        tag(&run, "runlens.job_run_id"),
        Some(id.to_string().as_str())
    );
    assert_eq!(tag(&run, "runlens.attempt"), Some("1"));
    assert_eq!(tag(&run, "runlens.nodes"), Some("n0,n1"));

    let second = w
        .attempt(&w.carol, id, Some(json!({"run_name": "retry"})))
        .await;
    assert_eq!(
        (second["number"].as_u64(), second["run_name"].as_str()),
        (Some(2), Some("retry"))
    );
    assert_ne!(second["run_id"], first["run_id"]);
    let run = w
        .mlflow_run(second["run_id"].as_str().expect("run id"))
        .await;
    assert_eq!(tag(&run, "runlens.attempt"), Some("2"));
    let (_, v) = w
        .call(&w.bob, "GET", &format!("/api/v1/job-runs/{id}"), None)
        .await;
    assert_eq!(v["status"], "RUNNING");
    let numbers: Vec<u64> = v["attempts"]
        .as_array()
        .expect("attempts")
        .iter()
        .filter_map(|a| a["number"].as_u64())
        .collect();
    assert_eq!(numbers, [1, 2]);

    // A node joining later is tagged on the running attempt; joining twice changes nothing.
    let nodes = format!("/api/v1/job-runs/{id}/nodes");
    for _ in 0..2 {
        let (s, v) = w
            .call(&w.carol, "POST", &nodes, Some(json!({"node": "n2"})))
            .await;
        assert_eq!(
            (s, v["nodes"].clone()),
            (200, json!(["n0", "n1", "n2"])),
            "{v}"
        );
    }
    let run = w
        .mlflow_run(second["run_id"].as_str().expect("run id"))
        .await;
    assert_eq!(tag(&run, "runlens.nodes"), Some("n0,n1,n2"));
    let (s, _) = w
        .call(&w.bob, "POST", &nodes, Some(json!({"node": "n3"})))
        .await;
    assert_eq!(s, 403);
    let (s, v) = w
        .call(&w.carol, "POST", &nodes, Some(json!({"node": "bad name"})))
        .await;
    assert_eq!(
        (s, v["code"].as_str()),
        (400, Some("INVALID_PARAMETER")),
        "{v}"
    );
}

#[tokio::test]
async fn submitting_and_starting_attempts_need_edit_on_the_experiment() {
    let w = World::new().await;
    // dave manages the job but cannot read alice's experiment.
    let body = json!({"experiment_id": w.exp, "nodes": [], "max_retries": 0});
    let uri = format!("/api/v1/jobs/{}/runs", w.job);
    let (s, v) = w.call(&w.dave, "POST", &uri, Some(body)).await;
    assert_eq!(s, 403, "{v}");
    assert_eq!(v["message"], "You don't have access to this experiment.");
    let id = w.job_run(&w.carol, &["n0"], 0).await;
    let (s, v) = w
        .call(
            &w.dave,
            "POST",
            &format!("/api/v1/job-runs/{id}/attempts"),
            None,
        )
        .await;
    assert_eq!(s, 403, "{v}");
    // frank only reads the experiment.
    assert_eq!(
        w.job_grant(&w.alice, "user", "frank", "CAN_MANAGE_RUN")
            .await
            .0,
        204
    );
    let (s, v) = w
        .call(
            &w.frank,
            "POST",
            &format!("/api/v1/job-runs/{id}/attempts"),
            None,
        )
        .await;
    assert_eq!(s, 403, "{v}");
    assert_eq!(
        v["message"],
        "You need CAN_EDIT on this experiment to do this."
    );
    let missing = json!({"experiment_id": "424242", "nodes": [], "max_retries": 0});
    assert_eq!(w.call(&w.carol, "POST", &uri, Some(missing)).await.0, 404);
}

#[tokio::test]
async fn job_run_submissions_are_validated() {
    let w = World::new().await;
    let uri = format!("/api/v1/jobs/{}/runs", w.job);
    let many: Vec<String> = (0..257).map(|i| format!("n{i}")).collect();
    for body in [
        json!({"experiment_id": w.exp, "nodes": ["ok", "not ok"], "max_retries": 0}),
        json!({"experiment_id": w.exp, "nodes": ["a", "b", "a"], "max_retries": 0}),
        json!({"experiment_id": w.exp, "nodes": many, "max_retries": 0}),
        json!({"experiment_id": w.exp, "nodes": [], "max_retries": 101}),
        json!({"experiment_id": w.exp, "nodes": [".."], "max_retries": 0}),
    ] {
        let (s, v) = w.call(&w.carol, "POST", &uri, Some(body.clone())).await;
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{body}: {v}"
        );
    }
    let (s, v) = w
        .call(
            &w.carol,
            "POST",
            &uri,
            Some(json!({"experiment_id": w.exp})),
        )
        .await;
    assert_eq!((s, v["code"].as_str()), (400, Some("BAD_REQUEST")), "{v}");
    let ok: Vec<String> = (0..256).map(|i| format!("n{i}")).collect();
    let body = json!({"experiment_id": w.exp, "nodes": ok, "max_retries": 100});
    assert_eq!(w.call(&w.carol, "POST", &uri, Some(body)).await.0, 201);
}

#[tokio::test]
async fn a_final_status_ends_the_latest_attempt_and_never_changes() {
    let w = World::new().await;
    for (final_status, run_status) in [
        ("SUCCEEDED", "FINISHED"),
        ("FAILED", "FAILED"),
        ("CANCELED", "KILLED"),
    ] {
        let id = w.job_run(&w.carol, &["n0"], 1).await;
        let first = w.attempt(&w.carol, id, None).await;
        let second = w.attempt(&w.carol, id, None).await;
        let (s, v) = w.status(&w.carol, id, final_status).await;
        assert_eq!((s, v["status"].as_str()), (200, Some(final_status)), "{v}");
        assert!(v["ended"].as_i64().is_some(), "{v}");
        let run = w.mlflow_run(second["run_id"].as_str().expect("id")).await;
        assert_eq!(run["info"]["status"], run_status, "{final_status}");
        assert!(run["info"]["end_time"].as_i64().is_some(), "{run}");
        // Only the latest attempt is ended.
        let run = w.mlflow_run(first["run_id"].as_str().expect("id")).await;
        assert_eq!(run["info"]["status"], "RUNNING");
        // Out of a final status: refused; the same one again: unchanged.
        for other in ["RUNNING", "QUEUED", "SUCCEEDED", "FAILED", "CANCELED"] {
            let (s, v) = w.status(&w.carol, id, other).await;
            let want = if other == final_status { 200 } else { 400 };
            assert_eq!(s, want, "{final_status} -> {other}: {v}");
        }
        let uri = format!("/api/v1/job-runs/{id}/attempts");
        let (s, v) = w.call(&w.carol, "POST", &uri, None).await;
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{v}"
        );
        let nodes = format!("/api/v1/job-runs/{id}/nodes");
        assert_eq!(
            w.call(&w.carol, "POST", &nodes, Some(json!({"node": "late"})))
                .await
                .0,
            400
        );
        assert_eq!(
            w.call(&w.carol, "POST", &nodes, Some(json!({"node": "n0"})))
                .await
                .0,
            200
        );
    }
    // An attempt already ended by its agent keeps its own status.
    let id = w.job_run(&w.carol, &[], 0).await;
    let a = w.attempt(&w.carol, id, None).await;
    let run_id = a["run_id"].as_str().expect("id");
    w.app
        .ok(
            "/runs/update",
            json!({"run_id": run_id, "status": "FAILED", "end_time": 5}),
        )
        .await;
    assert_eq!(w.status(&w.carol, id, "SUCCEEDED").await.0, 200);
    let run = w.mlflow_run(run_id).await;
    assert_eq!(
        (
            run["info"]["status"].as_str(),
            run["info"]["end_time"].as_i64()
        ),
        (Some("FAILED"), Some(5))
    );
    // Active statuses move freely; bad ones are refused; viewers cannot set any.
    let id = w.job_run(&w.carol, &[], 0).await;
    assert_eq!(w.status(&w.carol, id, "RUNNING").await.0, 200);
    let (s, v) = w.status(&w.carol, id, "QUEUED").await;
    assert_eq!((s, v["ended"].clone()), (200, Value::Null), "{v}");
    assert_eq!(w.status(&w.carol, id, "DONE").await.0, 400);
    assert_eq!(w.status(&w.bob, id, "CANCELED").await.0, 403);
}

#[tokio::test]
async fn job_runs_list_what_the_caller_may_view_active_first_newest_first() {
    let w = World::new().await;
    let (s, v) = w
        .call(
            &w.eve,
            "POST",
            "/api/v1/jobs",
            Some(json!({"name": "eve-only"})),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    let eve_job = v["job_id"].as_i64().expect("id");
    let (s, v) = w.app.create_as(&w.eve, "/Users/eve/mine").await;
    assert_eq!(s, 200, "{v}");
    let eve_exp = v["experiment_id"].as_str().expect("id").to_string();
    let body = json!({"experiment_id": eve_exp, "nodes": [], "max_retries": 0});
    let (s, v) = w
        .call(
            &w.eve,
            "POST",
            &format!("/api/v1/jobs/{eve_job}/runs"),
            Some(body),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    let eve_run = v["job_run_id"].as_i64().expect("id");
    let done = w.job_run(&w.carol, &[], 0).await;
    assert_eq!(w.status(&w.carol, done, "SUCCEEDED").await.0, 200);
    let active = w.job_run(&w.carol, &[], 0).await;

    let ids = |v: &Value| -> Vec<i64> {
        v["job_runs"]
            .as_array()
            .expect("list")
            .iter()
            .filter_map(|r| r["job_run_id"].as_i64())
            .collect()
    };
    let list = |token: &str, query: &str| {
        let uri = format!("/api/v1/job-runs{query}");
        let token = token.to_string();
        let app = &w.app;
        async move {
            let (s, v) = app.call_as(&token, "GET", &uri, None).await;
            assert_eq!(s, 200, "{uri}: {v}");
            v
        }
    };
    assert_eq!(ids(&list(&w.bob, "").await), [active]);
    assert_eq!(ids(&list(&w.bob, "?all_status=true").await), [active, done]);
    assert_eq!(
        ids(&list(&w.dave, "?all_status=true").await),
        [active, done]
    );
    assert_eq!(ids(&list(&w.eve, "?all_status=true").await), [eve_run]);
    assert_eq!(
        ids(&list(&w.frank, "?all_status=true").await),
        Vec::<i64>::new()
    );
    assert_eq!(
        ids(&list(&w.root, "?all_status=true").await),
        [active, done, eve_run]
    );
    assert_eq!(
        ids(&list(&w.root, "?all_status=true&limit=1").await),
        [active]
    );
    for bad in ["?limit=0", "?limit=1001", "?limit=x", "?all_status=maybe"] {
        let (s, v) = w
            .call(&w.bob, "GET", &format!("/api/v1/job-runs{bad}"), None)
            .await;
        assert_eq!(
            (s, v["code"].as_str()),
            (400, Some("INVALID_PARAMETER")),
            "{bad}: {v}"
        );
    }
}

#[tokio::test]
async fn the_job_and_the_experiment_are_two_separate_permissions() {
    let w = World::new().await;
    let id = w.job_run(&w.carol, &["n0"], 0).await;
    let attempt = w.attempt(&w.carol, id, None).await;
    let run_id = attempt["run_id"].as_str().expect("run id");
    let run_job = format!("/api/v1/runs/{run_id}/job");

    // bob views the job but cannot read the experiment: no run page, no run job, no logs.
    assert_eq!(
        w.call(&w.bob, "GET", &format!("/api/v1/job-runs/{id}"), None)
            .await
            .0,
        200
    );
    let (s, v) = w
        .call(&w.bob, "GET", &format!("/api/v1/runs/{run_id}"), None)
        .await;
    assert_eq!(s, 403, "{v}");
    assert_eq!(w.call(&w.bob, "GET", &run_job, None).await.0, 403);
    let logs = format!("/api/v1/runs/{run_id}/logs");
    let (s, v) = w.call(&w.bob, "GET", &logs, None).await;
    assert_eq!(s, 403, "{v}");
    assert_eq!(v["message"], "You don't have access to this experiment.");

    // frank reads the experiment but holds nothing on the job: the run's job, without logs.
    let (s, v) = w.call(&w.frank, "GET", &run_job, None).await;
    assert_eq!(s, 200, "{v}");
    let info = &v["job"];
    assert_eq!(info["job"], json!({"job_id": w.job, "name": "nightly"}));
    assert_eq!(
        (info["job_run_id"].as_i64(), info["attempt"].as_u64()),
        (Some(id), Some(1))
    );
    assert_eq!(info["status"], "RUNNING");
    assert_eq!(info["nodes"], json!(["n0"]));
    assert_eq!(info["your_level"], Value::Null);
    assert_eq!(info["can_view_logs"], false);
    assert_eq!(
        info["managers"],
        json!([{"kind": "user", "name": "alice"}, {"kind": "group", "name": "ops"}])
    );
    assert_eq!(info["logs_expired_through"], Value::Null);
    assert_eq!(info["attempts"][0]["run_id"], run_id);
    let (s, v) = w.call(&w.frank, "GET", &logs, None).await;
    assert_eq!(
        (s, v["code"].as_str()),
        (403, Some("PERMISSION_DENIED")),
        "{v}"
    );
    assert_eq!(
        v["message"],
        api_types::logs::access_denied_message(
            "nightly",
            &[
                api_types::Principal {
                    kind: api_types::PrincipalKind::User,
                    name: "alice".into()
                },
                api_types::Principal {
                    kind: api_types::PrincipalKind::Group,
                    name: "ops".into()
                },
            ]
        )
    );
    assert_eq!(v["grantors"], json!(["alice"]));
    assert!(!v.to_string().contains(run_id));

    // Granted CAN_VIEW, frank may read the logs.
    assert_eq!(
        w.job_grant(&w.alice, "user", "frank", "CAN_VIEW").await.0,
        204
    );
    let (_, v) = w.call(&w.frank, "GET", &run_job, None).await;
    assert_eq!(
        (
            v["job"]["can_view_logs"].as_bool(),
            v["job"]["your_level"].as_str()
        ),
        (Some(true), Some("CAN_VIEW"))
    );
    assert_eq!(w.call(&w.frank, "GET", &logs, None).await.0, 200);

    // A run no job produced.
    let plain = w.app.run(&w.exp, "plain").await;
    let (s, v) = w
        .call(&w.frank, "GET", &format!("/api/v1/runs/{plain}/job"), None)
        .await;
    assert_eq!((s, v), (200, json!({"job": null})));
    let (s, v) = w
        .call(&w.frank, "GET", &format!("/api/v1/runs/{plain}/logs"), None)
        .await;
    assert_eq!(s, 404, "{v}");
    assert_eq!(v["message"], server::jobs::NOT_A_JOB_RUN);
}

#[tokio::test]
async fn deleting_a_user_takes_their_grants_and_ownership_with_them() {
    let w = World::new().await;
    w.app
        .store
        .blocking(|c| {
            for name in ["bob", "alice"] {
                server::auth::users::delete_user(c, name)?;
            }
            Ok(())
        })
        .expect("delete users");
    let (_, v) = w
        .call(
            &w.root,
            "GET",
            &format!("/api/v1/jobs/{}/access", w.job),
            None,
        )
        .await;
    assert_eq!(v["owner"], "");
    let names: Vec<&str> = v["grants"]
        .as_array()
        .expect("grants")
        .iter()
        .filter_map(|g| g["principal"]["name"].as_str())
        .collect();
    assert_eq!(names, ["carol", "ops"]);
    for name in ["alice", "bob"] {
        let token = w.app.user_token(name, false);
        let (s, _) = w
            .call(&token, "GET", &format!("/api/v1/jobs/{}", w.job), None)
            .await;
        assert_eq!(s, 403, "{name}");
    }
    // A new user given the deleted owner's id (SQLite reuses the highest rowid) inherits
    // nothing.
    let zed = w.app.user_token("zed", false);
    let (s, v) = w
        .call(
            &zed,
            "POST",
            "/api/v1/jobs",
            Some(json!({"name": "zed-job"})),
        )
        .await;
    assert_eq!(s, 201, "{v}");
    let zed_job = v["job_id"].as_i64().expect("id");
    let zed_id = w
        .app
        .scalar("SELECT user_id FROM users WHERE username = 'zed'");
    w.app
        .store
        .blocking(|c| server::auth::users::delete_user(c, "zed").map(drop))
        .expect("delete zed");
    let yan = w.app.user_token("yan", false);
    let yan_id = w
        .app
        .scalar("SELECT user_id FROM users WHERE username = 'yan'");
    match w.app.store.engine() {
        server::db::Engine::Sqlite => assert_eq!(yan_id, zed_id, "the id is reused"),
        // An identity column never hands an id out twice: nothing to inherit.
        server::db::Engine::Postgres => assert_ne!(yan_id, zed_id, "ids are not reused"),
    }
    let (s, v) = w
        .call(&yan, "GET", &format!("/api/v1/jobs/{zed_job}"), None)
        .await;
    assert_eq!(s, 403, "{v}");
}
