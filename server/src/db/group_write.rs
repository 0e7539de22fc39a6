//! Group commit, the one way the server's writers share a database: writes queue here in
//! arrival order, and whoever holds a write turn runs every write queued so far in ONE
//! transaction (one disk sync for all of them), each inside a savepoint of its own, so a
//! write that fails is undone alone and the others still commit (a write alone in its
//! group needs no savepoint: its transaction is rolled back instead). Each caller gets its
//! own result only after that commit (`synchronous = FULL` on SQLite), so an acknowledged
//! write survives a crash. Two writers use it: the store's ([`crate::store::Store::call_write`],
//! the MLflow API's writes to `runlens.db` or PostgreSQL) and the log store's
//! ([`crate::logs::LogStore::ingest`], log batches to `logs.db` or the same PostgreSQL).
//!
//! Before group commit, every writer took SQLite's lock up front and blocked writers polled
//! with back-off: served unfairly, p99 of 1 s and a max of 3.3 s at 16 clients
//! (docs/BENCHMARKS.md, "Concurrent ingest"). Waiting for the turn costs no pooled
//! connection (only the turn holder has one), so readers are not starved by queued
//! writers. Writes from other processes (the CLI) still meet SQLite's busy timeout.
//! [`GroupWriter::exclusive`] takes every turn at once, for work that must not overlap any
//! write of this writer (the log store's purge).
//!
//! SQLite has one writer, so there is one turn. PostgreSQL takes several writers at once:
//! the store's writer has [`PG_TURNS`] turns, and a group whose writes each name the one
//! run they change locks only those runs ([`crate::db::Conn::transaction_for_runs`]), so
//! groups of different runs commit side by side, on this replica and on the others. A
//! group with a write that names no run locks the whole database, as on SQLite.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

use crate::db::Conn;
use crate::Error;

/// Most writes in one group: bounds one transaction's length; the rest wait for the next.
const MAX_GROUP: usize = 256;

/// Write turns on PostgreSQL: groups of one process that may commit at once.
pub(crate) const PG_TURNS: usize = 4;

/// What a queued write leaves after running: whether it succeeded (its savepoint is kept),
/// and what delivers its result once the group's commit is known.
type Ran = (bool, Finish);
/// Delivers a write's result given the group's commit outcome (`Err` with its message).
type Finish = Box<dyn FnOnce(Result<(), String>) + Send>;
/// A queued write: runs on the group's transaction, or, given why there is none, only
/// delivers that error.
type Job = Box<dyn FnOnce(Result<&Conn, String>) -> Ran + Send>;
/// Where a write's result lands (filled by whoever ran its group).
type Slot<T> = Arc<Mutex<Option<Result<T, Error>>>>;

/// A write in the queue, with the lock key of the one run it changes (None: it may
/// change anything).
struct Queued {
    run: Option<i32>,
    job: Job,
}

/// The queue of writes and the turns to run them (see the module doc).
pub(crate) struct GroupWriter {
    queue: Mutex<VecDeque<Queued>>,
    /// Turns free now.
    turns: Mutex<usize>,
    /// Turns in all.
    total: usize,
    /// Signalled when a turn is given back, after its group's results were delivered.
    freed: Condvar,
}

impl Default for GroupWriter {
    /// One turn: SQLite's single writer.
    fn default() -> Self {
        GroupWriter::new(1)
    }
}

