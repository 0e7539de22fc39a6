#!/usr/bin/env python3
"""Workspace benchmark (issue 9): the chart view of 20 runs x 10 metrics x 100,000 steps in
runlens and in MLflow's own UI, side by side, and the chart data behind it.

Usage (the conformance venv; bench/.venv-mlflow is created on first use like bench.py does):

  .venv/bin/python bench/workspace_bench.py seed     # once: both data sets under --dir
  .venv/bin/python bench/workspace_bench.py measure  # any number of times: reuses the data
  .venv/bin/python bench/workspace_bench.py all      # both

`seed` fills `--dir` (default target/bench-workspace/) with the same runs in two stores:
- runlens: `runlens serve` on `<dir>/runlens-data`, every point through the MLflow REST
  `runs/log-batch` (1,000 metrics a call, MLflow's limit) from `--procs` client processes;
- MLflow: `mlflow server` on `<dir>/mlflow.db` creates the experiment, runs, params and
  tags through its REST API; the metric points then go straight into its SQLite tables
  (`metrics`, `latest_metrics`, exactly the rows its `log_batch` writes), because 20 M points
  through MLflow's own `log_batch` would take an hour or more on this machine: its rate is
  measured on a sample of batches and reported beside runlens' so the seeding figures stay
  comparable.
The seed is deterministic (values from a fixed seed), its facts go to `<dir>/seed.json`.

`measure` starts each server on its data and measures
- the chart view in headless Chromium (bench/chart_view.mjs): runlens
  `/experiments/<id>?view=charts&sel=<20 ids>` until every panel's canvas says
  `data-status="drawn"`; MLflow's experiment page in chart mode with the 20 runs visible
  until its 10 metric charts have drawn all 20 runs' lines; time and bytes on the wire;
- the data behind the charts over HTTP, the calls each chart view makes: runlens'
  `GET /api/v1/experiments/{id}/series` (one per panel with the 20 runs, width 674, and
  once with all 10 keys in one call) vs MLflow's `get-history-bulk-interval` (one per
  metric with the 20 runs, 320 points a run), and how many of the seeded `grad_norm`
  spikes each answer keeps;
and writes the "## Workspace (issue 9)" section of docs/BENCHMARKS.md and
`<dir>/results.json`.
"""

import argparse
import datetime as dt
import json
import math
import os
import secrets
import sqlite3
import statistics
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import requests

import docsection
import servers
from servers import ROOT, Server, free_port

DEFAULT_DIR = ROOT / "target" / "bench-workspace"
DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Workspace (issue 9)"
EXPERIMENT = "/Workspace/Shared/bench/workspace"
METRICS = ["loss", "val_loss", "accuracy", "val_accuracy", "lr", "grad_norm",
           "throughput", "perplexity", "f1", "weight_norm"]
BATCH = 1000
SEED = 20_261_201


# ----------------------------------------------------------------------------- values

def run_name(r: int) -> str:
    return f"ws-{r:02d}"


