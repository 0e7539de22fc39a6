//! Alice's LLM fine-tuning experiment: a finished run, a diverged (FAILED) attempt and its
//! resumed run, and a 13B run still RUNNING on the demo nodes, which the live demo keeps
//! training ([`running`], [`Curve`]).

use super::curves::{decay, saturate, warmup_cosine, Noise};
use super::system::{log_node_system_metrics, log_system_metrics, Machine};
use super::writer::{RunSpec, Timeline, Writer};
use super::{people, DEMO_NODES, DEMO_NODE_GPUS, HOUR, MINUTE};
use crate::Error;

const USER: &str = "alice";
const SOURCE: &str = "train_sft.py";
/// `max_steps` of the 7B runs.
const MAX_STEPS: i64 = 12_000;
/// `max_steps` of the running 13B run (a longer schedule: at the live demo's step a second
/// it reaches it after about a day of serving, see `live_sft`).
pub(crate) const RUNNING_MAX_STEPS: i64 = 100_000;
/// The running 13B run's name.
pub(crate) const RUNNING_RUN: &str = "sft-13b-lr2e-5";
/// The last step the running run has logged when the demo loads (0.8 s/step since it
/// started 2.5 h before, the latest 40 s ago).
const RUNNING_LOADED: i64 = 11_200;
const A100: Machine = Machine {
    gpus: 2,
    gpu_memory_mb: 74_000.0,
    host_memory_mb: 180_000.0,
    gpu_busy: 94.0,
};
/// A demo node: as many GPUs as the GPU panel shows for it.
pub(crate) const DEMO_NODE: Machine = Machine {
    gpus: DEMO_NODE_GPUS,
    ..A100
};

/// One SFT run's knobs.
pub(crate) struct Sft<'a> {
    /// Run name.
    pub name: &'a str,
    model: &'a str,
    /// Peak learning rate.
    pub lr: f64,
    /// The steps logged at load.
    pub tl: Timeline,
    /// Step from which the loss blows up (the FAILED attempt).
    diverge_at: Option<i64>,
    /// Loss floor: bigger models go lower.
    floor: f64,
    /// The nodes of a multi-node run (tagged `runlens.nodes`, system metrics per node);
    /// empty for a single machine.
    pub nodes: &'a [&'a str],
    /// `max_steps`: the learning-rate schedule's end.
    pub max_steps: i64,
}

/// The 13B run still RUNNING on the two demo nodes, started at `start`: it has logged
/// [`RUNNING_LOADED`] steps at 0.8 s/step when the demo loads; the live demo logs the rest.
pub(crate) fn running(start: i64) -> Sft<'static> {
    Sft {
        name: RUNNING_RUN,
        model: "llama-13b",
        lr: 2e-5,
        tl: Timeline {
            start,
            step_ms: 800,
            first: 0,
            last: RUNNING_LOADED,
        },
        diverge_at: None,
        floor: 0.93,
        nodes: &DEMO_NODES,
        max_steps: RUNNING_MAX_STEPS,
    }
}

impl Sft<'_> {
    /// Its noise-free training loss at `step`.
    pub(crate) fn expected_loss(&self, step: i64) -> f64 {
        expected_loss(self.lr, self.floor, step)
    }
}

/// The noise-free training loss of an SFT run with peak `lr` and loss `floor` at `step`
/// (what its job's log lines print, give or take noise).
pub(crate) fn expected_loss(lr: f64, floor: f64, step: i64) -> f64 {
    decay(step, 2.3, floor, 1_400.0 / (lr / 2e-5).sqrt())
}

/// The metric series of an SFT run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Curve {
    /// `train/loss`, every step.
    Loss,
    /// `train/grad_norm`.
    GradNorm,
    /// `learning_rate`: warm-up, then cosine decay to a tenth at `max_steps`.
    LearningRate,
    /// `tokens_per_second`.
    TokensPerSecond,
    /// `eval/loss`.
    EvalLoss,
    /// `eval/accuracy`.
    EvalAccuracy,
}

