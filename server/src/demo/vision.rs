//! Vision experiments: Bob's ResNet ablation (step-decay plateaus, one KILLED run) and the
//! shared detection learning-rate sweep (a parent run with nested children that differ in
//! lr, batch size, optimizer and seed, for the compare view and group-by).

use super::curves::{decay, milestone_drops, saturate, step_decay, warmup_cosine, Noise};
use super::system::{log_system_metrics, Machine};
use super::writer::{RunSpec, Timeline, Writer};
use super::{people, HOUR, MINUTE};
use crate::Error;

const V100: Machine = Machine {
    gpus: 1,
    gpu_memory_mb: 27_000.0,
    host_memory_mb: 60_000.0,
    gpu_busy: 88.0,
};

/// Bob's ablation: three depths, with and without augmentation, 10k steps each.
pub(crate) fn load_resnet(w: &mut Writer<'_>, now: i64) -> Result<(), Error> {
    let exp = w.experiment(
        people::BOB_EXPERIMENT,
        now - 20 * 24 * HOUR,
        "ResNet depth x augmentation ablation on ImageNet-100 (SGD, step decay at 50% and 75%).",
    )?;
    let steps = 10_000;
    let milestones = [5_000, 7_500];
    for (i, (depth, augment)) in [
        (18, true),
        (18, false),
        (34, true),
        (34, false),
        (50, true),
        (50, false),
    ]
    .into_iter()
    .enumerate()
    {
        let name = format!("resnet{depth}-{}", if augment { "aug" } else { "noaug" });
        let killed = depth == 50 && !augment;
        let tl = Timeline {
            start: now - (6 - i as i64) * 20 * HOUR,
            step_ms: 120 + 40 * depth / 18,
            first: 0,
            last: if killed { 4_100 } else { steps },
        };
        let spec = RunSpec {
            experiment_id: exp,
            name: &name,
            user: "bob",
            status: if killed { "KILLED" } else { "FINISHED" },
            start: tl.start,
            end: Some(tl.end()),
            source: "train_resnet.py",
            note: killed.then_some("Killed by hand: node preempted for the 13B job."),
            parent: None,
        };
        let run = w.run(&spec)?;
        let (d, a) = (depth.to_string(), augment.to_string());
        w.params(
            &run,
            &[
                ("model", &format!("resnet{depth}")),
                ("depth", &d),
                ("augment", &a),
                ("lr", "0.1"),
                ("batch_size", "256"),
                ("optimizer", "sgd"),
                ("momentum", "0.9"),
                ("epochs", "100"),
                ("weight_decay", "1e-4"),
            ],
        )?;
        w.tags(&run, &[("team", "vision"), ("dataset", "imagenet-100")])?;
        // Deeper nets fit better; augmentation trades train loss for validation accuracy.
        let floor = 0.9 - 0.08 * (depth as f64 / 18.0) - if augment { 0.0 } else { 0.25 };
        let gap = if augment { 0.02 } else { 0.09 };
        let loss = move |step: i64| {
            decay(step, 4.6, floor, 900.0) * milestone_drops(step, &milestones, 0.55, 150.0)
        };
        w.curve(&run, "loss", &tl, 1, |s, n| n.jitter(loss(s), 0.06))?;
        w.curve(&run, "accuracy", &tl, 10, |s, n| {
            (1.0 - 0.62 * loss(s) / 2.0 + 0.01 * n.gauss()).clamp(0.0, 1.0)
        })?;
        w.curve(&run, "val_loss", &tl, 100, |s, n| {
            n.jitter(loss(s) * (1.0 + 4.0 * gap), 0.015)
        })?;
        w.curve(&run, "val_accuracy", &tl, 100, |s, n| {
            (1.0 - 0.62 * loss(s) / 2.0 - gap + 0.004 * n.gauss()).clamp(0.0, 1.0)
        })?;
        w.curve(&run, "lr", &tl, 100, |s, _| {
            step_decay(s, 0.1, &milestones, 0.1)
        })?;
        log_system_metrics(w, &run, tl.start, tl.end(), V100)?;
    }
    Ok(())
}

/// One child of the DETR sweep.
#[derive(Debug, Clone, Copy)]
struct Detr {
    lr: f64,
    batch_size: i64,
    optimizer: &'static str,
    seed: i64,
}

impl Detr {
    /// `detr-lr2e-4-bs32`, with `-sgd` and `-seed1` where they differ from the grid's.
    fn name(&self) -> String {
        let mut name = format!("detr-lr{:e}-bs{}", self.lr, self.batch_size);
        if self.optimizer != "adamw" {
            name.push_str(&format!("-{}", self.optimizer));
        }
        if self.seed != 0 {
            name.push_str(&format!("-seed{}", self.seed));
        }
        name
    }
}

/// The grid (adamw, seed 0), then SGD at batch size 32 and seed repeats of the middle lr.
const DETR_SWEEP: [Detr; 12] = {
    const fn d(lr: f64, batch_size: i64, optimizer: &'static str, seed: i64) -> Detr {
        Detr {
            lr,
            batch_size,
            optimizer,
            seed,
        }
    }
    [
        d(1e-4, 16, "adamw", 0),
        d(1e-4, 32, "adamw", 0),
        d(2e-4, 16, "adamw", 0),
        d(2e-4, 32, "adamw", 0),
        d(5e-4, 16, "adamw", 0),
        d(5e-4, 32, "adamw", 0),
        d(1e-4, 32, "sgd", 0),
        d(2e-4, 32, "sgd", 0),
        d(5e-4, 32, "sgd", 0),
        d(2e-4, 32, "adamw", 1),
        d(2e-4, 32, "adamw", 2),
        d(2e-4, 32, "sgd", 1),
    ]
};