/// Locks `m`, also after a panic elsewhere (the data is a queue or a slot: still valid).
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl GroupWriter {
    /// A writer whose groups may commit `turns` at a time (at least one).
    pub(crate) fn new(turns: usize) -> Self {
        GroupWriter {
            queue: Mutex::default(),
            turns: Mutex::new(turns.max(1)),
            total: turns.max(1),
            freed: Condvar::new(),
        }
    }

    /// Runs `f` holding every turn, once no group of this writer is running: no write of
    /// this writer overlaps it (writes queued meanwhile run after it).
    pub(crate) fn exclusive<T>(&self, f: impl FnOnce() -> T) -> T {
        /// Gives the turns back, also when `f` panics.
        struct Held<'a>(&'a GroupWriter);
        impl Drop for Held<'_> {
            fn drop(&mut self) {
                *lock(&self.0.turns) += self.0.total;
                self.0.freed.notify_all();
            }
        }
        {
            let mut free = lock(&self.turns);
            while *free < self.total {
                free = self
                    .freed
                    .wait(free)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            *free = 0;
        }
        let _held = Held(self);
        f()
    }

    /// Runs `f` in a write transaction, grouped with the writes queued beside it; blocks
    /// until the group has committed. `conn` gives the turn holder a connection. `run`
    /// names the one run `f` changes, when it changes only that run's rows (its params,
    /// tags and metrics); `None` when it may change anything.
    pub(crate) fn write<T, F>(
        &self,
        conn: impl FnOnce() -> Result<crate::db::Pooled, Error>,
        run: Option<&str>,
        f: F,
    ) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce(&Conn) -> Result<T, Error> + Send + 'static,
    {
        let slot: Slot<T> = Arc::default();
        let landing = Arc::clone(&slot);
        let job: Job = Box::new(move |c: Result<&Conn, String>| {
            let out = c.map_err(Error::Internal).and_then(|c| {
                catch_unwind(AssertUnwindSafe(|| f(c))).unwrap_or_else(|_| {
                    tracing::error!("a write panicked; it was rolled back");
                    Err(Error::Internal("the write was lost: it panicked".into()))
                })
            });
            let ok = out.is_ok();
            let finish: Finish = Box::new(move |commit| {
                let result = match (out, commit) {
                    (Err(e), _) => Err(e),
                    (Ok(v), Ok(())) => Ok(v),
                    (Ok(_), Err(m)) => Err(Error::Internal(m)),
                };
                *lock(&landing) = Some(result);
            });
            (ok, finish)
        });
        let run = run.map(crate::db::run_lock_key);
        lock(&self.queue).push_back(Queued { run, job });
        {
            let mut free = lock(&self.turns);
            loop {
                if let Some(done) = lock(&slot).take() {
                    return done; // run and committed in another turn's group
                }
                if *free > 0 {
                    break;
                }
                free = self
                    .freed
                    .wait(free)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            *free -= 1;
        }
        let jobs: Vec<Queued> = {
            let mut q = lock(&self.queue);
            let n = q.len().min(MAX_GROUP);
            q.drain(..n).collect()
        };
        if !jobs.is_empty() {
            match conn() {
                Ok(mut c) => run_group(&mut c, jobs),
                Err(e) => {
                    let why = match e {
                        Error::Internal(m) => m,
                        other => other.to_string(),
                    };
                    fail_all(jobs, &why)
                }
            }
        }
        // Give the turn back; this write may be in a group still running on another turn.
        let mut free = lock(&self.turns);
        *free += 1;
        self.freed.notify_all();
        loop {
            if let Some(done) = lock(&slot).take() {
                return done;
            }
            free = self
                .freed
                .wait(free)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// Tells every caller of `jobs` that its write did not happen, and why.
fn fail_all(jobs: Vec<Queued>, why: &str) {
    tracing::warn!("database write failed: {why}");
    for q in jobs {
        let (_, finish) = (q.job)(Err(why.to_owned()));
        finish(Ok(()));
    }
}

/// Runs `jobs` in one write transaction, each in a savepoint, commits, and delivers
/// every result (a job that panicked failed, and is rolled back). When every
/// job names its run, the transaction locks only those runs. A group of one job needs no
/// savepoint (two round trips on PostgreSQL): if it fails, the transaction is rolled back.
fn run_group(conn: &mut Conn, mut jobs: Vec<Queued>) {
    let runs: Option<Vec<i32>> = jobs.iter().map(|q| q.run).collect();
    let tx = match &runs {
        Some(keys) => conn.transaction_for_runs(keys),
        None => conn.transaction(crate::db::Behavior::Immediate),
    };
    let tx = match tx {
        Ok(tx) => tx,
        Err(e) => return fail_all(jobs, &format!("database write: {e}")),
    };
    if jobs.len() == 1 {
        if let Some(Queued { job, .. }) = jobs.pop() {
            run_alone(tx, job);
        }
        return;
    }
    let mut finishes: Vec<Finish> = Vec::with_capacity(jobs.len());
    for Queued { job, .. } in jobs {
        if let Err(e) = tx.execute_batch("SAVEPOINT group_write") {
            let (_, finish) = job(Err(format!("database write: {e}")));
            finishes.push(finish);
            continue;
        }
        let (keep, finish) = job(Ok(&tx));
        let undo = if keep {
            "RELEASE group_write"
        } else {
            "ROLLBACK TO group_write; RELEASE group_write"
        };
        match tx.execute_batch(undo) {
            Ok(()) => finishes.push(finish),
            Err(e) => {
                let m = format!("database write: {e}");
                finishes.push(Box::new(move |_| finish(Err(m))));
            }
        }
    }
    let commit = tx.commit().map_err(|e| format!("database commit: {e}"));
    for finish in finishes {
        finish(commit.clone());
    }
}

/// [`run_group`]'s one job, on transaction `tx`, without a savepoint.
fn run_alone(tx: crate::db::Transaction<'_>, job: Job) {
    let (keep, finish) = job(Ok(&tx));
    if keep {
        finish(tx.commit().map_err(|e| format!("database commit: {e}")));
    } else {
        // The job's own error is its result; undoing it cannot change that.
        if let Err(e) = tx.rollback() {
            tracing::warn!("rolling back a failed write: {e}");
        }
        finish(Ok(()));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::thread;
    use std::time::Duration;

    use crate::db::sqlite::{prepared_pool, switch_to_wal, LogPoolErrors, BUSY_TIMEOUT};
    use crate::db::{params, Conn, Pool};

    use super::{lock, GroupWriter};
    use crate::Error;

    /// Each connection waits for SQLite's lock (groups of several turns meet there).
    fn busy_timeout(c: &Conn) -> crate::db::Result<()> {
        if let Some(s) = c.sqlite() {
            s.busy_timeout(BUSY_TIMEOUT)?;
        }
        Ok(())
    }

    /// A pool over a fresh SQLite file in WAL mode with one table `t`.
    fn store() -> (tempfile::TempDir, Pool) {
        let dir = tempfile::tempdir().unwrap();
        let prepare = |c: &mut Conn| {
            busy_timeout(c)?;
            switch_to_wal(c)?;
            Ok(c.execute_batch("CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT NOT NULL)")?)
        };
        let (pool, ()) = prepared_pool(
            &dir.path().join("t.db"),
            8,
            busy_timeout,
            prepare,
            Box::new(LogPoolErrors("test database")),
        )
        .unwrap();
        (dir, Pool::Sqlite(pool))
    }

    fn write(store: &Pool, writer: &GroupWriter, k: i64, how: &'static str) -> Result<i64, Error> {
        let pool = store.clone();
        writer.write(
            move || pool.get().map_err(|e| Error::Internal(e.to_string())),
            None,
            move |c| {
                c.execute("INSERT INTO t (k, v) VALUES (?1, ?2)", params![k, how])?;
                match how {
                    "fail" => Err(Error::InvalidParameter(format!("write {k} refused"))),
                    "panic" => panic!("write {k} panicked"),
                    _ => Ok(k * 10),
                }
            },
        )
    }

    fn keys(store: &Pool) -> Vec<i64> {
        let c = store.get().unwrap();
        let mut s = c.prepare("SELECT k FROM t ORDER BY k").unwrap();
        let rows = s.query_map([], |r| r.get(0)).unwrap();
        rows.collect::<Result<Vec<i64>, _>>().unwrap()
    }

    /// Writes queued while the turn is held run as one group; the one that fails and the
    /// one that panics are undone alone, every other commits, and each caller gets its own
    /// result.
    #[test]
    fn a_group_commits_all_but_the_failed_writes() {
        let (_dir, store) = store();
        let writer = std::sync::Arc::new(GroupWriter::default());
        *lock(&writer.turns) = 0; // hold the only turn
        let started = std::sync::Arc::new(AtomicUsize::new(0));
        let hows = ["ok", "fail", "ok", "panic", "ok"];
        let handles: Vec<_> = hows
            .iter()
            .enumerate()
            .map(|(i, how)| {
                let (store, writer, started) = (store.clone(), writer.clone(), started.clone());
                let how: &'static str = how;
                thread::spawn(move || {
                    started.fetch_add(1, Ordering::SeqCst);
                    write(&store, &writer, i as i64, how)
                })
            })
            .collect();
        while lock(&writer.queue).len() < hows.len() {
            thread::sleep(Duration::from_millis(5));
        }
        *lock(&writer.turns) = 1;
        writer.freed.notify_all();
        let results: Vec<Result<i64, Error>> =
            handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(results[0].as_ref().unwrap(), &0);
        assert!(matches!(&results[1], Err(Error::InvalidParameter(m)) if m == "write 1 refused"));
        assert_eq!(results[2].as_ref().unwrap(), &20);
        assert!(matches!(&results[3], Err(Error::Internal(m)) if m.contains("lost")));
        assert_eq!(results[4].as_ref().unwrap(), &40);
        assert_eq!(keys(&store), [0, 2, 4]);
        assert!(lock(&writer.queue).is_empty());
    }

    /// A write alone in its group runs without a savepoint: one that fails or panics is
    /// undone with its whole transaction, and the next write still commits.
    #[test]
    fn a_lone_write_that_fails_leaves_nothing() {
        let (_dir, store) = store();
        let writer = GroupWriter::default();
        assert_eq!(write(&store, &writer, 0, "ok").unwrap(), 0);
        let refused = write(&store, &writer, 1, "fail");
        assert!(matches!(&refused, Err(Error::InvalidParameter(m)) if m == "write 1 refused"));
        let lost = write(&store, &writer, 2, "panic");
        assert!(matches!(&lost, Err(Error::Internal(m)) if m.contains("lost")));
        assert_eq!(write(&store, &writer, 3, "ok").unwrap(), 30);
        assert_eq!(keys(&store), [0, 3]);
    }

    /// Many writers at once: every write commits exactly once, in some group, with one
    /// turn and with several (groups then wait for SQLite's lock, as they would for
    /// PostgreSQL's run locks, while their writers wait for results another turn delivers).
    #[test]
    fn concurrent_writes_all_commit() {
        for turns in [1, 4] {
            concurrent_writes_all_commit_with(turns);
        }
    }

    fn concurrent_writes_all_commit_with(turns: usize) {
        let (_dir, store) = store();
        let writer = std::sync::Arc::new(GroupWriter::new(turns));
        let handles: Vec<_> = (0..16)
            .map(|t| {
                let (store, writer) = (store.clone(), writer.clone());
                thread::spawn(move || {
                    for i in 0..20 {
                        let k = t * 100 + i;
                        assert_eq!(write(&store, &writer, k, "ok").unwrap(), k * 10);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        assert_eq!(keys(&store).len(), 16 * 20);
    }

    /// While [`GroupWriter::exclusive`] runs, no write runs: a write sent meanwhile
    /// commits after it.
    #[test]
    fn exclusive_work_keeps_writes_out() {
        let (_dir, store) = store();
        let writer = std::sync::Arc::new(GroupWriter::new(2));
        let (entered, inside) = std::sync::mpsc::channel::<()>();
        let (release, released) = std::sync::mpsc::channel::<()>();
        let holder = {
            let writer = writer.clone();
            thread::spawn(move || {
                writer.exclusive(|| {
                    entered.send(()).unwrap();
                    released.recv().unwrap();
                })
            })
        };
        inside.recv().unwrap();
        let sender = {
            let (store, writer) = (store.clone(), writer.clone());
            thread::spawn(move || write(&store, &writer, 1, "ok"))
        };
        while lock(&writer.queue).is_empty() {
            thread::sleep(Duration::from_millis(5));
        }
        thread::sleep(Duration::from_millis(50));
        assert!(keys(&store).is_empty());
        release.send(()).unwrap();
        holder.join().unwrap();
        assert_eq!(sender.join().unwrap().unwrap(), 10);
        assert_eq!(keys(&store), [1]);
        assert_eq!(*lock(&writer.turns), 2);
    }

    /// A write that cannot get a connection fails with the reason, and the queue moves on.
    #[test]
    fn no_connection_fails_the_group_with_the_reason() {
        let (_dir, store) = store();
        let writer = GroupWriter::default();
        let r: Result<i64, Error> = writer.write(
            || Err(Error::Internal("database pool: timed out".into())),
            None,
            |_| Ok(1),
        );
        assert!(matches!(r, Err(Error::Internal(m)) if m.contains("timed out")));
        assert_eq!(write(&store, &writer, 7, "ok").unwrap(), 70);
    }
}
