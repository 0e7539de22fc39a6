#!/usr/bin/env python3
"""What a build's chart summaries cost writes (issue 11): two builds side by side, on SQLite
and on PostgreSQL, each on a fresh store.

Usage: .venv/bin/python bench/write_cost.py --before PATH [--binary target/release/runlens]
       [--dist dist] [--points 300000] [--singles 2000] [--rounds 2] [--pg-dir DIR] [--no-write]

For each backend and each build (the builds alternating, `--rounds` times, fresh store
each time):
- `log-batch`: a metric of `--points` points logged 1,000 a call (consecutive steps, as a
  training loop logs a chart's series): median ms per call, after a warm-up tenth;
- `log-metric`: `--singles` points of a second run logged one call each (what
  `mlflow.log_metric` in a loop does): median and p99 ms per call;
- storage: the store's bytes after both (SQLite: the database file and its WAL;
  PostgreSQL: `pg_database_size` after VACUUM), per point.
Times are wall clock of a kept-alive HTTP client on loopback; the median over rounds is
reported with each round's figure. Section "## What chart summaries cost writes (issue 11)"
of docs/BENCHMARKS.md is rewritten unless `--no-write`.
"""

import argparse
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import requests

import docsection
import servers
from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## What chart summaries cost writes (issue 11)"


def session(server) -> requests.Session:
    s = requests.Session()
    s.headers.update({**server.headers, "Content-Type": "application/json"})
    return s


def new_run(s: requests.Session, url: str, exp_id: str) -> str:
    r = s.post(f"{url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp_id}, timeout=30)
    r.raise_for_status()
    return r.json()["run"]["info"]["run_id"]


def workload(server, points: int, singles: int) -> dict:
    s = session(server)
    r = s.post(f"{server.url}/api/2.0/mlflow/experiments/create", json={"name": "writes"}, timeout=30)
    r.raise_for_status()
    exp_id = r.json()["experiment_id"]
    run = new_run(s, server.url, exp_id)
    batch = []
    t0 = 1_700_000_000_000
    for base in range(0, points, 1000):
        body = ('{"run_id":"%s","metrics":[' % run) + ",".join(
            '{"key":"loss","value":%r,"timestamp":%d,"step":%d}' % (((i * 7919) % 1000) / 7.0, t0 + i, i)
            for i in range(base, min(points, base + 1000))) + "]}"
        t = time.perf_counter()
        s.post(f"{server.url}/api/2.0/mlflow/runs/log-batch", data=body, timeout=120).raise_for_status()
        batch.append((time.perf_counter() - t) * 1000)
    run = new_run(s, server.url, exp_id)
    single = []
    for i in range(singles):
        body = '{"run_id":"%s","key":"loss","value":%r,"timestamp":%d,"step":%d}' % (run, i / 7.0, t0 + i, i)
        t = time.perf_counter()
        s.post(f"{server.url}/api/2.0/mlflow/runs/log-metric", data=body, timeout=60).raise_for_status()
        single.append((time.perf_counter() - t) * 1000)
    single.sort()
    return {"batch_ms": statistics.median(batch[len(batch) // 10:]),
            "single_ms": statistics.median(single[len(single) // 10:]),
            "single_p99_ms": single[int(len(single) * 0.99) - 1]}


def measure(args, dist: Path) -> dict:
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "points": args.points, "singles": args.singles,
           "rounds": args.rounds, "load": {"before": os.getloadavg()}, "runs": []}
    builds = {"before": args.before, "after": args.binary}
    work = Path(tempfile.mkdtemp(prefix="write-cost-"))
    try:
        with servers.PgCluster(args.pg_dir) as pg:
            for rnd in range(args.rounds):
                for backend in ("sqlite", "postgres"):
                    for name, binary in builds.items():
                        db = f"writes_{rnd}_{name}"
                        url = pg.create(db) if backend == "postgres" else None
                        data = work / f"data-{rnd}-{backend}-{name}"
                        with runlens(binary, work, dist, database_url=url, name=f"{name}-{backend}",
                                     data_dir=data) as server:
                            out = workload(server, args.points, args.singles)
                        if url:
                            pg.sql("VACUUM", db=db)
                            out["bytes"] = pg.size(db)
                            pg.drop(db)
                        else:
                            out["bytes"] = sum(f.stat().st_size for f in data.glob("runlens.db*"))
                        out.update(round=rnd, backend=backend, build=name)
                        res["runs"].append(out)
                        print(f"[{rnd}] {backend:<8} {name:<6} batch {out['batch_ms']:6.1f} ms  single "
                              f"{out['single_ms']:5.2f} ms (p99 {out['single_p99_ms']:5.2f})  "
                              f"{out['bytes'] / (args.points + args.singles):5.1f} B/point", flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["load"]["after"] = os.getloadavg()
    return res


def render(res: dict, before: Path, after: Path) -> str:
    n = res["points"] + res["singles"]
    lines = [SECTION, "",
             f"Measured {res['date']} by `bench/write_cost.py` (release builds; this machine: 2 cores shared with "
             f"other engineers' builds, load average {res['load']['before'][0]:.1f} before, "
             f"{res['load']['after'][0]:.1f} after). **before**: `{before.name}`; **after**: `{after.name}`. Each "
             f"round, on a fresh store of each backend: one metric of {res['points']:,} points through "
             f"`runs/log-batch`, 1,000 consecutive steps a call (median ms a call after a warm-up tenth), then "
             f"{res['singles']:,} points of another run through `runs/log-metric`, one a call (median and p99), then "
             f"the store's size per point ({n:,} points; SQLite: the file and its WAL; PostgreSQL: the database "
             f"after VACUUM). Median over {res['rounds']} rounds, each round's figures after it.", "",
             "| backend | measure | before | after | after / before |", "|---|---|---:|---:|---:|"]
    for backend, label in (("sqlite", "SQLite"), ("postgres", "PostgreSQL")):
        for key, what, fmt in (("batch_ms", "log-batch, 1,000 points", "{:.1f} ms"),
                               ("single_ms", "log-metric, median", "{:.2f} ms"),
                               ("single_p99_ms", "log-metric, p99", "{:.2f} ms"),
                               ("bytes", "bytes a point", "{:.0f} B")):
            vals = {}
            for build in ("before", "after"):
                xs = [r[key] / (n if key == "bytes" else 1) for r in res["runs"]
                      if r["backend"] == backend and r["build"] == build]
                vals[build] = (statistics.median(xs), xs)
            cell = lambda b: fmt.format(vals[b][0]) + " (" + ", ".join(fmt.format(x) for x in vals[b][1]) + ")"
            lines.append(f"| {label} | {what} | {cell('before')} | {cell('after')} | "
                         f"×{vals['after'][0] / vals['before'][0]:.2f} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True)
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "runlens")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--points", type=int, default=300_000)
    ap.add_argument("--singles", type=int, default=2_000)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--pg-dir", type=Path, default=servers.pg_dir_default())
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    res = measure(args, args.dist)
    text = render(res, args.before, args.binary)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text, after="## Charts on PostgreSQL (issue 11)")


if __name__ == "__main__":
    main()
