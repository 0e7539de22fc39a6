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
//!   durability is SQLite's; no test here kills the process). Writes are serialised by a
//!   mutex in the process (SQLite has one writer anyway; the mutex avoids its sleeping
//!   busy handler), reads run in parallel on pooled connections.
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
//!   more, by a trigram summary stored beside each chunk ([`chunk::Grams`]: a one-hash
//!   Bloom filter of 64 B to 2 KiB, about 1/32 of the text): a rare phrase decompresses
//!   only the chunks that may hold it. The chunks left are decompressed and scanned whole
//!   with `memchr::memmem` over the lowercased text region; while a search finds nothing
//!   it reads ahead (1, 2, 4 ... 32 chunks) and decompresses on up to 4 threads. Hits come
//!   back with byte ranges for highlighting. A match must lie within one line's stored
//!   text, ANSI codes included (a phrase split by a colour code is not found). The worst
//!   case is a phrase absent from the run whose every trigram is common: every chunk is
//!   decompressed (see `examples/logs_bench.rs`).
//! - **Live follow.** Chunk ids grow in commit order (`AUTOINCREMENT`, one writer), so a
//!   follower resumes from the last chunk id it saw ([`query::follow`]) and sees every later
//!   arrival, including gap fills with older timestamps. Each commit that stored lines
//!   wakes the followers of this process through a `tokio::sync::watch` channel
//!   ([`LogStore::subscribe`]); they also poll, for writers in other processes.
//! - **Retention.** [`store::purge_older_than`] deletes whole chunks whose newest line is
//!   older than the cut and records per job run the newest purged timestamp
//!   ([`store::expired_through`]) so the UI can say "logs before ... expired";
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
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use r2d2::HandleError;
use tokio::sync::watch;

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

/// What live followers watch ([`LogStore::subscribe`]): the newest chunk committed by this
/// process (or, on PostgreSQL, by any replica), and whether the server is shutting down.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Newest {
    /// The newest chunk id committed by this process's ingests (0 before the first).
    pub chunk_id: i64,
    /// Set once by [`LogStore::close_followers`]: followers end their streams.
    pub closing: bool,
}

/// The logs database: a pool of connections to `logs.db`, the writer, and the notifier
/// that wakes live followers after each commit.
#[derive(Clone)]
pub struct LogStore {
    pool: crate::db::Pool,
    writer: Arc<Writer>,
    live: Arc<watch::Sender<Newest>>,
}

/// Where an ingested batch's outcome is left for its sender.
type Slot = Mutex<Option<Result<Ack, Error>>>;

/// Serialises writes and groups concurrent batches into one transaction.
#[derive(Default)]
struct Writer {
    /// Held by whoever writes.
    lock: Mutex<()>,
    /// Batches waiting for the next group commit, with where their acks go.
    queue: Mutex<Vec<(Batch, Arc<Slot>)>>,
}

