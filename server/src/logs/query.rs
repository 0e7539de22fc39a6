//! Reading lines back: filters, the line order and its cursors, pages in both directions,
//! a streaming iterator for downloads, and live follow by arrival.
//!
//! A scan ([`Lines`]) walks chunk summaries in time order (newest-first by their newest
//! line, or oldest-first by their oldest line), decompresses a chunk only when its lines
//! could come next, and merges the lines of overlapping chunks (several nodes, or clocks
//! that stepped back) in a heap. A line leaves the heap once no chunk still unread can hold
//! a line before it, so memory holds only the chunks that overlap in time, and a scan
//! stops after reading what the caller consumed.

use std::cmp::Ordering;
use std::collections::{BinaryHeap, VecDeque};
use std::sync::LazyLock;

use base64::Engine as _;
use memchr::memmem::Finder;

use super::chunk::{self, ChunkError, Decoded, Grams};
use super::level::Level;
use super::store::{self, ChunkFilter, ChunkMeta, ChunkOrder};
use super::Stream;
use crate::db::Conn;
use crate::Error;

/// Chunk summaries read per query while scanning.
const METAS_PER_READ: usize = 64;

/// Most chunks a search reads ahead at once through a stretch without matches.
const MAX_AHEAD: usize = 32;

/// Threads that decompress and search chunks read ahead: the machine's cores, at most 4.
static WORKERS: LazyLock<usize> =
    LazyLock::new(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)));

/// Most lines in one page.
pub(crate) const MAX_PAGE: usize = 10_000;

/// A line's place in the order of a job run's lines: by time, then node, then sequence.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineKey {
    /// The line's timestamp.
    pub ts_ms: i64,
    /// The node's label.
    pub node: String,
    /// The line's sequence number within its node.
    pub seq: u64,
}

impl LineKey {
    /// A key before every line at `ts_ms` and after every earlier one ("jump to time").
    pub(crate) fn at_time(ts_ms: i64) -> Self {
        LineKey {
            ts_ms,
            node: String::new(),
            seq: 0,
        }
    }

    /// The key as an opaque, URL-safe cursor.
    pub(crate) fn cursor(&self) -> String {
        let plain = format!("{}.{}.{}", self.ts_ms, self.seq, self.node);
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(plain)
    }

    /// The key of a cursor made by [`LineKey::cursor`].
    pub(crate) fn from_cursor(cursor: &str) -> Result<Self, Error> {
        let bad = || Error::InvalidParameter(format!("invalid log cursor {cursor:?}"));
        let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(cursor)
            .map_err(|_| bad())?;
        let plain = String::from_utf8(bytes).map_err(|_| bad())?;
        let mut parts = plain.splitn(3, '.');
        let (Some(ts), Some(seq), Some(node)) = (parts.next(), parts.next(), parts.next()) else {
            return Err(bad());
        };
        Ok(LineKey {
            ts_ms: ts.parse().map_err(|_| bad())?,
            seq: seq.parse().map_err(|_| bad())?,
            node: node.to_owned(),
        })
    }

    /// Compares this key with a line's parts without building a key.
    fn cmp_parts(&self, ts_ms: i64, node: &str, seq: u64) -> Ordering {
        (self.ts_ms, self.node.as_str(), self.seq).cmp(&(ts_ms, node, seq))
    }
}

/// One stored line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogLine {
    /// Its place in the order (time, node, sequence number).
    pub key: LineKey,
    /// stdout or stderr.
    pub stream: Stream,
    /// The parsed level, if any.
    pub level: Option<Level>,
    /// The text, ANSI codes included.
    pub text: String,
}

/// Which levels a filter keeps. Lines without a level match no level filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LevelFilter {
    /// This level and the more severe ones.
    AtLeast(Level),
    /// Only this level.
    Exactly(Level),
}

impl LevelFilter {
    fn keeps(self, level: Option<Level>) -> bool {
        match (self, level) {
            (_, None) => false,
            (LevelFilter::AtLeast(min), Some(l)) => l >= min,
            (LevelFilter::Exactly(want), Some(l)) => l == want,
        }
    }

    /// The `level_mask` bits of the levels kept.
    fn mask(self) -> i64 {
        Level::ALL
            .iter()
            .filter(|l| self.keeps(Some(**l)))
            .fold(0, |m, l| m | 1 << l.code())
    }
}

/// What lines to read; the default reads all of them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Filter {
    /// Only this node's lines.
    pub node: Option<String>,
    /// Only lines of these levels.
    pub level: Option<LevelFilter>,
    /// Only lines containing this text, ignoring ASCII case.
    pub search: Option<String>,
    /// Only lines at or after this time (ms).
    pub since_ms: Option<i64>,
    /// Only lines before this time (ms).
    pub until_ms: Option<i64>,
}

