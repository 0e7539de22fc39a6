//! The output lines of the demo's job runs: what a two-node fine-tuning job prints with
//! Python's logging (levels), torch's launcher (ranks), a progress bar with ANSI colours,
//! NCCL's bracketed lines, warnings, and, for the diverged attempt, a traceback. Times
//! follow the attempt's [`Timeline`]; values come from a fixed seed.

use chrono::{TimeZone, Utc};

use super::curves::Noise;
use super::writer::Timeline;
use crate::logs::{NewLine, Stream};

/// Steps between two progress lines of rank 0.
const EVERY: i64 = 5;

/// What one attempt of the demo job did.
pub(crate) struct Attempt<'a> {
    /// The run name (printed at start-up).
    pub run_name: &'a str,
    /// Its steps and their times (`last`: the last step printed).
    pub tl: Timeline,
    /// `max_steps` (progress lines print `step <n>/<max_steps>`).
    pub max_steps: i64,
    /// The training loss at a step, without noise.
    pub loss: &'a dyn Fn(i64) -> f64,
    /// Base learning rate.
    pub lr: f64,
    /// The step at which the loss became NaN and the attempt failed, if it did.
    pub fails_at: Option<i64>,
    /// The checkpoint the attempt resumed from, if any.
    pub resumed_from: Option<i64>,
    /// Whether the attempt is still running (no closing lines).
    pub running: bool,
}

/// Python logging's time format: `2026-11-30 21:04:05,123`.
pub(crate) fn stamp(ts_ms: i64) -> String {
    Utc.timestamp_millis_opt(ts_ms)
        .single()
        .map(|t| t.format("%Y-%m-%d %H:%M:%S,%3f").to_string())
        .unwrap_or_default()
}

/// Collects lines with increasing timestamps.
struct Out {
    lines: Vec<NewLine>,
    last: i64,
}

impl Out {
    fn push(&mut self, ts_ms: i64, stream: Stream, text: String) {
        self.last = self.last.max(ts_ms);
        self.lines.push(NewLine {
            ts_ms: self.last,
            stream,
            text,
        });
    }

    /// A Python logging line: `<time> <LEVEL> <logger>: <message>` on stderr (logging's
    /// default stream).
    fn log(&mut self, ts_ms: i64, level: &str, logger: &str, msg: &str) {
        let text = format!("{} {level} {logger}: {msg}", stamp(ts_ms));
        self.push(ts_ms, Stream::Stderr, text);
    }
}

/// The lines node `rank` of `nodes` printed during `a`.
pub(crate) fn lines(a: &Attempt<'_>, rank: usize, nodes: usize, seed: u64) -> Vec<NewLine> {
    let mut noise = Noise::new(seed ^ ((rank as u64 + 1) * 0x9e37_79b9));
    let mut out = Out {
        lines: Vec::new(),
        last: a.tl.start - 90_000,
    };
    let t = a.tl.start - 90_000;
    let r = format!("[rank{rank}]");
    out.push(
        t,
        Stream::Stdout,
        format!(
            "\u{1b}[1m==> {} on node {rank} of {nodes}\u{1b}[0m",
            a.run_name
        ),
    );
    out.log(
        t + 40,
        "INFO",
        "torch.distributed.run",
        &format!("{r} WORLD_SIZE={nodes} RANK={rank} MASTER_ADDR=demo-node-1 MASTER_PORT=29500"),
    );
    out.push(
        t + 900,
        Stream::Stdout,
        format!(
            "demo-node-{}:{}:{} [0] NCCL INFO Bootstrap : Using eth0:10.0.0.{}<0>",
            rank + 1,
            4100 + rank,
            4100 + rank,
            11 + rank
        ),
    );
    out.push(
        t + 1_300,
        Stream::Stdout,
        format!(
            "demo-node-{}:{}:{} [0] NCCL INFO comm 0x5581c0 rank {rank} nranks {nodes} - Init COMPLETE",
            rank + 1,
            4100 + rank,
            4100 + rank
        ),
    );
    out.log(
        t + 2_000,
        "DEBUG",
        "data",
        &format!(
            "{r} opened shard instruct-mix-v3/train-{:05}.arrow",
            rank * 64
        ),
    );
    for shard in 1..=3 {
        out.push(
            t + 20_000 * shard,
            Stream::Stderr,
            format!(
                "Loading checkpoint shards: {:>3}%|\u{1b}[32m{}\u{1b}[0m{}| {shard}/3",
                shard * 100 / 3,
                "█".repeat(shard as usize * 4),
                " ".repeat(12 - shard as usize * 4)
            ),
        );
    }
    if let Some(ckpt) = a.resumed_from {
        out.log(
            t + 70_000,
            "INFO",
            "trainer",
            &format!(
                "{r} resumed from checkpoint-{ckpt} (optimizer state, lr schedule, data order)"
            ),
        );
    }
    out.log(
        t + 80_000,
        "WARNING",
        "transformers.modeling_utils",
        "Some weights were not initialized from the model checkpoint: ['lm_head.bias']",
    );
    out.push(
        t + 89_000,
        Stream::Stdout,
        format!(
            "\u{1b}[1;32m✔ training started\u{1b}[0m: lr {:e}, steps {}..{}",
            a.lr, a.tl.first, a.max_steps
        ),
    );
    let last = a.fails_at.unwrap_or(a.tl.last);
    let mut loss = (a.loss)(a.tl.first);
    for step in a.tl.first..=last {
        loss = (a.loss)(step) * (1.0 + 0.01 * noise.gauss());
        let at = Step {
            rank,
            nodes,
            step,
            ts: a.tl.at(step),
            loss,
            every: EVERY,
            all_ranks: false,
        };
        step_lines(&mut out, a, &at, &mut noise);
    }
    if let Some(fail) = a.fails_at {
        let ts = a.tl.at(fail) + 300;
        out.log(
            ts,
            "ERROR",
            "trainer",
            &format!("{r} loss is nan at step {fail}; stopping"),
        );
        let trace = [
            "Traceback (most recent call last):".to_owned(),
            "  File \"/workspace/train_sft.py\", line 212, in <module>".to_owned(),
            "    main()".to_owned(),
            "  File \"/workspace/train_sft.py\", line 198, in main".to_owned(),
            "    trainer.train(resume_from_checkpoint=args.resume)".to_owned(),
            "  File \"/workspace/trainer.py\", line 87, in step".to_owned(),
            "    raise FloatingPointError(f\"loss is {loss} at step {self.global_step}\")"
                .to_owned(),
            format!("FloatingPointError: loss is nan at step {fail}"),
        ];
        for (i, line) in trace.into_iter().enumerate() {
            out.push(ts + 2 + i as i64, Stream::Stderr, line);
        }
        out.push(
            ts + 900,
            Stream::Stderr,
            format!(
                "\u{1b}[31mERROR\u{1b}[0m torch.distributed.elastic: failed (exitcode: 1) local_rank: 0 (pid: {}) of binary: /usr/bin/python3",
                31_000 + rank * 17
            ),
        );
    } else if !a.running {
        finished(&mut out, rank, a.tl.end(), a.tl.last, loss);
    }
    out.lines
}

