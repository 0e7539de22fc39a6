//! The log store: every output line of every job run, kept for the retention period, with
//! filters, search, paging in both directions, streaming and live follow. This
//! module is the storage library only; routes, job permissions and the agent build on it.
//!
//! # Design
//!
//! - **Its own database.** Lines live in `<data-dir>/logs.db`, a SQLite file separate from
//!   `runlens.db`, with its own pool, so a flood of log lines never holds the lock that
//!   metric writes need. WAL and `synchronous = FULL`: a batch is acknowledged only after
//!   its commit is on disk, so an acknowledged batch survives a crash or `kill -9` (crash
//!   durability is SQLite's; no test here kills the process). Writes go through the
//!   server's one group-commit writer (`db::group_write`, one turn: SQLite has one writer
//!   anyway, and queueing avoids its sleeping busy handler): batches sent while a commit
//!   is under way are stored together in one transaction, each in a savepoint of its own,
//!   so a batch that fails is undone alone. Reads run in parallel on pooled connections.
//! - **Lines.** A line belongs to a job run and a node (a label), comes from stdout or
//!   stderr, has a timestamp, a per-node sequence number assigned by the agent from 0, a
//!   level parsed by the server ([`level`]; a traceback's state carries over from batch to
//!   batch) and its text, ANSI codes kept.
//! - **Chunks.** A batch's new lines are stored as one row per slice of consecutive
//!   sequence numbers ([`chunk`]: columns + LZ4), with the row's summary beside the blob:
//!   node, first/last seq (so a chunk holds `last - first + 1` lines), min/max timestamp,
//!   a bitmask of the levels present, the level parser's state after its last line, a
//!   trigram summary (below). Blobs work
//!   the same in PostgreSQL (`bytea`), so the SQL in [`store`] is the seam a PostgreSQL
//!   store replaces.
//! - **Exactly once.** Per (job run, node) the store keeps the next sequence number and the
//!   ranges still missing below it. A batch's lines already stored are dropped (a re-sent
//!   batch stores nothing; an overlapping one is trimmed to its new lines); a batch starting
//!   beyond the next number records the gap and is stored; a later batch filling a gap (a
//!   spool replayed out of order) is accepted and the gap shrinks. The [`Ack`] says what
//!   was stored, what was dropped, and which gaps are open.
//! - **Order.** Lines are ordered by [`query::LineKey`] = (timestamp, node, seq) across
//!   nodes. Pages are read from chunks selected by their time bounds and merged (a heap
//!   keyed by the line key), newest-first for "latest" / "older", oldest-first for
//!   "newer" / downloads; reading stops once `limit` lines are certain, so the first page
//!   of a dense search decompresses a few chunks, not the run. Cursors are opaque strings
//!   of a line key, so paging has no gaps or duplicates in either direction.
//! - **Search.** Case-insensitive (ASCII) substring. Chunks are ruled out first by their
//!   summary (node, level bitmask, time bounds, in SQL) and, for a text of 3 bytes or
//!   more, by a trigram summary stored beside each chunk (`chunk::Grams`: a one-hash
//!   Bloom filter of 64 B to 2 KiB, about 1/32 of the text): a rare phrase decompresses
//!   only the chunks that may hold it. The chunks left are decompressed and scanned whole
//!   with `memchr::memmem` over the lowercased text region; while a search finds nothing
//!   it reads ahead (1, 2, 4 ... 32 chunks) and decompresses on up to 4 threads. Hits come
//!   back with byte ranges for highlighting. A match must lie within one line's stored
//!   text, ANSI codes included (a phrase split by a colour code is not found). The worst
//!   case is a phrase absent from the run whose every trigram is common: every chunk is
//!   decompressed (see `examples/logs_bench.rs`).
//! - **Live follow.** Chunk ids grow in commit order (`AUTOINCREMENT`, one writer), so a
//!   follower resumes from the last chunk id it saw (`query::follow`) and sees every later
//!   arrival, including gap fills with older timestamps. Each commit that stored lines is
//!   announced, once committed, on a topic of `crate::bus` (`Committed`), which wakes
//!   the followers of this process and, on PostgreSQL, of every replica
//!   (`LogStore::subscribe`); they also poll, for writers in other processes (the CLI)
//!   and for wake-ups lost on the way.
//! - **Retention.** [`store::purge_older_than`] deletes whole chunks whose newest line is
//!   older than the cut and records per job run the newest purged timestamp
//!   (`store::expired_through`) so the UI can say "logs before ... expired";
//!   [`retention::run`] does it hourly in the server.
//! - **Wire.** [`wire`] converts between these types and `api_types::logs`, and formats a
//!   line as downloads and the CLI print it.
//!
//! Not yet here: compaction of tiny chunks (a chatty job that flushes a few lines at a
//! time makes many small rows; merging neighbours off the ingest path keeps searches fast),
//! and re-levelling lines stored after a gap once the gap is filled (they were parsed as if
//! no traceback was open before them).

