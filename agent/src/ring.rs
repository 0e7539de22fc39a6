//! The bounded history: a ring of samples that drops the oldest and never grows.

use std::collections::VecDeque;

use api_types::agent::NodeSample;

/// How many samples `history_secs` of history holds at one sample per `interval_secs`
/// (at least one).
pub fn capacity_for(history_secs: u64, interval_secs: u64) -> usize {
    let samples = history_secs / interval_secs.max(1);
    usize::try_from(samples).unwrap_or(usize::MAX).max(1)
}

/// The last `capacity` samples, oldest first.
#[derive(Debug)]
pub struct Ring {
    samples: VecDeque<NodeSample>,
    capacity: usize,
}

impl Ring {
    /// An empty ring holding at most `capacity` (at least one) samples, allocated once.
    pub fn new(capacity: usize) -> Self {
        let capacity = capacity.max(1);
        Self {
            samples: VecDeque::with_capacity(capacity),
            capacity,
        }
    }

    /// Appends `sample`, dropping the oldest when full. Only the newest sample keeps its
    /// process lists: who uses a GPU is a "now" question, and two hours of them would
    /// take about a third of the ring's memory.
    pub fn push(&mut self, sample: NodeSample) {
        if self.samples.len() == self.capacity {
            self.samples.pop_front();
        }
        if let Some(previous) = self.samples.back_mut() {
            for gpu in &mut previous.gpus {
                gpu.processes = None;
            }
        }
        self.samples.push_back(sample);
    }

    /// The newest sample.
    pub fn latest(&self) -> Option<&NodeSample> {
        self.samples.back()
    }

    /// The samples taken strictly after `after_ms`, oldest first (in the order taken, even
    /// if the wall clock stepped back).
    pub fn since(&self, after_ms: i64) -> Vec<NodeSample> {
        self.samples
            .iter()
            .filter(|sample| sample.at_ms > after_ms)
            .cloned()
            .collect()
    }

    /// How many samples are held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// True before the first sample.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::agent::{GpuSample, HostSample};

    fn sample(at_ms: i64) -> NodeSample {
        NodeSample {
            at_ms,
            gpus: vec![],
            host: HostSample::default(),
        }
    }

    fn times(samples: &[NodeSample]) -> Vec<i64> {
        samples.iter().map(|s| s.at_ms).collect()
    }

    #[test]
    fn capacity_is_history_over_interval() {
        assert_eq!(capacity_for(7200, 10), 720);
        assert_eq!(capacity_for(7200, 1), 7200);
        assert_eq!(capacity_for(5, 10), 1);
        assert_eq!(capacity_for(7200, 0), 7200);
    }

    #[test]
    fn keeps_the_newest_in_order_and_never_grows() {
        let mut ring = Ring::new(3);
        assert!(ring.is_empty() && ring.latest().is_none());
        let allocated = ring.samples.capacity();
        for at in 1..=10 {
            ring.push(sample(at));
            assert!(ring.len() <= 3);
        }
        assert_eq!(ring.len(), 3);
        assert_eq!(times(&ring.since(i64::MIN)), [8, 9, 10]);
        assert_eq!(ring.latest().map(|s| s.at_ms), Some(10));
        assert_eq!(ring.samples.capacity(), allocated);
    }

    #[test]
    fn since_is_strictly_after() {
        let mut ring = Ring::new(10);
        for at in [100, 200, 300, 400] {
            ring.push(sample(at));
        }
        assert_eq!(times(&ring.since(200)), [300, 400]);
        assert_eq!(times(&ring.since(199)), [200, 300, 400]);
        assert!(ring.since(400).is_empty());
    }

    #[test]
    fn only_the_newest_sample_keeps_processes() {
        let with_processes = |at_ms| NodeSample {
            gpus: vec![GpuSample {
                processes: Some(vec![]),
                ..GpuSample::default()
            }],
            ..sample(at_ms)
        };
        let mut ring = Ring::new(3);
        ring.push(with_processes(1));
        ring.push(with_processes(2));
        let kept: Vec<_> = ring
            .since(0)
            .iter()
            .map(|s| s.gpus[0].processes.is_some())
            .collect();
        assert_eq!(kept, [false, true]);
    }

    #[test]
    fn zero_capacity_still_keeps_the_latest() {
        let mut ring = Ring::new(0);
        ring.push(sample(1));
        ring.push(sample(2));
        assert_eq!(times(&ring.since(0)), [2]);
    }
}
