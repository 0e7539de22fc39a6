//! The loaded lines of the Logs tab: pages kept as chunks with their cursors, so pages load
//! on scroll in both directions and the far end is dropped beyond [`MAX_LOADED`] lines
//! (memory stays bounded however long the log). Each line also keeps its rendered height
//! for the windowed list. Pure, unit-tested natively.

use std::collections::{HashSet, VecDeque};

use api_types::logs::{LogLine, LogPage};

/// Most lines kept loaded; pages beyond it are dropped at the end away from the reader.
pub const MAX_LOADED: usize = 20_000;

/// A line's height before it is measured (px; one text row).
pub const EST_ROW_H: f64 = 20.0;

/// A line's identity within a run: node and sequence number.
pub type LineKey = (String, u64);

fn key(l: &LogLine) -> LineKey {
    (l.node.clone(), l.seq)
}

/// One loaded page (or the live lines after the newest page).
#[derive(Debug, Clone, PartialEq)]
struct Chunk {
    lines: Vec<LogLine>,
    heights: Vec<f64>,
    older: Option<String>,
    newer: Option<String>,
}

/// The loaded lines, oldest first.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Loaded {
    chunks: VecDeque<Chunk>,
    keys: HashSet<LineKey>,
    len: usize,
}

impl Loaded {
    /// The first page.
    pub fn new(page: LogPage) -> Self {
        let mut l = Loaded::default();
        l.append(page);
        l
    }

    fn chunk(&mut self, page: LogPage) -> Chunk {
        let lines: Vec<LogLine> = page
            .lines
            .into_iter()
            .filter(|l| self.keys.insert(key(l)))
            .collect();
        self.len += lines.len();
        Chunk {
            heights: vec![EST_ROW_H; lines.len()],
            lines,
            older: page.older,
            newer: page.newer,
        }
    }

    /// Lines loaded.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Cursor of the page before the first line (`None`: the oldest line is loaded).
    pub fn older(&self) -> Option<String> {
        self.chunks.front().and_then(|c| c.older.clone())
    }

    /// Cursor of the page after the last line (`None`: the newest line is loaded).
    pub fn newer(&self) -> Option<String> {
        self.chunks.back().and_then(|c| c.newer.clone())
    }

    /// Adds an older page before the first line; returns the height added above.
    pub fn prepend(&mut self, page: LogPage) -> f64 {
        let c = self.chunk(page);
        let h = c.heights.iter().sum();
        self.chunks.push_front(c);
        h
    }

    /// Adds a newer page after the last line.
    pub fn append(&mut self, page: LogPage) {
        let c = self.chunk(page);
        self.chunks.push_back(c);
    }

    /// Adds live lines after the last line (only while the newest line is loaded); returns
    /// how many were new.
    pub fn push_live(&mut self, lines: Vec<LogLine>) -> usize {
        let page = LogPage {
            lines,
            older: None,
            newer: None,
            follow_from: String::new(),
            nodes: Vec::new(),
            status: api_types::JobRunStatus::Running,
            expired_through: None,
            gaps: Vec::new(),
        };
        let c = self.chunk(page);
        let n = c.lines.len();
        match self.chunks.back_mut() {
            Some(last) => {
                last.lines.extend(c.lines);
                last.heights.extend(c.heights);
            }
            None => self.chunks.push_back(c),
        }
        n
    }

    /// Starts over from `page` (the newest lines), keeping the loaded lines that come after
    /// its last line in the log's order (time, node, sequence): those that arrived live
    /// while it was read.
    pub fn restart(&mut self, page: LogPage) {
        let last = page.lines.last().map(|l| (l.ts_ms, l.node.clone(), l.seq));
        let keep: Vec<LogLine> = self
            .lines()
            .filter(|l| {
                last.as_ref()
                    .is_none_or(|k| (l.ts_ms, l.node.clone(), l.seq) > *k)
            })
            .cloned()
            .collect();
        *self = Loaded::new(page);
        self.push_live(keep);
    }

    fn drop_chunk(&mut self, c: &Chunk) {
        self.len -= c.lines.len();
        for l in &c.lines {
            self.keys.remove(&key(l));
        }
    }

    /// Drops the oldest pages while more than [`MAX_LOADED`] lines are loaded (and a cursor
    /// leads back to them); returns the height removed above.
    pub fn trim_front(&mut self) -> f64 {
        let mut removed = 0.0;
        while self.len > MAX_LOADED && self.chunks.len() > 1 && self.chunks[1].older.is_some() {
            if let Some(c) = self.chunks.pop_front() {
                removed += c.heights.iter().sum::<f64>();
                self.drop_chunk(&c);
            }
        }
        removed
    }

    /// Drops the newest pages while more than [`MAX_LOADED`] lines are loaded (and a cursor
    /// leads forward to them).
    pub fn trim_back(&mut self) {
        while self.len > MAX_LOADED
            && self.chunks.len() > 1
            && self.chunks[self.chunks.len() - 2].newer.is_some()
        {
            if let Some(c) = self.chunks.pop_back() {
                self.drop_chunk(&c);
            }
        }
    }

