"""Seeds a runlens server for the browser tests, through the stock mlflow client.

Usage: MLFLOW_TRACKING_URI=http://127.0.0.1:PORT MLFLOW_TRACKING_TOKEN=<alice's token> python seed.py
Prints one JSON object: {"experiment_id", "experiment_name", "runs": {name: run_id},
"share": {"experiment_id", "experiment_name", "runs": {name: run_id}}}. The experiments
belong to the token's user (alice): /Users/alice/... is private to her until shared.
"""

import json
import math
import time

import mlflow
from mlflow.entities import Metric, Param

EXPERIMENT = "/Users/alice/e2e-demo"
SHARE_EXPERIMENT = "/Users/alice/e2e-share"
SPIKE_STEP = 12_345
STEPS = 20_000


def spiky_value(step: int) -> float:
    """Around 1.0 with a gentle wobble, and one spike of 100.0 at SPIKE_STEP."""
    if step == SPIKE_STEP:
        return 100.0
    return 1.0 + 0.02 * math.sin(step / 150.0) + 0.01 * math.sin(step * 7.3)


def log_curve(client, run_id, key, n, fn, t0):
    for start in range(0, n, 1000):
        batch = [Metric(key, fn(s), t0 + s * 10, s) for s in range(start, min(n, start + 1000))]
        client.log_batch(run_id, metrics=batch)


def main() -> None:
    client = mlflow.MlflowClient()
    exp_id = client.create_experiment(EXPERIMENT, tags={"team": "e2e"})
    client.create_experiment("/Workspace/Shared/e2e-other")
    t0 = int(time.time() * 1000) - 3_600_000
    runs = {}

    def run(name, params, parent=None, status="FINISHED", offset=0):
        tags = {"mlflow.parentRunId": parent} if parent else {}
        r = client.create_run(exp_id, run_name=name, start_time=t0 + offset, tags=tags)
        client.log_batch(r.info.run_id, params=[Param(k, v) for k, v in params.items()])
        log_curve(client, r.info.run_id, "loss", 200, lambda s: 2.0 * math.exp(-s / 60) + 0.1, t0 + offset)
        client.set_terminated(r.info.run_id, status, end_time=t0 + offset + 60_000)
        runs[name] = r.info.run_id
        return r.info.run_id

    run("baseline", {"lr": "0.1", "optimizer": "sgd"}, offset=0)
    run("adam-0.001", {"lr": "0.001", "optimizer": "adam"}, offset=1000, status="FAILED")
    parent = run("sweep", {"optimizer": "adamw"}, offset=2000)
    run("sweep-lr-0.1", {"lr": "0.1", "optimizer": "adamw"}, parent=parent, offset=3000)
    run("sweep-lr-0.01", {"lr": "0.01", "optimizer": "adamw"}, parent=parent, offset=4000)

    spiky = client.create_run(exp_id, run_name="spiky-run", start_time=t0 + 5000)
    client.log_batch(spiky.info.run_id, params=[Param("lr", "0.01"), Param("optimizer", "adamw")])
    log_curve(client, spiky.info.run_id, "spiky", STEPS, spiky_value, t0 + 5000)
    log_curve(client, spiky.info.run_id, "loss", 200, lambda s: 1.5 * math.exp(-s / 40) + 0.05, t0 + 5000)
    client.set_terminated(spiky.info.run_id, "FINISHED", end_time=t0 + 5000 + STEPS * 10)
    runs["spiky-run"] = spiky.info.run_id

    share = seed_share(client, t0)
    print(json.dumps({"experiment_id": exp_id, "experiment_name": EXPERIMENT, "runs": runs, "share": share}))


def seed_share(client, t0):
    """alice's experiment for the sharing test: three runs, two metrics each."""
    exp_id = client.create_experiment(SHARE_EXPERIMENT)
    runs = {}
    for i, lr in enumerate(["0.1", "0.01", "0.001"]):
        r = client.create_run(exp_id, run_name=f"share-lr-{lr}", start_time=t0 + i * 1000)
        client.log_batch(r.info.run_id, params=[Param("lr", lr), Param("optimizer", "adamw")])
        log_curve(client, r.info.run_id, "loss", 300, lambda s, k=i: 2.0 * math.exp(-s / (50 + 20 * k)) + 0.1, t0)
        log_curve(client, r.info.run_id, "accuracy", 300, lambda s, k=i: 1 - math.exp(-s / (40 + 10 * k)), t0)
        client.set_terminated(r.info.run_id, "FINISHED", end_time=t0 + i * 1000 + 60_000)
        runs[f"share-lr-{lr}"] = r.info.run_id
    return {"experiment_id": exp_id, "experiment_name": SHARE_EXPERIMENT, "runs": runs}


if __name__ == "__main__":
    main()
