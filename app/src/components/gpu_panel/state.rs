//! The panel's data, signal-free: each answer merged into per-node history (2 h, oldest
//! first, no duplicates), and the `since` of the next fetch (so a resume back-fills what
//! the pause missed).

use api_types as json;

/// How much history the panel keeps, as the agent and the server do (ms).
pub const HISTORY_MS: i64 = 2 * 60 * 60 * 1000;

/// What the panel holds of one node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeData {
    /// The node's name.
    pub node: String,
    /// Reachable or not.
    pub state: json::nodes::NodeState,
    /// When the server last heard from the agent (Unix ms).
    pub last_seen_ms: Option<i64>,
    /// The latest answer, its `history` emptied (moved into [`NodeData::history`]).
    pub snapshot: Option<json::agent::NodeSnapshot>,
    /// Samples of the last [`HISTORY_MS`], oldest first, strictly increasing `at_ms`.
    pub history: Vec<json::agent::NodeSample>,
}

impl NodeData {
    fn new(node: String) -> Self {
        Self {
            node,
            state: json::nodes::NodeState::Live,
            last_seen_ms: None,
            snapshot: None,
            history: Vec::new(),
        }
    }

    /// When the newest sample held was taken.
    pub fn newest_ms(&self) -> Option<i64> {
        self.history.last().map(|s| s.at_ms)
    }

    /// Appends the samples newer than the newest held, then drops what is older than
    /// [`HISTORY_MS`] before the newest.
    fn append(&mut self, samples: impl IntoIterator<Item = json::agent::NodeSample>) {
        for s in samples {
            if self.newest_ms().is_none_or(|newest| s.at_ms > newest) {
                self.history.push(s);
            }
        }
        if let Some(newest) = self.newest_ms() {
            let keep_from = self
                .history
                .partition_point(|s| s.at_ms <= newest - HISTORY_MS);
            self.history.drain(..keep_from);
        }
    }

    /// Takes in one answer about this node.
    fn merge(&mut self, view: json::nodes::NodeView) {
        self.state = view.state;
        self.last_seen_ms = view.last_seen_ms.or(self.last_seen_ms);
        let Some(mut snap) = view.snapshot else {
            return;
        };
        let mut history = std::mem::take(&mut snap.history);
        history.sort_by_key(|s| s.at_ms);
        // The latest sample too: the history may not reach it (no `since`, or a server
        // that only lists the ring).
        if let (Some(at_ms), Some(host)) = (snap.at_ms, snap.host.clone()) {
            history.push(json::agent::NodeSample {
                at_ms,
                gpus: snap.gpus.clone(),
                host,
            });
        }
        self.append(history);
        self.snapshot = Some(snap);
    }
}

/// Everything the panel shows, built up over its fetches.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PanelData {
    /// The nodes, in the order of the latest answer.
    pub nodes: Vec<NodeData>,
    /// Answers merged so far (the end-to-end tests read it).
    pub fetches: u64,
}

impl PanelData {
    /// The `since` of the next fetch: the oldest of the nodes' newest samples, so every
    /// node gets what it is missing (0, i.e. everything the server holds, before any).
    pub fn since(&self) -> i64 {
        self.nodes
            .iter()
            .filter_map(NodeData::newest_ms)
            .min()
            .unwrap_or(0)
    }

    /// Merges an answer: nodes in its order, each one's history extended without
    /// duplicates, a node's last snapshot kept while it is unreachable without one.
    pub fn merge(&mut self, answer: json::nodes::NodeGpus) {
        let mut old = std::mem::take(&mut self.nodes);
        for view in answer.nodes {
            let mut node = match old.iter().position(|n| n.node == view.node) {
                Some(i) => old.swap_remove(i),
                None => NodeData::new(view.node.clone()),
            };
            node.merge(view);
            self.nodes.push(node);
        }
        self.fetches += 1;
    }

