//! Registration with the runlens server (`serve --server URL`): `PUT /api/v1/nodes/{name}`
//! at start and then every heartbeat, in its own task, with a request timeout and
//! exponential back-off. A server that is down never stops sampling or serving; the log
//! says once when registration starts failing and once when it recovers.

use std::path::PathBuf;
use std::time::Duration;

use api_types::nodes::{GpuIdentity, NodeInfo, RegisterNode};

use crate::client::{ClientError, ServerClient};
use crate::node::{read, Node, SharedNode};

/// Default seconds between heartbeats.
pub const HEARTBEAT_SECS: u64 = 30;

/// The first retry after a failure; each further failure doubles it, up to the heartbeat.
const FIRST_RETRY: Duration = Duration::from_secs(1);

/// What the agent tells the server about itself.
#[derive(Debug, Clone)]
pub struct Advert {
    /// Where the server reaches this agent (`--advertise-url`).
    pub url: String,
    /// The bearer token this agent requires on `/v1/gpus` (its `--token`).
    pub token: String,
    /// The sample interval, seconds.
    pub interval_secs: u64,
}

/// The registration body for `node` now: its driver, simulated flag and the GPUs of its
/// latest sample.
pub fn body(node: &Node, advert: &Advert) -> RegisterNode {
    let gpus = node
        .ring
        .latest()
        .map(|sample| {
            sample
                .gpus
                .iter()
                .map(|gpu| GpuIdentity {
                    index: gpu.index,
                    name: gpu.name.clone(),
                    uuid: gpu.uuid.clone(),
                    memory_total_bytes: gpu.memory_total_bytes,
                })
                .collect()
        })
        .unwrap_or_default();
    RegisterNode {
        url: advert.url.clone(),
        token: advert.token.clone(),
        interval_secs: Some(advert.interval_secs),
        driver: Some(node.driver.clone()),
        simulated: node.simulated,
        gpus,
    }
}

/// The delay before the next attempt: the heartbeat while all is well; after failures
/// 1 s, 2 s, 4 s, ... capped at the heartbeat.
#[derive(Debug)]
pub struct Backoff {
    heartbeat: Duration,
    retry: net::Backoff,
}

impl Backoff {
    /// Back-off for a heartbeat period.
    pub fn new(heartbeat: Duration) -> Self {
        Self {
            heartbeat,
            retry: net::Backoff::new(FIRST_RETRY, heartbeat),
        }
    }

    /// After a success: wait one heartbeat; the next failure retries after 1 s again.
    pub fn succeeded(&mut self) -> Duration {
        self.retry.reset();
        self.heartbeat
    }

    /// After a failure: the current retry delay, doubled for next time.
    pub fn failed(&mut self) -> Duration {
        self.retry.failed()
    }
}

/// Turns each attempt's outcome into at most one log line: the first success, the first
/// failure of a run of failures, and the recovery after one.
#[derive(Debug, Default)]
pub struct Reporter {
    state: State,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum State {
    #[default]
    Starting,
    Registered,
    Failing,
}

/// A line to log, at its level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    /// Good news.
    Info(String),
    /// Registration is failing.
    Warn(String),
}

impl Reporter {
    /// The server accepted the registration.
    pub fn succeeded(&mut self, server: &str, node: &str) -> Option<Line> {
        let line = match self.state {
            State::Starting => format!("registered node {node} with {server}"),
            State::Failing => format!("registration with {server} recovered"),
            State::Registered => return None,
        };
        self.state = State::Registered;
        Some(Line::Info(line))
    }

    /// An attempt failed.
    pub fn failed(&mut self, server: &str, err: &ClientError) -> Option<Line> {
        if self.state == State::Failing {
            return None;
        }
        self.state = State::Failing;
        Some(Line::Warn(format!(
            "cannot register with {server}: {err}; retrying with back-off (sampling and \
             serving go on)"
        )))
    }
}

/// One registration attempt.
pub async fn register_once(
    client: &ServerClient,
    node: &SharedNode,
    advert: &Advert,
) -> Result<NodeInfo, ClientError> {
    let (name, body) = {
        let node = read(node);
        (node.name.clone(), body(&node, advert))
    };
    client.put(&format!("/api/v1/nodes/{name}"), &body).await
}