impl Curve {
    /// Every series, in the order they are logged (`train/loss` first).
    pub(crate) const ALL: [Curve; 6] = [
        Curve::Loss,
        Curve::GradNorm,
        Curve::LearningRate,
        Curve::TokensPerSecond,
        Curve::EvalLoss,
        Curve::EvalAccuracy,
    ];

    /// The metric key.
    pub(crate) fn key(self) -> &'static str {
        match self {
            Curve::Loss => "train/loss",
            Curve::GradNorm => "train/grad_norm",
            Curve::LearningRate => "learning_rate",
            Curve::TokensPerSecond => "tokens_per_second",
            Curve::EvalLoss => "eval/loss",
            Curve::EvalAccuracy => "eval/accuracy",
        }
    }

    /// Logged at the steps divisible by this.
    pub(crate) fn every(self) -> i64 {
        match self {
            Curve::Loss => 1,
            Curve::GradNorm | Curve::LearningRate => 10,
            Curve::TokensPerSecond => 50,
            Curve::EvalLoss | Curve::EvalAccuracy => 500,
        }
    }

    /// The value of run `s` at `step`.
    pub(crate) fn value(self, s: &Sft<'_>, step: i64, n: &mut Noise) -> f64 {
        let (lr, floor) = (s.lr, s.floor);
        // Divergence: the loss grows exponentially after `diverge_at`, NaN in the last 20
        // steps.
        let blowup = match s.diverge_at {
            Some(_) if step >= s.tl.last - 20 => f64::NAN,
            Some(d) if step > d => ((step - d) as f64 / 90.0).exp(),
            _ => 1.0,
        };
        let speed = (lr / 2e-5).sqrt();
        match self {
            Curve::Loss => {
                // A short loss spike at 7,777 steps, as real runs have.
                let spike = if step == 7_777 { 2.4 } else { 1.0 };
                n.jitter(expected_loss(lr, floor, step), 0.035) * blowup * spike
            }
            Curve::GradNorm => {
                let g = n.jitter(0.4 + 2.0 * (-(step as f64) / 300.0).exp(), 0.2) * blowup;
                if g.is_nan() {
                    f64::INFINITY
                } else {
                    g
                }
            }
            Curve::LearningRate => warmup_cosine(step, 500, s.max_steps, lr, lr * 0.1),
            Curve::TokensPerSecond => {
                n.jitter(52_000.0 * 0.62 / (s.tl.step_ms as f64 / 1000.0), 0.03)
            }
            Curve::EvalLoss => {
                n.jitter(decay(step, 2.2, floor + 0.08, 1_600.0 / speed), 0.01) * blowup.min(50.0)
            }
            Curve::EvalAccuracy => {
                (saturate(step, 0.38, 0.71 + (1.02 - floor), 2_500.0 / speed) + 0.004 * n.gauss())
                    / blowup.max(1.0)
            }
        }
    }
}

/// The runs of alice's experiment that the demo's jobs take as their attempts.
pub(crate) struct JobRuns {
    /// `sft-7b-lr1e-4`, diverged (FAILED).
    pub failed: String,
    /// `sft-7b-lr1e-4-resumed`, its retry (FINISHED).
    pub resumed: String,
    /// `sft-13b-lr2e-5`, RUNNING on the demo nodes.
    pub running: String,
}