/// The closing lines of node `rank` after `steps` steps, at `ts`: what the live demo adds
/// when the running attempt reaches its `max_steps`.
pub(crate) fn finished_lines(rank: usize, ts: i64, steps: i64, loss: f64) -> Vec<NewLine> {
    let mut out = Out {
        lines: Vec::new(),
        last: ts,
    };
    finished(&mut out, rank, ts, steps, loss);
    out.lines
}

fn finished(out: &mut Out, rank: usize, ts: i64, steps: i64, loss: f64) {
    out.log(
        ts,
        "INFO",
        "trainer",
        &format!("[rank{rank}] training finished: {steps} steps, final loss {loss:.4}"),
    );
    out.push(
        ts + 100,
        Stream::Stdout,
        "\u{1b}[1;32m✔ done\u{1b}[0m".to_owned(),
    );
}

/// One step of node `rank`, as [`step_lines`] prints it.
pub(crate) struct Step {
    /// The node's rank.
    pub rank: usize,
    /// Nodes in the job.
    pub nodes: usize,
    /// The step.
    pub step: i64,
    /// When it ended, ms since the epoch.
    pub ts: i64,
    /// The training loss it logged.
    pub loss: f64,
    /// Rank 0 prints a progress line at the steps divisible by this.
    pub every: i64,
    /// Every rank prints the progress line, not only rank 0.
    pub all_ranks: bool,
}

/// The lines node `at.rank` prints at step `at.step` of the running attempt `a`: what the
/// live demo adds while it serves.
pub(crate) fn live_lines(a: &Attempt<'_>, at: &Step, seed: u64) -> Vec<NewLine> {
    let mut noise = Noise::new(seed ^ at.step as u64 ^ ((at.rank as u64 + 1) << 40));
    let mut out = Out {
        lines: Vec::new(),
        last: at.ts,
    };
    step_lines(&mut out, a, at, &mut noise);
    out.lines
}