def run_params(r: int) -> dict:
    """Params that differ between runs (a sweep), so compare and group-by have something."""
    return {"lr": ["1e-4", "3e-4", "1e-3", "3e-3"][r % 4], "optimizer": ["adam", "sgd"][r // 4 % 2],
            "batch_size": ["64", "128", "256"][r % 3], "seed": str(r), "epochs": "10"}


def series(r: int, m: int, steps: int):
    """Values of metric `m` of run `r` at every step: a training-like curve with noise
    (numpy, deterministic), so M4 and sampling both have detail to keep or lose."""
    import numpy as np

    rng = np.random.default_rng(SEED + 1000 * r + m)
    s = np.arange(steps, dtype=np.float64)
    t = s / steps
    scale = 1.0 + 0.15 * math.sin(r)
    noise = rng.standard_normal(steps)
    if m in (0, 1):            # loss, val_loss
        v = 0.3 + 2.2 * scale * np.exp(-6 * t) + 0.05 * noise * (1.5 if m else 1.0)
    elif m in (2, 3, 8):       # accuracies, f1
        v = 0.95 - 0.85 * np.exp(-5 * t * scale) + 0.01 * noise
    elif m == 4:               # lr: warm-up then cosine
        peak = 1e-3 * scale
        v = np.where(t < 0.05, peak * t / 0.05, peak * 0.5 * (1 + np.cos(np.pi * (t - 0.05) / 0.95)))
    elif m == 5:               # grad_norm with spikes
        v = 1.0 + 0.3 * np.abs(noise)
        v[rng.integers(0, steps, 20)] = 25.0
    elif m == 6:               # throughput
        v = 1800 + 40 * noise + 100 * np.sin(s / 5000)
    elif m == 7:               # perplexity
        v = np.exp(0.3 + 2.2 * scale * np.exp(-6 * t)) + 0.1 * noise
    else:                      # weight_norm
        v = 30 + 10 * t * scale + 0.05 * noise
    return v


# ----------------------------------------------------------------------------- servers

def runlens_server(binary: Path, workdir: Path, dist: Path, password: str) -> Server:
    """runlens on `<workdir>/runlens-data` (kept between calls); `admin`'s password fixed at seed."""
    port = free_port()
    argv = [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", str(workdir / "runlens-data"),
            "--dist", str(dist)]
    srv = Server("runlens", argv, port, workdir, env={"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": password})
    return srv


def mlflow_server(workdir: Path, workers: int | None = None) -> Server:
    exe = servers.ensure_mlflow_venv()
    srv = servers.mlflow(exe, workdir)
    if workers:
        srv.argv += ["--workers", str(workers)]
    return srv


def default_binary() -> Path:
    found = [p for p in (ROOT / "target/release/runlens", ROOT / "target/debug/runlens") if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime)


# ----------------------------------------------------------------------------- seeding

def _create_runs(url: str, headers: dict, runs: int, t0: int) -> tuple[str, list[str]]:
    """Experiment + runs with params and tags through the MLflow REST API; returns ids."""
    api = f"{url}/api/2.0/mlflow"
    r = requests.post(f"{api}/experiments/create", json={"name": EXPERIMENT}, headers=headers, timeout=60)
    r.raise_for_status()
    exp = r.json()["experiment_id"]
    ids = []
    for i in range(runs):
        r = requests.post(f"{api}/runs/create", json={
            "experiment_id": exp, "run_name": run_name(i), "start_time": t0,
            "tags": [{"key": "mlflow.user", "value": "bench"}]}, headers=headers, timeout=60)
        r.raise_for_status()
        rid = r.json()["run"]["info"]["run_id"]
        params = [{"key": k, "value": v} for k, v in run_params(i).items()]
        requests.post(f"{api}/runs/log-batch", json={"run_id": rid, "params": params},
                      headers=headers, timeout=60).raise_for_status()
        ids.append(rid)
    return exp, ids


def _finish_runs(url: str, headers: dict, ids: list[str], end: int) -> None:
    for rid in ids:
        requests.post(f"{url}/api/2.0/mlflow/runs/update", json={"run_id": rid, "status": "FINISHED",
                                                                 "end_time": end},
                      headers=headers, timeout=60).raise_for_status()


def _post_run(job) -> tuple[int, float]:
    """One client process: every batch of one run to runlens; returns (batches, seconds)."""
    url, headers, rid, r, steps, t0 = job
    session = requests.Session()
    session.headers.update(headers)
    session.headers["Content-Type"] = "application/json"
    n, started = 0, time.perf_counter()
    for m in range(len(METRICS)):
        v = series(r, m, steps)
        key = METRICS[m]
        for start in range(0, steps, BATCH):
            stop = min(steps, start + BATCH)
            metrics = [{"key": key, "value": float(v[s]), "timestamp": t0 + s * 100, "step": s}
                       for s in range(start, stop)]
            resp = session.post(f"{url}/api/2.0/mlflow/runs/log-batch",
                                data=json.dumps({"run_id": rid, "metrics": metrics}), timeout=600)
            resp.raise_for_status()
            n += 1
    return n, time.perf_counter() - started


def seed_runlens(srv: Server, runs: int, steps: int, procs: int, t0: int) -> dict:
    exp, ids = _create_runs(srv.url, srv.headers, runs, t0)
    started = time.perf_counter()
    jobs = [(srv.url, srv.headers, rid, r, steps, t0) for r, rid in enumerate(ids)]
    with ProcessPoolExecutor(procs) as pool:
        batches = sum(n for n, _ in pool.map(_post_run, jobs))
    seconds = time.perf_counter() - started
    _finish_runs(srv.url, srv.headers, ids, t0 + steps * 100)
    return {"experiment_id": exp, "run_ids": ids, "seconds": seconds, "batches": batches,
            "points": runs * len(METRICS) * steps, "procs": procs}


def mlflow_logbatch_rate(srv: Server, run_id: str, steps: int, t0: int, sample: int) -> dict:
    """MLflow's own log-batch rate on `sample` 1,000-point batches of a scratch key (whose rows
    the bulk load deletes again)."""
    session = requests.Session()
    session.headers["Content-Type"] = "application/json"
    times = []
    for b in range(sample):
        metrics = [{"key": "rate_probe", "value": float(s), "timestamp": t0 + s, "step": s}
                   for s in range(b * BATCH, (b + 1) * BATCH)]
        started = time.perf_counter()
        session.post(f"{srv.url}/api/2.0/mlflow/runs/log-batch",
                     data=json.dumps({"run_id": run_id, "metrics": metrics}), timeout=600).raise_for_status()
        times.append(time.perf_counter() - started)
    return {"sample_batches": sample, "median_batch_seconds": statistics.median(times),
            "mean_batch_seconds": statistics.fmean(times)}


def bulk_load_mlflow(db: Path, ids: list[str], steps: int, t0: int) -> float:
    """The rows MLflow's `log_batch` would write, straight into its SQLite tables."""
    started = time.perf_counter()
    con = sqlite3.connect(db)
    cols = [row[1] for row in con.execute("PRAGMA table_info(metrics)")]
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=OFF")
    con.execute("DELETE FROM metrics WHERE key = 'rate_probe'")
    con.execute("DELETE FROM latest_metrics WHERE key = 'rate_probe'")
    extra = [c for c in cols if c not in ("key", "value", "timestamp", "run_uuid", "step", "is_nan")]
    sql = ("INSERT INTO metrics (key, value, timestamp, run_uuid, step, is_nan) "
           "VALUES (?, ?, ?, ?, ?, 0)")
    for r, rid in enumerate(ids):
        for m, key in enumerate(METRICS):
            v = series(r, m, steps)
            con.executemany(sql, ((key, float(v[s]), t0 + s * 100, rid, s) for s in range(steps)))
            last = steps - 1
            con.execute("INSERT OR REPLACE INTO latest_metrics (key, value, timestamp, step, is_nan, run_uuid) "
                        "VALUES (?, ?, ?, ?, 0, ?)", (key, float(v[last]), t0 + last * 100, last, rid))
        con.commit()
        print(f"[seed] mlflow: run {r + 1}/{len(ids)} loaded", flush=True)
    con.close()
    if extra:
        print(f"[seed] note: metrics columns left at their defaults: {extra}", flush=True)
    return time.perf_counter() - started


def seed(args) -> dict:
    d: Path = args.dir
    d.mkdir(parents=True, exist_ok=True)
    facts_path = d / "seed.json"
    facts = json.loads(facts_path.read_text()) if facts_path.exists() else {}
    t0 = facts.get("t0") or int(time.time() * 1000) - args.steps * 100 - 3_600_000
    facts.update(t0=t0, runs=args.runs, metrics=len(METRICS), steps=args.steps)

    if "runlens" not in facts and args.only in ("both", "runlens"):
        password = "bench-" + secrets.token_urlsafe(16)
        with runlens_server(args.runlens_bin, d, args.dist, password) as srv:
            print(f"[seed] runlens: {args.runs} runs x {len(METRICS)} x {args.steps:,} via log-batch, "
                  f"{args.procs} processes", flush=True)
            out = seed_runlens(srv, args.runs, args.steps, args.procs, t0)
            out.update(password=password, token=srv.token)
        facts["runlens"] = out
        facts_path.write_text(json.dumps(facts, indent=2))
        print(f"[seed] runlens: {out['points']:,} points in {out['seconds']:.1f} s", flush=True)

    if "mlflow" not in facts and args.only in ("both", "mlflow"):
        with mlflow_server(d) as srv:
            exp, ids = _create_runs(srv.url, {}, args.runs, t0)
            print(f"[seed] mlflow: measuring its log-batch rate on {args.rate_sample} batches", flush=True)
            rate = mlflow_logbatch_rate(srv, ids[0], args.steps, t0, args.rate_sample)
            _finish_runs(srv.url, {}, ids, t0 + args.steps * 100)
        print("[seed] mlflow: bulk-loading the points into its SQLite tables", flush=True)
        load_s = bulk_load_mlflow(d / "mlflow.db", ids, args.steps, t0)
        facts["mlflow"] = {"experiment_id": exp, "run_ids": ids, "bulk_load_seconds": load_s,
                           "logbatch_rate": rate, "points": args.runs * len(METRICS) * args.steps}
        facts_path.write_text(json.dumps(facts, indent=2))
        print(f"[seed] mlflow: bulk load {load_s:.1f} s; its log-batch: "
              f"{rate['median_batch_seconds'] * 1000:.0f} ms per 1,000 points", flush=True)
    return facts


# ----------------------------------------------------------------------------- measuring

def spike_steps(r: int, steps: int) -> set[int]:
    """The steps where run `r`'s grad_norm spikes to 25.0 (see `series`)."""
    v = series(r, METRICS.index("grad_norm"), steps)
    return {int(s) for s in (v == 25.0).nonzero()[0]}


def _get(url: str, params, headers: dict) -> tuple[float, int, dict]:
    """One GET: (seconds, bytes on the wire with gzip, decoded JSON)."""
    started = time.perf_counter()
    resp = requests.get(url, params=params, headers={**headers, "Accept-Encoding": "gzip"},
                        stream=True, timeout=900)
    raw = resp.raw.read(decode_content=False)
    seconds = time.perf_counter() - started
    resp.raise_for_status()
    body = raw
    if resp.headers.get("Content-Encoding") == "gzip":
        import gzip
        body = gzip.decompress(raw)
    return seconds, len(raw), json.loads(body)


def api_runlens(url: str, headers: dict, exp: str, ids: list[str], steps: int, width: int,
                repeat: int, per_panel: bool) -> dict:
    """runlens' batched series calls for the 20 x 10 panels, `repeat` rounds (median): with
    `per_panel` one call per metric with every run, issued together over 6 connections (what
    its chart view does, one batch per panel), else one call with every run and metric."""
    from concurrent.futures import ThreadPoolExecutor

    endpoint = f"{url}/api/v1/experiments/{exp}/series"
    runs = [("run", r) for r in ids]
    groups = [[k] for k in METRICS] if per_panel else [METRICS]

    def one(keys):
        return _get(endpoint, runs + [("key", k) for k in keys] + [("width", str(width))], headers)

    rounds = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        with ThreadPoolExecutor(6) as pool:
            answers = list(pool.map(one, groups))
        rounds.append(time.perf_counter() - started)
    series = [s for _, _, body in answers for s in body["series"]]
    points = sum(len(s["points"]) for s in series)
    kept, total = 0, 0
    for s in series:
        if s["key"] != "grad_norm":
            continue
        truth = spike_steps(ids.index(s["run_id"]), steps)
        got = {p["step"] for p in s["points"] if p["value"] == 25.0}
        kept, total = kept + len(truth & got), total + len(truth)
    return {"requests": len(groups), "first_seconds": rounds[0], "seconds": statistics.median(rounds),
            "all_seconds": rounds, "slowest_call_seconds": max(a[0] for a in answers),
            "wire_bytes": sum(a[1] for a in answers), "series": len(series), "points": points,
            "spikes_kept": kept, "spikes_total": total, "width": width}


def api_mlflow(url: str, ids: list[str], steps: int, repeat: int, max_results: int = 320) -> dict:
    """What MLflow's chart view asks for: one get-history-bulk-interval per metric with all
    runs, issued together (the browser's 6 connections), `repeat` rounds (median)."""
    from concurrent.futures import ThreadPoolExecutor

    endpoint = f"{url}/ajax-api/2.0/mlflow/metrics/get-history-bulk-interval"

    def one(key):
        return key, _get(endpoint, [("run_ids", r) for r in ids] +
                         [("metric_key", key), ("max_results", str(max_results))], {})

    rounds = []
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        with ThreadPoolExecutor(6) as pool:
            answers = dict(pool.map(one, METRICS))
        rounds.append((time.perf_counter() - started, answers))
    answers = rounds[-1][1]
    wire = sum(a[1] for a in answers.values())
    points = sum(len(a[2].get("metrics", [])) for a in answers.values())
    kept, total = 0, 0
    grad = answers["grad_norm"][2].get("metrics", [])
    for r, rid in enumerate(ids):
        truth = spike_steps(r, steps)
        got = {int(m["step"]) for m in grad if m["run_id"] == rid and m["value"] == 25.0}
        kept, total = kept + len(truth & got), total + len(truth)
    slowest = max(a[0] for a in answers.values())
    return {"requests": len(METRICS), "first_seconds": rounds[0][0],
            "seconds": statistics.median([t for t, _ in rounds]), "all_seconds": [t for t, _ in rounds],
            "slowest_call_seconds": slowest,
            "wire_bytes": wire, "points": points, "spikes_kept": kept, "spikes_total": total,
            "max_results": max_results}


def chart_view(kind: str, url: str, runs: int, repeat: int, env: dict) -> dict:
    """bench/chart_view.mjs: median time to every panel drawn and bytes (cold loads)."""
    proc = subprocess.run(["node", str(ROOT / "bench" / "chart_view.mjs"), kind, url, str(len(METRICS)),
                           str(runs), str(repeat)], capture_output=True, text=True, timeout=3600,
                          env={**os.environ, **env})
    if proc.returncode != 0:
        lines = (proc.stderr or proc.stdout).strip().splitlines()
        return {"error": [line for line in lines if "Error" in line][:2] or lines[-3:] or ["failed"]}
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {"drawn_ms": med(raw["drawn_ms"]), "bytes": med(raw["bytes"]), "requests": med(raw["requests"]),
            "raw": raw}


def measure(args) -> dict:
    from report import build_facts, machine_facts

    facts = json.loads((args.dir / "seed.json").read_text())
    steps, runs = facts["steps"], facts["runs"]
    res = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
           "argv": " ".join(sys.argv[1:]), "machine": machine_facts(),
           "seed": {side: {k: v for k, v in facts[side].items() if k not in ("password", "token", "run_ids")}
                    for side in ("runlens", "mlflow") if side in facts},
           "runs": runs, "metrics": len(METRICS), "steps": steps}
    has_app = (args.dist / "index.html").exists()
    res["machine"].update(build_facts(args.runlens_bin, args.dist if has_app else None))
    if args.only in ("both", "runlens"):
        rl = facts["runlens"]
        with runlens_server(args.runlens_bin, args.dir, args.dist, rl["password"]) as srv:
            headers = {"Authorization": f"Bearer {rl['token']}"}
            out = {}
            print("[measure] runlens: batched series endpoint", flush=True)
            for name, per_panel in (("api", True), ("api_one_call", False)):
                try:
                    out[name] = api_runlens(srv.url, headers, rl["experiment_id"], rl["run_ids"], steps,
                                            args.width, args.repeat, per_panel)
                except requests.HTTPError as e:
                    out[name] = {"error": str(e)}
            if has_app and not args.api_only:
                print("[measure] runlens: chart view in Chromium", flush=True)
                sel = ",".join(rl["run_ids"])
                out["page"] = chart_view("runlens", f"{srv.url}/experiments/{rl['experiment_id']}?view=charts&sel={sel}",
                                         runs, args.repeat, {"BENCH_USERNAME": "admin", "BENCH_PASSWORD": rl["password"]})
            res["runlens"] = out
    if args.only in ("both", "mlflow"):
        mf = facts["mlflow"]
        res["machine"]["mlflow_server"] = subprocess.run(
            [str(servers.MLFLOW_VENV / "bin" / "python"), "-c", "import mlflow; print(mlflow.__version__)"],
            capture_output=True, text=True).stdout.strip()
        with mlflow_server(args.dir) as srv:
            out = {}
            print("[measure] mlflow: get-history-bulk-interval calls of its chart view", flush=True)
            if args.skip_mlflow_api:
                last = json.loads((args.dir / "results.json").read_text()) if (args.dir / "results.json").exists() else {}
                out["api"] = _g(last, "mlflow", "api") or {"error": "not measured"}
                out["api_date"] = _g(last, "mlflow", "api_date") or _g(last, "mlflow", "date")
            else:
                out["api"] = api_mlflow(srv.url, mf["run_ids"], steps, args.mlflow_repeat)
            if not args.api_only:
                print("[measure] mlflow: its chart view in Chromium", flush=True)
                exp = mf["experiment_id"]
                out["page"] = chart_view("mlflow", f"{srv.url}/#/experiments/{exp}/runs?compareRunsMode=CHART",
                                         runs, args.mlflow_repeat, {"BENCH_MLFLOW_EXPERIMENT": exp})
            res["mlflow"] = out
    # A side not measured this time keeps its last results (with their date and binary).
    path = args.dir / "results.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    for side in ("runlens", "mlflow"):
        if side in res:
            res[side]["date"], res[side]["argv"] = res["date"], res["argv"]
        elif side in old:
            res[side] = old[side]
            if side == "runlens":
                for k in ("runlens_sha256", "runlens_version", "dist_sha256", "dist_files"):
                    if k in old.get("machine", {}):
                        res["machine"][k] = old["machine"][k]
    if "mlflow_server" not in res["machine"] and "mlflow_server" in old.get("machine", {}):
        res["machine"]["mlflow_server"] = old["machine"]["mlflow_server"]
    path.write_text(json.dumps(res, indent=2) + "\n")
    print(json.dumps({k: res.get(k) for k in ("runlens", "mlflow")}, indent=1), flush=True)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, render(res))
        print(f"[measure] wrote {SECTION!r} of {DOC}", flush=True)
    return res