/// Locks `m`, taking over a lock poisoned by a panic: a transaction cut short by a panic
/// rolled back, so what the lock guards is still consistent.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
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
        Ok(LogStore {
            pool: crate::db::Pool::Sqlite(pool),
            writer: Arc::default(),
            live: Arc::new(watch::Sender::new(Newest::default())),
        })
    }

    /// The log tables in the store's PostgreSQL database (already migrated with
    /// `store::SCHEMA`), over the store's pool. Followers here are woken by the ingests
    /// of every replica: each commit is announced on [`CHANNEL`] (returns once listening).
    pub fn over_postgres(pool: crate::db::pg::PgPool) -> Self {
        let live = Arc::new(watch::Sender::new(Newest::default()));
        let woken = Arc::clone(&live);
        pool.listen(
            CHANNEL,
            Arc::new(move |payload: Option<&str>| {
                // A reconnect (`None`) may have missed commits: wake followers to look.
                let chunk_id = payload.and_then(|p| p.parse::<i64>().ok());
                woken.send_modify(|n| {
                    n.chunk_id = n.chunk_id.max(chunk_id.unwrap_or(n.chunk_id));
                });
            }),
        );
        LogStore {
            pool: crate::db::Pool::Pg(pool),
            writer: Arc::default(),
            live,
        }
    }

    /// A receiver woken after every commit that stored lines (and on shutdown): live
    /// followers wait on it instead of polling. Commits by other processes sharing the
    /// database do not wake it; followers poll as well.
    pub(crate) fn subscribe(&self) -> watch::Receiver<Newest> {
        self.live.subscribe()
    }

    /// Tells every live follower to end its stream (server shutdown: an open event stream
    /// would otherwise hold the graceful shutdown until its timeout).
    pub fn close_followers(&self) {
        self.live.send_modify(|n| n.closing = true);
    }

    /// Wakes followers if `chunk_id` is newer than what they were last told.
    fn announce(&self, chunk_id: i64) {
        self.live.send_if_modified(|n| {
            let newer = chunk_id > n.chunk_id;
            if newer {
                n.chunk_id = chunk_id;
            }
            newer
        });
    }

    /// Runs `f` with a pooled connection on the current thread (queries, streams).
    pub fn read<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, Error>) -> Result<T, Error> {
        let mut conn = self
            .pool
            .get()
            .map_err(|e| Error::Internal(format!("logs database pool: {e}")))?;
        f(&mut conn)
    }

    /// Runs `f` with a pooled connection while holding the write lock (purge).
    pub fn write<T>(&self, f: impl FnOnce(&mut Conn) -> Result<T, Error>) -> Result<T, Error> {
        let _guard = lock(&self.writer.lock);
        self.read(f)
    }

    /// Stores a batch exactly once ([`store::ingest`]) on the current thread. Group commit:
    /// batches sent while another commit is under way wait for the write lock together, and
    /// the first of them to get it stores all of them in one transaction (one disk sync)
    /// and leaves each its ack; an invalid batch is refused before it joins a group.
    pub fn ingest(&self, batch: Batch) -> Result<Ack, Error> {
        store::validate(&batch)?;
        let slot = Arc::new(Slot::default());
        lock(&self.writer.queue).push((batch, Arc::clone(&slot)));
        let _guard = lock(&self.writer.lock);
        if let Some(done) = lock(&slot).take() {
            return done; // stored by the group of an earlier lock holder
        }
        let (batches, slots): (Vec<Batch>, Vec<Arc<Slot>>) =
            std::mem::take(&mut *lock(&self.writer.queue))
                .into_iter()
                .unzip();
        let stored = self.read(|conn| {
            let acks = store::ingest_all(conn, &batches)?;
            let newest = store::max_chunk_id(conn)?;
            if conn.engine() == crate::db::Engine::Postgres {
                // Committed: wake the other replicas' followers (this one's below). A
                // failure costs them a wait for their one-second poll, never the batch.
                let woken = conn.execute(
                    "SELECT pg_notify(?1, ?2)",
                    crate::db::params![CHANNEL, newest.to_string()],
                );
                if let Err(e) = woken {
                    tracing::warn!("log followers of other replicas not woken: {e}");
                }
            }
            Ok((acks, newest))
        });
        match stored {
            Ok((acks, newest)) => {
                self.announce(newest);
                for (s, ack) in slots.iter().zip(acks) {
                    *lock(s) = Some(Ok(ack));
                }
            }
            Err(e) => {
                let cause = match &e {
                    Error::Internal(m) => m.clone(),
                    other => other.to_string(),
                };
                for s in &slots {
                    *lock(s) = Some(Err(Error::Internal(cause.clone())));
                }
            }
        }
        let done = lock(&slot).take();
        // Only a panic in an earlier group's commit leaves a batch without an outcome.
        done.unwrap_or_else(|| Err(Error::Internal("log batch lost by a failed commit".into())))
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
        assert!(!rx.has_changed().unwrap());
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        assert!(rx.has_changed().unwrap());
        let first = *rx.borrow_and_update();
        assert!(first.chunk_id > 0 && !first.closing);
        // A re-sent batch stores nothing: no wake-up.
        logs.ingest(batch(1, "n0", 0, 0, &["a"])).unwrap();
        assert!(!rx.has_changed().unwrap());
        logs.ingest(batch(2, "n0", 0, 0, &["b"])).unwrap();
        assert!(rx.borrow_and_update().chunk_id > first.chunk_id);
        logs.close_followers();
        assert!(rx.borrow_and_update().closing);
    }
}