    /// Every line, oldest first.
    pub fn lines(&self) -> impl Iterator<Item = &LogLine> {
        self.chunks.iter().flat_map(|c| c.lines.iter())
    }

    /// Every line's height, oldest first.
    pub fn heights(&self) -> impl Iterator<Item = f64> + '_ {
        self.chunks.iter().flat_map(|c| c.heights.iter().copied())
    }

    /// Lines `range` (cloned, for rendering) with their index.
    pub fn slice(&self, range: std::ops::Range<usize>) -> Vec<(usize, LogLine)> {
        self.lines()
            .enumerate()
            .skip(range.start)
            .take(range.len())
            .map(|(i, l)| (i, l.clone()))
            .collect()
    }

    /// Sets line `i`'s measured height; returns the change.
    pub fn set_height(&mut self, mut i: usize, h: f64) -> f64 {
        for c in &mut self.chunks {
            if i < c.heights.len() {
                let d = h - c.heights[i];
                c.heights[i] = h;
                return d;
            }
            i -= c.heights.len();
        }
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::logs::LogStream;

    fn line(node: &str, seq: u64) -> LogLine {
        LogLine {
            ts_ms: seq as i64,
            node: node.into(),
            seq,
            stream: LogStream::Stdout,
            level: None,
            text: format!("{node} {seq}"),
            matches: Vec::new(),
        }
    }

    fn page(seqs: std::ops::Range<u64>, older: Option<&str>, newer: Option<&str>) -> LogPage {
        LogPage {
            lines: seqs.map(|s| line("a", s)).collect(),
            older: older.map(str::to_owned),
            newer: newer.map(str::to_owned),
            follow_from: "f".into(),
            nodes: vec!["a".into()],
            status: api_types::JobRunStatus::Running,
            expired_through: None,
            gaps: Vec::new(),
        }
    }

    #[test]
    fn pages_load_both_ways_without_duplicates() {
        let mut l = Loaded::new(page(10..20, Some("b10"), None));
        assert_eq!((l.older(), l.newer()), (Some("b10".into()), None));
        let added = l.prepend(page(0..11, None, Some("a10")));
        assert_eq!(added, 10.0 * EST_ROW_H, "line 10 was already loaded");
        assert_eq!(l.len(), 20);
        assert_eq!(l.older(), None);
        assert_eq!(
            l.push_live(vec![line("a", 19), line("a", 20), line("b", 0)]),
            2
        );
        let seqs: Vec<_> = l.lines().map(|x| (x.node.as_str(), x.seq)).collect();
        assert_eq!(seqs.first(), Some(&("a", 0)));
        assert_eq!(seqs.last(), Some(&("b", 0)));
        assert_eq!(
            l.slice(5..7)
                .iter()
                .map(|(i, x)| (*i, x.seq))
                .collect::<Vec<_>>(),
            vec![(5, 5), (6, 6)]
        );
        assert_eq!(l.set_height(15, 45.0), 25.0);
        assert_eq!(l.heights().nth(15), Some(45.0));
    }

    #[test]
    fn the_far_end_is_dropped_beyond_the_cap_when_a_cursor_leads_back() {
        let n = MAX_LOADED as u64;
        let mut l = Loaded::new(page(n..2 * n, Some("b1"), Some("a1")));
        l.append(page(2 * n..2 * n + 10, Some("b2"), Some("a2")));
        let removed = l.trim_front();
        assert_eq!(removed, n as f64 * EST_ROW_H);
        assert_eq!(l.len(), 10);
        assert_eq!(l.older(), Some("b2".into()));
        assert_eq!(l.newer(), Some("a2".into()));

        // Newest page plus live lines, then an older page: the newest end goes, and the
        // older page's cursor leads back to it.
        let mut l = Loaded::new(page(n..2 * n, Some("b1"), None));
        l.push_live((2 * n..2 * n + 5).map(|s| line("a", s)).collect());
        l.prepend(page(0..10, None, Some("x")));
        l.trim_back();
        assert_eq!(l.len(), 10);
        assert_eq!(l.newer(), Some("x".into()));
        // Starting over from the newest page keeps the live lines after it.
        let mut l = Loaded::new(page(0..10, None, None));
        l.push_live(vec![line("a", 10), line("a", 11)]);
        l.restart(page(5..11, Some("b5"), None));
        let seqs: Vec<u64> = l.lines().map(|x| x.seq).collect();
        assert_eq!(seqs, vec![5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(l.older(), Some("b5".into()));
        // Within the cap nothing is dropped.
        let mut l = Loaded::new(page(10..20, Some("b1"), None));
        l.prepend(page(0..10, None, Some("x")));
        l.trim_back();
        assert_eq!((l.len(), l.trim_front()), (20, 0.0));
    }
}