/// Where a page starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Position {
    /// The newest lines.
    Latest,
    /// The oldest lines.
    Earliest,
    /// The lines just before this key (older).
    Before(LineKey),
    /// The lines just after this key (newer).
    After(LineKey),
}

/// A line of a page, with where the search text occurs in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageLine {
    /// The line.
    pub line: LogLine,
    /// Byte ranges `(start, end)` of the search text in `line.text` (empty without search).
    pub matches: Vec<(usize, usize)>,
}

/// A page of lines, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The lines, in order.
    pub lines: Vec<PageLine>,
    /// Pass as `Position::Before` for the previous (older) page; `None` when there are no
    /// older lines.
    pub older: Option<LineKey>,
    /// Pass as `Position::After` for the next (newer) page; `None` when the page ended at
    /// the newest line when it was read (then follow with [`Page::follow_from`]).
    pub newer: Option<LineKey>,
    /// The arrival cursor to pass to [`follow`] for lines stored after this page was read.
    pub follow_from: i64,
}

/// A chunk that does not decode is a bug or a damaged file, never the caller's fault.
fn corrupt(e: ChunkError) -> Error {
    Error::Internal(e.to_string())
}

/// The filter prepared for scanning.
struct Prepared {
    node: Option<String>,
    level: Option<LevelFilter>,
    needle: Option<Finder<'static>>,
    grams: Grams,
    ts_lo: i64,
    ts_hi: i64,
}

impl Prepared {
    fn new(f: &Filter) -> Result<Self, Error> {
        let needle = match f.search.as_deref() {
            None | Some("") => None,
            Some(s) if s.contains('\n') => {
                return Err(Error::InvalidParameter(
                    "a log search cannot span lines".to_owned(),
                ))
            }
            Some(s) => Some(Finder::new(&s.to_ascii_lowercase()).into_owned()),
        };
        let grams = needle
            .as_ref()
            .map_or_else(Grams::default, |f| Grams::of(f.needle()));
        Ok(Prepared {
            node: f.node.clone(),
            level: f.level,
            needle,
            grams,
            ts_lo: f.since_ms.unwrap_or(i64::MIN),
            ts_hi: f.until_ms.map_or(i64::MAX, |u| u.saturating_sub(1)),
        })
    }

    fn chunk_filter(&self, job_run_id: i64, max_id: i64) -> ChunkFilter<'_> {
        ChunkFilter {
            job_run_id,
            max_id,
            node: self.node.as_deref(),
            level_mask: self.level.map_or(!0, LevelFilter::mask),
            ts_lo: self.ts_lo,
            ts_hi: self.ts_hi,
        }
    }

    /// The lines of a chunk that pass the filter, with `bound` (exclusive) on one side.
    fn lines(
        &self,
        meta: &ChunkMeta,
        d: &Decoded,
        bound: Option<(&LineKey, Ordering)>,
        scratch: &mut Vec<u8>,
    ) -> Vec<LogLine> {
        let hits = self.needle.as_ref().map(|f| d.matching(f, scratch));
        if hits.as_ref().is_some_and(|h| !h.contains(&true)) {
            return Vec::new();
        }
        let mut out = Vec::new();
        for i in 0..d.len() {
            let (ts, level) = (d.ts(i), d.level(i));
            let seq = d.first_seq + i as u64;
            let kept = hits.as_ref().is_none_or(|h| h[i])
                && self.level.is_none_or(|f| f.keeps(level))
                && (self.ts_lo..=self.ts_hi).contains(&ts)
                && bound.is_none_or(|(k, side)| k.cmp_parts(ts, &meta.node, seq) == side);
            if kept {
                out.push(LogLine {
                    key: LineKey {
                        ts_ms: ts,
                        node: meta.node.clone(),
                        seq,
                    },
                    stream: d.stream(i),
                    level,
                    text: text_of(d.text(i)),
                });
            }
        }
        out
    }
}

