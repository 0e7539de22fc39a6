//! The disk spool of one node's lines in one attempt: every line is appended to a file
//! (one JSON [`NewLogLine`] a line; line `i` of the file has sequence number `i`) before it
//! is sent, and the sender reads batches back from the file. Memory stays bounded however
//! long the server is away; the file is removed once every line is acknowledged.
//!
//! The writer publishes how many lines are in the file (flushed) through a watch channel;
//! the reader never reads past that count, so it never sees half a line. The channel
//! closes when the writer is dropped (the process's output ended).

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use api_types::logs::NewLogLine;
use tokio::sync::watch;

/// Every this many lines the reader remembers a file offset, to go back to a line cheaply.
const CHECKPOINT_EVERY: u64 = 1024;

/// The default spool directory: `$XDG_STATE_HOME/runlens-agent/spool`, else
/// `~/.local/state/runlens-agent/spool`, else under the temporary directory.
pub fn default_dir() -> PathBuf {
    let state = std::env::var_os("XDG_STATE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|home| Path::new(&home).join(".local/state"))
        })
        .unwrap_or_else(std::env::temp_dir);
    state.join("runlens-agent").join("spool")
}

/// Creates the spool file `name` in `dir`: its writer and its reader.
pub fn create(dir: &Path, name: &str) -> std::io::Result<(SpoolWriter, SpoolReader)> {
    let path = dir.join(name);
    // Only the user may read it: lines can hold anything the command printed.
    let file = OpenOptions::new()
        .create_new(true)
        .append(true)
        .mode(0o600)
        .open(&path)?;
    let input = File::open(&path)?;
    let (tx, rx) = watch::channel(0);
    let writer = SpoolWriter {
        file,
        committed: 0,
        count: 0,
        tx,
        path: path.clone(),
        buf: Vec::new(),
        failing: false,
    };
    let reader = SpoolReader {
        input: BufReader::new(input),
        path,
        next: 0,
        offset: 0,
        checkpoints: vec![0],
        written: rx,
        buf: String::new(),
    };
    Ok((writer, reader))
}

/// Appends lines to the spool.
#[derive(Debug)]
pub struct SpoolWriter {
    file: File,
    /// Bytes of complete lines in the file.
    committed: u64,
    count: u64,
    tx: watch::Sender<u64>,
    path: PathBuf,
    buf: Vec<u8>,
    failing: bool,
}

impl SpoolWriter {
    /// Appends `lines` (one write) and makes them visible to the reader. A disk error is
    /// logged once; the lines it hit are not shipped, and the file is cut back to its last
    /// complete line so that line `i` stays sequence number `i`.
    pub fn append(&mut self, lines: &[NewLogLine]) {
        self.buf.clear();
        for line in lines {
            // A NewLogLine always serializes (strings and numbers only).
            if serde_json::to_writer(&mut self.buf, line).is_ok() {
                self.buf.push(b'\n');
            }
        }
        match self.file.write_all(&self.buf) {
            Ok(()) => {
                self.committed += self.buf.len() as u64;
                self.count += lines.len() as u64;
                self.tx.send_replace(self.count);
                if std::mem::take(&mut self.failing) {
                    tracing::info!("writing the log spool {} recovered", self.path.display());
                }
            }
            Err(err) => {
                if !std::mem::replace(&mut self.failing, true) {
                    tracing::error!(
                        "cannot write the log spool {}: {err}; these lines are not shipped",
                        self.path.display()
                    );
                }
                let _ = self.file.set_len(self.committed);
            }
        }
    }
}

/// Reads the spool's lines back, in order, from any sequence number.
#[derive(Debug)]
pub struct SpoolReader {
    input: BufReader<File>,
    path: PathBuf,
    next: u64,
    offset: u64,
    checkpoints: Vec<u64>,
    written: watch::Receiver<u64>,
    buf: String,
}

impl SpoolReader {
    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The sequence number of the next line [`SpoolReader::read`] returns.
    pub fn next_seq(&self) -> u64 {
        self.next
    }

    /// How many lines the file holds now.
    pub fn written(&self) -> u64 {
        *self.written.borrow()
    }

    /// A receiver of the written-lines count.
    pub fn watch(&self) -> watch::Receiver<u64> {
        self.written.clone()
    }

    /// Waits until more lines are written; false when the writer is gone (no more will
    /// come).
    pub async fn changed(&mut self) -> bool {
        self.written.changed().await.is_ok()
    }