/// The lines of one step: rank 0's progress line, prefetch, checkpoint and eval lines, and
/// the warnings of a diverging attempt.
fn step_lines(out: &mut Out, a: &Attempt<'_>, at: &Step, noise: &mut Noise) {
    let (rank, step, ts) = (at.rank, at.step, at.ts);
    let r = format!("[rank{rank}]");
    let last = a.fails_at.unwrap_or(a.tl.last);
    let progress = (step - a.tl.first) as f64 / (a.max_steps - a.tl.first).max(1) as f64;
    let diverging = a.fails_at.is_some_and(|f| step > f - 60);
    let shown = if diverging {
        at.loss * (1.0 + (step - (last - 60)) as f64 * 0.08)
    } else {
        at.loss
    };
    if (rank == 0 || at.all_ranks) && step % at.every == 0 {
        let who = if rank == 0 {
            String::new()
        } else {
            format!("{r} ")
        };
        let grad = if diverging {
            4.0 * (1.0 + (step - (last - 60)) as f64)
        } else {
            0.6 + 0.2 * noise.uniform(0.0, 1.0)
        };
        out.log(
            ts,
            "INFO",
            "trainer",
            &format!(
                "{who}step {step}/{} loss={shown:.4} lr={:.3e} grad_norm={grad:.3} tokens/s={:.0}",
                a.max_steps,
                a.lr,
                18_200.0 + 400.0 * noise.gauss()
            ),
        );
        if diverging && step % 20 == 0 {
            out.log(
                ts + 5,
                "WARNING",
                "trainer",
                &format!("grad_norm {grad:.1} above clip threshold 1.0 at step {step}"),
            );
        }
    }
    if step % 50 == 0 {
        out.log(
            ts + 10,
            "DEBUG",
            "data",
            &format!(
                "{r} prefetch queue {} batches, {:.1} ms/batch",
                8,
                3.0 + noise.uniform(0.0, 1.5)
            ),
        );
    }
    if step > a.tl.first && step % 1_000 == 0 {
        out.log(
            ts + 200,
            "INFO",
            "checkpoint",
            &format!(
                "{r} saved checkpoint-{step} to /checkpoints/{}/",
                a.run_name
            ),
        );
        if rank == 0 {
            out.push(
                ts + 250,
                Stream::Stdout,
                format!("\u{1b}[32m✔ checkpoint-{step}\u{1b}[0m \u{1b}[2m(13.4 GB, 41 s)\u{1b}[0m"),
            );
        }
    }
    if step > 0 && step % 2_500 == 0 {
        out.log(
            ts + 300,
            "INFO",
            "eval",
            &format!(
                "{r} eval at step {step}: loss={:.4} accuracy={:.3}",
                at.loss * 1.04,
                0.52 + 0.2 * progress
            ),
        );
    }
    if step % 1_700 == 850 && rank == at.nodes - 1 {
        out.log(
            ts + 20,
            "WARNING",
            "torch.distributed",
            &format!("{r} slow all-reduce: 1.8 s (median 0.21 s) at step {step}"),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::logs::level::LevelParser;

    fn attempt(fails_at: Option<i64>) -> Attempt<'static> {
        Attempt {
            run_name: "demo",
            tl: Timeline {
                start: 1_700_000_000_000,
                step_ms: 600,
                first: 0,
                last: 2_000,
            },
            lr: 1e-4,
            max_steps: 2_000,
            loss: &|s| 2.0 - s as f64 / 2_000.0,
            fails_at,
            resumed_from: None,
            running: false,
        }
    }

    #[test]
    fn a_failed_attempt_ends_in_a_traceback_parsed_as_error() {
        let lines = lines(&attempt(Some(1_500)), 0, 2, 1);
        assert!(lines.windows(2).all(|w| w[0].ts_ms <= w[1].ts_ms));
        let trace = lines
            .iter()
            .position(|l| l.text.starts_with("Traceback"))
            .expect("a traceback");
        let mut parser = LevelParser::default();
        let levels: Vec<_> = lines.iter().map(|l| parser.line(&l.text)).collect();
        assert!(levels[trace..trace + 8]
            .iter()
            .all(|l| *l == Some(crate::logs::Level::Error)));
        assert!(lines.iter().any(|l| l.text.contains("\u{1b}[32m")));
        assert!(levels.contains(&Some(crate::logs::Level::Warning)));
        assert!(levels.contains(&Some(crate::logs::Level::Debug)));
    }

    #[test]
    fn a_finished_attempt_has_no_traceback() {
        let lines = lines(&attempt(None), 1, 2, 1);
        assert!(!lines.iter().any(|l| l.text.starts_with("Traceback")));
        assert!(lines.last().unwrap().text.contains("done"));
    }

    #[test]
    fn a_live_step_prints_its_step_of_max_steps_on_every_rank() {
        let a = attempt(None);
        for rank in 0..2 {
            let at = Step {
                rank,
                nodes: 2,
                step: 1_234,
                ts: 1_800_000_000_000,
                loss: 1.5,
                every: 1,
                all_ranks: true,
            };
            let lines = live_lines(&a, &at, 7);
            let progress = lines.iter().find(|l| l.text.contains("step 1234/2000"));
            assert!(
                progress.is_some_and(|l| l.text.contains("loss=1.5000")),
                "{lines:?}"
            );
            assert!(lines.iter().all(|l| l.ts_ms >= at.ts));
        }
    }
}
