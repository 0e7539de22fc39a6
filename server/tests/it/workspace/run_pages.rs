//! `GET /experiments/{id}/runs` in pages: keyset paging over every kind of sort
//! key returns each run exactly once, in the unpaged order, whatever the page size (ties
//! and missing values across page boundaries included); `total` counts the filter's
//! matches; tokens of another query and bad limits are 400s; the header's column keys
//! (`experiment_columns`) follow logging and are backfilled by the migration.

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// A query-string value, percent-encoded.
fn enc(s: &str) -> String {
    form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// 13 runs whose sort keys tie and go missing: start times in pairs (so the run id breaks
/// ties), `loss` with ties, a NaN and two missing, `lr` with ties and one missing, `team`
/// on every third run, three still running (no end time). Returns the experiment id.
async fn seeded(app: &TestApp) -> String {
    let exp = app.experiment("pages").await;
    let losses = [
        Some(0.5),
        Some(0.25),
        Some(0.5),
        None,
        Some(0.5),
        Some(f64::NAN),
        Some(0.125),
        Some(0.25),
        None,
        Some(0.5),
        Some(1.0),
        Some(0.25),
        Some(0.5),
    ];
    for (i, loss) in losses.iter().enumerate() {
        let body = json!({
            "experiment_id": exp, "run_name": format!("run-{:02}", i % 5), "user_id": "u",
            "start_time": 1_700_000_000_000i64 + (i as i64 / 2) * 1000
        });
        let run = app.ok("/runs/create", body).await["run"]["info"]["run_id"]
            .as_str()
            .expect("run id")
            .to_string();
        let mut batch = json!({"run_id": run, "params": [], "metrics": [], "tags": []});
        if let Some(l) = loss {
            let v = if l.is_nan() { json!("NaN") } else { json!(l) };
            batch["metrics"] = json!([{"key": "loss", "value": v, "timestamp": 1, "step": 0}]);
        }
        if i != 4 {
            let lr = ["1e-3", "3e-4", "1e-2"][i % 3];
            batch["params"] = json!([{"key": "lr", "value": lr}]);
        }
        if i % 3 == 0 {
            let team = ["a", "b"][i % 2];
            batch["tags"] = json!([{"key": "team", "value": team}]);
        }
        app.ok("/runs/log-batch", batch).await;
        if i % 4 != 1 {
            app.ok(
                "/runs/update",
                json!({"run_id": run, "status": "FINISHED", "end_time": 1_700_000_100_000i64 + (i as i64 % 3)}),
            )
            .await;
        }
    }
    exp
}

/// An offset page token at 0, as MLflow (and runlens before keyset pages) issued them: a
/// search given one reads its page with the one statement that sorts every matching run,
/// not with the keyset reads under test, so it is the reference order here.
const OFFSET_ZERO: &str = "eyJvZmZzZXQiOiAwfQ==";

/// Every run id of the MLflow search (one unpaged answer, read with the one-statement
/// sort: [`OFFSET_ZERO`]) for `order_by` and `filter`.
async fn unpaged(app: &TestApp, exp: &str, order_by: &[&str], filter: &str) -> Vec<String> {
    let v = app
        .ok(
            "/runs/search",
            json!({"experiment_ids": [exp], "order_by": order_by, "filter": filter,
                   "max_results": 1000, "page_token": OFFSET_ZERO}),
        )
        .await;
    v["runs"]
        .as_array()
        .map(|runs| {
            runs.iter()
                .map(|r| r["info"]["run_id"].as_str().expect("id").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// Every page of the runs table at `limit` rows a page: (ids in order, totals seen).
async fn paged(
    app: &TestApp,
    exp: &str,
    order_by: &[&str],
    filter: &str,
    limit: usize,
) -> (Vec<String>, Vec<u64>) {
    let mut base = format!("/api/v1/experiments/{exp}/runs?limit={limit}&metrics=loss");
    for o in order_by {
        base.push_str(&format!("&order_by={}", enc(o)));
    }
    if !filter.is_empty() {
        base.push_str(&format!("&filter={}", enc(filter)));
    }
    let (mut ids, mut totals) = (Vec::new(), Vec::new());
    let mut token: Option<String> = None;
    for _ in 0..100 {
        let uri = match &token {
            Some(t) => format!("{base}&page_token={}", enc(t)),
            None => base.clone(),
        };
        let (status, page) = app.get_json(&uri).await;
        assert_eq!(status, 200, "{uri}: {page}");
        let rows = page["rows"].as_array().expect("rows");
        assert!(rows.len() <= limit, "{uri}: {} rows", rows.len());
        ids.extend(
            rows.iter()
                .map(|r| r["run_id"].as_str().expect("id").to_string()),
        );
        totals.push(page["total"].as_u64().expect("total"));
        match page.get("next_page_token").and_then(Value::as_str) {
            Some(t) => {
                assert_eq!(rows.len(), limit, "only the last page is short");
                token = Some(t.to_string());
            }
            None => return (ids, totals),
        }
    }
    panic!("more than 100 pages");
}

#[tokio::test]
async fn pages_return_every_run_once_in_the_unpaged_order_for_every_sort_kind() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    let orders: [&[&str]; 14] = [
        &[],
        &["attributes.start_time DESC"],
        &["start_time ASC"],
        &["attributes.end_time ASC"],
        &["attributes.end_time DESC"],
        &["run_name DESC"],
        &["metrics.loss ASC"],
        &["metrics.loss DESC"],
        &["params.lr ASC"],
        &["params.lr DESC"],
        &["tags.team DESC"],
        &["params.lr ASC", "metrics.loss DESC"],
        &["metrics.loss DESC", "attributes.end_time ASC"],
        &["tags.team ASC", "params.lr DESC"],
    ];
    for order in orders {
        let all = unpaged(&app, &exp, order, "").await;
        assert_eq!(all.len(), 13, "{order:?}");
        // Page size 1 puts every tie (and every missing value) across a page boundary.
        for limit in [1, 2, 5, 13, 1000] {
            let (ids, totals) = paged(&app, &exp, order, "", limit).await;
            assert_eq!(ids, all, "{order:?} at {limit} a page");
            assert!(totals.iter().all(|&t| t == 13), "{order:?}: {totals:?}");
        }
    }
}

#[tokio::test]
async fn pages_stay_exact_while_runs_are_created_and_metrics_logged_between_pages() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    for order in ["attributes.start_time DESC", "metrics.loss ASC"] {
        let before = unpaged(&app, &exp, &[order], "").await;
        let base = format!(
            "/api/v1/experiments/{exp}/runs?limit=3&metrics=loss&order_by={}",
            enc(order)
        );
        let (mut seen, mut added) = (Vec::<String>::new(), Vec::<String>::new());
        let mut token: Option<String> = None;
        for page_no in 0..100 {
            let uri = match &token {
                Some(t) => format!("{base}&page_token={}", enc(t)),
                None => base.clone(),
            };
            let (status, page) = app.get_json(&uri).await;
            assert_eq!(status, 200, "{uri}: {page}");
            seen.extend(
                page["rows"]
                    .as_array()
                    .expect("rows")
                    .iter()
                    .map(|r| r["run_id"].as_str().expect("id").to_string()),
            );
            // Between pages: a new run (newest start, a loss in the middle of the range)
            // and new points on every run already seen (another key: the order holds).
            let body = json!({
                "experiment_id": exp, "run_name": format!("late-{page_no}"), "user_id": "u",
                "start_time": 1_800_000_000_000i64 + page_no
            });
            let run = app.ok("/runs/create", body).await["run"]["info"]["run_id"]
                .as_str()
                .expect("run id")
                .to_string();
            let loss = json!([{"key": "loss", "value": 0.3, "timestamp": 1, "step": 0}]);
            app.ok(
                "/runs/log-batch",
                json!({"run_id": run, "params": [], "metrics": loss, "tags": []}),
            )
            .await;
            added.push(run);
            for id in &seen {
                let acc = json!([{"key": "acc", "value": 0.5, "timestamp": 2, "step": page_no}]);
                app.ok(
                    "/runs/log-batch",
                    json!({"run_id": id, "params": [], "metrics": acc, "tags": []}),
                )
                .await;
            }
            match page.get("next_page_token").and_then(Value::as_str) {
                Some(t) => token = Some(t.to_string()),
                None => break,
            }
        }
        // Every run that existed comes exactly once, in the order it had; a run created
        // meanwhile comes at most once.
        let old: Vec<&String> = seen.iter().filter(|id| before.contains(id)).collect();
        assert_eq!(
            old,
            before.iter().collect::<Vec<_>>(),
            "{order}: runs repeated, skipped or reordered"
        );
        for id in &added {
            let n = seen.iter().filter(|s| *s == id).count();
            assert!(
                n <= 1,
                "{order}: a run created between pages came {n} times"
            );
        }
        if order.starts_with("attributes.start_time") {
            assert!(
                added.iter().all(|id| !seen.contains(id)),
                "{order}: a newer run cannot come after the first page"
            );
        }
        // Leave the experiment as seeded for the next order.
        for id in added {
            app.ok("/runs/delete", json!({"run_id": id})).await;
        }
    }
}

#[tokio::test]
async fn total_counts_the_filters_matches_on_every_page() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    for (filter, n) in [
        ("metrics.loss >= 0.25", 9),
        ("params.lr = '1e-3'", 5),
        ("metrics.loss = 0.5 AND params.lr != '3e-4'", 4),
        ("tags.team = 'zzz'", 0),
    ] {
        let order = ["metrics.loss DESC"];
        let all = unpaged(&app, &exp, &order, filter).await;
        assert_eq!(all.len(), n, "{filter}");
        let (ids, totals) = paged(&app, &exp, &order, filter, 3).await;
        assert_eq!(ids, all, "{filter}");
        assert!(
            totals.iter().all(|&t| t == n as u64),
            "{filter}: {totals:?}"
        );
    }
}

/// Every page of the MLflow search at `limit` runs a page (keyset tokens, no count).
async fn mlflow_paged(
    app: &TestApp,
    exp: &str,
    order_by: &[&str],
    filter: &str,
    limit: usize,
) -> Vec<String> {
    let mut ids = Vec::new();
    let mut body = json!({"experiment_ids": [exp], "order_by": order_by, "filter": filter,
                          "max_results": limit});
    for _ in 0..100 {
        let v = app.ok("/runs/search", body.clone()).await;
        let runs = v["runs"].as_array().cloned().unwrap_or_default();
        ids.extend(
            runs.iter()
                .map(|r| r["info"]["run_id"].as_str().expect("id").to_string()),
        );
        match v.get("next_page_token").and_then(Value::as_str) {
            Some(t) => body["page_token"] = json!(t),
            None => return ids,
        }
    }
    panic!("more than 100 pages");
}

/// The MLflow search's own keyset pages, filtered and ordered by a metric, param or tag
/// (read rank by rank from the value indexes), give the one-statement order too.
#[tokio::test]
async fn mlflow_pages_ordered_by_a_value_equal_the_one_statement_order() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    let orders: [&[&str]; 5] = [
        &["metrics.loss ASC"],
        &["metrics.loss DESC"],
        &["params.lr DESC"],
        &["tags.team ASC"],
        &["params.lr ASC", "metrics.loss DESC"],
    ];
    for order in orders {
        for filter in [
            "",
            "metrics.loss >= 0.25",
            "params.lr != '3e-4'",
            "attributes.status = 'FINISHED'",
        ] {
            let all = unpaged(&app, &exp, order, filter).await;
            assert!(!all.is_empty(), "{order:?} {filter}");
            for limit in [1, 2, 4, 1000] {
                let ids = mlflow_paged(&app, &exp, order, filter, limit).await;
                assert_eq!(ids, all, "{order:?} {filter:?} at {limit} a page");
            }
        }
    }
}

#[tokio::test]
async fn tokens_of_another_query_and_bad_limits_are_refused() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    let base = format!("/api/v1/experiments/{exp}/runs");
    let (_, first) = app
        .get_json(&format!("{base}?limit=2&order_by=metrics.loss%20ASC"))
        .await;
    let token = first["next_page_token"]
        .as_str()
        .expect("token")
        .to_string();
    for uri in [
        format!("{base}?limit=2&order_by=metrics.loss%20DESC&page_token={token}"),
        format!("{base}?limit=2&filter=params.lr%3D%27x%27&order_by=metrics.loss%20ASC&page_token={token}"),
        format!("{base}?page_token=not-a-token"),
        format!("{base}?limit=0"),
        format!("{base}?limit=1001"),
        format!("{base}?limit=ten"),
    ] {
        let (status, body) = app.get_json(&uri).await;
        assert_eq!(status, 400, "{uri}: {body}");
    }
    let (status, page) = app
        .get_json(&format!(
            "{base}?limit=2&order_by=metrics.loss%20ASC&page_token={token}"
        ))
        .await;
    assert_eq!(status, 200, "{page}");
    assert_eq!(page["rows"].as_array().map(Vec::len), Some(2));
}

