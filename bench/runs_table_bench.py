#!/usr/bin/env python3
"""Runs table benchmark (issue 11): experiments of 1,000, 10,000 and 100,000 runs (20 params,
10 metrics, 3 tags each) and what the runs page and the MLflow API cost on them.

Usage (any Python with `requests`; Node with end2end/node_modules for the browser timing):

  python bench/runs_table_bench.py seed                       # once, into --dir
  python bench/runs_table_bench.py measure --bin B --dist D --label before|after
  python bench/runs_table_bench.py report                     # prints the before/after table

`seed` starts `runlens serve` once on `<dir>/seed-data` (schema, admin, three experiments
through the MLflow API), stops it and writes the runs, params, latest metrics and tags straight
into its SQLite file, because 100,000 runs through `runs/create` + `log-batch` would take
most of an hour on this machine. Values are deterministic (a fixed seed); `m9` is missing on
every 10th run and `p19` on every 7th, so sorts meet missing values.

`measure` copies the seeded data dir (a newer binary migrates it), starts the given binary
and times, per experiment (median of `--repeat` requests, ms, server on localhost):
- `header`: `GET /api/v1/experiments/{id}` (the experiment and its column keys);
- `first page`: `GET /api/v1/experiments/{id}/runs` as the page asks for it (default sort,
  10 metric and 20 param columns); the old server answers every run up to 10,000;
- `sort metric` / `sort param`: the same sorted by `metrics.m0 ASC` / `params.p01 DESC`;
- `filter`: `metrics.m1 < 0.5 AND params.p00 = 'adam'`, sorted by `metrics.m2`;
- `search_runs p1` / `p5`: MLflow `runs/search` with `max_results` 1,000: the first page,
  and the fifth (following `next_page_token`); `search_runs metric p1`: the first page
  ordered by `metrics.m0`;
- `first row`: the runs page in headless Chromium (bench/page_load.mjs), cold, until the
  first run row shows.
Results go to `<dir>/<label>.json`.
"""

import argparse
import json
import os
import random
import shutil
import sqlite3
import statistics
import subprocess
import time
from pathlib import Path

import requests

from servers import ROOT, Server, free_port

DEFAULT_DIR = ROOT / "target" / "bench-runs-table"
PASSWORD = "bench-runs-table-1"
SIZES = [1_000, 10_000, 100_000]
PARAMS = [f"p{i:02d}" for i in range(20)]
METRICS = [f"m{i}" for i in range(10)]
SEED = 11
T0 = 1_700_000_000_000


def server(binary: Path, data: Path, dist: Path, workdir: Path) -> Server:
    port = free_port()
    argv = [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", str(data), "--dist", str(dist)]
    return Server("runlens", argv, port, workdir, env={"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": PASSWORD})


def seed(args) -> None:
    d = args.dir
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    data = d / "seed-data"
    exps = {}
    with server(args.bin, data, args.dist, d) as srv:
        for n in SIZES:
            r = requests.post(f"{srv.url}/api/2.0/mlflow/experiments/create", json={"name": f"runs-{n}"},
                              headers=srv.headers, timeout=60)
            r.raise_for_status()
            exps[n] = int(r.json()["experiment_id"])
    rng = random.Random(SEED)
    db = sqlite3.connect(data / "runlens.db")
    started = time.perf_counter()
    with db:
        for n, exp in exps.items():
            runs, params, metrics, tags = [], [], [], []
            for i in range(n):
                rid = f"{exp:04x}{rng.getrandbits(112):028x}"
                start = T0 + i * 1000
                runs.append((rid, exp, f"run-{i:06d}", "bench", "FINISHED", start, start + 60_000, "active",
                             f"file:///tmp/{rid}"))
                for k, key in enumerate(PARAMS):
                    if key == "p19" and i % 7 == 0:
                        continue
                    if key == "p00":
                        v = ["adam", "sgd", "adamw"][i % 3]
                    elif key == "p01":
                        v = f"{rng.choice([1, 3])}e-{rng.randint(2, 5)}"
                    else:
                        v = str(rng.randint(0, 1000))
                    params.append((rid, key, v))
                for m, key in enumerate(METRICS):
                    if key == "m9" and i % 10 == 0:
                        continue
                    metrics.append((rid, key, 100, start + 50_000, 0, rng.random()))
                tags += [(rid, "mlflow.user", "bench"), (rid, "mlflow.runName", f"run-{i:06d}"),
                         (rid, "team", ["vision", "nlp"][i % 2])]
            db.executemany("INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time, end_time,"
                           " lifecycle_stage, artifact_uri) VALUES (?,?,?,?,?,?,?,?,?)", runs)
            db.executemany("INSERT INTO params (run_uuid, key, value) VALUES (?,?,?)", params)
            db.executemany("INSERT INTO latest_metrics (run_uuid, key, step, timestamp, is_nan, value)"
                           " VALUES (?,?,?,?,?,?)", metrics)
            db.executemany("INSERT INTO tags (run_uuid, key, value) VALUES (?,?,?)", tags)
    db.execute("ANALYZE")
    db.close()
    (d / "seed.json").write_text(json.dumps({"experiments": exps, "seconds": time.perf_counter() - started}))
    print(f"seeded {sum(SIZES):,} runs in {time.perf_counter() - started:.0f} s")


def timed(fn, repeat: int) -> tuple[float, object]:
    times, last = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        last = fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), last


