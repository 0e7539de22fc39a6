//! Streamed downloads (a folder's zip, a run's logs): their bodies are made a block at a
//! time, only when the response asks for the next one, each block one short step on the
//! blocking pool (`Steps::run`); nothing waits on a client while holding a thread or a
//! database connection. Two bounds keep many open downloads harmless:
//! - each user has at most [`MAX_DOWNLOADS_PER_USER`] in progress (`Downloads::acquire`:
//!   429 past it), each holding a slot until its body ends or is dropped (client gone);
//! - at most `STEPS_AT_ONCE` steps run at once, server-wide; the others wait their turn
//!   in order without holding a thread, so downloads never take every thread or
//!   connection from other requests.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::body::Body;
use futures_util::StreamExt;
use tokio::sync::Semaphore;

use crate::auth::Caller;
use crate::Error;

/// Streamed downloads one user (administrators included) may have in progress at once.
/// A person saves one or two things at a time and a browser opens at most 6 connections
/// to a server, so 8 leaves room for a retry while a stalled download has not yet been
/// noticed as gone; each open download holds up to about half a MiB of output queued for
/// its connection (hyper's write buffer), a compressor or a paused log scan, which this
/// bounds per user.
pub const MAX_DOWNLOADS_PER_USER: usize = 8;

/// Steps of download bodies (a block's compression, a block of a log scan) running at
/// once, server-wide. Each is CPU work on the blocking pool and a log step holds one of
/// the log store's pooled connections (6 on SQLite), so 4 leave threads and connections
/// to every other request however many downloads are in progress, and still keep 4 cores
/// making downloads.
pub(crate) const STEPS_AT_ONCE: usize = 4;

/// The downloads in progress: slots per user id, and the turns of their steps.
#[derive(Debug)]
pub struct Downloads {
    held: Mutex<HashMap<i64, usize>>,
    steps: Steps,
}

impl Default for Downloads {
    fn default() -> Self {
        Downloads {
            held: Mutex::default(),
            steps: Steps::new(STEPS_AT_ONCE),
        }
    }
}

/// One download's slot: given back when dropped.
#[derive(Debug)]
pub(crate) struct DownloadSlot {
    downloads: Arc<Downloads>,
    user_id: i64,
}

/// Turns at the blocking pool for the steps of download bodies (cheap to clone).
#[derive(Debug, Clone)]
pub(crate) struct Steps(Arc<Semaphore>);

impl Downloads {
    fn lock(&self) -> MutexGuard<'_, HashMap<i64, usize>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A slot for a download by `caller`, or 429 when they already have
    /// [`MAX_DOWNLOADS_PER_USER`] in progress.
    pub(crate) fn acquire(self: &Arc<Self>, caller: &Caller) -> Result<DownloadSlot, Error> {
        let mut held = self.lock();
        let n = held.entry(caller.user_id).or_default();
        if *n >= MAX_DOWNLOADS_PER_USER {
            return Err(Error::TooManyRequests(format!(
                "Too many downloads in progress: at most {MAX_DOWNLOADS_PER_USER} at once per \
                 user. Wait for one to finish or cancel one, then try again."
            )));
        }
        *n += 1;
        Ok(DownloadSlot {
            downloads: Arc::clone(self),
            user_id: caller.user_id,
        })
    }

    /// Downloads `user_id` has in progress.
    pub fn in_progress(&self, user_id: i64) -> usize {
        self.lock().get(&user_id).copied().unwrap_or(0)
    }
}

impl Drop for DownloadSlot {
    fn drop(&mut self) {
        let mut held = self.downloads.lock();
        if let Some(n) = held.get_mut(&self.user_id) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                held.remove(&self.user_id);
            }
        }
    }
}

impl DownloadSlot {
    /// The turns the steps of this download's body take.
    pub(crate) fn steps(&self) -> Steps {
        self.downloads.steps.clone()
    }

    /// `body`, holding this slot until it has ended or is dropped.
    pub(crate) fn hold(self, body: Body) -> Body {
        let frames = futures_util::stream::unfold(
            (body.into_data_stream(), Some(self)),
            |(mut data, slot)| async move {
                // At the end the state, and with it the slot, is dropped.
                let next = data.next().await?;
                Some((next, (data, slot)))
            },
        );
        // Fused: the compression layer polls the body once more after it has ended.
        Body::from_stream(frames.fuse())
    }
}

impl Steps {
    /// Turns for `n` steps at once.
    pub(crate) fn new(n: usize) -> Self {
        Steps(Arc::new(Semaphore::new(n.max(1))))
    }

    /// Runs `f` on the blocking pool once a turn is free (waiting for it holds no thread).
    pub(crate) async fn run<T, F>(&self, f: F) -> Result<T, Error>
    where
        T: Send + 'static,
        F: FnOnce() -> T + Send + 'static,
    {
        let _turn = self
            .0
            .acquire()
            .await
            .map_err(|e| Error::Internal(format!("download steps: {e}")))?;
        tokio::task::spawn_blocking(f)
            .await
            .map_err(|e| Error::Internal(format!("download step failed: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::auth::AuthMethod;
    use http_body_util::BodyExt;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn caller(user_id: i64) -> Caller {
        Caller {
            user_id,
            username: format!("u{user_id}"),
            is_admin: user_id == 1,
            group_ids: Vec::new(),
            method: AuthMethod::Token,
        }
    }

    #[tokio::test]
    async fn slots_are_per_user_and_given_back_when_the_body_ends_or_is_dropped() {
        let downloads = Arc::new(Downloads::default());
        let held: Vec<DownloadSlot> = (0..MAX_DOWNLOADS_PER_USER)
            .map(|_| downloads.acquire(&caller(1)).unwrap())
            .collect();
        let refused = downloads.acquire(&caller(1)).unwrap_err();
        assert!(matches!(refused, Error::TooManyRequests(_)), "{refused:?}");
        assert!(refused
            .to_string()
            .starts_with("Too many downloads in progress"));
        assert_eq!(refused.status(), axum::http::StatusCode::TOO_MANY_REQUESTS);
        let other = downloads
            .acquire(&caller(2))
            .expect("another user has slots of their own");
        drop(other);
        assert_eq!(downloads.in_progress(2), 0);

        let mut held = held.into_iter();
        let mut bodies = held
            .by_ref()
            .take(2)
            .map(|s| s.hold(Body::from("abc")))
            .collect::<Vec<_>>()
            .into_iter();
        assert_eq!(downloads.in_progress(1), MAX_DOWNLOADS_PER_USER);
        let read = bodies.next().unwrap().collect().await.unwrap().to_bytes();
        assert_eq!(&read[..], b"abc");
        assert_eq!(
            downloads.in_progress(1),
            MAX_DOWNLOADS_PER_USER - 1,
            "read to its end"
        );
        drop(bodies);
        assert_eq!(
            downloads.in_progress(1),
            MAX_DOWNLOADS_PER_USER - 2,
            "dropped unread"
        );
        drop(held);
        assert_eq!(downloads.in_progress(1), 0);
        assert!(downloads.lock().is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_so_many_steps_run_at_once() {
        let steps = Steps::new(2);
        let (running, most) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let tasks: Vec<_> = (0..12)
            .map(|_| {
                let (steps, running, most) = (steps.clone(), running.clone(), most.clone());
                tokio::spawn(async move {
                    steps
                        .run(move || {
                            let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(now, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            running.fetch_sub(1, Ordering::SeqCst);
                        })
                        .await
                })
            })
            .collect();
        for t in tasks {
            t.await.unwrap().unwrap();
        }
        assert_eq!(most.load(Ordering::SeqCst), 2);
    }
}
