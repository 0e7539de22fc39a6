//! Log levels and the parser that finds them in a line's text.
//!
//! Recognised forms (ANSI colour codes are skipped for parsing, never removed from the text):
//! - glog / absl: `I0101 12:00:00.123456 1234 file.cc:12] msg` (`I`/`W`/`E`/`F`).
//! - A level word, uppercase, standing alone in the line's first `HEAD` bytes: Python
//!   logging (`2024-01-01 12:00:00,123 - name - INFO - msg`, `WARNING:root:msg`), loguru
//!   (`| INFO |`), NCCL (`NCCL INFO ...`), Go/Java loggers (`12:00:00 WARN msg`).
//! - Any case inside brackets: `[info]`, `[Warn]`, `[ERROR]`.
//! - Any case after a level key: logfmt `level=info`, `lvl=warn`, JSON `"level": "error"`.
//! - A Python traceback: `Traceback (most recent call last):`, its indented lines and the
//!   exception line that ends it are ERROR, and so are the chaining lines between two
//!   tracebacks (`During handling of the above exception, ...`). A prefix before
//!   `Traceback` (e.g. torchrun's `[rank0]: `) is expected on every line of the traceback.
//!
//! Aliases: TRACE is DEBUG, WARN is WARNING, ERR is ERROR, FATAL/CRIT/PANIC are CRITICAL.
//! A line with none of these has no level.

use std::borrow::Cow;
use std::sync::LazyLock;

use memchr::memmem::Finder;

/// Bytes from the start of a line in which a level word is looked for.
const HEAD: usize = 128;

/// The marker that starts a Python traceback.
const TRACEBACK: &str = "Traceback (most recent call last):";

/// A searcher for [`TRACEBACK`], built once (every line is searched for it).
static TRACEBACK_FINDER: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(TRACEBACK.as_bytes()));

/// Lines that join two chained Python tracebacks.
const CHAINING: [&str; 2] = [
    "During handling of the above exception",
    "The above exception was the direct cause",
];

/// A line's severity, ordered from least to most severe (Python logging's levels).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// DEBUG (and TRACE).
    Debug,
    /// INFO.
    Info,
    /// WARNING (and WARN).
    Warning,
    /// ERROR (and a traceback's lines).
    Error,
    /// CRITICAL (and FATAL).
    Critical,
}

impl Level {
    /// Every level, least severe first.
    pub(crate) const ALL: [Level; 5] = [
        Level::Debug,
        Level::Info,
        Level::Warning,
        Level::Error,
        Level::Critical,
    ];

    /// The level's name as shown and as accepted in filters (`INFO`).
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Level::Debug => "DEBUG",
            Level::Info => "INFO",
            Level::Warning => "WARNING",
            Level::Error => "ERROR",
            Level::Critical => "CRITICAL",
        }
    }

    /// A level name or alias in any case (`warn`, `FATAL`); `None` if it is none.
    pub(crate) fn from_name(name: &str) -> Option<Level> {
        let mut buf = [0u8; 8];
        let b = name.as_bytes();
        if b.len() > buf.len() {
            return None;
        }
        buf[..b.len()].copy_from_slice(b);
        buf[..b.len()].make_ascii_uppercase();
        match &buf[..b.len()] {
            b"DEBUG" | b"TRACE" => Some(Level::Debug),
            b"INFO" => Some(Level::Info),
            b"WARN" | b"WARNING" => Some(Level::Warning),
            b"ERROR" | b"ERR" => Some(Level::Error),
            b"CRITICAL" | b"CRIT" | b"FATAL" | b"PANIC" => Some(Level::Critical),
            _ => None,
        }
    }

    /// The level's code in the chunk format: 1 (DEBUG) to 5 (CRITICAL); 0 is "no level".
    pub(crate) fn code(self) -> u8 {
        self as u8 + 1
    }

    /// The level of a chunk-format code; `None` for 0 or an unknown code.
    pub(crate) fn from_code(code: u8) -> Option<Level> {
        Level::ALL.get(usize::from(code).checked_sub(1)?).copied()
    }
}

impl std::fmt::Display for Level {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Where a node's output stands with respect to a Python traceback.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum Traceback {
    /// Not in a traceback.
    #[default]
    Outside,
    /// Inside one whose lines start with `prefix`: indented lines are its frames.
    Inside { prefix: String },
    /// Just after an exception line: blank and chaining lines still belong to it.
    After { prefix: String },
}

