"""Seeds artifacts, a logged model, a dataset input and a registered model through the stock
mlflow client, for artifacts.spec.mjs, models.spec.mjs and screenshots-issue10.mjs.

Usage: MLFLOW_TRACKING_URI=... MLFLOW_TRACKING_TOKEN=<alice's token> python seed_artifacts.py EXPERIMENT MODEL_NAME
Prints one JSON object: {"experiment_id", "run_id", "empty_run_id", "model_id", "model_name"}.

The run "with-artifacts" gets: logs/train.log (text), logs/big.log (625 KiB of text), config/params.json (log_dict),
plots/loss.png (a real PNG), data/ (a folder: train.csv and nested/readme.md, by
log_artifacts), model/ (an MLmodel file with a signature, and requirements.txt),
evil.svg and page.html (each with a script that would set window.__pwned and call
alert() if it ever ran in runlens' origin), and a dataset input. The run "no-artifacts"
has none. A logged model "classifier" from that run holds its own MLmodel; the registered
model MODEL_NAME has version 1 from it, aliased "champion".
"""

import json
import os
import struct
import sys
import tempfile
import zlib

import mlflow
from mlflow.entities import Dataset, DatasetInput, InputTag, LoggedModelStatus

SCRIPT = "window.__pwned = (window.__pwned || 0) + 1; alert('pwned')"
EVIL_SVG = f"""<svg xmlns="http://www.w3.org/2000/svg" width="120" height="60" onload="{SCRIPT}">
  <script>{SCRIPT}</script>
  <rect width="120" height="60" fill="#2563eb"/>
  <text x="10" y="35" fill="#fff">svg</text>
</svg>
"""
EVIL_HTML = f"""<!doctype html><html><body><h1>hello</h1>
<script>{SCRIPT}</script><img src="x" onerror="{SCRIPT}"></body></html>
"""
TRAIN_LOG = "".join(f"epoch {i} loss {2.0 / (i + 1):.4f} accuracy {1 - 0.5 / (i + 1):.4f}\n" for i in range(200))
# 10,000 lines of 64 bytes (625 KiB): three pages of the preview.
BIG_LOG = "".join(f"line {i:06d} " + "x" * 51 + "\n" for i in range(1, 10_001))
PARAMS = {"model": {"name": "resnet18", "layers": [2, 2, 2, 2]}, "lr": 0.001, "amp": True, "notes": None}
CSV = "epoch,loss,accuracy\n" + "".join(f"{i},{2.0 / (i + 1):.4f},{1 - 0.5 / (i + 1):.4f}\n" for i in range(50))
MLMODEL = """artifact_path: model
flavors:
  python_function:
    loader_module: mlflow.sklearn
    python_version: 3.11.9
  sklearn:
    pickled_model: model.pkl
    sklearn_version: 1.5.1
mlflow_version: 3.17.2
model_uuid: 5c1d7b6e2f0a4c7d9a3b1e2f4a5b6c7d
signature:
  inputs: '[{"type": "double", "name": "sepal_length", "required": true}, {"type": "double", "name": "sepal_width", "required": true}]'
  outputs: '[{"type": "long", "required": true}]'
  params: null
utc_time_created: '2026-11-30 10:00:00.000000'
"""


def png(width: int = 64, height: int = 40) -> bytes:
    """A small gradient PNG (RGB, no filter), written by hand."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    rows = b"".join(
        b"\x00" + b"".join(bytes((x * 4 % 256, y * 6 % 256, 200)) for x in range(width)) for y in range(height)
    )
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def write(root: str, rel: str, data) -> str:
    path = os.path.join(root, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as f:
        f.write(data)
    return path


def seeded(client, exp_id: str, model_name: str) -> dict:
    """The ids of an earlier seeding of this experiment (a spec's beforeAll runs again in a
    new worker after a failed test)."""
    runs = {r.info.run_name: r.info.run_id for r in client.search_runs([exp_id])}
    version = client.get_model_version(model_name, "1")
    return {
        "experiment_id": exp_id,
        "run_id": runs["with-artifacts"],
        "empty_run_id": runs["no-artifacts"],
        "model_id": version.model_id,
        "model_name": model_name,
    }


def main() -> None:
    experiment, model_name = sys.argv[1], sys.argv[2]
    client = mlflow.MlflowClient()
    existing = client.get_experiment_by_name(experiment)
    if existing is not None:
        print(json.dumps(seeded(client, existing.experiment_id, model_name)))
        return
    exp_id = client.create_experiment(experiment)
    run = client.create_run(exp_id, run_name="with-artifacts")
    run_id = run.info.run_id
    client.log_param(run_id, "lr", "0.001")
    client.log_text(run_id, TRAIN_LOG, "logs/train.log")
    client.log_text(run_id, BIG_LOG, "logs/big.log")
    client.log_dict(run_id, PARAMS, "config/params.json")
    with tempfile.TemporaryDirectory() as tmp:
        client.log_artifact(run_id, write(tmp, "plots/loss.png", png()), "plots")
        client.log_artifact(run_id, write(tmp, "evil.svg", EVIL_SVG))
        client.log_artifact(run_id, write(tmp, "page.html", EVIL_HTML))
        data = os.path.join(tmp, "data")
        write(data, "train.csv", CSV)
        write(data, "nested/readme.md", "# Data\n\nThe training split.\n")
        client.log_artifacts(run_id, data, "data")
        model = os.path.join(tmp, "model")
        write(model, "MLmodel", MLMODEL)
        write(model, "requirements.txt", "mlflow==3.17.2\nscikit-learn==1.5.1\n")
        client.log_artifacts(run_id, model, "model")

        dataset = Dataset(
            name="iris-train",
            digest="8f1c2b3a",
            source_type="http",
            source=json.dumps({"url": "https://example.com/iris.csv"}),
        )
        client.log_inputs(run_id, [DatasetInput(dataset, [InputTag("mlflow.data.context", "training")])])

        logged = client.create_logged_model(
            exp_id, name="classifier", source_run_id=run_id, params={"C": "1.0"}, model_type="sklearn"
        )
        client.log_model_artifacts(logged.model_id, model)
        client.finalize_logged_model(logged.model_id, LoggedModelStatus.READY)
    client.set_terminated(run_id, "FINISHED")

    client.create_registered_model(model_name, description="Iris classifier for the browser tests.")
    client.create_model_version(model_name, f"models:/{logged.model_id}", run_id=run_id, model_id=logged.model_id)
    client.set_registered_model_alias(model_name, "champion", "1")

    empty = client.create_run(exp_id, run_name="no-artifacts")
    client.set_terminated(empty.info.run_id, "FINISHED")
    print(
        json.dumps(
            {
                "experiment_id": exp_id,
                "run_id": run_id,
                "empty_run_id": empty.info.run_id,
                "model_id": logged.model_id,
                "model_name": model_name,
            }
        )
    )


if __name__ == "__main__":
    main()
