//! The SQL of the logs database: preparing the file (pragmas, WAL, migrations), ingesting
//! batches exactly once, the chunk reads that [`super::query`] builds on, and retention.
//! Everything SQLite-only is here or in `migrations/`; a PostgreSQL store implements these
//! functions over the same tables (`bytea` for the blobs).

use crate::db::migrate::{self, Migration, MigrationSet};
use crate::db::sqlite::{switch_to_wal, BUSY_TIMEOUT};
use crate::db::{params, sql, Behavior, Conn, Engine, OptionalExtension};

use super::chunk::{self, LineRef};
use super::level::LevelParser;
use super::{Ack, Batch, Gap};
use crate::Error;

/// Longest node label, in bytes.
pub(crate) const MAX_NODE_BYTES: usize = 200;

/// Longest line text kept, in bytes; longer texts are cut at a character boundary.
pub(crate) const MAX_LINE_BYTES: usize = 256 * 1024;

/// Most lines in one batch.
pub(crate) const MAX_BATCH_LINES: usize = 100_000;

/// Most text in one batch, in bytes (a chunk's uncompressed size must fit in 32 bits).
pub(crate) const MAX_BATCH_BYTES: usize = 64 * 1024 * 1024;

/// The logs database's migrations, in order (`migrations/`, with the PostgreSQL twins in
/// `migrations/postgres/`).
const MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "logs",
    sql: include_str!("migrations/0001_logs.sql"),
    pg: include_str!("migrations/postgres/0001_logs.sql"),
    data: None,
}];

/// The logs database's migrations and their bookkeeping table, for
/// `crate::db::migrate::run`.
pub const SCHEMA: MigrationSet = MigrationSet {
    what: "logs database",
    step: "logs migration",
    table: versions_table,
    migrations: MIGRATIONS,
    legacy_table: None,
};

/// Where the applied versions are recorded: `schema_migrations` in `logs.db`; on
/// PostgreSQL the log tables share the store's database, so they have a table of their own
/// there (`logs_schema_migrations`).
fn versions_table(engine: Engine) -> &'static str {
    match engine {
        Engine::Sqlite => "schema_migrations",
        Engine::Postgres => "logs_schema_migrations",
    }
}

/// Per-connection settings: the busy timeout first; `synchronous = FULL` so that an
/// acknowledged batch is on disk; a larger page cache for scans.
pub fn configure(c: &Conn) -> crate::db::Result<()> {
    if let Some(s) = c.sqlite() {
        s.busy_timeout(BUSY_TIMEOUT)?;
    }
    c.execute_batch(
        "PRAGMA synchronous = FULL;
         PRAGMA cache_size = -32000;",
    )
}

/// Prepares a logs database over one connection: settings, WAL, migrations.
pub fn prepare(c: &mut Conn) -> Result<(), Error> {
    configure(c)?;
    let mode = switch_to_wal(c)?;
    if !mode.eq_ignore_ascii_case("wal") {
        return Err(Error::Internal(format!(
            "logs database journal mode is {mode}, not wal"
        )));
    }
    migrate::run(c, &SCHEMA)?;
    Ok(())
}

/// Checks a batch before anything is written.
pub(crate) fn validate(batch: &Batch) -> Result<(), Error> {
    let bad = |m: String| Err(Error::InvalidParameter(m));
    if batch.node.is_empty()
        || batch.node.len() > MAX_NODE_BYTES
        || batch.node.chars().any(char::is_control)
    {
        return bad(format!(
            "a node label must be 1 to {MAX_NODE_BYTES} bytes without control characters"
        ));
    }
    if batch.lines.is_empty() || batch.lines.len() > MAX_BATCH_LINES {
        return bad(format!("a batch holds 1 to {MAX_BATCH_LINES} lines"));
    }
    let bytes: usize = batch.lines.iter().map(|l| l.text.len()).sum();
    if bytes > MAX_BATCH_BYTES {
        return bad(format!(
            "a batch holds at most {MAX_BATCH_BYTES} bytes of text"
        ));
    }
    if batch
        .first_seq
        .checked_add(batch.lines.len() as u64)
        .is_none_or(|end| end > i64::MAX as u64)
    {
        return bad("sequence numbers must stay below 2^63".to_owned());
    }
    Ok(())
}