/// The header's column keys: (params, metrics, tags).
async fn column_keys(app: &TestApp, exp: &str) -> (Value, Value, Value) {
    let (status, d) = app.get_json(&format!("/api/v1/experiments/{exp}")).await;
    assert_eq!(status, 200, "{d}");
    (
        d["param_keys"].clone(),
        d["metric_keys"].clone(),
        d["tag_keys"].clone(),
    )
}

#[tokio::test]
async fn column_keys_follow_logging() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    let other = app.experiment("other").await;
    let run = app.run(&other, "elsewhere").await;
    app.ok(
        "/runs/log-batch",
        json!({"run_id": run, "params": [{"key": "only_there", "value": "1"}]}),
    )
    .await;
    assert_eq!(
        column_keys(&app, &exp).await,
        (json!(["lr"]), json!(["loss"]), json!(["team"]))
    );
    let run = app.run(&exp, "late").await;
    app.ok(
        "/runs/log-batch",
        json!({"run_id": run, "params": [{"key": "batch", "value": "64"}],
               "metrics": [{"key": "acc", "value": 0.9, "timestamp": 1, "step": 0}]}),
    )
    .await;
    app.ok(
        "/runs/set-tag",
        json!({"run_id": run, "key": "owner", "value": "me"}),
    )
    .await;
    app.ok(
        "/runs/log-metric",
        json!({"run_id": run, "key": "f1", "value": 0.5, "timestamp": 1, "step": 0}),
    )
    .await;
    assert_eq!(
        column_keys(&app, &exp).await,
        (
            json!(["batch", "lr"]),
            json!(["acc", "f1", "loss"]),
            json!(["owner", "team"])
        )
    );
    // A deleted tag keeps its column (documented, as MLflow's UI).
    app.ok("/runs/delete-tag", json!({"run_id": run, "key": "owner"}))
        .await;
    assert_eq!(column_keys(&app, &exp).await.2, json!(["owner", "team"]));
}

#[tokio::test]
async fn column_keys_are_backfilled_by_the_migration() {
    let app = TestApp::new();
    let exp = seeded(&app).await;
    let expected = column_keys(&app, &exp).await;
    // A database from before migration 7: no table, no record of it.
    app.store
        .blocking(|c| {
            c.execute_batch(
                "DROP TABLE experiment_columns; DELETE FROM schema_migrations WHERE version = 7;",
            )?;
            Ok(())
        })
        .expect("downgrade");
    app.reopen().expect("reopen migrates");
    assert_eq!(column_keys(&app, &exp).await, expected);
}