def page_load(url: str, repeat: int) -> int | None:
    env = {**os.environ, "BENCH_USERNAME": "admin", "BENCH_PASSWORD": PASSWORD}
    proc = subprocess.run(["node", str(ROOT / "bench" / "page_load.mjs"), url, r"^run-\d{6}$", str(repeat)],
                          capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0:
        print("page_load failed:", (proc.stderr or proc.stdout)[-500:])
        return None
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    return sorted(raw["first_row_ms"])[len(raw["first_row_ms"]) // 2]


def measure(args) -> None:
    d = args.dir
    exps = {int(k): v for k, v in json.loads((d / "seed.json").read_text())["experiments"].items()}
    data = d / f"data-{args.label}"
    if data.exists():
        shutil.rmtree(data)
    shutil.copytree(d / "seed-data", data)
    cols = [("metric", m) for m in METRICS] + [("param", p) for p in PARAMS]
    out = {}
    with server(args.bin, data, args.dist, d) as srv:
        s = requests.Session()
        s.headers.update(srv.headers)

        def get(path, params=()):
            r = s.get(f"{srv.url}{path}", params=list(params), timeout=600)
            r.raise_for_status()
            return r.json()

        def search(exp, token=None, order_by=()):
            body = {"experiment_ids": [str(exp)], "max_results": 1000, "order_by": list(order_by)}
            if token:
                body["page_token"] = token
            r = s.post(f"{srv.url}/api/2.0/mlflow/runs/search", json=body, timeout=600)
            r.raise_for_status()
            return r.json()

        for n, exp in exps.items():
            res = {}
            base = f"/api/v1/experiments/{exp}"
            res["header"], _ = timed(lambda: get(base), args.repeat)
            runs = f"{base}/runs"
            for name, extra in [
                ("first page", [("order_by", "attributes.start_time DESC")]),
                ("sort metric", [("order_by", "metrics.m0 ASC")]),
                ("sort param", [("order_by", "params.p01 DESC")]),
                ("filter", [("filter", "metrics.m1 < 0.5 AND params.p00 = 'adam'"),
                            ("order_by", "metrics.m2 ASC")]),
            ]:
                ms, body = timed(lambda: get(runs, extra + cols), args.repeat)
                res[name] = ms
                res[f"{name} rows"] = len(body["rows"])
                res[f"{name} total"] = body["total"]
            res["search_runs p1"], page = timed(lambda: search(exp), args.repeat)
            token = page.get("next_page_token")
            for _ in range(3):
                token = token and search(exp, token).get("next_page_token")
            if token:
                res["search_runs p5"], _ = timed(lambda: search(exp, token), args.repeat)
            res["search_runs metric p1"], _ = timed(lambda: search(exp, order_by=["metrics.m0 ASC"]), args.repeat)
            if not args.no_browser:
                res["first row"] = page_load(f"{srv.url}/experiments/{exp}", args.page_repeat)
            out[n] = res
            print(n, json.dumps(res), flush=True)
    (d / f"{args.label}.json").write_text(json.dumps(out, indent=1))


def load(d: Path, label: str) -> dict:
    """`<label>.json`, with what it lacks taken from `<label>-nb.json` (a later run without
    the browser) when there is one."""
    out = json.loads((d / f"{label}.json").read_text())
    extra = d / f"{label}-nb.json"
    if extra.exists():
        for n, res in json.loads(extra.read_text()).items():
            for k, v in res.items():
                out.setdefault(n, {}).setdefault(k, v)
    return out


def report(args) -> None:
    before, after = load(args.dir, "before"), load(args.dir, "after")
    rows = ["header", "first page", "sort metric", "sort param", "filter", "search_runs p1", "search_runs p5",
            "search_runs metric p1", "first row"]
    print("| runs | what | before (ms) | after (ms) |")
    print("|---:|---|---:|---:|")
    for n in before:
        for r in rows:
            fmt = lambda v: "–" if v is None else f"{v:,.0f}"  # noqa: E731
            print(f"| {int(n):,} | {r} | {fmt(before[n].get(r))} | {fmt(after[n].get(r))} |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["seed", "measure", "report"])
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    p.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--label", default="after")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--page-repeat", type=int, default=3)
    p.add_argument("--no-browser", action="store_true")
    args = p.parse_args()
    {"seed": seed, "measure": measure, "report": report}[args.cmd](args)


if __name__ == "__main__":
    main()