/// The text as stored: at most [`MAX_LINE_BYTES`], cut at a character boundary.
fn kept(text: &str) -> &[u8] {
    let mut end = text.len().min(MAX_LINE_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text.as_bytes()[..end]
}

/// Stores the lines of `batch` not stored before, exactly once, in one transaction. The
/// server goes through [`super::LogStore::ingest`], which groups writes.
pub fn ingest(conn: &mut Conn, batch: &Batch) -> Result<Ack, Error> {
    let tx = conn.transaction(Behavior::Immediate)?;
    let ack = store_batch(&tx, batch)?;
    tx.commit()?;
    Ok(ack)
}

/// The body of [`ingest`], inside the caller's transaction: checks `batch` and stores its
/// new lines (group commit: [`super::LogStore::ingest`]).
pub(crate) fn store_batch(tx: &Conn, batch: &Batch) -> Result<Ack, Error> {
    validate(batch)?;
    let (next_seq, mut gaps) = node_row(tx, batch.job_run_id, &batch.node)?;
    let first = batch.first_seq;
    let last = first + batch.lines.len() as u64 - 1;

    // The new slices: parts of open gaps, and whatever lies at or past next_seq.
    let mut fresh: Vec<(u64, u64)> = gaps
        .iter()
        .map(|g| (g.0.max(first), g.1.min(last)))
        .filter(|(a, b)| a <= b)
        .collect();
    if last >= next_seq {
        fresh.push((first.max(next_seq), last));
    }

    let mut stored = 0;
    for &(a, b) in &fresh {
        let state = if a == 0 {
            None
        } else {
            tx.prepare_cached(
                "SELECT parse_state FROM log_chunks
                 WHERE job_run_id = ?1 AND node = ?2 AND last_seq = ?3 LIMIT 1",
            )?
            .query_row(params![batch.job_run_id, batch.node, (a - 1) as i64], |r| {
                r.get::<_, String>(0)
            })
            .optional()?
        };
        let mut parser = LevelParser::from_state(state.as_deref().unwrap_or(""));
        let slice = &batch.lines[(a - first) as usize..=(b - first) as usize];
        let lines: Vec<LineRef<'_>> = slice
            .iter()
            .map(|l| LineRef {
                ts_ms: l.ts_ms,
                stream: l.stream,
                level: parser.line(&l.text),
                text: kept(&l.text),
            })
            .collect();
        let enc = chunk::encode(a, &lines);
        tx.prepare_cached(
            "INSERT INTO log_chunks (job_run_id, node, first_seq, last_seq, min_ts, max_ts,
                                     level_mask, parse_state, grams, data)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        )?
        .execute(params![
            batch.job_run_id,
            batch.node,
            a as i64,
            b as i64,
            enc.min_ts,
            enc.max_ts,
            enc.level_mask,
            parser.state(),
            enc.grams,
            enc.data,
        ])?;
        stored += slice.len();
        remove_range(&mut gaps, a, b);
    }
    if first > next_seq {
        gaps.push((next_seq, first - 1));
    }
    let next_seq = next_seq.max(last + 1);
    let gaps_json = sql::json_array(&gaps)?;
    tx.prepare_cached(
        "INSERT INTO log_nodes (job_run_id, node, next_seq, gaps) VALUES (?1, ?2, ?3, ?4)
         ON CONFLICT (job_run_id, node)
         DO UPDATE SET next_seq = excluded.next_seq, gaps = excluded.gaps",
    )?
    .execute(params![
        batch.job_run_id,
        batch.node,
        next_seq as i64,
        gaps_json
    ])?;
    Ok(Ack {
        stored,
        duplicates: batch.lines.len() - stored,
        gaps: to_gaps(&gaps),
        next_seq,
    })
}

