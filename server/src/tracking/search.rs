//! Run search: MLflow filter strings and order_by clauses compiled to parameterised SQL.

use rusqlite::Connection;

use super::ViewType;
use crate::Error;

/// Run ids of the experiments' runs matching an MLflow filter string ("" = all), ordered by
/// MLflow order_by clauses (e.g. ["metrics.loss ASC", "start_time DESC"]) with MLflow's
/// tie-breakers, skipping `offset`, at most `limit`. Bad filter/order_by → Error::InvalidParameter.
pub fn search_run_ids(
    conn: &Connection,
    experiment_ids: &[i64],
    filter: &str,
    order_by: &[String],
    view: ViewType,
    offset: usize,
    limit: usize,
) -> Result<Vec<String>, Error> {
    if !filter.trim().is_empty() || !order_by.is_empty() {
        return Err(Error::InvalidParameter(
            "filter and order_by are not supported yet".to_string(),
        ));
    }
    if experiment_ids.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders = vec!["?"; experiment_ids.len()].join(",");
    let sql = format!(
        "SELECT run_uuid FROM runs WHERE experiment_id IN ({placeholders}) AND {}
         ORDER BY start_time DESC, run_uuid ASC LIMIT ? OFFSET ?",
        view.sql_condition("lifecycle_stage")
    );
    let mut stmt = conn.prepare(&sql)?;
    let mut params: Vec<i64> = experiment_ids.to_vec();
    params.push(i64::try_from(limit).unwrap_or(i64::MAX));
    params.push(i64::try_from(offset).unwrap_or(i64::MAX));
    let ids = stmt
        .query_map(rusqlite::params_from_iter(params), |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}