pub mod chunk;
pub(crate) mod download;
pub(crate) mod follow;
pub mod level;
pub(crate) mod page;
pub mod query;
pub mod retention;
pub mod store;
pub mod wire;

use std::path::Path;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

use r2d2::HandleError;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast::error::TryRecvError;
use tokio::sync::{broadcast, watch};

use crate::bus::{Message, Topic};
use crate::db::group_write::GroupWriter;
use crate::db::sqlite::{prepared_pool, LogPoolErrors};
use crate::db::Conn;
use crate::Error;

pub use level::Level;

/// Connections in the logs pool (readers; writes take one of them behind the write lock).
const POOL_SIZE: u32 = 6;

/// Which output stream a line came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

/// One line as the agent ships it; its sequence number is its place in the [`Batch`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewLine {
    /// Milliseconds since the Unix epoch, taken by the agent when it read the line.
    pub ts_ms: i64,
    /// stdout or stderr.
    pub stream: Stream,
    /// The text without its line ending, ANSI codes kept.
    pub text: String,
}

/// Consecutive lines of one node: line `i` has sequence number `first_seq + i`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    /// The key the lines are stored under. The server passes the attempt's id
    /// (`job_attempts.attempt_id`): each attempt numbers its lines from 0 per node.
    pub job_run_id: i64,
    /// The node's label.
    pub node: String,
    /// Sequence number of the first line (per node, from 0).
    pub first_seq: u64,
    /// The lines, in sequence order.
    pub lines: Vec<NewLine>,
}

/// A range of sequence numbers not received (yet), both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gap {
    /// The first missing sequence number.
    pub first_missing: u64,
    /// The last missing sequence number.
    pub last_missing: u64,
}

/// What the store did with a batch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ack {
    /// Lines stored now.
    pub stored: usize,
    /// Lines dropped because they were stored before.
    pub duplicates: usize,
    /// The node's missing ranges after this batch, oldest first.
    pub gaps: Vec<Gap>,
    /// The sequence number the node's next new line should have.
    pub next_seq: u64,
}

/// The PostgreSQL notification channel on which each ingest announces its newest chunk id.
pub(crate) const CHANNEL: &str = "runlens_logs";

/// Commit announcements kept for the slowest follower (one that falls behind only wakes).
const WAKEUPS: usize = 16;

/// A commit that stored lines, as [`crate::bus`] carries it to followers: the newest chunk
/// id it saw (0: a wake-up after the listening session reconnected, commits may have been
/// missed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub(crate) struct Committed(i64);

impl Message for Committed {
    fn reconnected() -> Self {
        Committed(0)
    }

    fn shrunk(&self) -> Self {
        *self
    }
}

/// What a live follower waits on ([`LogStore::subscribe`]): commits that stored lines
/// (here, or on PostgreSQL on any replica), and the server's shutdown.
pub(crate) struct Wakeups {
    commits: broadcast::Receiver<Arc<Committed>>,
    closing: watch::Receiver<bool>,
}

impl Wakeups {
    /// Waits for the next commit announced, or shutdown; returns at once after either
    /// happened unseen. `Err` when the store is gone.
    pub(crate) async fn changed(&mut self) -> Result<(), ()> {
        tokio::select! {
            heard = self.commits.recv() => match heard {
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {
                    self.heard();
                    Ok(())
                }
                Err(broadcast::error::RecvError::Closed) => Err(()),
            },
            closing = self.closing.changed() => closing.map_err(|_| ()),
        }
    }

    /// The newest chunk id among the commits announced since the last call, without
    /// waiting (`None`: none).
    pub(crate) fn heard(&mut self) -> Option<i64> {
        let mut newest = None;
        loop {
            match self.commits.try_recv() {
                Ok(c) => newest = newest.max(Some(c.0)),
                Err(TryRecvError::Lagged(_)) => newest = newest.max(Some(0)),
                Err(TryRecvError::Empty | TryRecvError::Closed) => return newest,
            }
        }
    }

    /// Whether the server is shutting down ([`LogStore::close_followers`]).
    pub(crate) fn closing(&self) -> bool {
        *self.closing.borrow()
    }
}

/// The logs database: a pool of connections to `logs.db`, the writer, and the topic that
/// wakes live followers after each commit.
#[derive(Clone)]
pub struct LogStore {
    pool: crate::db::Pool,
    writer: Arc<GroupWriter>,
    commits: Topic<Committed>,
    /// The newest chunk id this process announced.
    announced: Arc<AtomicI64>,
    /// Set once by [`LogStore::close_followers`]: followers end their streams.
    closing: Arc<watch::Sender<bool>>,
}