/// The node's next sequence number and open gaps (0 and none for a new node).
fn node_row(conn: &Conn, job_run_id: i64, node: &str) -> Result<(u64, Vec<(u64, u64)>), Error> {
    let row = conn
        .prepare_cached("SELECT next_seq, gaps FROM log_nodes WHERE job_run_id = ?1 AND node = ?2")?
        .query_row(params![job_run_id, node], |r| {
            Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?))
        })
        .optional()?;
    let Some((next, gaps)) = row else {
        return Ok((0, Vec::new()));
    };
    let gaps = serde_json::from_str(&gaps)
        .map_err(|e| Error::Internal(format!("log_nodes.gaps of {job_run_id}/{node}: {e}")))?;
    Ok((next as u64, gaps))
}

/// Removes `a..=b` from sorted, disjoint ranges.
fn remove_range(ranges: &mut Vec<(u64, u64)>, a: u64, b: u64) {
    let mut out = Vec::with_capacity(ranges.len() + 1);
    for &(x, y) in ranges.iter() {
        if y < a || x > b {
            out.push((x, y));
            continue;
        }
        if x < a {
            out.push((x, a - 1));
        }
        if y > b {
            out.push((b + 1, y));
        }
    }
    *ranges = out;
}

fn to_gaps(ranges: &[(u64, u64)]) -> Vec<Gap> {
    ranges
        .iter()
        .map(|&(first_missing, last_missing)| Gap {
            first_missing,
            last_missing,
        })
        .collect()
}

/// What is known about one node of a job run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeState {
    /// The node's label.
    pub node: String,
    /// The next sequence number expected.
    pub next_seq: u64,
    /// Ranges not received, oldest first.
    pub gaps: Vec<Gap>,
}

/// The nodes that sent lines for a job run, by label.
pub(crate) fn nodes(conn: &Conn, job_run_id: i64) -> Result<Vec<NodeState>, Error> {
    let mut stmt = conn.prepare_cached(
        "SELECT node, next_seq, gaps FROM log_nodes WHERE job_run_id = ?1 ORDER BY node",
    )?;
    let rows = stmt.query_map([job_run_id], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, i64>(1)?,
            r.get::<_, String>(2)?,
        ))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (node, next_seq, gaps) = row?;
        let gaps: Vec<(u64, u64)> = serde_json::from_str(&gaps)
            .map_err(|e| Error::Internal(format!("log_nodes.gaps of {job_run_id}: {e}")))?;
        out.push(NodeState {
            node,
            next_seq: next_seq as u64,
            gaps: to_gaps(&gaps),
        });
    }
    Ok(out)
}

/// What a purge removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Purged {
    /// Chunks deleted.
    pub chunks: u64,
    /// Lines in them.
    pub lines: u64,
}

