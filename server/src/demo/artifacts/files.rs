//! What the demo's artifacts contain: a training log, the run's config as JSON, a loss
//! curve (PNG), evaluation samples (CSV) and summary, and an `MLmodel` folder.

use super::png;

/// Points of the demo log and curve (one per 100 steps).
const POINTS: u32 = 90;

/// The loss at point `t` (a fast drop, then a slow decay, as the run's curve).
fn loss_at(t: f64) -> f64 {
    1.05 + 1.6 * (-t / 14.0).exp() + 0.02 * (t * 1.7).sin()
}

/// The loss at point `i`.
fn loss(i: u32) -> f64 {
    loss_at(f64::from(i))
}

/// `train.log`: one line per 100 steps, as a training script prints.
pub(crate) fn train_log() -> String {
    let mut out =
        String::from("INFO starting sft of llama-7b on alpaca-cleaned (8 x A100, bf16, zero-2)\n");
    for i in 0..POINTS {
        let lr = 2e-5 * (f64::from(i) / 5.0).min(1.0);
        out.push_str(&format!(
            "INFO step {:>5} loss {:.4} lr {lr:.2e} tokens/s {}\n",
            i * 100,
            loss(i),
            31_000 + (i * 37) % 900
        ));
    }
    out.push_str("INFO saved checkpoint to model/ (best eval loss 1.0611)\n");
    out
}

/// `config.json`: what the run was started with.
pub(crate) fn config_json() -> String {
    let config = serde_json::json!({
        "model": { "base": "llama-7b", "max_seq_len": 2048, "gradient_checkpointing": true },
        "data": { "dataset": "alpaca-cleaned", "packing": true, "val_fraction": 0.02 },
        "optim": { "name": "adamw", "lr": 2e-5, "warmup_steps": 500, "weight_decay": 0.0 },
        "bf16": true,
        "seed": 17
    });
    serde_json::to_string_pretty(&config).unwrap_or_default()
}

/// `eval/samples.csv`: prompts, references and the model's answers, scored.
pub(crate) fn samples_csv() -> String {
    let rows = [
        (
            "Translate 'good morning' to French.",
            "Bonjour.",
            "Bonjour !",
            "1.0",
        ),
        ("What is 17 * 3?", "51", "51", "1.0"),
        (
            "Name the capital of Australia.",
            "Canberra",
            "Canberra",
            "1.0",
        ),
        (
            "Summarise: \"The cat sat on the mat.\"",
            "A cat sat on a mat.",
            "A cat sat.",
            "0.6",
        ),
        (
            "Write a haiku about rain.",
            "(open)",
            "Soft rain on the roof, / ...",
            "0.8",
        ),
        ("Is 91 prime?", "No (7 x 13)", "Yes", "0.0"),
    ];
    let mut out = String::from("prompt,reference,prediction,score\n");
    for (p, r, a, s) in rows {
        let q = |v: &str| format!("\"{}\"", v.replace('"', "\"\""));
        out.push_str(&format!("{},{},{},{s}\n", q(p), q(r), q(a)));
    }
    out
}

/// `eval/summary.json`.
pub(crate) fn eval_summary() -> String {
    r#"{"eval_loss": 1.0611, "mt_bench": 6.42, "exact_match": 0.733, "samples": 6}"#.to_owned()
}

/// `plots/loss.png`: the loss curve, drawn on a white background with grid lines.
pub(crate) fn loss_png() -> Vec<u8> {
    let (w, h, pad) = (320u32, 180u32, 16u32);
    let y_at = |x: u32| {
        let t = f64::from(x.saturating_sub(pad)) * f64::from(POINTS - 1) / f64::from(w - 2 * pad);
        let frac = (loss_at(t) - 0.9) / (loss(0) - 0.9);
        (f64::from(h - pad) - frac * f64::from(h - 2 * pad)).round() as i64
    };
    png::encode(w, h, |x, y| {
        // The curve joins this column's point to the previous one's, two pixels thick.
        let (a, b) = (y_at(x.saturating_sub(1)), y_at(x));
        let y = i64::from(y);
        let curve = x > pad && y >= a.min(b) - 1 && y <= a.max(b) + 1;
        if curve {
            [37, 99, 235]
        } else if x == pad || y == i64::from(h - pad) {
            [120, 120, 130]
        } else if y % 40 == 0 {
            [232, 235, 240]
        } else {
            [255, 255, 255]
        }
    })
}

/// `model/MLmodel` of the demo's logged model `model_id`, logged by `run_id`.
pub(crate) fn mlmodel(run_id: &str, model_id: &str) -> String {
    format!(
        "artifact_path: model
flavors:
  python_function:
    loader_module: mlflow.transformers
    python_version: 3.11.9
  transformers:
    framework: pt
    instance_type: TextGenerationPipeline
    pipeline_model_type: LlamaForCausalLM
    source_model_name: llama-7b
    task: text-generation
    transformers_version: 4.44.2
mlflow_version: 3.17.2
model_id: {model_id}
run_id: {run_id}
signature:
  inputs: '[{{\"type\": \"string\", \"name\": \"prompt\", \"required\": true}}]'
  outputs: '[{{\"type\": \"string\", \"name\": \"generated_text\", \"required\": true}}]'
  params: '[{{\"name\": \"max_new_tokens\", \"type\": \"long\", \"default\": 256, \"shape\": null}}]'
utc_time_created: '2026-11-20 09:41:07.512337'
"
    )
}

/// `model/requirements.txt`.
pub(crate) const REQUIREMENTS: &str =
    "mlflow==3.17.2\ntorch==2.4.0\ntransformers==4.44.2\naccelerate==0.33.0\n";

/// `model/python_env.yaml`.
pub(crate) const PYTHON_ENV: &str =
    "python: 3.11.9\nbuild_dependencies:\n  - pip==24.2\ndependencies:\n  - -r requirements.txt\n";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_are_well_formed() {
        assert!(serde_json::from_str::<serde_json::Value>(&config_json()).is_ok());
        assert!(serde_json::from_str::<serde_json::Value>(&eval_summary()).is_ok());
        let ml: serde_yaml_ng::Value = serde_yaml_ng::from_str(&mlmodel("r1", "m-1")).unwrap();
        assert_eq!(ml["run_id"].as_str(), Some("r1"));
        assert!(ml["signature"]["inputs"]
            .as_str()
            .unwrap()
            .contains("prompt"));
        assert_eq!(samples_csv().lines().count(), 7);
        assert_eq!(train_log().lines().count(), POINTS as usize + 2);
        assert!(loss_png().starts_with(b"\x89PNG"));
    }
}