impl LogStore {
    /// Opens (creating if needed) `dir/logs.db` and migrates it.
    pub fn open(dir: &Path) -> Result<Self, Error> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Internal(format!("cannot create {}: {e}", dir.display())))?;
        Self::open_file(&dir.join("logs.db"))
    }

    /// Opens a logs database file directly (tests use a temp file).
    pub fn open_file(path: &Path) -> Result<Self, Error> {
        Self::open_with(path, Box::new(LogPoolErrors("logs database")))
    }

    /// [`LogStore::open_file`] with the pool's connection errors going to `errors`. The
    /// file is prepared (WAL, migrations) over one connection before the pool opens
    /// (`db::sqlite::prepared_pool`).
    pub fn open_with(
        path: &Path,
        errors: Box<dyn HandleError<crate::db::DbError>>,
    ) -> Result<Self, Error> {
        let (pool, ()) = prepared_pool(path, POOL_SIZE, store::configure, store::prepare, errors)?;
        Ok(Self::with(
            crate::db::Pool::Sqlite(pool),
            Topic::local(WAKEUPS),
        ))
    }

    /// The log tables in the store's PostgreSQL database (already migrated with
    /// `store::SCHEMA`), over the store's pool. Followers here are woken by the ingests
    /// of every replica: each commit is announced on `CHANNEL` (returns once listening).
    pub fn over_postgres(pool: crate::db::pg::PgPool) -> Self {
        let commits = Topic::shared(&pool, CHANNEL, WAKEUPS);
        Self::with(crate::db::Pool::Pg(pool), commits)
    }

    fn with(pool: crate::db::Pool, commits: Topic<Committed>) -> Self {
        LogStore {
            pool,
            writer: Arc::default(),
            commits,
            announced: Arc::default(),
            closing: Arc::new(watch::Sender::new(false)),
        }
    }

    /// What wakes a live follower: every commit that stored lines from now on (and
    /// shutdown), so that it waits instead of polling. Commits by other processes sharing
    /// the SQLite file do not wake it; followers poll as well.
    pub(crate) fn subscribe(&self) -> Wakeups {
        Wakeups {
            commits: self.commits.subscribe(),
            closing: self.closing(),
        }
    }

    /// A receiver that turns true when the server shuts down ([`LogStore::close_followers`]).
    pub(crate) fn closing(&self) -> watch::Receiver<bool> {
        self.closing.subscribe()
    }

    /// Tells every live follower to end its stream (server shutdown: an open event stream
    /// would otherwise hold the graceful shutdown until its timeout).
    pub fn close_followers(&self) {
        self.closing.send_replace(true);
    }

    /// Wakes followers, here and on the other replicas, if `chunk_id` (committed) is
    /// newer than what this process announced before; never waits.
    fn announce(&self, chunk_id: i64) {
        if self.announced.fetch_max(chunk_id, Ordering::AcqRel) < chunk_id {
            self.commits.publish(Committed(chunk_id));
        }
    }

    /// Runs `f` with a pooled connection on the current thread (queries, streams).
    pub fn read<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, Error>) -> Result<T, Error> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::Internal(format!("logs database pool: {e}")))?;
        f(&mut conn)
    }

    /// Runs `f` with a pooled connection while no batch is being stored (purge).
    pub fn write<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, Error>) -> Result<T, Error> {
        self.writer.exclusive(|| self.read(f))
    }

    /// Stores a batch exactly once ([`store::ingest`]) on the current thread and returns
    /// once it is committed. Group commit (`db::group_write`): batches sent while another
    /// commit is under way are stored together, in arrival order, in one transaction (one
    /// disk sync), each in a savepoint of its own, and each sender gets its own ack; an
    /// invalid batch is refused before it joins a group. A commit that stored lines then
    /// wakes the live followers (`LogStore::subscribe`).
    pub fn ingest(&self, batch: Batch) -> Result<Ack, Error> {
        store::validate(&batch)?;
        let pool = self.pool.clone();
        let stored = self.writer.write(
            move || {
                pool.get()
                    .map_err(|e| Error::Internal(format!("logs database pool: {e}")))
            },
            None,
            move |tx| {
                let ack = store::store_batch(tx, &batch)?;
                let newest = match ack.stored {
                    0 => None,
                    _ => Some(store::max_chunk_id(tx)?),
                };
                Ok((ack, newest))
            },
        );
        // The batch was valid: whatever failed is the store's, an internal error.
        let (ack, newest) = stored.map_err(|e| match e {
            Error::Internal(m) => Error::Internal(m),
            other => Error::Internal(other.to_string()),
        })?;
        // Committed: followers woken now find the lines.
        if let Some(chunk_id) = newest {
            self.announce(chunk_id);
        }
        Ok(ack)
    }

    /// [`LogStore::ingest`] on tokio's blocking pool; the way handlers ingest.
    pub async fn call_ingest(&self, batch: Batch) -> Result<Ack, Error> {
        let logs = self.clone();
        tokio::task::spawn_blocking(move || logs.ingest(batch))
            .await
            .map_err(|e| Error::Internal(format!("logs task failed: {e}")))?
    }

    /// [`LogStore::read`] on tokio's blocking pool; the way handlers query.
    pub(crate) async fn call_read<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, Error> + Send + 'static,
    {
        let logs = self.clone();
        tokio::task::spawn_blocking(move || logs.read(f))
            .await
            .map_err(|e| Error::Internal(format!("logs task failed: {e}")))?
    }

    /// [`LogStore::write`] on tokio's blocking pool (the retention task's purge).
    pub async fn call_write<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&mut Conn) -> Result<T, Error> + Send + 'static,
    {
        let logs = self.clone();
        tokio::task::spawn_blocking(move || logs.write(f))
            .await
            .map_err(|e| Error::Internal(format!("logs task failed: {e}")))?
    }
}