/// Creates the experiment and its runs; answers the runs the demo's jobs link.
pub(crate) fn load(w: &mut Writer<'_>, now: i64) -> Result<JobRuns, Error> {
    let exp = w.experiment(
        people::ALICE_EXPERIMENT,
        now - 9 * 24 * HOUR,
        "Supervised fine-tuning of 7B and 13B decoder models on the instruction mix v3.",
    )?;
    let t0 = now - 4 * 24 * HOUR;
    let base = Sft {
        name: "sft-7b-lr2e-5",
        model: "llama-7b",
        lr: 2e-5,
        tl: Timeline {
            start: t0,
            step_ms: 620,
            first: 0,
            last: MAX_STEPS,
        },
        diverge_at: None,
        floor: 1.02,
        nodes: &[],
        max_steps: MAX_STEPS,
    };
    let note = "Baseline: lr 2e-5, cosine schedule, 500 warm-up steps.";
    sft_run(w, exp, &base, "FINISHED", Some(note), &[])?;

    let t1 = now - 3 * 24 * HOUR;
    let failed = Sft {
        name: "sft-7b-lr1e-4",
        lr: 1e-4,
        tl: Timeline {
            start: t1,
            step_ms: 620,
            first: 0,
            last: 5_420,
        },
        diverge_at: Some(4_900),
        ..base
    };
    let note = "Diverged at step ~5.4k (loss -> NaN, grad norm -> inf). Resumed from checkpoint-5000 with lr 5e-5.";
    let failed_id = sft_run(w, exp, &failed, "FAILED", Some(note), &[("attempt", "1")])?;

    let resumed = Sft {
        name: "sft-7b-lr1e-4-resumed",
        lr: 5e-5,
        tl: Timeline {
            start: failed.tl.end() + 40 * MINUTE,
            step_ms: 620,
            first: 5_000,
            last: MAX_STEPS,
        },
        diverge_at: None,
        ..base
    };
    let note = "Resumed from checkpoint-5000 of the diverged attempt with a lower lr.";
    let tags = [("attempt", "2"), ("resumed_from", failed_id.as_str())];
    let resumed_id = sft_run(w, exp, &resumed, "FINISHED", Some(note), &tags)?;

    // Started 2.5 h ago on two nodes (the demo's simulated GPU agents), still going.
    let running = running(now - 150 * MINUTE);
    let running_id = sft_run(w, exp, &running, "RUNNING", None, &[])?;
    Ok(JobRuns {
        failed: failed_id,
        resumed: resumed_id,
        running: running_id,
    })
}

fn sft_run(
    w: &mut Writer<'_>,
    exp: i64,
    s: &Sft<'_>,
    status: &str,
    note: Option<&str>,
    tags: &[(&str, &str)],
) -> Result<String, Error> {
    let end = (status != "RUNNING").then(|| s.tl.end());
    let spec = RunSpec {
        experiment_id: exp,
        name: s.name,
        user: USER,
        status,
        start: s.tl.start,
        end,
        source: SOURCE,
        note,
        parent: None,
    };
    let run = w.run(&spec)?;
    let lr = format!("{:e}", s.lr);
    let max_steps = s.max_steps.to_string();
    w.params(
        &run,
        &[
            ("model", s.model),
            ("lr", &lr),
            ("batch_size", "64"),
            ("optimizer", "adamw"),
            ("weight_decay", "0.1"),
            ("warmup_steps", "500"),
            ("max_steps", &max_steps),
            ("seq_len", "4096"),
            ("precision", "bf16"),
            ("dataset", "instruct-mix-v3"),
        ],
    )?;
    w.tags(&run, &[("team", "llm"), ("git_commit", "4f2a9c1")])?;
    w.tags(&run, tags)?;
    log_curves(w, &run, s)?;
    let sys_end = end.unwrap_or(s.tl.at(s.tl.last));
    if s.nodes.is_empty() {
        log_system_metrics(w, &run, s.tl.start, sys_end, A100)?;
    } else {
        let nodes = s.nodes.join(",");
        w.tags(&run, &[(api_types::nodes::RUN_NODES_TAG, nodes.as_str())])?;
        for node in s.nodes {
            log_node_system_metrics(w, &run, node, s.tl.start, sys_end, DEMO_NODE)?;
        }
    }
    Ok(run)
}

fn log_curves(w: &mut Writer<'_>, run: &str, s: &Sft<'_>) -> Result<(), Error> {
    for curve in Curve::ALL {
        w.curve(run, curve.key(), &s.tl, curve.every(), |step, n| {
            curve.value(s, step, n)
        })?;
    }
    Ok(())
}
