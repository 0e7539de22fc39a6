//! The chunk format: the lines of one node with consecutive sequence numbers, framed in
//! columns and compressed with LZ4 (block format, uncompressed size prepended).
//!
//! Uncompressed layout (varints are LEB128, signed ones zigzag-encoded):
//!
//! ```text
//! version (u8 = 1) | first_seq (varint) | n (varint)
//! ts[0] (signed varint) | ts[i] - ts[i-1] for i in 1..n (signed varints)
//! flags[0..n] (u8 each: bit 0 = stderr, bits 1..=3 = level code, 0 = none)
//! len[0..n] (varint each: the text's length in bytes)
//! text[0] text[1] ... (concatenated, no separator)
//! ```
//!
//! Line `i` has sequence number `first_seq + i`. The texts are one contiguous region, so a
//! search runs over a whole chunk with one substring scan and maps hits back to lines.

use memchr::memmem::Finder;

use super::level::Level;
use super::Stream;

/// The format version written first in every chunk.
const VERSION: u8 = 1;

/// A chunk that cannot be read back (corrupt or written by a newer version).
#[derive(Debug, thiserror::Error)]
pub enum ChunkError {
    /// The LZ4 block does not decompress.
    #[error("log chunk does not decompress: {0}")]
    Decompress(#[from] lz4_flex::block::DecompressError),
    /// The decompressed bytes are not a chunk of a known version.
    #[error("log chunk is malformed: {0}")]
    Malformed(&'static str),
}

/// One line as it goes into a chunk.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LineRef<'a> {
    /// Milliseconds since the Unix epoch.
    pub ts_ms: i64,
    /// stdout or stderr.
    pub stream: Stream,
    /// The parsed level, if any.
    pub level: Option<Level>,
    /// The text as received (ANSI codes included).
    pub text: &'a [u8],
}

/// An encoded chunk with the summary stored beside it.
#[derive(Debug, Clone)]
pub(crate) struct Encoded {
    /// The compressed bytes.
    pub data: Vec<u8>,
    /// The smallest and largest timestamp of its lines.
    pub min_ts: i64,
    /// See `min_ts`.
    pub max_ts: i64,
    /// Bit `code` set for each level code present (bit 0: lines without a level).
    pub level_mask: i64,
    /// The trigram summary of the texts ([`Grams`]).
    pub grams: Vec<u8>,
}

/// Encodes `lines` (sequence numbers `first_seq..`); `lines` must not be empty.
pub(crate) fn encode(first_seq: u64, lines: &[LineRef<'_>]) -> Encoded {
    let text_len: usize = lines.iter().map(|l| l.text.len()).sum();
    let mut raw = Vec::with_capacity(text_len + lines.len() * 6 + 16);
    raw.push(VERSION);
    put_varint(&mut raw, first_seq);
    put_varint(&mut raw, lines.len() as u64);
    let mut prev = 0i64;
    let (mut min_ts, mut max_ts) = (i64::MAX, i64::MIN);
    for l in lines {
        put_varint(&mut raw, zigzag(l.ts_ms.wrapping_sub(prev)));
        prev = l.ts_ms;
        min_ts = min_ts.min(l.ts_ms);
        max_ts = max_ts.max(l.ts_ms);
    }
    let mut level_mask = 0i64;
    for l in lines {
        let code = l.level.map_or(0, Level::code);
        level_mask |= 1 << code;
        raw.push(u8::from(l.stream == Stream::Stderr) | code << 1);
    }
    for l in lines {
        put_varint(&mut raw, l.text.len() as u64);
    }
    let mut grams = vec![0u8; grams_bytes(text_len)];
    for l in lines {
        raw.extend_from_slice(l.text);
        for w in l.text.windows(3) {
            let bit = gram_bit(gram_hash(w), grams.len());
            grams[bit >> 3] |= 1 << (bit & 7);
        }
    }
    Encoded {
        data: lz4_flex::block::compress_prepend_size(&raw),
        min_ts,
        max_ts,
        level_mask,
        grams,
    }
}

/// The largest trigram summary, in bytes. A chunk's summary is a one-hash Bloom filter
/// over the ASCII-lowercased 3-byte windows of each line's text (never across two lines),
/// of a power-of-two size from [`MIN_GRAMS_BYTES`] to this, about one byte per 32 bytes of
/// text. A search for a text of 3 bytes or more skips a chunk whose summary lacks one of
/// its trigrams without decompressing it: a rare phrase reads a few chunks, not the run.
/// (About 10,000 distinct trigrams per 1,000 training-log lines fill half of 16,384 bits,
/// so a 10-byte phrase passes a chunk without it with a chance of about 0.5^8.)
pub(crate) const MAX_GRAMS_BYTES: usize = 2048;

/// The smallest trigram summary, in bytes (a chunk of a few lines).
pub(crate) const MIN_GRAMS_BYTES: usize = 64;

/// The summary size for `text_len` bytes of text.
fn grams_bytes(text_len: usize) -> usize {
    (text_len / 32)
        .next_power_of_two()
        .clamp(MIN_GRAMS_BYTES, MAX_GRAMS_BYTES)
}

/// The 32-bit hash of a 3-byte window (lowercased here); a summary of `2^k` bits uses
/// its top `k` bits.
fn gram_hash(w: &[u8]) -> u32 {
    let v = u32::from(w[0].to_ascii_lowercase())
        | u32::from(w[1].to_ascii_lowercase()) << 8
        | u32::from(w[2].to_ascii_lowercase()) << 16;
    v.wrapping_mul(0x9e37_79b1)
}

/// The bit of `hash` in a summary of `bytes` bytes (a power of two).
fn gram_bit(hash: u32, bytes: usize) -> usize {
    let bits_log2 = (bytes * 8).trailing_zeros();
    (hash >> (32 - bits_log2)) as usize
}

/// The trigram hashes a search text needs (none for texts under 3 bytes: every chunk may
/// hold them).
#[derive(Debug, Clone, Default)]
pub(crate) struct Grams(Vec<u32>);

impl Grams {
    /// The hashes of `needle`'s trigrams.
    pub(crate) fn of(needle: &[u8]) -> Self {
        let mut hashes: Vec<u32> = needle.windows(3).map(gram_hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        Grams(hashes)
    }

    /// False only when a chunk with this summary cannot contain the needle; a summary of
    /// a size this version does not write is never ruled out.
    pub(crate) fn may_match(&self, summary: &[u8]) -> bool {
        let n = summary.len();
        if !n.is_power_of_two() || !(MIN_GRAMS_BYTES..=MAX_GRAMS_BYTES).contains(&n) {
            return true;
        }
        self.0.iter().all(|&h| {
            let bit = gram_bit(h, n);
            summary[bit >> 3] & (1 << (bit & 7)) != 0
        })
    }
}

/// A decompressed chunk: columns, and the text region they index. One value is reused
/// from chunk to chunk (`Decoded::read`) so that scans allocate nothing per chunk.
#[derive(Debug, Clone, Default)]
pub struct Decoded {
    /// Sequence number of line 0.
    pub first_seq: u64,
    ts: Vec<i64>,
    flags: Vec<u8>,
    /// `ends[i]`: end offset of line `i`'s text in the text region.
    ends: Vec<usize>,
    raw: Vec<u8>,
    text_start: usize,
}

/// Decompresses and splits a chunk.
pub fn decode(data: &[u8]) -> Result<Decoded, ChunkError> {
    let mut d = Decoded::default();
    d.read(data)?;
    Ok(d)
}

impl Decoded {
    /// Decompresses and splits a chunk into this value, reusing its buffers.
    pub(crate) fn read(&mut self, data: &[u8]) -> Result<(), ChunkError> {
        let (size, block) = data
            .split_first_chunk::<4>()
            .ok_or(ChunkError::Malformed("truncated"))?;
        let size = u32::from_le_bytes(*size) as usize;
        // LZ4 expands at most ~255 times: a larger size is corruption, not a reason to
        // allocate gigabytes.
        if size > block.len().saturating_mul(255).saturating_add(64) {
            return Err(ChunkError::Malformed("decompressed size"));
        }
        // Every byte up to `size` is overwritten below: only growth needs zeroing.
        self.raw.resize(size, 0);
        let got = lz4_flex::block::decompress_into(block, &mut self.raw)?;
        if got != self.raw.len() {
            return Err(ChunkError::Malformed("decompressed size"));
        }
        let mut r = Reader {
            b: &self.raw,
            at: 0,
        };
        if r.byte()? != VERSION {
            return Err(ChunkError::Malformed("unknown version"));
        }
        self.first_seq = r.varint()?;
        let n = usize::try_from(r.varint()?).map_err(|_| ChunkError::Malformed("line count"))?;
        if n > r.b.len() {
            return Err(ChunkError::Malformed("line count"));
        }
        self.ts.clear();
        let mut prev = 0i64;
        for _ in 0..n {
            prev = prev.wrapping_add(unzigzag(r.varint()?));
            self.ts.push(prev);
        }
        self.flags.clear();
        self.flags.extend_from_slice(r.take(n)?);
        self.ends.clear();
        let mut end = 0usize;
        for _ in 0..n {
            let len = usize::try_from(r.varint()?).map_err(|_| ChunkError::Malformed("length"))?;
            end = end
                .checked_add(len)
                .ok_or(ChunkError::Malformed("length"))?;
            self.ends.push(end);
        }
        self.text_start = r.at;
        if self.text_start.checked_add(end) != Some(self.raw.len()) {
            return Err(ChunkError::Malformed("text region size"));
        }
        Ok(())
    }

    /// Number of lines.
    pub(crate) fn len(&self) -> usize {
        self.ts.len()
    }

    /// True when the chunk has no lines (never for a chunk the store wrote).
    pub fn is_empty(&self) -> bool {
        self.ts.is_empty()
    }

    /// Timestamp of line `i`.
    pub(crate) fn ts(&self, i: usize) -> i64 {
        self.ts[i]
    }

    /// Stream of line `i`.
    pub(crate) fn stream(&self, i: usize) -> Stream {
        if self.flags[i] & 1 == 1 {
            Stream::Stderr
        } else {
            Stream::Stdout
        }
    }

    /// Level of line `i`.
    pub(crate) fn level(&self, i: usize) -> Option<Level> {
        Level::from_code(self.flags[i] >> 1)
    }

    /// Text of line `i` as stored.
    pub(crate) fn text(&self, i: usize) -> &[u8] {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.texts()[start..self.ends[i]]
    }

    /// All texts, concatenated.
    fn texts(&self) -> &[u8] {
        &self.raw[self.text_start..]
    }

    /// For each line, whether its text contains the (ASCII-lowercase) needle, ignoring ASCII
    /// case. One substring scan over the chunk's lowercased text region; `scratch` is reused
    /// between chunks.
    pub(crate) fn matching(&self, needle: &Finder<'_>, scratch: &mut Vec<u8>) -> Vec<bool> {
        let mut hit = vec![false; self.len()];
        if needle.needle().is_empty() {
            hit.fill(true);
            return hit;
        }
        scratch.clear();
        scratch.extend(self.texts().iter().map(u8::to_ascii_lowercase));
        let n = needle.needle().len();
        let mut from = 0;
        let mut line = 0;
        while let Some(found) = needle.find(&scratch[from..]) {
            let at = from + found;
            while self.ends[line] <= at {
                line += 1;
            }
            if at + n <= self.ends[line] {
                hit[line] = true;
                // One hit per line is enough: go on from the next line.
                from = self.ends[line];
            } else {
                // A hit across two lines' texts is no hit.
                from = at + 1;
            }
            if from >= scratch.len() {
                break;
            }
        }
        hit
    }
}

/// The byte ranges of every (ASCII case-insensitive, non-overlapping) occurrence of the
/// lowercase `needle` in `text`, for highlighting.
pub(crate) fn match_ranges(text: &str, needle: &Finder<'_>) -> Vec<(usize, usize)> {
    let n = needle.needle().len();
    if n == 0 {
        return Vec::new();
    }
    let lower = text.as_bytes().to_ascii_lowercase();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(found) = needle.find(&lower[from..]) {
        out.push((from + found, from + found + n));
        from += found + n;
    }
    out
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn byte(&mut self) -> Result<u8, ChunkError> {
        let v = *self
            .b
            .get(self.at)
            .ok_or(ChunkError::Malformed("truncated"))?;
        self.at += 1;
        Ok(v)
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], ChunkError> {
        let end = self
            .at
            .checked_add(n)
            .filter(|&e| e <= self.b.len())
            .ok_or(ChunkError::Malformed("truncated"))?;
        let s = &self.b[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn varint(&mut self) -> Result<u64, ChunkError> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err(ChunkError::Malformed("varint too long"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(ts_ms: i64, stream: Stream, level: Option<Level>, text: &str) -> LineRef<'_> {
        LineRef {
            ts_ms,
            stream,
            level,
            text: text.as_bytes(),
        }
    }

    #[test]
    fn lines_round_trip_with_their_columns_and_summary() {
        let lines = [
            line(
                1_700_000_000_123,
                Stream::Stdout,
                Some(Level::Info),
                "héllo",
            ),
            line(1_700_000_000_100, Stream::Stderr, None, ""),
            line(
                -5,
                Stream::Stdout,
                Some(Level::Critical),
                "\x1b[31mred\x1b[0m",
            ),
            line(i64::MAX, Stream::Stderr, Some(Level::Debug), "last"),
        ];
        let enc = encode(u64::MAX - 10, &lines);
        assert_eq!((enc.min_ts, enc.max_ts), (-5, i64::MAX));
        assert_eq!(enc.level_mask, 1 << 0 | 1 << 1 | 1 << 2 | 1 << 5);
        let dec = decode(&enc.data).unwrap();
        assert_eq!(dec.first_seq, u64::MAX - 10);
        assert_eq!(dec.len(), 4);
        for (i, l) in lines.iter().enumerate() {
            assert_eq!(dec.ts(i), l.ts_ms);
            assert_eq!(dec.stream(i), l.stream);
            assert_eq!(dec.level(i), l.level);
            assert_eq!(dec.text(i), l.text);
        }
    }

    #[test]
    fn corrupt_chunks_are_errors_not_panics() {
        let enc = encode(0, &[line(1, Stream::Stdout, None, "some text here")]);
        for cut in 0..enc.data.len() {
            assert!(decode(&enc.data[..cut]).is_err(), "cut at {cut}");
        }
        let mut other = enc.data.clone();
        other[4] ^= 0xff;
        let _ = decode(&other);
        let bad_version = lz4_flex::block::compress_prepend_size(&[9, 0, 0]);
        assert!(matches!(
            decode(&bad_version),
            Err(ChunkError::Malformed("unknown version"))
        ));
    }

    #[test]
    fn search_ignores_ascii_case_and_never_matches_across_lines() {
        let texts = ["Loss is NaN", "abc", "def", "nan values", "xx", "NAN"];
        let lines: Vec<_> = texts
            .iter()
            .map(|t| line(0, Stream::Stdout, None, t))
            .collect();
        let dec = decode(&encode(0, &lines).data).unwrap();
        let mut scratch = Vec::new();
        let nan = Finder::new(b"nan");
        assert_eq!(
            dec.matching(&nan, &mut scratch),
            [true, false, false, true, false, true]
        );
        // "abc" + "def" are adjacent in the text region: "cd" spans two lines.
        let cd = Finder::new(b"cd");
        assert_eq!(dec.matching(&cd, &mut scratch), [false; 6]);
        // An overlapping candidate right after a cross-line one is still found.
        let lines2: Vec<_> = ["xa", "aab"]
            .iter()
            .map(|t| line(0, Stream::Stdout, None, t))
            .collect();
        let dec2 = decode(&encode(0, &lines2).data).unwrap();
        assert_eq!(
            dec2.matching(&Finder::new(b"ab"), &mut scratch),
            [false, true]
        );
    }

    #[test]
    fn the_trigram_summary_never_rules_out_a_present_text() {
        let texts = ["Epoch 3: Loss=0.25 on GPU-7", "CUDA out of memory", "ab"];
        let lines: Vec<_> = texts
            .iter()
            .map(|t| line(0, Stream::Stdout, None, t))
            .collect();
        let enc = encode(0, &lines);
        assert_eq!(enc.grams.len(), MIN_GRAMS_BYTES);
        for t in texts {
            let lower = t.to_ascii_lowercase();
            for a in 0..t.len() {
                for b in a + 1..=t.len() {
                    assert!(Grams::of(&lower.as_bytes()[a..b]).may_match(&enc.grams));
                }
            }
        }
        // Absent texts are ruled out (their trigrams' bits are not all set in this small
        // chunk), including one made of two lines' ends ("gpu-7" + "cuda").
        for absent in ["watchdog timeout", "nccl error", "7cud", "bab"] {
            assert!(
                !Grams::of(absent.as_bytes()).may_match(&enc.grams),
                "{absent}"
            );
        }
        // Short texts and unknown summaries rule nothing out.
        assert!(Grams::of(b"zz").may_match(&enc.grams));
        assert!(Grams::of(b"zzzz").may_match(&[0u8; 16]));
        assert!(Grams::of(b"zzzz").may_match(&[0u8; 100]));
        assert!(!Grams::of(b"zzzz").may_match(&[0u8; 128]));
    }

    #[test]
    fn the_summary_grows_with_the_text_and_keeps_every_trigram() {
        assert_eq!(grams_bytes(0), MIN_GRAMS_BYTES);
        assert_eq!(grams_bytes(100 * 32), 128);
        assert_eq!(grams_bytes(100_000), MAX_GRAMS_BYTES);
        let texts: Vec<String> = (0..1000)
            .map(|i| format!("step {i} loss={}", i * 7))
            .collect();
        let lines: Vec<_> = texts
            .iter()
            .map(|t| line(0, Stream::Stdout, None, t))
            .collect();
        let enc = encode(0, &lines);
        assert_eq!(enc.grams.len(), 1024);
        for t in &texts {
            assert!(Grams::of(t.as_bytes()).may_match(&enc.grams), "{t}");
        }
        assert!(!Grams::of(b"out of memory").may_match(&enc.grams));
    }

    #[test]
    fn match_ranges_are_byte_ranges_of_every_occurrence() {
        let f = Finder::new(b"ab");
        assert_eq!(match_ranges("xAbyaBab", &f), [(1, 3), (4, 6), (6, 8)]);
        assert_eq!(match_ranges("é ab", &f), [(3, 5)]);
        assert!(match_ranges("none", &f).is_empty());
    }
}
