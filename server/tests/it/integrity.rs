//! What the schema itself refuses, on both backends: a metric point whose series does not
//! exist, and deleting a series that still has points. SQLite keeps this with the foreign
//! key of `metric_points`; PostgreSQL with statement-level triggers (migration 13), which
//! cost an insert one lookup a statement where the key cost one a row.

use serde_json::json;

use crate::helpers::TestApp;

/// The series id of `key` in run `run`.
fn series_of(app: &TestApp, run: &str, key: &str) -> i64 {
    let (run, key) = (run.to_owned(), key.to_owned());
    app.store
        .blocking(move |c| {
            Ok(c.query_row(
                "SELECT series_id FROM metric_series WHERE run_uuid = ?1 AND key = ?2",
                [run, key],
                |r| r.get(0),
            )?)
        })
        .expect("series")
}

/// The points stored for series `sid`.
fn points_of(app: &TestApp, sid: i64) -> i64 {
    app.store
        .blocking(move |c| {
            Ok(c.query_row(
                "SELECT count(*) FROM metric_points WHERE series_id = ?1",
                [sid],
                |r| r.get(0),
            )?)
        })
        .expect("count")
}

/// Runs `sql` (with `args`) in a transaction of its own; the error, if it failed.
fn try_sql(app: &TestApp, sql: &'static str, args: Vec<i64>) -> Option<String> {
    app.store
        .blocking(move |c| {
            let tx = c.transaction(server::db::Behavior::Immediate)?;
            for s in sql.split(';') {
                // Each statement takes the first arguments it numbers (?1, ?2).
                let n = (1..=args.len())
                    .filter(|i| s.contains(&format!("?{i}")))
                    .count();
                tx.execute(s, server::db::params_from_iter(args[..n].to_vec()))?;
            }
            tx.commit()?;
            Ok(())
        })
        .err()
        .map(|e| e.to_string())
}

#[tokio::test]
async fn points_need_their_series_and_a_series_with_points_stays() {
    let app = TestApp::new();
    let exp = app.experiment("integrity").await;
    let run = app.run(&exp, "r").await;
    let metrics: Vec<_> = (0..3)
        .map(|i| json!({"key": "loss", "value": i as f64, "timestamp": 1_700_000_000_000i64 + i, "step": i}))
        .collect();
    app.ok(
        "/runs/log-batch",
        json!({"run_id": run, "metrics": metrics}),
    )
    .await;
    let sid = series_of(&app, &run, "loss");
    let missing = sid + 1_000;
    assert_eq!(points_of(&app, sid), 3);

    // A point of the series goes in (the check lets a good row through) ...
    let ok = try_sql(
        &app,
        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) VALUES (?1, 10, 0, 0, 1.5)",
        vec![sid],
    );
    assert_eq!(ok, None, "a point of an existing series");
    assert_eq!(points_of(&app, sid), 4);

    // ... a point of a series that does not exist does not, alone or among good ones.
    for sql in [
        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) VALUES (?1, 0, 0, 0, 1.0)",
        "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value) \
         VALUES (?1, 20, 0, 0, 1.0), (?2, 21, 0, 0, 1.0)",
    ] {
        let err = try_sql(&app, sql, vec![missing, sid]);
        assert!(err.is_some(), "{sql}: a point of series {missing} was stored");
    }
    assert_eq!(points_of(&app, missing), 0);
    assert_eq!(
        points_of(&app, sid),
        4,
        "the good row of the refused insert stays out"
    );

    // Moving points to a series that does not exist is refused too.
    let err = try_sql(
        &app,
        "UPDATE metric_points SET series_id = ?1 WHERE series_id = ?2",
        vec![missing, sid],
    );
    assert!(err.is_some(), "points were moved to series {missing}");
    assert_eq!(points_of(&app, sid), 4);

    // A series that still has points cannot be deleted, even with its summaries and chunks
    // (whose own foreign keys would otherwise refuse first) gone in the same transaction.
    let err = try_sql(
        &app,
        "DELETE FROM metric_summaries WHERE series_id = ?1; \
         DELETE FROM metric_chunks WHERE series_id = ?1; \
         DELETE FROM metric_series WHERE series_id = ?1",
        vec![sid],
    );
    assert!(err.is_some(), "series {sid} was deleted with its points");
    assert_eq!(series_of(&app, &run, "loss"), sid);

    // The chart still reads every point (the failed transactions left nothing behind).
    let v = app
        .ok_get(&format!(
            "/metrics/get-history?run_id={run}&metric_key=loss"
        ))
        .await;
    assert_eq!(v["metrics"].as_array().map(Vec::len), Some(4));
}