/// Deletes every chunk whose newest line is older than `cut_ms` and records, per job run,
/// the newest timestamp purged (kept across purges: it only grows).
pub fn purge_older_than(conn: &mut Conn, cut_ms: i64) -> Result<Purged, Error> {
    let tx = conn.transaction(Behavior::Immediate)?;
    let (chunks, lines): (i64, i64) = tx.query_row(
        "SELECT count(*), CAST(coalesce(sum(last_seq - first_seq + 1), 0) AS BIGINT)
         FROM log_chunks WHERE max_ts < ?1",
        [cut_ms],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    if chunks > 0 {
        tx.execute(
            &format!(
                "INSERT INTO log_expiry (job_run_id, expired_through_ms)
                 SELECT job_run_id, max(max_ts) FROM log_chunks WHERE max_ts < ?1
                 GROUP BY job_run_id
                 ON CONFLICT (job_run_id) DO UPDATE SET expired_through_ms = {}",
                sql::greatest(
                    tx.engine(),
                    "log_expiry.expired_through_ms",
                    "excluded.expired_through_ms"
                )
            ),
            [cut_ms],
        )?;
        tx.execute("DELETE FROM log_chunks WHERE max_ts < ?1", [cut_ms])?;
    }
    tx.commit()?;
    Ok(Purged {
        chunks: chunks as u64,
        lines: lines as u64,
    })
}

/// The newest timestamp among a job run's purged lines; `None` if nothing was purged.
pub(crate) fn expired_through(conn: &Conn, job_run_id: i64) -> Result<Option<i64>, Error> {
    Ok(conn
        .prepare_cached("SELECT expired_through_ms FROM log_expiry WHERE job_run_id = ?1")?
        .query_row([job_run_id], |r| r.get(0))
        .optional()?)
}

/// A chunk's summary row, without its data.
#[derive(Debug, Clone)]
pub(crate) struct ChunkMeta {
    /// Arrival order.
    pub id: i64,
    /// The node's label.
    pub node: String,
    /// Smallest timestamp of its lines.
    pub min_ts: i64,
    /// Largest timestamp of its lines.
    pub max_ts: i64,
    /// The trigram summary of its texts (`chunk::Grams`).
    pub grams: Vec<u8>,
}

/// Which chunks a scan wants: one job run, chunk ids up to `max_id`, optionally one node,
/// at least one level of `level_mask`, lines possibly within `ts_lo..=ts_hi`.
#[derive(Debug, Clone)]
pub(crate) struct ChunkFilter<'a> {
    /// The job run.
    pub job_run_id: i64,
    /// The newest chunk id considered (a snapshot taken when the scan starts).
    pub max_id: i64,
    /// Only this node's chunks.
    pub node: Option<&'a str>,
    /// Bits as in the `level_mask` column; a chunk needs one of them.
    pub level_mask: i64,
    /// Smallest timestamp wanted.
    pub ts_lo: i64,
    /// Largest timestamp wanted.
    pub ts_hi: i64,
}

/// The order of a scan over chunk summaries, with where the last batch of rows ended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ChunkOrder {
    /// By `(max_ts, id)` descending, strictly below this pair.
    NewestBelow(i64, i64),
    /// By `(min_ts, id)` ascending, strictly above this pair.
    OldestAbove(i64, i64),
    /// By id ascending, strictly above this id (arrival order).
    ArrivedAfter(i64),
}

