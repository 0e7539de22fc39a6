//! PostgreSQL's `LISTEN`/`NOTIFY` between replicas: the transport of `crate::bus`, whose
//! topics (the experiment pages' live bus, the log followers' wake-ups) let what one
//! replica commits wake the live streams of the others.
//!
//! - [`PgPool::listen`] hands each payload on a channel to a callback. A pool (with its
//!   clones) keeps one session of its own, outside the pool, for every channel it listens
//!   on, reconnecting after a second when it drops. Notifications sent while it was
//!   disconnected are lost: its users tolerate that (log followers also poll every second;
//!   a live page resyncs on reconnect, see the callback's `None`).
//! - [`PgPool::notifier`] sends payloads in order from one task over pooled connections,
//!   without making the caller wait; a full queue drops the payload and says so.
//!
//! Neither task holds the pool itself, so dropping the last [`PgPool`] still shuts its
//! runtime (and these tasks) down.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_postgres::{AsyncMessage, Client, Config, NoTls};

use super::PgPool;
/// Longest payload PostgreSQL accepts in a notification is 8,000 bytes; callers keep under.
pub(crate) const MAX_PAYLOAD: usize = 7_900;

/// Payloads queued for [`Notifier`]'s task before new ones are dropped.
const QUEUE: usize = 4_096;

/// How long [`PgPool::listen`] waits for its first `LISTEN` before returning anyway.
const FIRST_LISTEN: Duration = Duration::from_secs(10);

/// What a listener is told: a payload, or `None` after its session reconnected (payloads
/// may have been missed in between).
pub(crate) type OnNotify = Arc<dyn Fn(Option<&str>) + Send + Sync>;

/// Sends notifications on one channel (see [`PgPool::notifier`]). Cheap to clone.
#[derive(Clone)]
pub(crate) struct Notifier {
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
    pub(crate) fn notify(&self, payload: String) -> bool {
        debug_assert!(payload.len() <= MAX_PAYLOAD);
        self.tx.try_send(payload).is_ok()
    }
}

impl PgPool {
    /// Listens on `channel` (a plain identifier), calling `on` with each payload, from the
    /// pool's runtime, in the pool's one listening session (started by the first call).
    /// Returns once the channel's `LISTEN` is in place (or after ten seconds, the session
    /// still trying), so that a write made after this returns is heard.
    pub fn listen(&self, channel: &str, on: OnNotify) {
        let (ready, is_ready) = std::sync::mpsc::channel::<()>();
        let listening = &self.listening;
        lock_write(&listening.routes)
            .entry(channel.to_owned())
            .or_default()
            .push(on);
        let adds = listening.adds.get_or_init(|| {
            let (tx, rx) = mpsc::unbounded_channel();
            let session = Session {
                config: Arc::clone(&self.config),
                routes: Arc::clone(&listening.routes),
                adds: rx,
                pending: Vec::new(),
            };
            self.runtime().spawn(session.run());
            tx
        });
        let add = Add {
            channel: channel.to_owned(),
            ready,
        };
        if adds.send(add).is_ok() {
            // Err: timed out (the session goes on trying) or the runtime is shutting down.
            let _ = is_ready.recv_timeout(FIRST_LISTEN);
        }
    }

