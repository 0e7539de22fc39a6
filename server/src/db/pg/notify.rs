//! PostgreSQL's `LISTEN`/`NOTIFY` between replicas: what one replica commits wakes the
//! live streams of the others (the experiment pages' live bus, log followers).
//!
//! - [`PgPool::listen`] keeps one session of its own (outside the pool) listening on a
//!   channel, reconnecting after a second when it drops, and hands each payload to a
//!   callback. Notifications sent while it was disconnected are lost: its users tolerate
//!   that (log followers also poll every second; a live page resyncs on reconnect, see
//!   the callback's `None`).
//! - [`PgPool::notifier`] sends payloads in order from one task over pooled connections,
//!   without making the caller wait; a full queue drops the payload and says so.
//!
//! Neither task holds the pool itself, so dropping the last [`PgPool`] still shuts its
//! runtime (and these tasks) down.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, NoTls};

use super::PgPool;

/// Longest payload PostgreSQL accepts in a notification is 8,000 bytes; callers keep under.
pub const MAX_PAYLOAD: usize = 7_900;

/// Payloads queued for [`Notifier`]'s task before new ones are dropped.
const QUEUE: usize = 4_096;

/// How long [`PgPool::listen`] waits for its first `LISTEN` before returning anyway.
const FIRST_LISTEN: Duration = Duration::from_secs(10);

/// What a listener is told: a payload, or `None` after its session reconnected (payloads
/// may have been missed in between).
pub type OnNotify = Arc<dyn Fn(Option<&str>) + Send + Sync>;

/// Sends notifications on one channel (see [`PgPool::notifier`]). Cheap to clone.
#[derive(Clone)]
pub struct Notifier {
    tx: mpsc::Sender<String>,
}

impl std::fmt::Debug for Notifier {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Notifier").finish_non_exhaustive()
    }
}

impl Notifier {
    /// Queues `payload` (at most [`MAX_PAYLOAD`] bytes); false when the queue is full or
    /// the pool is gone, and the payload dropped.
    pub fn notify(&self, payload: String) -> bool {
        debug_assert!(payload.len() <= MAX_PAYLOAD);
        self.tx.try_send(payload).is_ok()
    }
}

impl PgPool {
    /// Listens on `channel` (a plain identifier) in a session of its own, calling `on` with
    /// each payload, from the pool's runtime. Returns once the first `LISTEN` is in place
    /// (or after ten seconds, the task still trying), so that a write made after this
    /// returns is heard.
    pub fn listen(&self, channel: &str, on: OnNotify) {
        let (ready, is_ready) = std::sync::mpsc::channel::<()>();
        let config = std::sync::Arc::clone(&self.config);
        let listen = format!("LISTEN \"{}\"", channel.replace('"', "\"\""));
        let channel = channel.to_owned();
        self.runtime().spawn(async move {
            let mut ready = Some(ready);
            loop {
                match config.connect(NoTls).await {
                    Ok((client, mut connection)) => {
                        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
                        let driver = tokio::spawn(async move {
                            while let Some(message) =
                                std::future::poll_fn(|cx| connection.poll_message(cx)).await
                            {
                                match message {
                                    Ok(AsyncMessage::Notification(n)) => {
                                        if tx.send(n.payload().to_owned()).is_err() {
                                            break;
                                        }
                                    }
                                    Ok(_) => {}
                                    Err(_) => break,
                                }
                            }
                        });
                        match client.batch_execute(&listen).await {
                            Ok(()) => {
                                match ready.take() {
                                    Some(r) => drop(r.send(())),
                                    None => on(None),
                                }
                                while let Some(payload) = rx.recv().await {
                                    on(Some(&payload));
                                }
                                tracing::warn!("{channel}: listening session ended; reconnecting");
                            }
                            Err(e) => tracing::warn!("{channel}: LISTEN failed: {e}"),
                        }
                        driver.abort();
                    }
                    Err(e) => tracing::warn!("{channel}: cannot connect to listen: {e}"),
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        // Err: timed out (the task goes on trying) or the runtime is shutting down.
        let _ = is_ready.recv_timeout(FIRST_LISTEN);
    }

    /// A sender of notifications on `channel`: one task sends them in the order queued,
    /// each over a pooled connection (`SELECT pg_notify(…)`, delivered at once, outside any
    /// transaction of the caller's).
    pub fn notifier(&self, channel: &str) -> Notifier {
        let (tx, mut rx) = mpsc::channel::<String>(QUEUE);
        let pool = self.pool.clone();
        let channel = channel.to_owned();
        self.runtime().spawn(async move {
            while let Some(first) = rx.recv().await {
                let mut batch = vec![first];
                while let Ok(more) = rx.try_recv() {
                    batch.push(more);
                }
                let sent = async {
                    let client = pool.get().await.map_err(|e| e.to_string())?;
                    let stmt = client
                        .prepare_cached("SELECT pg_notify($1, $2)")
                        .await
                        .map_err(|e| e.to_string())?;
                    for payload in &batch {
                        client
                            .execute(&stmt, &[&channel, payload])
                            .await
                            .map_err(|e| e.to_string())?;
                    }
                    Ok::<(), String>(())
                };
                if let Err(e) = sent.await {
                    tracing::warn!("{channel}: {} notifications not sent: {e}", batch.len());
                }
            }
        });
        Notifier { tx }
    }
}