/// Stored text as a string (it was a `String` when ingested; lossy only if damaged).
fn text_of(bytes: &[u8]) -> String {
    match std::str::from_utf8(bytes) {
        Ok(s) => s.to_owned(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// A line in the merge heap; the heap pops the line that comes next in the scan's order.
struct Pending {
    line: LogLine,
    newest_first: bool,
}

impl PartialEq for Pending {
    fn eq(&self, other: &Self) -> bool {
        self.line.key == other.line.key
    }
}

impl Eq for Pending {}

impl PartialOrd for Pending {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Pending {
    fn cmp(&self, other: &Self) -> Ordering {
        let by_key = self.line.key.cmp(&other.line.key);
        if self.newest_first {
            by_key
        } else {
            by_key.reverse()
        }
    }
}

/// The matching lines of a job run in line order, newest-first or oldest-first, read
/// lazily: an iterator of `Result<LogLine, Error>` that borrows a connection.
pub struct Lines<'c> {
    conn: &'c Conn,
    scan: Scan,
}

/// Where a scan of [`Lines`] stands, apart from its connection: a scan paused with
/// [`Lines::into_scan`] goes on with [`Scan::on`] over another connection later (a
/// download reads one block a call and holds no connection while its client reads). It
/// holds the chunk summaries read ahead and the lines of the chunks decompressed but not
/// yet passed; the chunks it reads are those stored when it started (a chunk never
/// changes once stored), and a chunk purged since its summary was read is skipped.
pub(crate) struct Scan {
    job_run_id: i64,
    max_id: i64,
    filter: Prepared,
    newest_first: bool,
    /// Exclusive bound: lines must compare to it as `Ordering::Greater` from its side.
    bound: Option<LineKey>,
    metas: VecDeque<ChunkMeta>,
    order: ChunkOrder,
    metas_done: bool,
    heap: BinaryHeap<Pending>,
    decoded: Decoded,
    chunks_read: usize,
    /// How many chunks the last read took at once.
    ahead: usize,
    scratch: Vec<u8>,
    failed: bool,
}

impl<'c> Lines<'c> {
    /// A scan of the lines matching `filter` from `position`, over the chunks stored when
    /// it starts.
    pub fn new(
        conn: &'c Conn,
        job_run_id: i64,
        filter: &Filter,
        position: Position,
    ) -> Result<Self, Error> {
        let max_id = store::max_chunk_id(conn)?;
        Self::with_snapshot(conn, job_run_id, filter, position, max_id)
    }

    fn with_snapshot(
        conn: &'c Conn,
        job_run_id: i64,
        filter: &Filter,
        position: Position,
        max_id: i64,
    ) -> Result<Self, Error> {
        let mut filter = Prepared::new(filter)?;
        let (newest_first, bound) = match position {
            Position::Latest => (true, None),
            Position::Earliest => (false, None),
            Position::Before(k) => (true, Some(k)),
            Position::After(k) => (false, Some(k)),
        };
        if let Some(k) = &bound {
            if newest_first {
                filter.ts_hi = filter.ts_hi.min(k.ts_ms);
            } else {
                filter.ts_lo = filter.ts_lo.max(k.ts_ms);
            }
        }
        let order = if newest_first {
            ChunkOrder::NewestBelow(i64::MAX, i64::MAX)
        } else {
            ChunkOrder::OldestAbove(i64::MIN, i64::MIN)
        };
        let scan = Scan {
            job_run_id,
            max_id,
            filter,
            newest_first,
            bound,
            metas: VecDeque::new(),
            order,
            metas_done: false,
            heap: BinaryHeap::new(),
            decoded: Decoded::default(),
            chunks_read: 0,
            ahead: 0,
            scratch: Vec::new(),
            failed: false,
        };
        Ok(Lines { conn, scan })
    }

    /// Chunks decompressed so far (the rest were ruled out by their summaries or not
    /// needed yet).
    pub fn chunks_read(&self) -> usize {
        self.scan.chunks_read
    }

    /// Pauses the scan: its state without the connection, to go on with [`Scan::on`]. The
    /// decompression buffers are let go (the lines not yet passed are kept).
    pub(crate) fn into_scan(self) -> Scan {
        let mut scan = self.scan;
        scan.decoded = Decoded::default();
        scan.scratch = Vec::new();
        scan
    }
}

impl Scan {
    /// Goes on with the scan, reading with `conn`.
    pub(crate) fn on(self, conn: &Conn) -> Lines<'_> {
        Lines { conn, scan: self }
    }

    /// The next chunk summary in scan order that may hold a match, reading more summaries
    /// when needed.
    fn peek_meta(&mut self, conn: &Conn) -> Result<Option<&ChunkMeta>, Error> {
        while self.metas.is_empty() && !self.metas_done {
            let f = self.filter.chunk_filter(self.job_run_id, self.max_id);
            let got = store::chunk_metas(conn, &f, self.order, METAS_PER_READ)?;
            self.metas_done = got.len() < METAS_PER_READ;
            if let Some(last) = got.last() {
                self.order = match self.order {
                    ChunkOrder::NewestBelow(..) => ChunkOrder::NewestBelow(last.max_ts, last.id),
                    _ => ChunkOrder::OldestAbove(last.min_ts, last.id),
                };
            }
            let grams = &self.filter.grams;
            self.metas
                .extend(got.into_iter().filter(|m| grams.may_match(&m.grams)));
        }
        Ok(self.metas.front())
    }

    /// Decompresses the next chunk and adds its matching lines to the heap.
    fn load(&mut self, conn: &Conn, meta: ChunkMeta) -> Result<(), Error> {
        let decoded = &mut self.decoded;
        match store::with_chunk_data(conn, meta.id, |data| decoded.read(data))? {
            None => return Ok(()), // purged since the summary was read
            Some(read) => read.map_err(corrupt)?,
        }
        self.chunks_read += 1;
        let bound = bound_side(self.bound.as_ref(), self.newest_first);
        let lines = self
            .filter
            .lines(&meta, &self.decoded, bound, &mut self.scratch);
        self.push(lines);
        Ok(())
    }

    fn push(&mut self, lines: Vec<LogLine>) {
        let newest_first = self.newest_first;
        self.heap
            .extend(lines.into_iter().map(|line| Pending { line, newest_first }));
    }

    /// Decompresses and searches the next `n` chunks on up to [`WORKERS`] threads (the
    /// blobs are read on this thread: the connection is not shared).
    fn load_ahead(&mut self, conn: &Conn, n: usize) -> Result<(), Error> {
        let mut blobs = Vec::with_capacity(n);
        for meta in self.metas.drain(..n).collect::<Vec<_>>() {
            if let Some(data) = store::with_chunk_data(conn, meta.id, <[u8]>::to_vec)? {
                blobs.push((meta, data));
            }
        }
        self.chunks_read += blobs.len();
        let filter = &self.filter;
        let bound = bound_side(self.bound.as_ref(), self.newest_first);
        let per_worker = blobs.len().div_ceil(*WORKERS).max(1);
        let found: Vec<Result<Vec<LogLine>, ChunkError>> = std::thread::scope(|s| {
            let workers: Vec<_> = blobs
                .chunks(per_worker)
                .map(|part| {
                    s.spawn(move || {
                        let (mut d, mut scratch) = (Decoded::default(), Vec::new());
                        part.iter()
                            .map(|(meta, data)| {
                                d.read(data)?;
                                Ok(filter.lines(meta, &d, bound, &mut scratch))
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
                .collect()
        });
        for lines in found {
            self.push(lines.map_err(corrupt)?);
        }
        Ok(())
    }

    fn step(&mut self, conn: &Conn) -> Result<Option<LogLine>, Error> {
        loop {
            let newest_first = self.newest_first;
            // The time beyond which no unread chunk has lines.
            let unread = self
                .peek_meta(conn)?
                .map(|m| if newest_first { m.max_ts } else { m.min_ts });
            if let Some(top) = self.heap.peek() {
                let ts = top.line.key.ts_ms;
                let certain = unread.is_none_or(|u| if newest_first { ts > u } else { ts < u });
                if certain {
                    return Ok(self.heap.pop().map(|p| p.line));
                }
            }
            // A search going through chunks without matches reads ahead, twice as far each
            // time, in parallel; anything else reads one chunk at a time.
            let sparse = self.heap.is_empty() && self.filter.needle.is_some();
            self.ahead = if sparse {
                (self.ahead * 2).clamp(1, MAX_AHEAD)
            } else {
                1
            };
            let n = self.ahead.min(self.metas.len());
            if n > 1 && *WORKERS > 1 {
                self.load_ahead(conn, n)?;
                continue;
            }
            match self.metas.pop_front() {
                Some(meta) => self.load(conn, meta)?,
                None => return Ok(None),
            }
        }
    }
}

/// The bound of a scan and the side of it that lines must be on: older than it when
/// reading newest-first, newer otherwise.
fn bound_side(bound: Option<&LineKey>, newest_first: bool) -> Option<(&LineKey, Ordering)> {
    let side = if newest_first {
        Ordering::Greater
    } else {
        Ordering::Less
    };
    bound.map(|k| (k, side))
}

impl Iterator for Lines<'_> {
    type Item = Result<LogLine, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        let scan = &mut self.scan;
        if scan.failed {
            return None;
        }
        let next = scan.step(self.conn);
        scan.failed = next.is_err();
        next.transpose()
    }
}

/// Every line of a job run matching `filter`, oldest first, read lazily (downloads).
pub fn stream<'c>(conn: &'c Conn, job_run_id: i64, filter: &Filter) -> Result<Lines<'c>, Error> {
    Lines::new(conn, job_run_id, filter, Position::Earliest)
}

/// One page of at most `limit` lines (1..=[`MAX_PAGE`]) from `position`, oldest first.
pub(crate) fn page(
    conn: &Conn,
    job_run_id: i64,
    filter: &Filter,
    position: Position,
    limit: usize,
) -> Result<Page, Error> {
    if !(1..=MAX_PAGE).contains(&limit) {
        return Err(Error::InvalidParameter(format!(
            "a page holds 1 to {MAX_PAGE} lines"
        )));
    }
    let max_id = store::max_chunk_id(conn)?;
    let needle = Prepared::new(filter)?.needle;
    let newest_first = matches!(position, Position::Latest | Position::Before(_));
    let from_cursor = matches!(position, Position::Before(_) | Position::After(_));
    let mut lines = Lines::with_snapshot(conn, job_run_id, filter, position, max_id)?
        .take(limit + 1)
        .collect::<Result<Vec<_>, _>>()?;
    let more = lines.len() > limit;
    lines.truncate(limit);
    if newest_first {
        lines.reverse();
    }
    let (first, last) = (
        lines.first().map(|l| l.key.clone()),
        lines.last().map(|l| l.key.clone()),
    );
    // Beyond the end a scan reached there is more only if it stopped early; on the other
    // side there is more when the page started at a cursor.
    let (older, newer) = if newest_first {
        (first.filter(|_| more), last.filter(|_| from_cursor))
    } else {
        (first.filter(|_| from_cursor), last.filter(|_| more))
    };
    let lines = lines
        .into_iter()
        .map(|line| PageLine {
            matches: needle
                .as_ref()
                .map(|f| chunk::match_ranges(&line.text, f))
                .unwrap_or_default(),
            line,
        })
        .collect();
    Ok(Page {
        lines,
        older,
        newer,
        follow_from: max_id,
    })
}

/// Lines stored after a follow cursor, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Followed {
    /// The new matching lines, chunk by chunk in arrival order, each chunk in sequence
    /// order (a gap filled late arrives after newer lines).
    pub lines: Vec<LogLine>,
    /// The cursor to pass next time.
    pub next: i64,
}

/// The lines matching `filter` stored after the arrival cursor `after` (from
/// [`Page::follow_from`] or a previous call), whole chunks at a time until at least
/// `max_lines` lines (live follow, SSE resume).
pub(crate) fn follow(
    conn: &Conn,
    job_run_id: i64,
    filter: &Filter,
    after: i64,
    max_lines: usize,
) -> Result<Followed, Error> {
    let max_id = store::max_chunk_id(conn)?;
    let prepared = Prepared::new(filter)?;
    let mut scratch = Vec::new();
    let mut decoded = Decoded::default();
    let mut lines = Vec::new();
    let mut next = after;
    loop {
        let f = prepared.chunk_filter(job_run_id, max_id);
        let metas = store::chunk_metas(conn, &f, ChunkOrder::ArrivedAfter(next), METAS_PER_READ)?;
        let exhausted = metas.len() < METAS_PER_READ;
        for meta in metas {
            next = meta.id;
            if !prepared.grams.may_match(&meta.grams) {
                continue;
            }
            let read = store::with_chunk_data(conn, meta.id, |data| decoded.read(data))?;
            if let Some(read) = read {
                read.map_err(corrupt)?;
                lines.extend(prepared.lines(&meta, &decoded, None, &mut scratch));
            }
            if lines.len() >= max_lines {
                return Ok(Followed { lines, next });
            }
        }
        if exhausted {
            // Chunks up to the snapshot that the filter skipped need no second look.
            return Ok(Followed {
                lines,
                next: max_id.max(after),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::testing::{batch, store};
    use crate::logs::LogStore;

    fn texts(lines: &[PageLine]) -> Vec<&str> {
        lines.iter().map(|l| l.line.text.as_str()).collect()
    }

    /// Two nodes whose lines interleave in time: n0 at even ms, n1 at odd ms, `n` each, in
    /// batches of `per` lines. Texts are "<node>-<seq>".
    fn two_nodes(n: u64, per: u64) -> (tempfile::TempDir, LogStore) {
        let (d, logs) = store();
        for (k, node) in ["n0", "n1"].iter().enumerate() {
            let mut seq = 0;
            while seq < n {
                let len = per.min(n - seq);
                let owned: Vec<String> = (seq..seq + len).map(|s| format!("{node}-{s}")).collect();
                let refs: Vec<&str> = owned.iter().map(String::as_str).collect();
                let mut b = batch(7, node, seq, 0, &refs);
                for (i, l) in b.lines.iter_mut().enumerate() {
                    l.ts_ms = 2 * (seq as i64 + i as i64) + k as i64;
                }
                logs.ingest(b).unwrap();
                seq += len;
            }
        }
        (d, logs)
    }

    fn all_in_order(logs: &LogStore, filter: &Filter) -> Vec<String> {
        logs.read(|c| {
            stream(c, 7, filter)?
                .map(|l| l.map(|l| l.text))
                .collect::<Result<Vec<_>, _>>()
        })
        .unwrap()
    }

    #[test]
    fn lines_of_all_nodes_come_in_time_order() {
        let (_d, logs) = two_nodes(25, 10);
        let got = all_in_order(&logs, &Filter::default());
        let want: Vec<String> = (0..25)
            .flat_map(|s| [format!("n0-{s}"), format!("n1-{s}")])
            .collect();
        assert_eq!(got, want);
    }

    #[test]
    fn a_scan_paused_after_each_line_goes_on_over_other_connections_without_loss() {
        let (_d, logs) = two_nodes(40, 6);
        let f = Filter::default();
        let whole = all_in_order(&logs, &f);
        let mut scan = Some(logs.read(|c| Ok(stream(c, 7, &f)?.into_scan())).unwrap());
        // Stored after the scan began: not part of it.
        logs.ingest(batch(7, "n2", 0, 5, &["late"])).unwrap();
        let mut got = Vec::new();
        while let Some(s) = scan.take() {
            let (line, next) = logs
                .read(|c| {
                    let mut lines = s.on(c);
                    let line = lines.next().transpose()?;
                    Ok((line, lines.into_scan()))
                })
                .unwrap();
            if let Some(line) = line {
                got.push(line.text);
                scan = Some(next);
            }
        }
        assert_eq!(got, whole);
        assert_eq!(got.len(), 80);
    }

    #[test]
    fn equal_timestamps_order_by_node_then_seq_and_a_clock_step_back_is_merged() {
        let (_d, logs) = store();
        logs.ingest(batch(7, "b", 0, 100, &["b0"])).unwrap();
        logs.ingest(batch(7, "a", 0, 100, &["a0"])).unwrap();
        // Node c's clock steps back within one batch: 300, 50.
        let mut b = batch(7, "c", 0, 300, &["c0", "c1"]);
        b.lines[1].ts_ms = 50;
        logs.ingest(b).unwrap();
        assert_eq!(
            all_in_order(&logs, &Filter::default()),
            ["c1", "a0", "b0", "c0"]
        );
        let newest_first: Vec<String> = logs
            .read(|c| {
                Lines::new(c, 7, &Filter::default(), Position::Latest)?
                    .map(|l| l.map(|l| l.text))
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        assert_eq!(newest_first, ["c0", "b0", "a0", "c1"]);
    }

    #[test]
    fn paging_older_then_newer_visits_every_line_once() {
        let (_d, logs) = two_nodes(53, 7);
        let f = Filter::default();
        let mut seen = Vec::new();
        let mut p = logs.read(|c| page(c, 7, &f, Position::Latest, 10)).unwrap();
        assert_eq!(p.newer, None);
        loop {
            let mut t: Vec<String> = texts(&p.lines).iter().map(|s| s.to_string()).collect();
            t.extend(seen);
            seen = t;
            let Some(older) = p.older.clone() else { break };
            p = logs
                .read(|c| page(c, 7, &f, Position::Before(older), 10))
                .unwrap();
        }
        let want: Vec<String> = (0..53)
            .flat_map(|s| [format!("n0-{s}"), format!("n1-{s}")])
            .collect();
        assert_eq!(seen, want);
        // And forwards from the oldest line.
        let mut forward = Vec::new();
        let mut p = logs
            .read(|c| page(c, 7, &f, Position::Earliest, 9))
            .unwrap();
        assert_eq!(p.older, None);
        loop {
            forward.extend(texts(&p.lines).iter().map(|s| s.to_string()));
            let Some(newer) = p.newer.clone() else { break };
            p = logs
                .read(|c| page(c, 7, &f, Position::After(newer), 9))
                .unwrap();
        }
        assert_eq!(forward, want);
    }

    #[test]
    fn paging_through_lines_of_one_millisecond_on_three_nodes_misses_nothing() {
        let (_d, logs) = store();
        for node in ["c", "a", "b"] {
            for first in (0..30).step_by(10) {
                let texts: Vec<String> =
                    (first..first + 10).map(|s| format!("{node}{s}")).collect();
                let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
                let mut b = batch(7, node, first, 100, &refs);
                b.lines.iter_mut().for_each(|l| l.ts_ms = 100);
                logs.ingest(b).unwrap();
            }
        }
        let want: Vec<String> = ["a", "b", "c"]
            .iter()
            .flat_map(|n| (0..30).map(move |s| format!("{n}{s}")))
            .collect();
        let f = Filter::default();
        let mut back = Vec::new();
        let mut p = logs.read(|c| page(c, 7, &f, Position::Latest, 7)).unwrap();
        loop {
            let mut t: Vec<String> = texts(&p.lines).iter().map(|s| s.to_string()).collect();
            t.extend(back);
            back = t;
            let Some(older) = p.older.clone() else { break };
            p = logs
                .read(|c| page(c, 7, &f, Position::Before(older), 7))
                .unwrap();
        }
        assert_eq!(back, want);
        let mut forward = Vec::new();
        let mut p = logs
            .read(|c| page(c, 7, &f, Position::Earliest, 7))
            .unwrap();
        loop {
            forward.extend(texts(&p.lines).iter().map(|s| s.to_string()));
            let Some(newer) = p.newer.clone() else { break };
            p = logs
                .read(|c| page(c, 7, &f, Position::After(newer), 7))
                .unwrap();
        }
        assert_eq!(forward, want);
    }

    #[test]
    fn cursors_round_trip_and_bad_ones_are_refused() {
        let k = LineKey {
            ts_ms: -3,
            node: "gpu.node-1 (a.b)".to_owned(),
            seq: 42,
        };
        assert_eq!(LineKey::from_cursor(&k.cursor()).unwrap(), k);
        for bad in [
            "",
            "!!",
            "bm9kb3Q",
            &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode("1.x.n"),
        ] {
            assert!(matches!(
                LineKey::from_cursor(bad),
                Err(Error::InvalidParameter(_))
            ));
        }
    }

    #[test]
    fn jump_to_time_starts_at_that_time() {
        let (_d, logs) = two_nodes(20, 20);
        let f = Filter::default();
        let after = logs
            .read(|c| page(c, 7, &f, Position::After(LineKey::at_time(10)), 3))
            .unwrap();
        assert_eq!(texts(&after.lines), ["n0-5", "n1-5", "n0-6"]);
        let before = logs
            .read(|c| page(c, 7, &f, Position::Before(LineKey::at_time(10)), 3))
            .unwrap();
        assert_eq!(texts(&before.lines), ["n1-3", "n0-4", "n1-4"]);
    }

    #[test]
    fn filters_by_node_level_search_and_time() {
        let (_d, logs) = store();
        logs.ingest(batch(
            7,
            "n0",
            0,
            0,
            &[
                "INFO:root:Loss is fine",
                "WARNING:root:LOSS spike",
                "plain loss line",
                "ERROR:root:nan loss",
                "CRITICAL:root:dead",
            ],
        ))
        .unwrap();
        logs.ingest(batch(7, "n1", 0, 100, &["INFO:root:other loss", "x"]))
            .unwrap();
        let run = |f: Filter| -> Vec<String> { all_in_order(&logs, &f) };
        let node = Filter {
            node: Some("n1".into()),
            ..Filter::default()
        };
        assert_eq!(run(node), ["INFO:root:other loss", "x"]);
        let at_least = Filter {
            level: Some(LevelFilter::AtLeast(Level::Warning)),
            ..Filter::default()
        };
        assert_eq!(
            run(at_least),
            [
                "WARNING:root:LOSS spike",
                "ERROR:root:nan loss",
                "CRITICAL:root:dead"
            ]
        );
        let exactly = Filter {
            level: Some(LevelFilter::Exactly(Level::Info)),
            ..Filter::default()
        };
        assert_eq!(
            run(exactly),
            ["INFO:root:Loss is fine", "INFO:root:other loss"]
        );
        let search = Filter {
            search: Some("LoSs".into()),
            ..Filter::default()
        };
        assert_eq!(run(search.clone()).len(), 5);
        let search_and_level = Filter {
            level: Some(LevelFilter::AtLeast(Level::Error)),
            ..search
        };
        assert_eq!(run(search_and_level), ["ERROR:root:nan loss"]);
        let time = Filter {
            since_ms: Some(1),
            until_ms: Some(4),
            ..Filter::default()
        };
        assert_eq!(
            run(time),
            [
                "WARNING:root:LOSS spike",
                "plain loss line",
                "ERROR:root:nan loss"
            ]
        );
        let nothing = Filter {
            search: Some("absent".into()),
            ..Filter::default()
        };
        assert!(run(nothing).is_empty());
    }

    #[test]
    fn a_page_reports_where_the_search_text_is() {
        let (_d, logs) = store();
        logs.ingest(batch(7, "n0", 0, 0, &["Loss up, loss down", "none"]))
            .unwrap();
        let f = Filter {
            search: Some("loss".into()),
            ..Filter::default()
        };
        let p = logs.read(|c| page(c, 7, &f, Position::Latest, 10)).unwrap();
        assert_eq!(p.lines.len(), 1);
        assert_eq!(p.lines[0].matches, [(0, 4), (9, 13)]);
        assert_eq!((p.older, p.newer), (None, None));
    }

    #[test]
    fn a_dense_first_page_does_not_read_every_chunk() {
        let (_d, logs) = two_nodes(2_000, 100);
        let f = Filter {
            search: Some("n".into()),
            ..Filter::default()
        };
        logs.read(|c| {
            let mut lines = Lines::new(c, 7, &f, Position::Latest)?;
            let first: Vec<_> = lines.by_ref().take(50).collect::<Result<_, _>>()?;
            assert_eq!(first[0].text, "n1-1999");
            // 40 chunks of 100 lines; the newest chunk of each node was enough.
            assert_eq!(lines.chunks_read(), 2);
            assert_eq!(lines.scan.heap.len(), 200 - 50);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn a_sparse_search_reads_ahead_and_pages_without_loss() {
        let (_d, logs) = two_nodes(3_000, 50);
        let f = Filter {
            search: Some("99".into()),
            ..Filter::default()
        };
        // Newest first: for each seq containing "99", n1's line (odd ms) then n0's.
        let want: Vec<String> = (0..3_000)
            .rev()
            .filter(|s: &u64| s.to_string().contains("99"))
            .flat_map(|s| [format!("n1-{s}"), format!("n0-{s}")])
            .collect();
        let all: Vec<String> = logs
            .read(|c| {
                Lines::new(c, 7, &f, Position::Latest)?
                    .map(|l| l.map(|l| l.text))
                    .collect::<Result<Vec<_>, _>>()
            })
            .unwrap();
        assert_eq!(all, want);
        let mut paged = Vec::new();
        let mut p = logs.read(|c| page(c, 7, &f, Position::Latest, 7)).unwrap();
        loop {
            paged.extend(p.lines.iter().rev().map(|l| l.line.text.clone()));
            let Some(older) = p.older.clone() else { break };
            p = logs
                .read(|c| page(c, 7, &f, Position::Before(older), 7))
                .unwrap();
        }
        assert_eq!(paged, want);
    }

    #[test]
    fn a_rare_search_decompresses_only_chunks_whose_summary_allows_it() {
        let (_d, logs) = two_nodes(2_000, 100);
        logs.ingest(batch(7, "n0", 2_000, 1_001, &["CUDA out of memory"]))
            .unwrap();
        let f = Filter {
            search: Some("Out Of Memory".into()),
            ..Filter::default()
        };
        logs.read(|c| {
            let mut lines = Lines::new(c, 7, &f, Position::Latest)?;
            let found: Vec<_> = lines.by_ref().collect::<Result<_, _>>()?;
            assert_eq!(found.len(), 1);
            assert_eq!(found[0].text, "CUDA out of memory");
            assert_eq!(lines.chunks_read(), 1);
            Ok(())
        })
        .unwrap();
    }

    #[test]
    fn follow_returns_arrivals_once_including_late_gap_fills() {
        let (_d, logs) = store();
        logs.ingest(batch(7, "n0", 0, 100, &["a", "b"])).unwrap();
        let f = Filter::default();
        let p = logs.read(|c| page(c, 7, &f, Position::Latest, 10)).unwrap();
        let none = logs.read(|c| follow(c, 7, &f, p.follow_from, 100)).unwrap();
        assert!(none.lines.is_empty());
        assert_eq!(none.next, p.follow_from);
        logs.ingest(batch(7, "n0", 4, 200, &["e"])).unwrap();
        logs.ingest(batch(7, "n1", 0, 150, &["x"])).unwrap();
        // The gap fill has older timestamps than what followers already saw.
        logs.ingest(batch(7, "n0", 2, 110, &["c", "d"])).unwrap();
        let got = logs.read(|c| follow(c, 7, &f, none.next, 100)).unwrap();
        let t: Vec<&str> = got.lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(t, ["e", "x", "c", "d"]);
        let again = logs.read(|c| follow(c, 7, &f, got.next, 100)).unwrap();
        assert!(again.lines.is_empty());
        // A small max_lines stops after whole chunks and resumes without loss.
        let one = logs.read(|c| follow(c, 7, &f, none.next, 1)).unwrap();
        assert_eq!(one.lines.len(), 1);
        let rest = logs.read(|c| follow(c, 7, &f, one.next, 100)).unwrap();
        assert_eq!(rest.lines.len(), 3);
        // With a filter, skipped chunks advance the cursor too.
        let n1 = Filter {
            node: Some("n1".into()),
            ..Filter::default()
        };
        let only = logs.read(|c| follow(c, 7, &n1, none.next, 100)).unwrap();
        assert_eq!(only.lines.len(), 1);
        assert_eq!(only.next, got.next);
    }

    #[test]
    fn bad_page_requests_are_refused() {
        let (_d, logs) = store();
        let f = Filter::default();
        for limit in [0, MAX_PAGE + 1] {
            assert!(matches!(
                logs.read(|c| page(c, 7, &f, Position::Latest, limit)),
                Err(Error::InvalidParameter(_))
            ));
        }
        let multi = Filter {
            search: Some("a\nb".into()),
            ..Filter::default()
        };
        assert!(logs
            .read(|c| page(c, 7, &multi, Position::Latest, 1))
            .is_err());
    }

    #[test]
    fn an_empty_job_run_has_an_empty_page() {
        let (_d, logs) = store();
        let p = logs
            .read(|c| page(c, 7, &Filter::default(), Position::Latest, 10))
            .unwrap();
        assert!(p.lines.is_empty());
        assert_eq!((p.older, p.newer, p.follow_from), (None, None, 0));
    }
}
