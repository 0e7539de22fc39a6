//! The shared tokenizer sweep: a parent run over BPE vocabulary sizes, nested children on
//! CPU nodes, one of which FAILED (out of memory at the largest vocabulary).

use super::curves::decay;
use super::system::{log_system_metrics, Machine};
use super::writer::{RunSpec, Timeline, Writer};
use super::{HOUR, MINUTE};
use crate::Error;

const CPU_NODE: Machine = Machine {
    gpus: 0,
    gpu_memory_mb: 0.0,
    host_memory_mb: 240_000.0,
    gpu_busy: 0.0,
};

/// Creates the experiment, the sweep's parent and its children.
pub(crate) fn load(w: &mut Writer<'_>, now: i64) -> Result<(), Error> {
    let exp = w.experiment(
        "/Workspace/Shared/nlp/tokenizer-sweep",
        now - 12 * 24 * HOUR,
        "BPE vocabulary size sweep: compression vs. LM bits-per-byte on a 1B-token sample.",
    )?;
    let start = now - 26 * HOUR;
    let steps = 3_000;
    let step_ms = 300;
    let parent = w.run(&RunSpec {
        experiment_id: exp,
        name: "bpe-vocab-sweep",
        user: "dave@example.com",
        status: "FINISHED",
        start,
        end: Some(start + steps * step_ms + 20 * MINUTE),
        source: "sweep_tokenizer.py",
        note: Some("Vocab sizes 8k..128k; the 128k child ran out of memory."),
        parent: None,
    })?;
    w.params(
        &parent,
        &[
            ("vocab_sizes", "8000,16000,32000,50000,64000,128000"),
            ("sample_tokens", "1e9"),
        ],
    )?;
    for (i, vocab) in [8_000, 16_000, 32_000, 50_000, 64_000, 128_000]
        .into_iter()
        .enumerate()
    {
        let oom = vocab == 128_000;
        let tl = Timeline {
            start: start + MINUTE * (i as i64 + 1),
            step_ms,
            first: 0,
            last: if oom { 1_870 } else { steps },
        };
        let name = format!("bpe-{}k", vocab / 1000);
        let child = w.run(&RunSpec {
            experiment_id: exp,
            name: &name,
            user: "dave@example.com",
            status: if oom { "FAILED" } else { "FINISHED" },
            start: tl.start,
            end: Some(tl.end()),
            source: "train_tokenizer.py",
            note: oom.then_some("Out of memory while merging pairs at 128k (240 GB host)."),
            parent: Some(&parent),
        })?;
        let v = vocab.to_string();
        w.params(
            &child,
            &[
                ("vocab_size", &v),
                ("algorithm", "bpe"),
                ("min_frequency", "2"),
                ("byte_fallback", "true"),
            ],
        )?;
        // Bigger vocabularies compress better, with diminishing returns.
        let bits = 1.02 - 0.045 * (vocab as f64 / 8_000.0).log2();
        w.curve(&child, "loss", &tl, 1, |s, n| {
            n.jitter(decay(s, 7.5, bits * 2.1, 420.0), 0.03)
        })?;
        w.curve(&child, "bits_per_byte", &tl, 1, |s, n| {
            n.jitter(decay(s, 3.2, bits, 420.0), 0.02)
        })?;
        if !oom {
            let ratio = 3.1 + 0.42 * (vocab as f64 / 8_000.0).log2();
            w.metric(&child, "compression_ratio", &[(steps, tl.end(), ratio)])?;
        }
        log_system_metrics(w, &child, tl.start, tl.end(), CPU_NODE)?;
    }
    Ok(())
}
