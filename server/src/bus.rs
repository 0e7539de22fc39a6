//! The bus: publish/subscribe within this process and across replicas, the one way a
//! commit wakes the streams that wait for it. Its topics are the live bus's events
//! (`crate::live`, experiment pages) and the log store's commits (`crate::logs`, log
//! followers).
//!
//! - **Here.** A [`Topic`] fans its messages out through a bounded
//!   [`tokio::sync::broadcast`] channel: publishing never waits, each message is shared by
//!   every receiver, and a receiver that falls more than the topic's capacity behind is
//!   told so (`Lagged`).
//! - **Across replicas** (PostgreSQL, [`Topic::shared`]): each message also goes out as a
//!   `NOTIFY` on the topic's channel, tagged with the topic's origin, queued to one sender
//!   task (`db::pg::notify`'s notifier: the publisher never waits for it; a full queue drops
//!   the message and says so). Each replica's topic listens on the channel through its
//!   pool's one listening session (`PgPool::listen`) and publishes the other replicas'
//!   messages here, skipping its own (already published here). A message too large for a
//!   notification goes out as its [`Message::shrunk`] form; after the listening session
//!   reconnected (notifications may have been lost), receivers get
//!   [`Message::reconnected`].
//!
//! Messages describe committed writes: publish after the commit, so that a receiver woken
//! here or on another replica finds what it was told about.

use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use crate::db::pg::notify::{Notifier, MAX_PAYLOAD};
use crate::db::pg::PgPool;

/// What a topic carries.
pub(crate) trait Message: Serialize + DeserializeOwned + Send + Sync + 'static {
    /// What receivers are told after the listening session reconnected: messages of other
    /// replicas may have been lost meanwhile.
    fn reconnected() -> Self;

    /// What goes to the other replicas instead of `self` when `self` is too large for a
    /// notification.
    fn shrunk(&self) -> Self;
}

/// One topic of the bus (cheap to clone; clones share it).
pub(crate) struct Topic<M> {
    tx: broadcast::Sender<Arc<M>>,
    /// On PostgreSQL: this topic's origin and the sender of its notifications.
    remote: Option<Remote>,
}

impl<M> Clone for Topic<M> {
    fn clone(&self) -> Self {
        Topic {
            tx: self.tx.clone(),
            remote: self.remote.clone(),
        }
    }
}

impl<M> std::fmt::Debug for Topic<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Topic")
            .field("shared", &self.remote.is_some())
            .finish_non_exhaustive()
    }
}

#[derive(Debug, Clone)]
struct Remote {
    origin: u64,
    channel: Arc<str>,
    notifier: Notifier,
}

/// A message as it leaves for the other replicas.
#[derive(Serialize)]
struct WireOut<'a, M> {
    origin: u64,
    event: &'a M,
}

/// A message as it arrives from a replica.
#[derive(Deserialize)]
struct WireIn<M> {
    origin: u64,
    event: M,
}

impl<M: Message> Topic<M> {
    /// A topic of this process only, keeping `capacity` messages for its slowest receiver.
    pub(crate) fn local(capacity: usize) -> Self {
        Topic {
            tx: broadcast::Sender::new(capacity),
            remote: None,
        }
    }

    /// A topic shared with every replica on `pool`'s database over the notification
    /// `channel` (a plain identifier); returns once it listens.
    pub(crate) fn shared(pool: &PgPool, channel: &str, capacity: usize) -> Self {
        let origin = rand::random::<u64>();
        let tx = broadcast::Sender::new(capacity);
        let here = tx.clone();
        let name: Arc<str> = Arc::from(channel);
        let heard = Arc::clone(&name);
        pool.listen(
            channel,
            Arc::new(move |payload: Option<&str>| match payload {
                Some(p) => match serde_json::from_str::<WireIn<M>>(p) {
                    Ok(w) if w.origin != origin => drop(here.send(Arc::new(w.event))),
                    Ok(_) => {}
                    Err(e) => tracing::warn!("{heard}: unreadable notification: {e}"),
                },
                None => drop(here.send(Arc::new(M::reconnected()))),
            }),
        );
        Topic {
            tx,
            remote: Some(Remote {
                origin,
                channel: name,
                notifier: pool.notifier(channel),
            }),
        }
    }

    /// Whether messages go to other replicas too.
    pub(crate) fn is_shared(&self) -> bool {
        self.remote.is_some()
    }

    /// Receivers of this process now.
    pub(crate) fn receivers(&self) -> usize {
        self.tx.receiver_count()
    }

    /// Sends `message` to every receiver here (none: dropped) and to the other replicas.
    pub(crate) fn publish(&self, message: M) {
        if let Some(remote) = &self.remote {
            remote.send(&message);
        }
        // An error only means that nobody receives here.
        let _ = self.tx.send(Arc::new(message));
    }

    /// A receiver of every message published from now on, here or by another replica.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Arc<M>> {
        self.tx.subscribe()
    }
}

impl Remote {
    /// Notifies the other replicas of `message` (its shrunk form when too large); never
    /// waits.
    fn send<M: Message>(&self, message: &M) {
        let wire = |event: &M| {
            serde_json::to_string(&WireOut {
                origin: self.origin,
                event,
            })
            .unwrap_or_default()
        };
        let mut payload = wire(message);
        if payload.len() > MAX_PAYLOAD {
            payload = wire(&message.shrunk());
        }
        if !self.notifier.notify(payload) {
            tracing::warn!(
                "{}: notification queue full; a message was dropped",
                self.channel
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::{Deserialize, Serialize};
    use tokio::sync::broadcast::error::TryRecvError;

    use super::{Message, Topic, WireIn, WireOut};

    #[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
    struct Note(String);

    impl Message for Note {
        fn reconnected() -> Self {
            Note("reconnected".into())
        }

        fn shrunk(&self) -> Self {
            Note("shrunk".into())
        }
    }

    #[test]
    fn a_local_topic_reaches_every_receiver_from_now_on() {
        let topic = Topic::<Note>::local(4);
        assert!(!topic.is_shared());
        topic.publish(Note("before".into()));
        let (mut a, mut b) = (topic.subscribe(), topic.subscribe());
        assert_eq!(topic.receivers(), 2);
        assert!(matches!(a.try_recv(), Err(TryRecvError::Empty)));
        topic.clone().publish(Note("one".into()));
        for rx in [&mut a, &mut b] {
            assert_eq!(*rx.try_recv().unwrap(), Note("one".into()));
        }
    }

    #[test]
    fn a_message_travels_with_its_origin() {
        let note = Note("x".into());
        let text = serde_json::to_string(&WireOut {
            origin: 7,
            event: &note,
        })
        .unwrap();
        assert_eq!(text, r#"{"origin":7,"event":"x"}"#);
        let back: WireIn<Note> = serde_json::from_str(&text).unwrap();
        assert_eq!((back.origin, back.event), (7, note));
    }
}