# ----------------------------------------------------------------------------- report

def _g(d, *path):
    for k in path:
        if not isinstance(d, dict) or k not in d:
            return None
        d = d[k]
    return d


def _sec(x):
    return "n/a" if x is None else f"{x:,.2f} s" if x < 100 else f"{x:,.0f} s"


def _bytes(x):
    return "n/a" if x is None else f"{x / 1024:,.0f} KiB" if x < 10 * 1048576 else f"{x / 1048576:,.1f} MiB"


def _num(x):
    return "n/a" if x is None else f"{x:,}"


def _factor(rl, mf):
    """MLflow / runlens (how many times runlens is faster or smaller)."""
    if rl is None or mf is None or rl == 0:
        return "n/a"
    return f"**{mf / rl:,.1f}x**"


def _page_note(side: dict, name: str) -> str:
    page = side.get("page")
    if not page:
        return f"- {name}: chart view not measured"
    if "error" in page:
        return f"- {name}: chart view failed: {' '.join(page['error'])}"
    raw = page["raw"]
    ms = ", ".join(f"{x:,}" for x in raw["drawn_ms"])
    by = ", ".join(_bytes(x) for x in raw["bytes"])
    calls = raw.get("data_requests", ["n/a"])[0]
    return (f"- {name}: all panels drawn after {ms} ms (each cold load), {by}, "
            f"{page['requests']} requests of which {calls} chart-data calls, {raw['panels'][0]} panels "
            f"with {raw['lines'][0]} lines")


