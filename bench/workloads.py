"""The benchmark workloads, identical for both servers, driven through the stock mlflow client."""

import math
import statistics
import time

import requests
from mlflow import MlflowClient
from mlflow.entities import Metric, Param

SPIKE_VALUE = 100.0
BIG_KEY = "big_metric"


def spike_step(steps: int) -> int:
    """Where the single spike sits: an arbitrary, non-round step ~61.7% into the series."""
    return int(steps * 0.617283)


def big_value(step: int, spike_at: int) -> float:
    if step == spike_at:
        return SPIKE_VALUE
    return 1.0 + 0.01 * math.sin(step / 1000.0)


def seed(url: str, runs: int, steps: int) -> dict:
    """Workload (1): `runs` runs x (20 params, 10 metrics x 50 steps), then one run with a
    `steps`-step metric logged in log_batch chunks of 1000. Returns timings and ids."""
    client = MlflowClient(tracking_uri=url)
    exp_id = client.create_experiment("/Workspace/Shared/bench/runs-page")
    t0 = int(time.time() * 1000)
    started = time.perf_counter()
    for r in range(runs):
        run = client.create_run(exp_id, run_name=f"bench-{r:04d}", start_time=t0 + r)
        params = [Param(f"param_{p:02d}", f"value-{(r * 7 + p) % 13}") for p in range(20)]
        metrics = [Metric(f"metric_{m}", 1.0 / (1 + s + m) + r * 1e-4, t0 + s, s)
                   for m in range(10) for s in range(50)]
        client.log_batch(run.info.run_id, metrics=metrics, params=params)
        client.set_terminated(run.info.run_id, "FINISHED")
    runs_s = time.perf_counter() - started

    big = client.create_run(exp_id, run_name="bench-big-metric", start_time=t0 - 1)
    spike_at = spike_step(steps)
    started = time.perf_counter()
    for start in range(0, steps, 1000):
        chunk = [Metric(BIG_KEY, big_value(s, spike_at), t0 + s, s) for s in range(start, min(steps, start + 1000))]
        client.log_batch(big.info.run_id, metrics=chunk)
    big_s = time.perf_counter() - started
    client.set_terminated(big.info.run_id, "FINISHED")
    return {"experiment_id": exp_id, "big_run_id": big.info.run_id, "spike_step": spike_at,
            "runs_seconds": runs_s, "big_metric_seconds": big_s, "seed_seconds": runs_s + big_s}


def _timed(fn, repeat: int):
    times, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def _has_spike(values) -> bool:
    return any(v == SPIKE_VALUE for v in values)


def fetch_runlens(url: str, run_id: str, repeat: int, headers: dict | None = None) -> dict:
    """Workload (2) on runlens: the app's own call for a 1000-px chart (`headers` carry the
    credential)."""
    def call():
        r = requests.get(f"{url}/api/v1/runs/{run_id}/series", params={"key": BIG_KEY, "width": 1000},
                         headers=headers, timeout=600)
        r.raise_for_status()
        return r
    call()
    seconds, resp = _timed(call, repeat)
    body = resp.json()
    values = [float(p["value"]) for p in body["points"] if isinstance(p["value"], (int, float))]
    return {"chart_seconds": seconds, "chart_points": len(body["points"]), "chart_bytes": len(resp.content),
            "chart_spike": _has_spike(values)}


def fetch_mlflow(url: str, run_id: str, repeat: int) -> dict:
    """Workload (2) on MLflow: what its UI asks for (get-history-bulk-interval, sampled; 320
    points is the UI's default and 2500 the endpoint's maximum)."""
    out = {}
    for max_results in (320, 2500):
        def call(n=max_results):
            r = requests.get(f"{url}/ajax-api/2.0/mlflow/metrics/get-history-bulk-interval",
                             params={"run_ids": run_id, "metric_key": BIG_KEY, "max_results": n}, timeout=600)
            r.raise_for_status()
            return r
        call()
        seconds, resp = _timed(call, repeat)
        values = [float(m["value"]) for m in resp.json().get("metrics", [])]
        out[f"interval_{max_results}"] = {"seconds": seconds, "points": len(values),
                                          "bytes": len(resp.content), "spike": _has_spike(values)}
    return out


def fetch_full_history(url: str, run_id: str) -> dict:
    """The whole series through the stock client (`get_metric_history`, pages of 25,000)."""
    client = MlflowClient(tracking_uri=url)
    seconds, history = _timed(lambda: client.get_metric_history(run_id, BIG_KEY), 1)
    return {"seconds": seconds, "points": len(history), "spike": _has_spike(m.value for m in history)}
