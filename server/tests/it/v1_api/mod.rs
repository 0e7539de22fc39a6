//! The app API (`/api/v1`) on the real router: shapes, the demo loader, 400s and 404s.

mod demo_jobs;
mod demo_live;
mod demo_sft;
mod runs;
mod series;

use crate::helpers::TestApp;
use serde_json::Value;

fn ids_of(list: &Value) -> Vec<String> {
    list["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[tokio::test]
async fn demo_loader_is_idempotent() {
    let app = TestApp::new();
    let started = std::time::Instant::now();
    server::demo::load(&app.store).unwrap();
    eprintln!("demo load: {:?}", started.elapsed());
    let first = app.counts();
    server::demo::load(&app.store).unwrap();
    assert_eq!(first, app.counts());
    let [experiments, runs, points, latest] = first;
    assert_eq!(experiments, 5, "Default + 4 demo experiments");
    assert!(runs >= 20, "{runs}");
    assert!(points > 200_000, "{points}");
    assert!(latest > runs, "{latest}");
    // Every series has its latest value, and it is the max by (step, timestamp).
    let stale: i64 = app.scalar(
        "SELECT count(*) FROM metric_series s JOIN latest_metrics l
           ON l.run_uuid = s.run_uuid AND l.key = s.key
         WHERE (l.step, l.timestamp) <> (SELECT step, timestamp FROM metric_points p
                WHERE p.series_id = s.series_id ORDER BY step DESC, timestamp DESC LIMIT 1)",
    );
    assert_eq!(stale, 0);
    let series: i64 = app.scalar("SELECT count(*) FROM metric_series");
    assert_eq!(series, latest);
}

#[tokio::test]
async fn experiments_are_listed_searched_sorted_and_paged() {
    let app = TestApp::demo();
    let (status, all) = app.get_json("/api/v1/experiments").await;
    assert_eq!(status, 200);
    assert_eq!(all["total"], 5);
    let first = &all["items"][0];
    for field in [
        "id",
        "name",
        "lifecycle_stage",
        "creation_time",
        "last_update_time",
        "run_count",
    ] {
        assert!(!first[field].is_null(), "{field} in {first}");
    }
    let (_, shared) = app.get_json("/api/v1/experiments?q=WORKSPACE/shared").await;
    assert_eq!(shared["total"], 2);
    assert!(ids_of(&shared)
        .iter()
        .all(|n| n.starts_with("/Workspace/Shared/")));
    let (_, by_name) = app.get_json("/api/v1/experiments?sort=name").await;
    let names = ids_of(&by_name);
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    let (_, page) = app
        .get_json("/api/v1/experiments?sort=name&offset=1&limit=2")
        .await;
    assert_eq!(ids_of(&page), names[1..3].to_vec());
    assert_eq!(page["total"], 5);
    let (_, by_runs) = app.get_json("/api/v1/experiments?sort=runs").await;
    assert_eq!(
        by_runs["items"][0]["name"],
        "/Workspace/Shared/vision/detection"
    );
    assert_eq!(by_runs["items"][0]["run_count"], 13);
    let detection = &by_runs["items"][0];
    assert!(detection["description"].as_str().unwrap().contains("COCO"));
    assert!(detection["last_update_time"].as_i64() > detection["creation_time"].as_i64());
}

#[tokio::test]
async fn experiment_detail_lists_column_keys() {
    let app = TestApp::demo();
    let id = app.experiment_id("/Users/alice/llm-sft");
    let (status, body) = app.get_json(&format!("/api/v1/experiments/{id}")).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["experiment"]["run_count"], 4);
    let keys = |k: &str| -> Vec<String> { serde_json::from_value(body[k].clone()).unwrap() };
    assert!(keys("param_keys").contains(&"lr".to_string()));
    assert!(keys("metric_keys").contains(&"train/loss".to_string()));
    assert!(keys("metric_keys").contains(&"system/gpu_0_utilization_percentage".to_string()));
    let tag_keys = keys("tag_keys");
    assert!(tag_keys.contains(&"team".to_string()));
    assert!(
        tag_keys.iter().all(|k| !k.starts_with("mlflow.")),
        "{tag_keys:?}"
    );
    let mut sorted = keys("param_keys");
    sorted.sort();
    assert_eq!(sorted, keys("param_keys"));
    assert_eq!(body["tags"][0]["key"], "mlflow.note.content");
}

#[tokio::test]
async fn unknown_ids_and_routes_are_404_api_errors() {
    let app = TestApp::demo();
    for path in [
        "/api/v1/experiments/987654",
        "/api/v1/experiments/not-a-number",
        "/api/v1/experiments/987654/runs",
        "/api/v1/runs/0123456789abcdef0123456789abcdef",
        "/api/v1/runs/0123456789abcdef0123456789abcdef/series?key=loss",
        "/api/v1/no-such-thing",
    ] {
        let (status, body) = app.get_json(path).await;
        assert_eq!(status, 404, "{path}: {body}");
        assert_eq!(body["code"], "NOT_FOUND", "{path}");
        assert!(!body["message"].as_str().unwrap().is_empty());
    }
}

#[tokio::test]
async fn bad_parameters_are_400_api_errors() {
    let app = TestApp::demo();
    let exp = app.experiment_id("/Workspace/Shared/vision/detection");
    let run = app.run_id("detr-lr-sweep");
    for path in [
        "/api/v1/experiments?limit=0".to_string(),
        "/api/v1/experiments?limit=501".to_string(),
        "/api/v1/experiments?offset=-1".to_string(),
        "/api/v1/experiments?sort=size".to_string(),
        "/api/v1/experiments?desc=maybe".to_string(),
        format!("/api/v1/experiments/{exp}/runs?view=archived"),
        format!("/api/v1/experiments/{exp}/runs?filter=metrics.loss%20%3C%3C%3D%201"),
        format!("/api/v1/runs/{run}/series"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&x=epoch"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&width=0"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&width=10001"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&width=wide"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&x_min=10&x_max=5"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&x_min=NaN"),
        format!("/api/v1/runs/{run}/series?key=best_mAP&x_max=inf"),
    ] {
        let (status, body) = app.get_json(&path).await;
        assert_eq!(status, 400, "{path}: {body}");
        assert!(
            body["code"].as_str().unwrap().starts_with("INVALID") || body["code"] == "BAD_REQUEST"
        );
    }
}

#[tokio::test]
async fn demo_refuses_to_overwrite_an_existing_experiment() {
    let app = TestApp::new();
    app.store
        .blocking(|c| {
            c.execute(
                "INSERT INTO experiments (name, artifact_location, creation_time, last_update_time)
                 VALUES ('/Workspace/Shared/nlp/tokenizer-sweep', '', 1, 1)",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    let before = app.counts();
    let err = server::demo::load(&app.store).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    assert_eq!(before, app.counts(), "nothing half-loaded");
}

#[tokio::test]
async fn an_experiments_last_update_is_its_latest_active_run_start_or_end() {
    let app = TestApp::new();
    let exp = app.experiment("timing").await;
    let t0 = 4_000_000_000_000i64; // later than the experiment's own times
    let start = |at: i64| {
        let app = &app;
        let exp = exp.clone();
        async move {
            let body = serde_json::json!({ "experiment_id": exp, "start_time": at });
            let v = app.ok("/runs/create", body).await;
            v["run"]["info"]["run_id"].as_str().unwrap().to_owned()
        }
    };
    let end = |run: String, at: i64| {
        let app = &app;
        async move {
            let body = serde_json::json!({ "run_id": run, "status": "FINISHED", "end_time": at });
            app.ok("/runs/update", body).await;
        }
    };
    let last_update = || {
        let app = &app;
        let exp = exp.clone();
        async move {
            let (status, body) = app.get_json(&format!("/api/v1/experiments/{exp}")).await;
            assert_eq!(status, 200, "{body}");
            body["experiment"]["last_update_time"].as_i64().unwrap()
        }
    };
    let a = start(t0).await;
    assert_eq!(last_update().await, t0, "a run's start");
    end(a.clone(), t0 + 500).await;
    let b = start(t0 + 100).await;
    assert_eq!(
        last_update().await,
        t0 + 500,
        "an end later than every start"
    );
    app.ok("/runs/delete", serde_json::json!({ "run_id": a }))
        .await;
    assert_eq!(
        last_update().await,
        t0 + 100,
        "a deleted run's times no longer count"
    );
    end(b, t0 + 900).await;
    assert_eq!(last_update().await, t0 + 900);
}