def render(res: dict) -> str:
    rl, mf = res.get("runlens", {}), res.get("mlflow", {})
    m, seed = res["machine"], res.get("seed", {})
    runs, metrics, steps = res["runs"], res["metrics"], res["steps"]
    total = runs * metrics * steps
    ms = lambda v: None if v is None else v / 1000  # noqa: E731
    rl_api, mf_api = rl.get("api", {}), mf.get("api", {})
    spikes = lambda a: "n/a" if not a or "spikes_kept" not in a else f"{a['spikes_kept']} of {a['spikes_total']}"  # noqa: E731
    rate = _g(seed, "mlflow", "logbatch_rate", "median_batch_seconds")
    batches = total / BATCH
    rl_seed = _g(seed, "runlens", "seconds")
    rows = [
        ("chart view: all panels drawn, every run (cold load, median)", ms(_g(rl, "page", "drawn_ms")),
         ms(_g(mf, "page", "drawn_ms")), _sec),
        ("chart view: bytes transferred (page, app and data)", _g(rl, "page", "bytes"), _g(mf, "page", "bytes"), _bytes),
        ("chart view: requests", _g(rl, "page", "requests"), _g(mf, "page", "requests"), _num),
        ("chart data over HTTP: wall time for all panels", _g(rl_api, "seconds"), _g(mf_api, "seconds"), _sec),
        ("chart data over HTTP: bytes on the wire (gzip)", _g(rl_api, "wire_bytes"), _g(mf_api, "wire_bytes"), _bytes),
        ("chart data over HTTP: requests", _g(rl_api, "requests"), _g(mf_api, "requests"), _num),
        (f"seeding {total:,} points through `runs/log-batch`, 1,000 a call (MLflow: its rate x "
         f"{batches:,.0f} calls, see Details)", rl_seed,
         None if rate is None else rate * batches, _sec),
    ]
    out = [
        SECTION,
        "",
        "Measured by `bench/workspace_bench.py` (dates and arguments under Details) on this machine "
        f"(see Machine below): one experiment of {runs} runs x {metrics} metrics x {steps:,} steps "
        f"({total:,} points) in each server, the same values (seeded) in both. runlens: its chart view "
        f"`/experiments/<id>?view=charts&sel=<{runs} run ids>`; MLflow {m.get('mlflow_server', '')}: its "
        "experiment page in chart mode (`/#/experiments/<id>/runs?compareRunsMode=CHART`, the view that "
        "draws every metric of the visible runs, here with all runs visible). Times are wall clock; the "
        "factor is MLflow / runlens (higher is better for runlens).",
        "",
        "| workload | runlens | MLflow | factor |",
        "|---|---|---|---|",
    ]
    for name, a, b, fmt in rows:
        out.append(f"| {name} | {fmt(a)} | {fmt(b)} | {_factor(a, b)} |")
    out += [
        f"| chart data: points returned, all series | {_num(_g(rl_api, 'points'))} | {_num(_g(mf_api, 'points'))} | |",
        f"| `grad_norm` spikes (value 25.0) in the chart data | {spikes(rl_api)} | {spikes(mf_api)} | |",
        "",
        "Details:",
        "",
        f"- Measured: runlens {rl.get('date', 'n/a')} (`{rl.get('argv', 'n/a')}`), MLflow "
        f"{mf.get('date', 'n/a')} (`{mf.get('argv', 'n/a')}`"
        + (f"; its HTTP figures from the run of {mf['api_date']}" if mf.get("api_date") else "")
        + "), one after the other on the same data.",
        _page_note(rl, "runlens"),
        _page_note(mf, "MLflow"),
        f"- runlens' data: what its chart view asks for, one `GET /api/v1/experiments/{{id}}/series` per "
        f"panel with the {runs} runs (`run=` x {runs}, `key=<metric>`), width {_g(rl_api, 'width') or 'n/a'} "
        "(M4: first, last, min and max of each pixel column, so every spike that is its column's maximum "
        "stays), issued together over 6 connections; rounds: "
        + (", ".join(f"{t:.2f} s" for t in rl_api.get("all_seconds", [])) or "n/a")
        + f", slowest single call {_sec(_g(rl_api, 'slowest_call_seconds'))}. All {runs * metrics} series in one "
        f"call instead: {_sec(_g(rl, 'api_one_call', 'seconds'))}, {_bytes(_g(rl, 'api_one_call', 'wire_bytes'))}.",
        f"- MLflow's data: the {_g(mf_api, 'requests') or 'n/a'} `get-history-bulk-interval` calls its chart view "
        f"makes (one per metric, all runs, `max_results={_g(mf_api, 'max_results') or 320}`: a sample of "
        "320 steps per run), issued together over 6 connections as the browser does; rounds: "
        + (", ".join(f"{t:.1f} s" for t in mf_api.get("all_seconds", [])) or "n/a")
        + f", slowest single call {_sec(_g(mf_api, 'slowest_call_seconds'))}. Its SQL sampling (window "
        "functions over each run's rows of the key) still reads and orders every point to pick 320.",
        f"- Seeding: runlens took the points through the MLflow REST `runs/log-batch` from "
        f"{seed.get('runlens', {}).get('procs', 2)} client processes ({_sec(rl_seed)}). MLflow's `log-batch` took "
        f"{'n/a' if rate is None else f'{rate * 1000:,.0f} ms'} per 1,000 points (median of "
        f"{_g(seed, 'mlflow', 'logbatch_rate', 'sample_batches') or 'n/a'} calls), so its figure above is that rate "
        f"times {batches:,.0f} calls, not a measured run; its data was bulk-loaded into its SQLite tables "
        f"(`metrics`, `latest_metrics`) in {_sec(_g(seed, 'mlflow', 'bulk_load_seconds'))} instead.",
        "- The chart views run in headless Chromium (`bench/chart_view.mjs`, Playwright) with a fresh "
        "profile and the cache disabled, viewport 1440 x 2400 so that every panel is on screen (both UIs "
        "load only the panels in view). runlens: a panel is drawn when its canvas says "
        "`data-status=\"drawn\"` with `data-lines` = the number of runs; the browser signs in before "
        "the clock starts. MLflow: a panel is drawn when its Plotly chart has one full-opacity line per "
        "run (MLflow draws each run twice, smoothed over a faint raw line); a new profile shows the "
        "first 10 runs in the charts, so the page's remembered state is set to show all runs before it "
        "loads (as the eye menu's \"Show all runs\" does). Bytes: Chromium's `encodedDataLength` "
        "(headers included) until the network is idle for 1.5 s; runlens' are mostly chart data (M4 "
        "keeps up to 4 points per pixel column, so 20 runs x 10 panels at full width), MLflow's are its "
        "JavaScript plus chart data in protobuf JSON.",
        f"- The machine is shared (2 cores, builds of other work running at the same time): treat "
        "differences under 2x as noise. MLflow runs with its default workers and no auth; runlens "
        "with authentication on.",
        "",
        f"Machine: {m['cpu']}, {m['cores']} cores, {m['memory_gib']} GiB; {m['os']}; "
        f"`{m.get('runlens_version', 'runlens n/a')}` (release build, sha256 {m.get('runlens_sha256', 'n/a')[:16]}..., "
        f"checkout {m['runlens_commit']}; dist sha256 {str(m.get('dist_sha256', 'n/a'))[:16]}...); "
        f"MLflow server {m.get('mlflow_server', 'n/a')}; {m['chromium']}.",
        "",
        "Reproduce (the data is made once and kept in `target/bench-workspace/`, about "
        "6 GB with both stores):",
        "",
        "```",
        "make app server                                     # release binary and dist/",
        ".venv/bin/python bench/workspace_bench.py seed      # ~3 min runlens, ~4 min MLflow bulk load",
        ".venv/bin/python bench/workspace_bench.py measure   # writes this section and target/bench-workspace/results.json",
        "```",
        "",
    ]
    return "\n".join(out)