    /// A sender of notifications on `channel`: one task sends them in the order queued,
    /// each over a pooled connection (`SELECT pg_notify(…)`, delivered at once, outside any
    /// transaction of the caller's).
    pub(crate) fn notifier(&self, channel: &str) -> Notifier {
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

/// Callbacks by channel.
type Routes = Arc<RwLock<HashMap<String, Vec<OnNotify>>>>;

/// A pool's listening session, shared by its clones: the channels it listens on and the
/// way to ask its task for one more.
#[derive(Default)]
pub(super) struct Listening {
    routes: Routes,
    /// Set when the task starts (the first [`PgPool::listen`]).
    adds: OnceLock<mpsc::UnboundedSender<Add>>,
}

/// A channel to listen on; `ready` is told once its `LISTEN` is in place.
struct Add {
    channel: String,
    ready: std::sync::mpsc::Sender<()>,
}

/// The listening task's state.
struct Session {
    config: Arc<Config>,
    routes: Routes,
    adds: mpsc::UnboundedReceiver<Add>,
    /// Channels asked for whose `LISTEN` has not succeeded yet (their routes are in place,
    /// so the next session's `LISTEN`s include them).
    pending: Vec<Add>,
}

impl Session {
    /// Connects, listens on every routed channel and dispatches notifications by channel
    /// until the session drops, then again after a second; ends when the pool is gone.
    async fn run(mut self) {
        let mut reconnect = false;
        loop {
            match self.config.connect(NoTls).await {
                Ok((client, mut connection)) => {
                    let (tx, mut rx) = mpsc::unbounded_channel::<(String, String)>();
                    let driver = tokio::spawn(async move {
                        while let Some(message) =
                            std::future::poll_fn(|cx| connection.poll_message(cx)).await
                        {
                            match message {
                                Ok(AsyncMessage::Notification(n)) => {
                                    let note = (n.channel().to_owned(), n.payload().to_owned());
                                    if tx.send(note).is_err() {
                                        break;
                                    }
                                }
                                Ok(_) => {}
                                Err(_) => break,
                            }
                        }
                    });
                    let gone = self.serve(&client, &mut rx, reconnect).await;
                    driver.abort();
                    if gone {
                        return;
                    }
                    reconnect = true;
                }
                Err(e) => tracing::warn!("cannot connect to listen: {e}"),
            }
            tokio::time::sleep(Duration::from_secs(1)).await;
        }
    }

    /// One session: true when the pool is gone, false when the session ended.
    async fn serve(
        &mut self,
        client: &Client,
        notes: &mut mpsc::UnboundedReceiver<(String, String)>,
        reconnect: bool,
    ) -> bool {
        let channels: Vec<String> = lock_read(&self.routes).keys().cloned().collect();
        for channel in &channels {
            if let Err(e) = client.batch_execute(&listen_sql(channel)).await {
                tracing::warn!("{channel}: LISTEN failed: {e}");
                return false;
            }
        }
        for add in self.pending.drain(..) {
            let _ = add.ready.send(());
        }
        if reconnect {
            // Payloads may have been missed while disconnected.
            let ons: Vec<OnNotify> = lock_read(&self.routes)
                .values()
                .flatten()
                .cloned()
                .collect();
            for on in ons {
                on(None);
            }
        }
        loop {
            tokio::select! {
                add = self.adds.recv() => {
                    let Some(add) = add else { return true };
                    match client.batch_execute(&listen_sql(&add.channel)).await {
                        Ok(()) => {
                            let _ = add.ready.send(());
                        }
                        Err(e) => {
                            tracing::warn!("{}: LISTEN failed: {e}", add.channel);
                            self.pending.push(add);
                            return false;
                        }
                    }
                }
                note = notes.recv() => {
                    let Some((channel, payload)) = note else {
                        tracing::warn!("listening session ended; reconnecting");
                        return false;
                    };
                    let ons = lock_read(&self.routes).get(&channel).cloned().unwrap_or_default();
                    for on in ons {
                        on(Some(&payload));
                    }
                }
            }
        }
    }
}

/// `LISTEN "channel"`.
fn listen_sql(channel: &str) -> String {
    format!("LISTEN \"{}\"", channel.replace('"', "\"\""))
}

/// The routes to read (a callback that panicked while they were held left them usable).
fn lock_read(routes: &Routes) -> std::sync::RwLockReadGuard<'_, HashMap<String, Vec<OnNotify>>> {
    routes.read().unwrap_or_else(|e| e.into_inner())
}

/// The routes to change.
fn lock_write(routes: &Routes) -> std::sync::RwLockWriteGuard<'_, HashMap<String, Vec<OnNotify>>> {
    routes.write().unwrap_or_else(|e| e.into_inner())
}