/// Up to `limit` chunk summaries matching `f`, in `order`.
pub(crate) fn chunk_metas(
    conn: &Conn,
    f: &ChunkFilter<'_>,
    order: ChunkOrder,
    limit: usize,
) -> Result<Vec<ChunkMeta>, Error> {
    let (keyset, order_by, k1, k2) = match order {
        ChunkOrder::NewestBelow(ts, id) => (
            "(max_ts < ?7 OR (max_ts = ?7 AND id < ?8))",
            "max_ts DESC, id DESC",
            ts,
            id,
        ),
        ChunkOrder::OldestAbove(ts, id) => (
            "(min_ts > ?7 OR (min_ts = ?7 AND id > ?8))",
            "min_ts ASC, id ASC",
            ts,
            id,
        ),
        // ?7 is bound to 0 and named only so that every parameter has a type
        // (PostgreSQL refuses a statement with an unused one).
        ChunkOrder::ArrivedAfter(id) => ("(?7 = 0 AND id > ?8)", "id ASC", 0, id),
    };
    let text = format!(
        "SELECT id, node, min_ts, max_ts, grams FROM log_chunks
         WHERE job_run_id = ?1 AND id <= ?2 AND (CAST(?3 AS TEXT) IS NULL OR node = ?3)
           AND (level_mask & ?4) != 0 AND max_ts >= ?5 AND min_ts <= ?6 AND {keyset}
         ORDER BY {order_by} LIMIT ?9"
    );
    let mut stmt = conn.prepare_cached(&text)?;
    let rows = stmt.query_map(
        params![
            f.job_run_id,
            f.max_id,
            f.node,
            f.level_mask,
            f.ts_lo,
            f.ts_hi,
            k1,
            k2,
            limit as i64
        ],
        |r| {
            Ok(ChunkMeta {
                id: r.get(0)?,
                node: r.get(1)?,
                min_ts: r.get(2)?,
                max_ts: r.get(3)?,
                grams: r.get(4)?,
            })
        },
    )?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Runs `f` over a chunk's compressed data, borrowed from the row (no copy); `None` if
/// the chunk was purged meanwhile.
pub(crate) fn with_chunk_data<T>(
    conn: &Conn,
    id: i64,
    f: impl FnOnce(&[u8]) -> T,
) -> Result<Option<T>, Error> {
    Ok(conn
        .prepare_cached("SELECT data FROM log_chunks WHERE id = ?1")?
        .query_row([id], |r| Ok(f(r.get_ref(0)?.as_blob()?)))
        .optional()?)
}

/// The newest chunk id (0 when there is none): the snapshot a scan stops at.
pub fn max_chunk_id(conn: &Conn) -> Result<i64, Error> {
    Ok(conn
        .prepare_cached("SELECT coalesce(max(id), 0) FROM log_chunks")?
        .query_row([], |r| r.get(0))?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::testing::{batch, store};
    use crate::logs::{Level, LogStore};

    fn gap(first_missing: u64, last_missing: u64) -> Gap {
        Gap {
            first_missing,
            last_missing,
        }
    }

    /// Every stored (seq, text) of a node, in seq order, straight from the chunks.
    fn stored(logs: &LogStore, job_run_id: i64, node: &str) -> Vec<(u64, String)> {
        logs.read(|c| {
            let mut stmt = c.prepare(
                "SELECT data FROM log_chunks WHERE job_run_id = ?1 AND node = ?2
                 ORDER BY first_seq",
            )?;
            let blobs: Vec<Vec<u8>> = stmt
                .query_map(params![job_run_id, node], |r| r.get(0))?
                .collect::<Result<_, _>>()?;
            let mut out = Vec::new();
            for b in blobs {
                let d = chunk::decode(&b).unwrap();
                for i in 0..d.len() {
                    let text = String::from_utf8(d.text(i).to_vec()).unwrap();
                    out.push((d.first_seq + i as u64, text));
                }
            }
            Ok(out)
        })
        .unwrap()
    }

    fn seqs(v: &[(u64, String)]) -> Vec<u64> {
        v.iter().map(|(s, _)| *s).collect()
    }

    #[test]
    fn a_resent_batch_is_stored_once() {
        let (_d, logs) = store();
        let b = batch(1, "n0", 0, 1000, &["a", "b", "c"]);
        let first = logs.ingest(b.clone()).unwrap();
        assert_eq!((first.stored, first.duplicates, first.next_seq), (3, 0, 3));
        let again = logs.ingest(b).unwrap();
        assert_eq!((again.stored, again.duplicates, again.next_seq), (0, 3, 3));
        assert!(again.gaps.is_empty());
        assert_eq!(seqs(&stored(&logs, 1, "n0")), [0, 1, 2]);
    }

    #[test]
    fn an_overlapping_batch_is_trimmed_to_its_new_lines() {
        let (_d, logs) = store();
        logs.ingest(batch(1, "n0", 0, 1000, &["a", "b", "c"]))
            .unwrap();
        let ack = logs
            .ingest(batch(1, "n0", 1, 2000, &["B", "C", "d", "e"]))
            .unwrap();
        assert_eq!((ack.stored, ack.duplicates, ack.next_seq), (2, 2, 5));
        // The stored copies of 1 and 2 are the first ones.
        let texts: Vec<String> = stored(&logs, 1, "n0").into_iter().map(|x| x.1).collect();
        assert_eq!(texts, ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn a_gap_is_recorded_then_filled_out_of_order() {
        let (_d, logs) = store();
        logs.ingest(batch(1, "n0", 0, 0, &["0", "1"])).unwrap();
        let ack = logs.ingest(batch(1, "n0", 5, 5, &["5", "6"])).unwrap();
        assert_eq!(ack.stored, 2);
        assert_eq!(ack.gaps, [gap(2, 4)]);
        assert_eq!(ack.next_seq, 7);
        let ack = logs.ingest(batch(1, "n0", 10, 10, &["10"])).unwrap();
        assert_eq!(ack.gaps, [gap(2, 4), gap(7, 9)]);
        // A replayed batch fills the middle of the first gap...
        let ack = logs.ingest(batch(1, "n0", 3, 3, &["3"])).unwrap();
        assert_eq!(ack.gaps, [gap(2, 2), gap(4, 4), gap(7, 9)]);
        // ...and one spanning stored lines and two gaps stores only the missing ones.
        let ack = logs
            .ingest(batch(
                1,
                "n0",
                2,
                2,
                &["2", "x", "4", "x", "x", "7", "8", "9", "x", "11"],
            ))
            .unwrap();
        assert_eq!((ack.stored, ack.duplicates), (6, 4));
        assert!(ack.gaps.is_empty());
        assert_eq!(ack.next_seq, 12);
        let all = stored(&logs, 1, "n0");
        assert_eq!(seqs(&all), (0..12).collect::<Vec<_>>());
        assert!(all.iter().all(|(s, t)| *t == s.to_string()));
        let n = logs.read(|c| nodes(c, 1)).unwrap();
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].next_seq, n[0].gaps.len()), (12, 0));
    }

    #[test]
    fn nodes_and_job_runs_have_their_own_sequences() {
        let (_d, logs) = store();
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        let other_node = logs.ingest(batch(1, "n1", 0, 0, &["a"])).unwrap();
        let other_run = logs.ingest(batch(2, "n0", 0, 0, &["a"])).unwrap();
        assert_eq!(other_node.stored, 1);
        assert_eq!(other_run.stored, 1);
        let n = logs.read(|c| nodes(c, 1)).unwrap();
        let names: Vec<_> = n.iter().map(|s| s.node.as_str()).collect();
        assert_eq!(names, ["n0", "n1"]);
    }

    #[test]
    fn a_traceback_spanning_two_batches_stays_error() {
        let (_d, logs) = store();
        logs.ingest(batch(
            1,
            "n0",
            0,
            0,
            &[
                "step 1",
                "Traceback (most recent call last):",
                "  File \"a.py\"",
            ],
        ))
        .unwrap();
        logs.ingest(batch(1, "n0", 3, 3, &["    f()", "ValueError: x", "after"]))
            .unwrap();
        let levels = logs
            .read(|c| {
                let b: Vec<u8> =
                    c.query_row("SELECT data FROM log_chunks WHERE first_seq = 3", [], |r| {
                        r.get(0)
                    })?;
                let d = chunk::decode(&b).unwrap();
                Ok((0..d.len()).map(|i| d.level(i)).collect::<Vec<_>>())
            })
            .unwrap();
        assert_eq!(levels, [Some(Level::Error), Some(Level::Error), None]);
    }

    #[test]
    fn bad_batches_are_refused_before_anything_is_written() {
        let (_d, logs) = store();
        for b in [
            batch(1, "", 0, 0, &["a"]),
            batch(1, "a\nb", 0, 0, &["a"]),
            batch(1, "n0", 0, 0, &[]),
            batch(1, "n0", i64::MAX as u64, 0, &["a"]),
        ] {
            assert!(matches!(logs.ingest(b), Err(Error::InvalidParameter(_))));
        }
        assert!(logs.read(|c| nodes(c, 1)).unwrap().is_empty());
    }

    #[test]
    fn overlong_lines_are_cut_at_a_character_boundary() {
        let (_d, logs) = store();
        let long = "é".repeat(MAX_LINE_BYTES);
        logs.ingest(batch(1, "n0", 0, 0, &[&long])).unwrap();
        let (_, text) = stored(&logs, 1, "n0").remove(0);
        assert_eq!(text.len(), MAX_LINE_BYTES);
        assert!(text.chars().all(|c| c == 'é'));
    }

    #[test]
    fn purge_deletes_old_chunks_and_records_the_expiry() {
        let (_d, logs) = store();
        logs.ingest(batch(1, "n0", 0, 100, &["a", "b"])).unwrap();
        logs.ingest(batch(1, "n0", 2, 200, &["c", "d"])).unwrap();
        logs.ingest(batch(2, "n0", 0, 150, &["x"])).unwrap();
        assert_eq!(logs.read(|c| expired_through(c, 1)).unwrap(), None);
        // Cut at 201: the chunk at 100..=101 and run 2's at 150 go; 200..=201 stays whole.
        let p = logs.write(|c| purge_older_than(c, 201)).unwrap();
        assert_eq!(
            p,
            Purged {
                chunks: 2,
                lines: 3
            }
        );
        assert_eq!(seqs(&stored(&logs, 1, "n0")), [2, 3]);
        assert_eq!(logs.read(|c| expired_through(c, 1)).unwrap(), Some(101));
        assert_eq!(logs.read(|c| expired_through(c, 2)).unwrap(), Some(150));
        // The expiry only grows; a purge with nothing to do changes nothing.
        let p = logs.write(|c| purge_older_than(c, 50)).unwrap();
        assert_eq!(p, Purged::default());
        assert_eq!(logs.read(|c| expired_through(c, 1)).unwrap(), Some(101));
        // Lines arriving late with old timestamps, purged by a lower cut, do not move the
        // record back.
        logs.ingest(batch(1, "n0", 4, 40, &["late"])).unwrap();
        let p = logs.write(|c| purge_older_than(c, 60)).unwrap();
        assert_eq!(p.chunks, 1);
        assert_eq!(logs.read(|c| expired_through(c, 1)).unwrap(), Some(101));
        logs.write(|c| purge_older_than(c, 1000)).unwrap();
        assert_eq!(logs.read(|c| expired_through(c, 1)).unwrap(), Some(201));
        // Purged lines still count as received: a re-send stores nothing.
        let ack = logs.ingest(batch(1, "n0", 0, 100, &["a"])).unwrap();
        assert_eq!((ack.stored, ack.duplicates), (0, 1));
    }

    #[test]
    fn the_file_is_wal_with_full_sync_and_reopens_at_its_version() {
        let dir = tempfile::tempdir().unwrap();
        let logs = LogStore::open(dir.path()).unwrap();
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        let (mode, sync): (String, i64) = logs
            .read(|c| {
                let m = c.query_row("PRAGMA journal_mode", [], |r| r.get(0))?;
                let s = c.query_row("PRAGMA synchronous", [], |r| r.get(0))?;
                Ok((m, s))
            })
            .unwrap();
        assert_eq!((mode.as_str(), sync), ("wal", 2));
        drop(logs);
        let again = LogStore::open(dir.path()).unwrap();
        let ack = again.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        assert_eq!(ack.duplicates, 1);
        let version: i64 = again
            .read(|c| {
                Ok(
                    c.query_row("SELECT max(version) FROM schema_migrations", [], |r| {
                        r.get(0)
                    })?,
                )
            })
            .unwrap();
        assert_eq!(version, MIGRATIONS.len() as i64);
    }

    #[test]
    fn a_logs_database_newer_than_this_build_is_refused() {
        let mut c = Conn::open_sqlite(":memory:").unwrap();
        migrate::run(&mut c, &SCHEMA).unwrap();
        c.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES (99, 'future', 0)",
            [],
        )
        .unwrap();
        match migrate::run(&mut c, &SCHEMA) {
            Err(Error::Internal(m)) => assert_eq!(
                m,
                "the logs database is at schema version 99, newer than this runlens knows \
                 (1); run a newer runlens"
            ),
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn remove_range_splits_and_trims() {
        let mut r = vec![(2, 4), (7, 9), (12, 12)];
        remove_range(&mut r, 3, 8);
        assert_eq!(r, [(2, 2), (9, 9), (12, 12)]);
        remove_range(&mut r, 0, 100);
        assert!(r.is_empty());
    }
}