# ----------------------------------------------------------------------------- main

def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("what", choices=["seed", "measure", "all"])
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="data of both servers (kept)")
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--steps", type=int, default=100_000)
    p.add_argument("--procs", type=int, default=2, help="seeding client processes for runlens")
    p.add_argument("--rate-sample", type=int, default=30, help="MLflow log-batch calls timed")
    p.add_argument("--repeat", type=int, default=3, help="runlens: API calls and cold chart-view loads")
    p.add_argument("--mlflow-repeat", type=int, default=1,
                   help="MLflow: rounds of API calls and cold chart-view loads (each takes minutes)")
    p.add_argument("--skip-mlflow-api", action="store_true", help="MLflow: only its chart view (keeps the last API figures)")
    p.add_argument("--only", choices=["both", "runlens", "mlflow"], default="both")
    p.add_argument("--runlens-bin", type=Path,
                   default=Path(os.environ["RUNLENS_BIN"]) if os.environ.get("RUNLENS_BIN") else None)
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--width", type=int, default=674,
                   help="pixel columns asked of runlens' series API (674: what a panel of its chart view asks for at 1440 px)")
    p.add_argument("--api-only", action="store_true", help="skip the browser measurements")
    p.add_argument("--no-write", action="store_true", help="do not touch docs/BENCHMARKS.md")
    args = p.parse_args()
    args.runlens_bin = (args.runlens_bin or default_binary()).resolve()
    args.dist, args.dir = args.dist.resolve(), args.dir.resolve()
    return args


def main() -> int:
    args = parse_args()
    if args.what in ("seed", "all"):
        seed(args)
    if args.what in ("measure", "all"):
        measure(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
