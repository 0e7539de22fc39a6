//! A process's output as log lines: bytes are split at `\n` (a `\r\n` ending loses both),
//! decoded as UTF-8 (invalid bytes become U+FFFD), and a line longer than
//! [`MAX_LINE_BYTES`] is cut into pieces at character boundaries. A last line without an
//! ending is a line too. [`pump`] copies a pipe to the terminal unchanged and spools its
//! lines.

use std::sync::{Arc, Mutex, PoisonError};

use api_types::logs::{LogStream, NewLogLine, MAX_LINE_BYTES};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

use super::spool::SpoolWriter;
use crate::node::now_ms;

/// Bytes read from a pipe at once.
const READ_CHUNK: usize = 64 * 1024;

/// Splits one stream's bytes into lines.
#[derive(Debug)]
pub struct LineSplitter {
    stream: LogStream,
    pending: Vec<u8>,
}

impl LineSplitter {
    /// A splitter of `stream`'s bytes.
    pub fn new(stream: LogStream) -> Self {
        Self {
            stream,
            pending: Vec::new(),
        }
    }

    /// The complete lines of `chunk` (with what came before it), stamped `ts_ms`.
    pub fn push(&mut self, chunk: &[u8], ts_ms: i64) -> Vec<NewLogLine> {
        let mut out = Vec::new();
        let mut rest = chunk;
        while let Some(end) = rest.iter().position(|&b| b == b'\n') {
            self.pending.extend_from_slice(&rest[..end]);
            rest = &rest[end + 1..];
            if self.pending.last() == Some(&b'\r') {
                self.pending.pop();
            }
            let line = std::mem::take(&mut self.pending);
            self.emit(&line, ts_ms, &mut out);
        }
        self.pending.extend_from_slice(rest);
        // A line that never ends still goes, in pieces, so memory stays bounded. A piece
        // ends at a character boundary; a `\r` at the cut may still be a line ending.
        while self.pending.len() > MAX_LINE_BYTES {
            let cut = utf8_cut(&self.pending, MAX_LINE_BYTES);
            let piece: Vec<u8> = self.pending.drain(..cut).collect();
            self.emit(&piece, ts_ms, &mut out);
        }
        out
    }

    /// The last line when the stream ended without a line ending.
    pub fn finish(&mut self, ts_ms: i64) -> Vec<NewLogLine> {
        let mut out = Vec::new();
        if !self.pending.is_empty() {
            let line = std::mem::take(&mut self.pending);
            self.emit(&line, ts_ms, &mut out);
        }
        out
    }

    fn emit(&self, bytes: &[u8], ts_ms: i64, out: &mut Vec<NewLogLine>) {
        let text = String::from_utf8_lossy(bytes);
        for piece in split_text(&text, MAX_LINE_BYTES) {
            out.push(NewLogLine {
                ts_ms,
                stream: self.stream,
                text: piece.to_owned(),
            });
        }
    }
}

/// The longest prefix of `bytes` of at most `max` bytes that does not end inside a UTF-8
/// character (at least 1 byte, so progress is always made).
fn utf8_cut(bytes: &[u8], max: usize) -> usize {
    let mut cut = max.min(bytes.len());
    // Back over continuation bytes (at most 3) to the start of the character.
    let mut backed = 0;
    while cut > 0 && cut < bytes.len() && backed < 3 && bytes[cut] & 0xC0 == 0x80 {
        cut -= 1;
        backed += 1;
    }
    if cut == 0 || (cut < bytes.len() && bytes[cut] & 0xC0 == 0x80) {
        max.min(bytes.len()).max(1)
    } else {
        cut
    }
}

/// `text` in pieces of at most `max` bytes, cut at character boundaries (one empty piece
/// for an empty text).
pub fn split_text(text: &str, max: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while rest.len() > max {
        let mut cut = max;
        while !rest.is_char_boundary(cut) {
            cut -= 1;
        }
        let (piece, tail) = rest.split_at(cut);
        pieces.push(piece);
        rest = tail;
    }
    pieces.push(rest);
    pieces
}