    /// Lines from [`SpoolReader::next_seq`] on, at most `max_lines` and stopping once their
    /// JSON reaches `max_bytes` (so a batch's body is at most `max_bytes` plus one line).
    pub fn read(&mut self, max_lines: usize, max_bytes: usize) -> std::io::Result<Vec<NewLogLine>> {
        let available = self.written().saturating_sub(self.next);
        let want = available.min(max_lines as u64);
        let mut lines = Vec::new();
        let mut bytes = 0usize;
        while (lines.len() as u64) < want && bytes < max_bytes {
            self.buf.clear();
            let n = self.input.read_line(&mut self.buf)?;
            if n == 0 || !self.buf.ends_with('\n') {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("the spool {} ends early", self.path.display()),
                ));
            }
            let line: NewLogLine = serde_json::from_str(&self.buf)?;
            self.advance(n as u64);
            bytes += n;
            lines.push(line);
        }
        Ok(lines)
    }

    fn advance(&mut self, n: u64) {
        self.offset += n;
        self.next += 1;
        if self.next.is_multiple_of(CHECKPOINT_EVERY)
            && self.next / CHECKPOINT_EVERY == self.checkpoints.len() as u64
        {
            self.checkpoints.push(self.offset);
        }
    }

    /// Goes back (or forward, within what was read before) to line `seq`.
    pub fn seek(&mut self, seq: u64) -> std::io::Result<()> {
        let known = (self.checkpoints.len() as u64 - 1) * CHECKPOINT_EVERY;
        let from = seq.min(known) / CHECKPOINT_EVERY;
        let offset = self.checkpoints[from as usize];
        self.input.seek(SeekFrom::Start(offset))?;
        self.offset = offset;
        self.next = from * CHECKPOINT_EVERY;
        while self.next < seq {
            self.buf.clear();
            let n = self.input.read_line(&mut self.buf)?;
            if n == 0 || !self.buf.ends_with('\n') {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::UnexpectedEof,
                    format!("the spool {} has no line {seq}", self.path.display()),
                ));
            }
            self.advance(n as u64);
        }
        Ok(())
    }

    /// Deletes the file (every line was acknowledged).
    pub fn remove(self) {
        if let Err(err) = std::fs::remove_file(&self.path) {
            tracing::debug!("cannot remove the spool {}: {err}", self.path.display());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use api_types::logs::LogStream;

    fn lines(from: usize, n: usize) -> Vec<NewLogLine> {
        (from..from + n)
            .map(|i| NewLogLine {
                ts_ms: i as i64,
                stream: LogStream::Stdout,
                text: format!("line {i}\nwith \"quotes\""),
            })
            .collect()
    }

    #[tokio::test]
    async fn lines_come_back_in_batches_and_from_any_seq() {
        let dir = tempfile::tempdir().unwrap();
        let (mut w, mut r) = create(dir.path(), "s.jsonl").unwrap();
        assert!(
            create(dir.path(), "s.jsonl").is_err(),
            "never reuses a file"
        );
        assert!(r.read(10, 1 << 20).unwrap().is_empty());
        w.append(&lines(0, 3000));
        assert_eq!(r.written(), 3000);
        let batch = r.read(1000, 1 << 20).unwrap();
        assert_eq!(
            (batch.len(), batch[999].ts_ms, r.next_seq()),
            (1000, 999, 1000)
        );
        // The byte cap stops a batch early (one line past it at most).
        let one = serde_json::to_string(&lines(0, 1)[0]).unwrap().len() + 1;
        assert_eq!(r.read(1000, 3 * one).unwrap().len(), 3);
        let rest = r.read(5000, 1 << 30).unwrap();
        assert_eq!((rest.len(), r.next_seq()), (1997, 3000));
        assert_eq!(rest[1996], lines(2999, 1)[0]);

        r.seek(5).unwrap();
        assert_eq!(r.read(1, 1 << 20).unwrap()[0].ts_ms, 5);
        r.seek(2050).unwrap();
        assert_eq!(r.read(1, 1 << 20).unwrap()[0].ts_ms, 2050);
        assert!(r.seek(3001).is_err());

        // The reader waits for more, then hears the writer is gone.
        r.seek(3000).unwrap();
        w.append(&lines(3000, 1));
        assert!(r.changed().await);
        assert_eq!(r.read(10, 1 << 20).unwrap().len(), 1);
        drop(w);
        assert!(!r.changed().await);
        let path = r.path().to_owned();
        assert!(path.exists());
        r.remove();
        assert!(!path.exists());
    }

    #[test]
    fn the_default_dir_follows_xdg_state_home() {
        let dir = default_dir();
        assert!(dir.ends_with("runlens-agent/spool"), "{}", dir.display());
    }
}