/// Finds levels line by line for one node, carrying the traceback state from line to line.
/// The state survives batches through [`LevelParser::state`] / [`LevelParser::from_state`]
/// (stored with each chunk).
#[derive(Debug, Clone, Default)]
pub(crate) struct LevelParser {
    traceback: Traceback,
}

impl LevelParser {
    /// A parser resuming from a state saved by [`LevelParser::state`]; an unknown or empty
    /// state starts outside any traceback.
    pub(crate) fn from_state(state: &str) -> Self {
        let traceback = match state.split_at_checked(1) {
            Some(("T", prefix)) => Traceback::Inside {
                prefix: prefix.to_owned(),
            },
            Some(("A", prefix)) => Traceback::After {
                prefix: prefix.to_owned(),
            },
            _ => Traceback::Outside,
        };
        LevelParser { traceback }
    }

    /// The state to resume from after the last line parsed (empty outside a traceback).
    pub(crate) fn state(&self) -> String {
        match &self.traceback {
            Traceback::Outside => String::new(),
            Traceback::Inside { prefix } => format!("T{prefix}"),
            Traceback::After { prefix } => format!("A{prefix}"),
        }
    }

    /// The level of the next line of this node's output.
    pub(crate) fn line(&mut self, text: &str) -> Option<Level> {
        let plain = strip_ansi(text);
        let s: &str = &plain;
        if let Some(at) = TRACEBACK_FINDER.find(s.as_bytes()) {
            self.traceback = Traceback::Inside {
                prefix: s[..at].to_owned(),
            };
            return Some(Level::Error);
        }
        match std::mem::take(&mut self.traceback) {
            Traceback::Outside => {}
            Traceback::Inside { prefix } => {
                if let Some(body) = s.strip_prefix(prefix.as_str()) {
                    if body.starts_with([' ', '\t']) {
                        self.traceback = Traceback::Inside { prefix };
                    } else {
                        // The exception line ends the traceback.
                        self.traceback = Traceback::After { prefix };
                    }
                    return Some(Level::Error);
                }
            }
            Traceback::After { prefix } => {
                if let Some(body) = s.strip_prefix(prefix.as_str()) {
                    let body = body.trim();
                    if body.is_empty() {
                        self.traceback = Traceback::After { prefix };
                        return None;
                    }
                    if CHAINING.iter().any(|c| body.starts_with(c)) {
                        self.traceback = Traceback::After { prefix };
                        return Some(Level::Error);
                    }
                }
            }
        }
        detect(s)
    }
}

/// The level written in one line (no traceback state); ANSI codes must be stripped already.
fn detect(s: &str) -> Option<Level> {
    let b = s.trim_start().as_bytes();
    if let Some(level) = glog(b) {
        return Some(level);
    }
    let head = &b[..b.len().min(HEAD)];
    let mut i = 0;
    while i < head.len() {
        if !head[i].is_ascii_alphabetic() || (i > 0 && is_word(head[i - 1])) {
            i += 1;
            continue;
        }
        let start = i;
        while i < head.len() && head[i].is_ascii_alphabetic() {
            i += 1;
        }
        if i < b.len() && is_word(b[i]) {
            continue;
        }
        let word = &head[start..i];
        // Level words are 3..=8 ASCII letters, so this is valid UTF-8.
        let Some(level) = std::str::from_utf8(word).ok().and_then(Level::from_name) else {
            continue;
        };
        let upper = word.iter().all(u8::is_ascii_uppercase) && word.len() >= 4;
        let bracketed = start > 0 && head[start - 1] == b'[' && b.get(i) == Some(&b']');
        if upper || bracketed || after_level_key(&head[..start]) {
            return Some(level);
        }
    }
    None
}

/// glog's `Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg` (and absl's).
fn glog(b: &[u8]) -> Option<Level> {
    let level = match b.first()? {
        b'I' => Level::Info,
        b'W' => Level::Warning,
        b'E' => Level::Error,
        b'F' => Level::Critical,
        _ => return None,
    };
    let shape = b.len() > 8
        && b[1..5].iter().all(u8::is_ascii_digit)
        && b[5] == b' '
        && b[6].is_ascii_digit()
        && b[7].is_ascii_digit()
        && b[8] == b':';
    shape.then_some(level)
}