/// Copies `from` to `to` unchanged (a terminal that went away is ignored) and appends its
/// lines to `spool`, until `from` ends.
pub async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    stream: LogStream,
    spool: Arc<Mutex<SpoolWriter>>,
) {
    let mut splitter = LineSplitter::new(stream);
    let mut buf = vec![0u8; READ_CHUNK];
    let mut terminal_ok = true;
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) => break,
            Ok(n) => n,
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(err) => {
                tracing::debug!("reading the command's output: {err}");
                break;
            }
        };
        if terminal_ok {
            let written = async {
                to.write_all(&buf[..n]).await?;
                to.flush().await
            };
            if let Err(err) = written.await {
                tracing::debug!("the terminal went away ({err}); lines are still shipped");
                terminal_ok = false;
            }
        }
        let lines = splitter.push(&buf[..n], now_ms());
        append(&spool, &lines);
    }
    append(&spool, &splitter.finish(now_ms()));
}

fn append(spool: &Mutex<SpoolWriter>, lines: &[NewLogLine]) {
    if !lines.is_empty() {
        spool
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .append(lines);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(lines: &[NewLogLine]) -> Vec<&str> {
        lines.iter().map(|l| l.text.as_str()).collect()
    }

    #[test]
    fn lines_lose_their_endings_and_partial_lines_wait() {
        let mut s = LineSplitter::new(LogStream::Stderr);
        assert_eq!(texts(&s.push(b"one\r\ntw", 5)), ["one"]);
        let lines = s.push(b"o\n\nthree\rstill three\n", 6);
        assert_eq!(texts(&lines), ["two", "", "three\rstill three"]);
        assert!(lines
            .iter()
            .all(|l| l.ts_ms == 6 && l.stream == LogStream::Stderr));
        assert!(s.push(b"last", 7).is_empty());
        assert_eq!(texts(&s.finish(8)), ["last"]);
        assert!(s.finish(9).is_empty());
    }

    #[test]
    fn invalid_utf8_is_replaced_and_split_characters_are_joined() {
        let mut s = LineSplitter::new(LogStream::Stdout);
        let e_acute = "é".as_bytes();
        assert!(s.push(&[b'a', e_acute[0]], 1).is_empty());
        let lines = s.push(&[e_acute[1], 0xff, b'\n'], 1);
        assert_eq!(texts(&lines), ["aé\u{fffd}"]);
    }

    #[test]
    fn long_lines_are_cut_at_character_boundaries() {
        let mut s = LineSplitter::new(LogStream::Stdout);
        // One byte short of the limit, then a 3-byte character across it, twice over.
        let mut long = "x".repeat(MAX_LINE_BYTES - 1);
        long.push('€');
        long.push_str(&"y".repeat(MAX_LINE_BYTES));
        long.push('\n');
        let lines = s.push(long.as_bytes(), 1);
        assert!(lines.iter().all(|l| l.text.len() <= MAX_LINE_BYTES));
        let joined: String = lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(joined, long.trim_end());
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].text.len(), MAX_LINE_BYTES - 1);

        // A line that never ends is shipped in pieces as it comes.
        let mut endless = LineSplitter::new(LogStream::Stdout);
        let chunk = vec![b'z'; MAX_LINE_BYTES / 2 + 1];
        assert!(endless.push(&chunk, 1).is_empty());
        let piece = endless.push(&chunk, 2);
        assert_eq!(piece.len(), 1);
        assert_eq!(piece[0].text.len(), MAX_LINE_BYTES);
        assert_eq!(endless.finish(3)[0].text.len(), 2);
    }

    #[test]
    fn split_text_keeps_characters_whole() {
        assert_eq!(split_text("", 4), [""]);
        assert_eq!(split_text("abcd", 4), ["abcd"]);
        assert_eq!(split_text("abcde", 4), ["abcd", "e"]);
        assert_eq!(split_text("ab€cd", 4), ["ab", "€c", "d"]);
        assert_eq!(utf8_cut("ab€".as_bytes(), 3), 2);
        assert_eq!(utf8_cut(&[0x80; 8], 4), 4, "garbage still makes progress");
    }
}