/// Registers, then heartbeats every `heartbeat`, forever (spawn it as a task). The node
/// credential is read from `credential_file` again before each attempt, so a rotated one is
/// used from the next heartbeat on (an unreadable file keeps the last good credential, and
/// says so once).
pub async fn heartbeat(
    mut client: ServerClient,
    credential_file: PathBuf,
    node: SharedNode,
    advert: Advert,
    heartbeat: Duration,
) {
    let name = read(&node).name.clone();
    let mut backoff = Backoff::new(heartbeat);
    let mut reporter = Reporter::default();
    let mut file_ok = true;
    loop {
        match crate::credential::read(&credential_file) {
            Ok(credential) => {
                client = client.with_token(Some(&credential));
                file_ok = true;
            }
            Err(e) if file_ok => {
                tracing::warn!("{e}; registering with the credential read before");
                file_ok = false;
            }
            Err(_) => {}
        }
        let (line, delay) = match register_once(&client, &node, &advert).await {
            Ok(_) => (
                reporter.succeeded(client.base(), &name),
                backoff.succeeded(),
            ),
            Err(err) => {
                tracing::debug!("registration failed: {err}");
                (reporter.failed(client.base(), &err), backoff.failed())
            }
        };
        match line {
            Some(Line::Info(text)) => tracing::info!("{text}"),
            Some(Line::Warn(text)) => tracing::warn!("{text}"),
            None => {}
        }
        tokio::time::sleep(delay).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::simulated::SimulatedSource;
    use crate::node::Sampler;

    #[test]
    fn backoff_doubles_to_the_heartbeat_and_resets() {
        let mut b = Backoff::new(Duration::from_secs(30));
        let secs: Vec<u64> = (0..7).map(|_| b.failed().as_secs()).collect();
        assert_eq!(secs, [1, 2, 4, 8, 16, 30, 30]);
        assert_eq!(b.succeeded(), Duration::from_secs(30));
        assert_eq!(b.failed(), Duration::from_secs(1));
        let mut short = Backoff::new(Duration::from_millis(500));
        assert_eq!(short.failed(), Duration::from_millis(500));
    }

    #[test]
    fn one_line_when_failing_starts_and_one_when_it_recovers() {
        let err = ClientError::BadUrl("x".into());
        let mut r = Reporter::default();
        let lines = vec![
            r.failed("S", &err),
            r.failed("S", &err),
            r.failed("S", &err),
            r.succeeded("S", "n"),
            r.succeeded("S", "n"),
            r.failed("S", &err),
        ];
        let lines: Vec<_> = lines.into_iter().flatten().collect();
        assert_eq!(lines.len(), 3, "{lines:?}");
        assert!(matches!(&lines[0], Line::Warn(t) if t.starts_with("cannot register with S")));
        assert_eq!(lines[1], Line::Info("registration with S recovered".into()));
        assert!(matches!(lines[2], Line::Warn(_)));
        let mut fresh = Reporter::default();
        assert_eq!(
            fresh.succeeded("S", "n"),
            Some(Line::Info("registered node n with S".into()))
        );
    }

    #[test]
    fn body_lists_the_latest_gpus() {
        let mut sampler = Sampler::new(Box::new(SimulatedSource::new(2, 7)));
        let mut node = sampler.node("n1".into(), 4);
        let advert = Advert {
            url: "http://10.0.0.1:9400".into(),
            token: "t".into(),
            interval_secs: 5,
        };
        assert!(body(&node, &advert).gpus.is_empty());
        node.ring.push(sampler.sample(1_000));
        let b = body(&node, &advert);
        assert_eq!(
            (b.url.as_str(), b.token.as_str()),
            ("http://10.0.0.1:9400", "t")
        );
        assert_eq!(b.interval_secs, Some(5));
        assert!(b.simulated && b.driver.is_some());
        assert_eq!(b.gpus.len(), 2);
        assert_eq!(b.gpus[1].index, 1);
        assert_eq!(b.gpus[1].memory_total_bytes, Some(80 << 30));
        assert!(b.gpus[0]
            .uuid
            .as_deref()
            .is_some_and(|u| u.starts_with("GPU-")));
    }
}
