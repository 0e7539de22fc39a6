//! The column keys of an experiment's runs table (`experiment_columns`, migration 7): each
//! param, metric and tag key any of its runs has had, written in the transaction that writes
//! the param, latest metric or tag, so the experiment header reads them instead of scanning
//! every run's rows. Keys are only ever added: a deleted tag or run leaves its key listed
//! (as MLflow's UI does); its column then shows empty cells.

use crate::db::sql::{json_array, json_list};
use crate::db::{params, Conn, Engine};

use crate::Error;

/// What a column key names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnKind {
    /// A param key.
    Param,
    /// A metric key (its latest value).
    Metric,
    /// A tag key.
    Tag,
}

impl ColumnKind {
    /// The `kind` stored in `experiment_columns`.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            ColumnKind::Param => "param",
            ColumnKind::Metric => "metric",
            ColumnKind::Tag => "tag",
        }
    }
}

/// PostgreSQL: the lock under which new column keys are inserted (see [`note_keys`]); a
/// key space of its own ("rlco" in ASCII).
const NEW_KEYS_LOCK: &str = "SELECT pg_advisory_xact_lock(1919705967, 0)";

/// Records `keys` as columns of run `run_id`'s experiment (those that are not already), with
/// one statement to look and at most one to insert, whatever their number.
pub(crate) fn note_keys(
    conn: &Conn,
    run_id: &str,
    kind: ColumnKind,
    keys: &[&str],
) -> Result<(), Error> {
    let mut keys = keys.to_vec();
    keys.sort_unstable();
    keys.dedup();
    if keys.is_empty() {
        return Ok(());
    }
    let d = conn.engine();
    let list = json_array(&keys)?;
    // Look before inserting: known keys, the usual case, take no lock at all.
    let known: i64 = conn
        .prepare_cached(&format!(
            "SELECT count(*) FROM experiment_columns
             WHERE experiment_id = (SELECT experiment_id FROM runs WHERE run_uuid = ?1)
               AND kind = ?2 AND key IN {}",
            json_list(d, "?3")
        ))?
        .query_row(params![run_id, kind.as_str(), list], |r| r.get(0))?;
    if usize::try_from(known).is_ok_and(|k| k == keys.len()) {
        return Ok(());
    }
    if d == Engine::Postgres {
        // Writes to different runs of one experiment commit at once on PostgreSQL; two of
        // them inserting the same new keys in opposite orders would wait on each other (a
        // deadlock, which PostgreSQL breaks by failing one). New keys are therefore added
        // one writer at a time, under a lock taken after the runs' locks and held to the
        // commit: the holder waits for nobody, so no cycle can form.
        conn.execute_batch(NEW_KEYS_LOCK)?;
    }
    conn.prepare_cached(&format!(
        "INSERT INTO experiment_columns (experiment_id, kind, key)
         SELECT r.experiment_id, ?2, k.value FROM runs AS r CROSS JOIN {} AS k
          WHERE r.run_uuid = ?1
         ON CONFLICT (experiment_id, kind, key) DO NOTHING",
        json_list(d, "?3")
    ))?
    .execute(params![run_id, kind.as_str(), list])?;
    Ok(())
}

/// The experiment's column keys of `kind`, sorted; tags without MLflow's `mlflow.` system
/// keys.
pub(crate) fn column_keys(
    conn: &Conn,
    experiment_id: i64,
    kind: ColumnKind,
) -> Result<Vec<String>, Error> {
    let system = if kind == ColumnKind::Tag {
        "AND substr(key, 1, 7) <> 'mlflow.'"
    } else {
        ""
    };
    let sql = format!(
        "SELECT key FROM experiment_columns WHERE experiment_id = ?1 AND kind = ?2 {system}
          ORDER BY key"
    );
    let keys = conn
        .prepare_cached(&sql)?
        .query_map(params![experiment_id, kind.as_str()], |r| r.get(0))?
        .collect::<Result<_, _>>()?;
    Ok(keys)
}
