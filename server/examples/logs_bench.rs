//! Benchmark of the log store: ingest rate with one node and with 8 concurrent
//! nodes, and time to the first page of a search over 10,000,000 stored lines.
//!
//! `cargo run --release -p server --example logs_bench [-- TOTAL_LINES]` (default
//! 10,000,000). Lines are ~100-byte Python-logging training lines with varying numbers,
//! sent in batches of 1,000 lines; the database is a fresh `logs.db` in a temp dir, with
//! `synchronous = FULL` as in production.

use std::time::{Duration, Instant};

use server::logs::query::{self, Filter, LevelFilter, Position};
use server::logs::{Batch, Level, LogStore, NewLine, Stream};

const BATCH: u64 = 1_000;
const NODES: u64 = 8;

/// A small deterministic generator for varying numbers.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Line `seq` of a node: mostly INFO training lines, a WARNING every 1,000, an ERROR every
/// 250,000.
fn line(rng: &mut Rng, node: u64, seq: u64, ts_ms: i64) -> NewLine {
    let r = rng.next();
    let (h, m, s, ms) = (
        seq / 3_600_000 % 24,
        seq / 60_000 % 60,
        seq / 1000 % 60,
        seq % 1000,
    );
    let text = if seq % 250_000 == 4_321 {
        format!("2024-05-01 {h:02}:{m:02}:{s:02},{ms:03} - trainer - ERROR - rank {node}: NCCL watchdog timeout after {} ms", r % 100_000)
    } else if seq % 1_000 == 7 {
        format!("2024-05-01 {h:02}:{m:02}:{s:02},{ms:03} - trainer - WARNING - step {seq} slow dataloader: waited {} ms", r % 5_000)
    } else {
        format!(
            "2024-05-01 {h:02}:{m:02}:{s:02},{ms:03} - trainer - INFO - step {seq} loss={:.4} lr={:.2e} grad_norm={:.3} tok/s={}",
            (r % 100_000) as f64 / 25_000.0,
            (r >> 20) as f64 % 1000.0 * 1e-7,
            (r >> 30) as f64 % 10_000.0 / 1000.0,
            r >> 44,
        )
    };
    NewLine {
        ts_ms,
        stream: Stream::Stdout,
        text,
    }
}

/// The batches of one node, `lines` lines from seq 0, one line per ms from `t0`.
fn batches(job_run_id: i64, node: u64, lines: u64, t0: i64) -> impl Iterator<Item = Batch> {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ ((node + 1) * 0x1234_5678));
    (0..lines.div_ceil(BATCH)).map(move |b| {
        let first = b * BATCH;
        let n = BATCH.min(lines - first);
        Batch {
            job_run_id,
            node: format!("node-{node}"),
            first_seq: first,
            lines: (first..first + n)
                .map(|seq| line(&mut rng, node, seq, t0 + seq as i64))
                .collect(),
        }
    })
}

/// Ingests `lines_per_node` lines for each of `nodes` nodes, one thread per node; returns
/// lines per second.
fn ingest(logs: &LogStore, job_run_id: i64, nodes: u64, lines_per_node: u64) -> f64 {
    // Build the batches first, so that the clock measures the store only.
    let all: Vec<Vec<Batch>> = (0..nodes)
        .map(|n| batches(job_run_id, n, lines_per_node, 1_714_521_600_000).collect())
        .collect();
    let start = Instant::now();
    std::thread::scope(|s| {
        for node_batches in all {
            s.spawn(move || {
                for b in node_batches {
                    let n = b.lines.len();
                    let ack = logs.ingest(b).expect("ingest");
                    assert_eq!(ack.stored, n);
                }
            });
        }
    });
    (nodes * lines_per_node) as f64 / start.elapsed().as_secs_f64()
}

/// Median of three runs of `f`, and what the last run returned.
fn timed<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut out = None;
    for _ in 0..3 {
        let start = Instant::now();
        out = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[1], out.expect("ran"))
}

fn main() {
    let total: u64 = std::env::args()
        .nth(1)
        .map_or(10_000_000, |a| a.parse().expect("TOTAL_LINES"));
    let dir = tempfile::tempdir().expect("temp dir");
    let logs = LogStore::open(dir.path()).expect("open");
    println!("log store benchmark: batches of {BATCH} lines, synchronous=FULL");

    let one = ingest(&logs, 1, 1, 500_000);
    println!("ingest, 1 node, 500,000 lines:    {one:>10.0} lines/s");
    let eight = ingest(&logs, 2, NODES, 62_500);
    println!("ingest, 8 nodes, 500,000 lines:   {eight:>10.0} lines/s");

    let per_node = total / NODES;
    let big = ingest(&logs, 3, NODES, per_node);
    let size = std::fs::metadata(dir.path().join("logs.db")).map_or(0, |m| m.len())
        + std::fs::metadata(dir.path().join("logs.db-wal")).map_or(0, |m| m.len());
    println!(
        "ingest, 8 nodes, {} lines:  {big:>10.0} lines/s; logs.db {:.0} MB",
        NODES * per_node,
        size as f64 / 1e6
    );

    // A page of `limit` lines, newest first, as query::page reads it, and how many chunks
    // it decompressed.
    let run = |filter: Filter, limit: usize| {
        logs.read(|c| {
            let mut lines = query::Lines::new(c, 3, &filter, Position::Latest)?;
            let page: Vec<_> = lines.by_ref().take(limit).collect::<Result<_, _>>()?;
            Ok((page.len(), lines.chunks_read()))
        })
        .expect("page")
    };
    let cases: [(&str, Filter); 6] = [
        ("latest 100 lines, no filter", Filter::default()),
        (
            "search common word \"loss\"",
            Filter {
                search: Some("LOSS".into()),
                ..Filter::default()
            },
        ),
        (
            "search rare phrase",
            Filter {
                search: Some("watchdog timeout".into()),
                ..Filter::default()
            },
        ),
        (
            "search absent phrase",
            Filter {
                search: Some("out of memory".into()),
                ..Filter::default()
            },
        ),
        (
            "absent, all trigrams common",
            Filter {
                search: Some("info - trainer".into()),
                ..Filter::default()
            },
        ),
        (
            "level >= ERROR",
            Filter {
                level: Some(LevelFilter::AtLeast(Level::Error)),
                ..Filter::default()
            },
        ),
    ];
    let chunks = (NODES * per_node).div_ceil(BATCH);
    println!(
        "first page (limit 100, newest first) over {} lines in {chunks} chunks:",
        NODES * per_node
    );
    for (name, filter) in cases {
        let (t, (n, chunks)) = timed(|| run(filter.clone(), 100));
        println!(
            "  {name:<32} {:>8.1} ms  ({n} lines, {chunks} chunks decompressed)",
            t.as_secs_f64() * 1e3,
        );
    }

    let start = Instant::now();
    let n = logs
        .read(|c| {
            let f = Filter::default();
            let mut n = 0u64;
            for l in query::stream(c, 3, &f)? {
                l?;
                n += 1;
            }
            Ok(n)
        })
        .expect("stream");
    let t = start.elapsed();
    println!(
        "stream every line oldest-first: {n} lines in {:.2} s ({:.0} lines/s)",
        t.as_secs_f64(),
        n as f64 / t.as_secs_f64()
    );
}