    /// Samples held over all nodes (the end-to-end tests read it).
    pub fn samples(&self) -> usize {
        self.nodes.iter().map(|n| n.history.len()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(at_ms: i64) -> json::agent::NodeSample {
        json::agent::NodeSample {
            at_ms,
            gpus: vec![json::agent::GpuSample::default()],
            host: json::agent::HostSample::default(),
        }
    }

    fn view(node: &str, latest: Option<i64>, history: &[i64]) -> json::nodes::NodeView {
        json::nodes::NodeView {
            node: node.into(),
            state: json::nodes::NodeState::Live,
            last_seen_ms: latest,
            snapshot: latest.map(|at| json::agent::NodeSnapshot {
                node: node.into(),
                driver: json::agent::DriverStatus::Available { version: None },
                simulated: true,
                at_ms: Some(at),
                gpus: vec![],
                host: Some(json::agent::HostSample::default()),
                history: history.iter().map(|t| sample(*t)).collect(),
            }),
        }
    }

    fn answer(nodes: Vec<json::nodes::NodeView>) -> json::nodes::NodeGpus {
        json::nodes::NodeGpus {
            nodes,
            server_time_ms: 0,
        }
    }

    fn times(d: &PanelData, i: usize) -> Vec<i64> {
        d.nodes[i].history.iter().map(|s| s.at_ms).collect()
    }

    #[test]
    fn back_fill_extends_history_without_duplicates() {
        let mut d = PanelData::default();
        assert_eq!(d.since(), 0);
        d.merge(answer(vec![view("a", Some(3000), &[1000, 2000, 3000])]));
        assert_eq!(times(&d, 0), vec![1000, 2000, 3000]);
        assert_eq!(d.since(), 3000);
        // A resume after a pause: the server answers what came after `since`, out of order
        // and overlapping; the latest sample is also in the history.
        d.merge(answer(vec![view(
            "a",
            Some(7000),
            &[6000, 3000, 4000, 5000, 7000],
        )]));
        assert_eq!(times(&d, 0), vec![1000, 2000, 3000, 4000, 5000, 6000, 7000]);
        // A poll whose answer has no history still adds the latest sample.
        d.merge(answer(vec![view("a", Some(8000), &[])]));
        assert_eq!(d.nodes[0].newest_ms(), Some(8000));
        assert_eq!((d.fetches, d.samples()), (3, 8));
        assert!(d.nodes[0].snapshot.as_ref().unwrap().history.is_empty());
    }

    #[test]
    fn since_waits_for_the_node_furthest_behind() {
        let mut d = PanelData::default();
        d.merge(answer(vec![
            view("a", Some(5000), &[4000, 5000]),
            view("b", Some(2000), &[2000]),
            view("c", None, &[]),
        ]));
        assert_eq!(d.since(), 2000);
        assert_eq!(
            d.nodes.iter().map(|n| n.node.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
    }

    #[test]
    fn history_keeps_two_hours() {
        let mut d = PanelData::default();
        let old = [0, 1000, HISTORY_MS / 2];
        d.merge(answer(vec![view("a", Some(HISTORY_MS / 2), &old)]));
        d.merge(answer(vec![view("a", Some(HISTORY_MS + 1000), &[])]));
        assert_eq!(times(&d, 0), vec![HISTORY_MS / 2, HISTORY_MS + 1000]);
    }

    #[test]
    fn unreachable_node_keeps_its_last_snapshot() {
        let mut d = PanelData::default();
        d.merge(answer(vec![view("a", Some(1000), &[1000])]));
        d.merge(answer(vec![json::nodes::NodeView {
            node: "a".into(),
            state: json::nodes::NodeState::Unreachable {
                reason: "connection refused".into(),
            },
            last_seen_ms: None,
            snapshot: None,
        }]));
        let n = &d.nodes[0];
        assert!(matches!(
            n.state,
            json::nodes::NodeState::Unreachable { .. }
        ));
        assert_eq!((n.last_seen_ms, n.newest_ms()), (Some(1000), Some(1000)));
        assert!(n.snapshot.is_some());
    }
}
