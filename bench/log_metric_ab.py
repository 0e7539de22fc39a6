#!/usr/bin/env python3
"""One `runs/log-metric` call at a time, two builds side by side (issue 11: what a training
loop's `mlflow.log_metric` costs, where each statement is a round trip on PostgreSQL).

Usage: .venv/bin/python bench/log_metric_ab.py --before PATH [--binary target/release/runlens]
       [--dist dist] [--backends sqlite postgres] [--calls 2000] [--batch 0] [--pg-dir DIR]

For each backend, both builds serve at once (SQLite: a fresh data dir each; PostgreSQL: one
fresh database on a throwaway cluster, `--pg-dir`, both builds as replicas of it), each
with a run of its own; then `--calls` points are logged to each, one `log-metric` call
each, the builds alternating call by call (and which goes first alternating too), so both
see the same load on this shared machine. With `--batch N` each call is instead one
`runs/log-batch` of N consecutive steps of the metric (as a training loop's chart series is
logged; `bench/write_cost.py` logs 1,000 a call). Reported: median and p99 ms a call after a
warm-up tenth, and the after/before ratio of the medians. Prints only: the figures go into
docs/BENCHMARKS.md by hand, with the change they measure.
"""

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import requests

import servers
from servers import ROOT, runlens
from write_cost import new_run, session


def run_of(s: requests.Session, url: str, name: str) -> str:
    """A run in a new experiment `name`."""
    r = s.post(f"{url}/api/2.0/mlflow/experiments/create", json={"name": name}, timeout=30)
    r.raise_for_status()
    return new_run(s, url, r.json()["experiment_id"])


def request(run: str, i: int, batch: int) -> tuple[str, dict]:
    """The `i`-th call's endpoint and body: one point, or `batch` consecutive steps."""
    if not batch:
        return "log-metric", {"run_id": run, "key": "loss", "value": 1.0 / (i + 1),
                              "timestamp": 1_700_000_000_000 + i, "step": i}
    steps = range(i * batch, (i + 1) * batch)
    return "log-batch", {"run_id": run, "metrics": [
        {"key": "loss", "value": 1.0 / (s + 1), "timestamp": 1_700_000_000_000 + s, "step": s} for s in steps]}


def compare(builds: dict, work: Path, dist: Path, calls: int, database_url: str | None,
            batch: int = 0) -> dict:
    srvs = {k: runlens(b, work, dist, database_url=database_url, name=f"ab-{k}", data_dir=work / f"data-{k}",
                       admin_password="log-metric-ab-pw") for k, b in builds.items()}
    for srv in srvs.values():
        srv.__enter__()
    try:
        sess = {k: session(srv) for k, srv in srvs.items()}
        runs = {k: run_of(sess[k], srv.url, f"log-metric-ab-{k}") for k, srv in srvs.items()}
        times = {k: [] for k in srvs}
        order = list(srvs)
        for i in range(calls):
            for k in (order if i % 2 else order[::-1]):
                path, body = request(runs[k], i, batch)
                t = time.perf_counter()
                sess[k].post(f"{srvs[k].url}/api/2.0/mlflow/runs/{path}", json=body, timeout=60).raise_for_status()
                times[k].append((time.perf_counter() - t) * 1000)
        out = {}
        for k, ts in times.items():
            kept = sorted(ts[calls // 10:])
            out[k] = {"median": statistics.median(kept), "p99": kept[int(len(kept) * 0.99)]}
        return out
    finally:
        for srv in srvs.values():
            srv.__exit__(None, None, None)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "runlens")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--backends", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--batch", type=int, default=0, help="points a call as one log-batch (0: log-metric)")
    ap.add_argument("--pg-dir", type=Path, default=servers.pg_dir_default())
    args = ap.parse_args()
    builds = {"before": args.before, "after": args.binary}
    args.dist.mkdir(exist_ok=True)
    for backend in args.backends:
        work = Path(tempfile.mkdtemp(prefix="log-metric-ab-"))
        if backend == "postgres":
            with servers.PgCluster(args.pg_dir) as pg:
                res = compare(builds, work, args.dist, args.calls, pg.create("log_metric_ab"), args.batch)
                pg.drop("log_metric_ab")
        else:
            res = compare(builds, work, args.dist, args.calls, None, args.batch)
        b, a = res["before"], res["after"]
        what = f"log-batch of {args.batch}" if args.batch else "log-metric"
        print(f"{backend:<10} {what} median {b['median']:.2f} -> {a['median']:.2f} ms "
              f"(x{a['median'] / b['median']:.2f}), p99 {b['p99']:.2f} -> {a['p99']:.2f} ms "
              f"(x{a['p99'] / b['p99']:.2f}), {args.calls} calls each, alternating", flush=True)


if __name__ == "__main__":
    main()
