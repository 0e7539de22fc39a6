//! Vision experiments: Bob's ResNet ablation (step-decay plateaus, one KILLED run) and the
//! shared detection learning-rate sweep (a parent run with nested children).

use super::curves::{decay, milestone_drops, saturate, step_decay, warmup_cosine};
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
pub fn load_resnet(w: &mut Writer<'_>, now: i64) -> Result<(), Error> {
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

/// The shared DETR sweep: a parent run and six nested children (lr x batch size).
pub fn load_detection(w: &mut Writer<'_>, now: i64) -> Result<(), Error> {
    let exp = w.experiment(
        people::DETECTION_EXPERIMENT,
        now - 30 * 24 * HOUR,
        "Object detection on COCO-2017 (DETR-R50). Shared by the vision team.",
    )?;
    let start = now - 2 * 24 * HOUR;
    let steps = 10_000;
    let grid = [
        (1e-4, 16),
        (1e-4, 32),
        (2e-4, 16),
        (2e-4, 32),
        (5e-4, 16),
        (5e-4, 32),
    ];
    let step_ms = 480;
    let parent_end = start + (steps + 200) * step_ms + 5 * MINUTE;
    let parent = w.run(&RunSpec {
        experiment_id: exp,
        name: "detr-lr-sweep",
        user: "carol@example.com",
        status: "FINISHED",
        start,
        end: Some(parent_end),
        source: "sweep.py",
        note: Some("Grid over lr x batch size; children run on 6 nodes in parallel."),
        parent: None,
    })?;
    w.params(
        &parent,
        &[
            ("sweep", "grid"),
            ("lr_values", "1e-4,2e-4,5e-4"),
            ("batch_sizes", "16,32"),
            ("metric", "mAP"),
        ],
    )?;
    w.tags(&parent, &[("team", "vision"), ("sweep", "true")])?;
    let mut best = 0.0f64;
    for (i, (lr, bs)) in grid.into_iter().enumerate() {
        let name = format!("detr-lr{lr:e}-bs{bs}");
        let tl = Timeline {
            start: start + 30_000 * (i as i64 + 1),
            step_ms,
            first: 0,
            last: steps,
        };
        let child = w.run(&RunSpec {
            experiment_id: exp,
            name: &name,
            user: "carol@example.com",
            status: "FINISHED",
            start: tl.start,
            end: Some(tl.end()),
            source: "train_detr.py",
            note: None,
            parent: Some(&parent),
        })?;
        let (lr_s, bs_s) = (format!("{lr:e}"), bs.to_string());
        w.params(
            &child,
            &[
                ("model", "detr-r50"),
                ("lr", &lr_s),
                ("batch_size", &bs_s),
                ("optimizer", "adamw"),
                ("backbone_lr", "1e-5"),
            ],
        )?;
        w.tags(&child, &[("team", "vision")])?;
        // Too high a learning rate converges faster but settles higher.
        let floor = 1.1 + 900.0 * (lr - 2e-4f64).abs() + if bs == 16 { 0.05 } else { 0.0 };
        let tau = 2_600.0 * (1e-4 / lr).sqrt();
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
        best = best.max(map_ceiling);
        log_system_metrics(w, &child, tl.start, tl.end(), V100)?;
    }
    let at = parent_end - MINUTE;
    w.metric(
        &parent,
        "best_mAP",
        &[(0, at, (best * 1000.0).round() / 1000.0)],
    )?;
    Ok(())
}