/// The six runs of the original grid; the others draw their noise from a source of their
/// own, so the values of everything loaded after the sweep stay as they were.
const DETR_GRID: usize = 6;

/// The shared DETR sweep: a parent run and twelve nested children.
pub(crate) fn load_detection(w: &mut Writer<'_>, now: i64) -> Result<(), Error> {
    let exp = w.experiment(
        people::DETECTION_EXPERIMENT,
        now - 30 * 24 * HOUR,
        "Object detection on COCO-2017 (DETR-R50). Shared by the vision team.",
    )?;
    let start = now - 2 * 24 * HOUR;
    let steps = 10_000;
    let step_ms = 480;
    let parent_end = start + (steps + 200) * step_ms + 8 * MINUTE;
    let parent = w.run(&RunSpec {
        experiment_id: exp,
        name: "detr-lr-sweep",
        user: "carol@example.com",
        status: "FINISHED",
        start,
        end: Some(parent_end),
        source: "sweep.py",
        note: Some(
            "Grid over lr x batch size with AdamW, then SGD and seed repeats at batch size 32; \
             children run on 12 nodes in parallel.",
        ),
        parent: None,
    })?;
    w.params(
        &parent,
        &[
            ("sweep", "grid"),
            ("lr_values", "1e-4,2e-4,5e-4"),
            ("batch_sizes", "16,32"),
            ("optimizers", "adamw,sgd"),
            ("seeds", "0,1,2"),
            ("metric", "mAP"),
        ],
    )?;
    w.tags(&parent, &[("team", "vision"), ("sweep", "true")])?;
    let mut best = 0.0f64;
    let mut extra_noise = Noise::new(super::SEED ^ 0xde7e);
    for (i, run) in DETR_SWEEP.into_iter().enumerate() {
        if i == DETR_GRID {
            std::mem::swap(&mut w.noise, &mut extra_noise);
        }
        best = best.max(detr_child(w, exp, &parent, start, i as i64, run)?);
    }
    std::mem::swap(&mut w.noise, &mut extra_noise);
    let at = parent_end - MINUTE;
    w.metric(
        &parent,
        "best_mAP",
        &[(0, at, (best * 1000.0).round() / 1000.0)],
    )?;
    Ok(())
}

/// Writes the `i`-th child of the sweep; answers its final mAP.
fn detr_child(
    w: &mut Writer<'_>,
    exp: i64,
    parent: &str,
    start: i64,
    i: i64,
    run: Detr,
) -> Result<f64, Error> {
    let steps = 10_000;
    let tl = Timeline {
        start: start + 30_000 * (i + 1),
        step_ms: 480,
        first: 0,
        last: steps,
    };
    let name = run.name();
    let child = w.run(&RunSpec {
        experiment_id: exp,
        name: &name,
        user: "carol@example.com",
        status: "FINISHED",
        start: tl.start,
        end: Some(tl.end()),
        source: "train_detr.py",
        note: None,
        parent: Some(parent),
    })?;
    let Detr {
        lr,
        batch_size: bs,
        optimizer,
        seed,
    } = run;
    let (lr_s, bs_s, seed_s) = (format!("{lr:e}"), bs.to_string(), seed.to_string());
    w.params(
        &child,
        &[
            ("model", "detr-r50"),
            ("lr", &lr_s),
            ("batch_size", &bs_s),
            ("optimizer", optimizer),
            ("backbone_lr", "1e-5"),
            ("seed", &seed_s),
        ],
    )?;
    w.tags(&child, &[("team", "vision")])?;
    // Too high a learning rate converges faster but settles higher; SGD is slower and
    // settles higher still; seeds scatter a little.
    let sgd = optimizer == "sgd";
    let floor = 1.1
        + 900.0 * (lr - 2e-4f64).abs()
        + if bs == 16 { 0.05 } else { 0.0 }
        + if sgd { 0.12 } else { 0.0 }
        + 0.015 * [0.0, 1.0, -0.8][seed as usize % 3];
    let tau = 2_600.0 * (1e-4 / lr).sqrt() * if sgd { 1.6 } else { 1.0 };
    let map_ceiling = 0.44 - 0.3 * (floor - 1.1);
    w.curve(&child, "loss", &tl, 1, |s, n| {
        n.jitter(decay(s, 6.5, floor, tau), 0.05)
    })?;
    w.curve(&child, "lr", &tl, 100, |s, _| {
        warmup_cosine(s, 300, steps, lr, lr * 0.01)
    })?;
    w.curve(&child, "mAP", &tl, 500, |s, n| {
        (saturate(s, 0.0, map_ceiling, tau * 1.5) + 0.003 * n.gauss()).max(0.0)
    })?;
    log_system_metrics(w, &child, tl.start, tl.end(), V100)?;
    Ok(map_ceiling)
}