/// True when `before` ends with a level key and its separator: `level=`, `lvl=`,
/// `"level": "`, `severity=`.
fn after_level_key(before: &[u8]) -> bool {
    let mut end = before.len();
    let mut separated = false;
    while end > 0 && matches!(before[end - 1], b'"' | b'\'' | b' ' | b'=' | b':') {
        separated |= matches!(before[end - 1], b'=' | b':');
        end -= 1;
    }
    if !separated {
        return false;
    }
    let key = &before[..end];
    ["level", "lvl", "severity", "loglevel"].iter().any(|k| {
        key.len() >= k.len()
            && key[key.len() - k.len()..].eq_ignore_ascii_case(k.as_bytes())
            && (key.len() == k.len() || !is_word(key[key.len() - k.len() - 1]))
    })
}

fn is_word(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The text without ANSI escape sequences (CSI `ESC [ ... final`, OSC `ESC ] ... BEL|ST`,
/// and two-byte `ESC x`); borrowed when there are none.
pub(crate) fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains('\x1b') {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] != 0x1b {
            out.push(b[i]);
            i += 1;
            continue;
        }
        i += 1;
        match b.get(i) {
            Some(b'[') => {
                i += 1;
                while i < b.len() && !(0x40..=0x7e).contains(&b[i]) {
                    i += 1;
                }
                i += 1;
            }
            Some(b']') => {
                while i < b.len() && b[i] != 0x07 && !(b[i] == 0x1b && b.get(i + 1) == Some(&b'\\'))
                {
                    i += 1;
                }
                i += if b.get(i) == Some(&0x07) { 1 } else { 2 };
            }
            Some(_) => i += 1,
            None => {}
        }
    }
    // Only whole ASCII escape sequences were removed, so the rest is still UTF-8.
    Cow::Owned(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Option<Level> {
        LevelParser::default().line(text)
    }

    #[test]
    fn common_formats_give_their_level() {
        use Level::*;
        let table: &[(&str, Option<Level>)] = &[
            // Python logging, default format and basicConfig's.
            (
                "2024-01-01 12:00:00,123 - trainer - INFO - step 1",
                Some(Info),
            ),
            (
                "2024-01-01 12:00:00,123 - a.b.c - WARNING - slow",
                Some(Warning),
            ),
            ("INFO:root:starting", Some(Info)),
            ("WARNING:root:careful", Some(Warning)),
            ("ERROR:torch.distributed:boom", Some(Error)),
            ("CRITICAL:root:dead", Some(Critical)),
            ("DEBUG:root:x=1", Some(Debug)),
            // glog / absl.
            ("I0101 12:00:00.123456 1234 file.cc:12] msg", Some(Info)),
            ("W0101 12:00:00.123456 1234 file.cc:12] msg", Some(Warning)),
            ("E1231 23:59:59.000001    7 main.cc:1] bad", Some(Error)),
            (
                "F0101 12:00:00.123456 1234 file.cc:12] Check failed",
                Some(Critical),
            ),
            ("I am a line", None),
            ("E2E test passed", None),
            // Bracketed, any case.
            ("[INFO] ready", Some(Info)),
            ("[warn] disk almost full", Some(Warning)),
            ("[Error] nope", Some(Error)),
            ("12:00:01 [fatal] gone", Some(Critical)),
            ("[debug] x", Some(Debug)),
            // logfmt and JSON.
            ("ts=2024-01-01T00:00:00Z level=info msg=hi", Some(Info)),
            ("level=warn msg=\"slow step\"", Some(Warning)),
            ("lvl=err msg=x", Some(Error)),
            (r#"{"level":"error","msg":"x"}"#, Some(Error)),
            (r#"{"time": 1, "level": "debug"}"#, Some(Debug)),
            // Aliases and other loggers.
            ("2024-01-01T00:00:00.000Z WARN  server: slow", Some(Warning)),
            ("12:00:00 FATAL cannot continue", Some(Critical)),
            (
                "2024-01-01 12:00:00.123 | ERROR    | mod:fn:12 - x",
                Some(Error),
            ),
            (
                "node1:123:456 [0] NCCL INFO Bootstrap : Using eth0",
                Some(Info),
            ),
            // Lowercase words in prose are not levels; neither are parts of words.
            ("the info you asked for", None),
            ("an error occurred in prose", None),
            ("INFORMATION about DEBUGGING", None),
            ("prefix_ERROR_suffix", None),
            ("epoch 1 loss 0.25", None),
            ("", None),
        ];
        for (text, want) in table {
            assert_eq!(one(text), *want, "{text:?}");
        }
    }

    #[test]
    fn ansi_codes_are_ignored_for_parsing() {
        assert_eq!(one("\x1b[32mINFO\x1b[0m step 1"), Some(Level::Info));
        assert_eq!(one("\x1b[1;31m[ERROR]\x1b[0m failed"), Some(Level::Error));
        // `ESC[31mERROR` would otherwise glue `m` to the word.
        assert_eq!(one("\x1b[31mERROR:root:x"), Some(Level::Error));
        assert_eq!(strip_ansi("\x1b[1;32mok\x1b[0m"), "ok");
        assert_eq!(strip_ansi("\x1b]0;title\x07text"), "text");
        assert_eq!(strip_ansi("plain"), "plain");
    }

    #[test]
    fn a_traceback_is_error_until_its_exception_line() {
        let lines = [
            ("step 3 loss 0.1", None),
            ("Traceback (most recent call last):", Some(Level::Error)),
            (
                "  File \"train.py\", line 3, in <module>",
                Some(Level::Error),
            ),
            ("    main()", Some(Level::Error)),
            ("    ~~~~^^", Some(Level::Error)),
            ("ValueError: bad shape", Some(Level::Error)),
            ("", None),
            (
                "During handling of the above exception, another exception occurred:",
                Some(Level::Error),
            ),
            ("", None),
            ("Traceback (most recent call last):", Some(Level::Error)),
            ("  File \"x.py\", line 1", Some(Level::Error)),
            ("RuntimeError: again", Some(Level::Error)),
            ("retrying in 5 s", None),
            ("INFO:root:next", Some(Level::Info)),
        ];
        let mut p = LevelParser::default();
        for (text, want) in lines {
            assert_eq!(p.line(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_traceback_with_a_prefix_and_colours_keeps_its_prefix() {
        let mut p = LevelParser::default();
        let lines = [
            "[rank1]: Traceback (most recent call last):",
            "[rank1]:   File \"t.py\", line 9, in step",
            "\x1b[35m[rank1]:\x1b[0m     loss.backward()",
            "[rank1]: torch.OutOfMemoryError: CUDA out of memory",
        ];
        for text in lines {
            assert_eq!(p.line(text), Some(Level::Error), "{text:?}");
        }
        // Another rank's line is not part of rank 1's traceback.
        assert_eq!(p.line("[rank0]:   still fine"), None);
    }

    #[test]
    fn the_traceback_state_survives_a_save_and_restore() {
        let mut p = LevelParser::default();
        p.line("Traceback (most recent call last):");
        p.line("  File \"a.py\", line 1");
        let saved = p.state();
        assert_eq!(saved, "T");
        let mut q = LevelParser::from_state(&saved);
        assert_eq!(q.line("    frame()"), Some(Level::Error));
        assert_eq!(q.line("KeyError: 'x'"), Some(Level::Error));
        assert_eq!(q.state(), "A");
        assert_eq!(q.line("next"), None);
        assert_eq!(q.state(), "");
        // A fresh parser does not take an indented line for a frame.
        assert_eq!(LevelParser::from_state("").line("    frame()"), None);
        assert_eq!(
            LevelParser::from_state("T[rank0]: ").line("[rank0]:   f()"),
            Some(Level::Error)
        );
    }

    #[test]
    fn names_codes_and_order() {
        for l in Level::ALL {
            assert_eq!(Level::from_code(l.code()), Some(l));
            assert_eq!(Level::from_name(l.as_str()), Some(l));
        }
        assert_eq!(Level::from_code(0), None);
        assert_eq!(Level::from_code(6), None);
        assert_eq!(Level::from_name("fatal"), Some(Level::Critical));
        assert_eq!(Level::from_name("warn"), Some(Level::Warning));
        assert_eq!(Level::from_name("verbose"), None);
        assert!(Level::Debug < Level::Info && Level::Error < Level::Critical);
    }
}
