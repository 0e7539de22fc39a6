//! The experiment workspace: charts of several runs in one request
//! (`GET /experiments/{id}/series`), the relative axis' origin, the live stream
//! (`GET /experiments/{id}/live`), the runs table's CSV export
//! (`GET /experiments/{id}/runs/csv`) and `can_edit` on the experiment and run pages.

mod can_edit;
mod csv_export;
pub mod live;
mod run_pages;
mod series;

use serde_json::{json, Value};

use crate::helpers::TestApp;

/// Logs `metrics` (`(key, step, timestamp, value)`) to `run` in batches of 1,000 as the
/// administrator.
async fn log_points(app: &TestApp, run: &str, metrics: &[(&str, i64, i64, f64)]) {
    for chunk in metrics.chunks(1000) {
        let metrics: Vec<Value> = chunk
            .iter()
            .map(|(k, s, t, v)| {
                // JSON has no NaN: MLflow's clients send it as a string.
                let v = if v.is_nan() { json!("NaN") } else { json!(v) };
                json!({"key": k, "step": s, "timestamp": t, "value": v})
            })
            .collect();
        app.ok(
            "/runs/log-batch",
            json!({"run_id": run, "metrics": metrics}),
        )
        .await;
    }
}

/// Parses CSV text (RFC 4180: quoted fields with doubled quotes, CRLF rows).
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match (quoted, ch) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') if chars.peek() == Some(&'\n') => {}
            (false, '\n') => {
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(cell.is_empty() && row.is_empty(), "CSV ends mid-row");
    rows
}