#[cfg(test)]
pub(crate) mod testing {
    //! Helpers shared by the logs tests.

    use super::{Batch, LogStore, NewLine, Stream};

    /// A fresh logs database in a temp dir (kept alive by the returned guard).
    pub(crate) fn store() -> (tempfile::TempDir, LogStore) {
        let dir = tempfile::tempdir().unwrap();
        let logs = LogStore::open(dir.path()).unwrap();
        (dir, logs)
    }

    /// A batch of `texts` for `node` from `first_seq`, line `i` at `ts0 + i` ms on stdout.
    pub(crate) fn batch(
        job_run_id: i64,
        node: &str,
        first_seq: u64,
        ts0: i64,
        texts: &[&str],
    ) -> Batch {
        Batch {
            job_run_id,
            node: node.to_owned(),
            first_seq,
            lines: texts
                .iter()
                .enumerate()
                .map(|(i, t)| NewLine {
                    ts_ms: ts0 + i as i64,
                    stream: Stream::Stdout,
                    text: (*t).to_owned(),
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::query::{self, Filter};
    use super::testing::{batch, store};
    use super::*;

    #[test]
    fn concurrent_senders_get_their_own_acks_from_group_commits() {
        let (_d, logs) = store();
        std::thread::scope(|s| {
            for t in 0..8 {
                let logs = &logs;
                s.spawn(move || {
                    let node = format!("n{t}");
                    for b in 0..40u64 {
                        let texts: Vec<String> =
                            (0..25).map(|i| format!("{node} {}", b * 25 + i)).collect();
                        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                        let sent = batch(1, &node, b * 25, (b * 25) as i64, &refs);
                        let ack = logs.ingest(sent.clone()).unwrap();
                        assert_eq!(
                            (ack.stored, ack.duplicates, ack.next_seq),
                            (25, 0, b * 25 + 25)
                        );
                        let again = logs.ingest(sent).unwrap();
                        assert_eq!((again.stored, again.duplicates), (0, 25));
                    }
                    // An invalid batch is refused on its own; the others are unaffected.
                    assert!(logs.ingest(batch(1, &node, 0, 0, &[])).is_err());
                });
            }
        });
        let lines = logs
            .read(|c| query::stream(c, 1, &Filter::default())?.collect::<Result<Vec<_>, _>>())
            .unwrap();
        assert_eq!(lines.len(), 8 * 1000);
        for t in 0..8 {
            let node = format!("n{t}");
            let mine: Vec<u64> = lines
                .iter()
                .filter(|l| l.key.node == node)
                .map(|l| l.key.seq)
                .collect();
            assert_eq!(mine, (0..1000).collect::<Vec<_>>());
        }
        let nodes = logs.read(|c| store::nodes(c, 1)).unwrap();
        assert!(nodes
            .iter()
            .all(|n| n.next_seq == 1000 && n.gaps.is_empty()));
    }

    #[test]
    fn a_commit_that_stores_lines_wakes_subscribers() {
        let (_d, logs) = store();
        let mut rx = logs.subscribe();
        assert!(rx.heard().is_none());
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        let first = rx.heard().expect("woken");
        assert!(first > 0 && !rx.closing());
        // A re-sent batch stores nothing: no wake-up.
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        assert!(rx.heard().is_none());
        logs.ingest(batch(2, "n0", 0, 0, &["b"])).unwrap();
        assert!(rx.heard().expect("woken") > first);
        logs.close_followers();
        assert!(rx.closing());
    }
}
