#!/usr/bin/env python3
"""Concurrent ingest (issue 11, "fair writes"): N stock-client processes log batches into
one `runlens serve` at once; points/s and per-call latency (p50 / p99 / max).

Usage: .venv/bin/python bench/ingest_bench.py [--clients 1 8 16 32] [--seconds 20]
       [--points 1000] [--binary target/release/runlens] [--dist dist] [--label NAME]
       [--note TEXT] [--no-write]

Each client is a process of its own with `mlflow.MlflowClient` (the stock client, as a
training script uses it) and a run of its own; it calls `log_batch` with `--points`
metrics (10 keys x points/10 steps) back to back for `--seconds`, timing every call. The
server runs on a fresh data dir (SQLite, `synchronous = FULL`). Results go to
`bench/ingest_results.json` under `--label` (so a build before and after a change can be
compared), and, unless `--no-write`, the "## Concurrent ingest (issue 11)" section of
docs/BENCHMARKS.md is rewritten from every label in that file.
"""

import argparse
import json
import multiprocessing as mp
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Concurrent ingest (issue 11)"
RESULTS = ROOT / "bench" / "ingest_results.json"


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def client(url: str, token: str, exp_id: str, points: int, start_at: float, seconds: float, out) -> None:
    os.environ["MLFLOW_TRACKING_TOKEN"] = token
    import mlflow  # noqa: PLC0415 (after the token is in the environment)
    from mlflow.entities import Metric  # noqa: PLC0415

    c = mlflow.MlflowClient(tracking_uri=url)
    run_id = c.create_run(exp_id).info.run_id
    steps = points // 10
    lat, step, errors = [], 0, 0
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        now = int(time.time() * 1000)
        batch = [Metric(f"m{k}", (step + s) * 0.001 * (k + 1), now, step + s) for k in range(10) for s in range(steps)]
        t0 = time.perf_counter()
        try:
            c.log_batch(run_id, metrics=batch)
            lat.append((time.perf_counter() - t0) * 1000)
        except Exception:  # noqa: BLE001 (counted, reported)
            errors += 1
        step += steps
    out.put({"latencies": lat, "errors": errors, "points": len(lat) * points})


def raw_client(url: str, token: str, exp_id: str, points: int, start_at: float, seconds: float, out) -> None:
    """Like `client`, but posting `runs/log-batch` with `requests` and a body built as text:
    a tenth of the stock client's CPU per call, so the server's queueing shows."""
    import requests  # noqa: PLC0415

    s = requests.Session()
    s.headers.update({"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    r = s.post(f"{url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp_id, "start_time": 0}, timeout=60)
    r.raise_for_status()
    run_id = r.json()["run"]["info"]["run_id"]
    steps = points // 10
    lat, step, errors = [], 0, 0
    time.sleep(max(0.0, start_at - time.time()))
    end = start_at + seconds
    while time.time() < end:
        now = int(time.time() * 1000)
        body = ('{"run_id":"%s","metrics":[' % run_id) + ",".join(
            '{"key":"m%d","value":%r,"timestamp":%d,"step":%d}' % (k, (step + i) * 0.001 * (k + 1), now, step + i)
            for k in range(10) for i in range(steps)) + "]}"
        t0 = time.perf_counter()
        try:
            s.post(f"{url}/api/2.0/mlflow/runs/log-batch", data=body, timeout=120).raise_for_status()
            lat.append((time.perf_counter() - t0) * 1000)
        except Exception:  # noqa: BLE001 (counted, reported)
            errors += 1
        step += steps
    out.put({"latencies": lat, "errors": errors, "points": len(lat) * points})


def measure(server, exp_id: str, clients: int, points: int, seconds: float, raw: bool = False) -> dict:
    q = mp.Queue()
    start_at = time.time() + 3.0 + clients * 0.8  # every process imported mlflow by then
    procs = [mp.Process(target=raw_client if raw else client, args=(server.url, server.token, exp_id, points, start_at, seconds, q))
             for _ in range(clients)]
    for p in procs:
        p.start()
    results = [q.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    lat = [x for r in results for x in r["latencies"]]
    return {"clients": clients, "raw": raw, "points_per_s": sum(r["points"] for r in results) / seconds,
            "calls": len(lat), "errors": sum(r["errors"] for r in results),
            "p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99), "max_ms": max(lat),
            "mean_ms": statistics.mean(lat)}


def render(all_results: dict) -> str:
    lines = [SECTION, "",
             "`bench/ingest_bench.py`: N client processes, each logging batches of 1,000 points to a run of its "
             "own, back to back for the stated seconds, against one `runlens serve` on SQLite "
             "(`synchronous = FULL`), on this machine (2 cores shared by the server and every client). Two "
             "kinds of client: the stock client (`MlflowClient.log_batch`), and `requests` posting "
             "`runs/log-batch` with a body built as text (a tenth of the stock client's CPU per call).",
             "", "| build | client | processes | points/s | p50 | p99 | max | errors |",
             "|---|---|---|---|---|---|---|---|"]
    for key, res in all_results.items():
        label = key.rsplit(" (", 1)[0]
        for r in res["runs"]:
            kind = "requests" if r.get("raw") else "stock"
            lines.append(f"| {label} | {kind} | {r['clients']} | {r['points_per_s']:,.0f} | {r['p50_ms']:.0f} ms | "
                         f"**{r['p99_ms']:.0f} ms** | {r['max_ms']:.0f} ms | {r['errors']} |")
    lines += ["", "Reading: with the stock client the 2 cores go to the clients themselves (each call builds "
              "1,000 `Metric` objects and their JSON in Python), so its latency is mostly the clients' own CPU "
              "queue and a server-side change hardly shows; the light client leaves the server the CPU, so "
              "its rows show how the server serves concurrent writers. Single-client figures vary by about "
              "±15 % from run to run here."]
    notes = {k.rsplit(" (", 1)[0]: v for k, v in all_results.items()}
    lines += ["", "Builds: " + "; ".join(f"**{k}**: {v['note']} ({v['date']}, {v['seconds']:.0f} s per level)"
                                           for k, v in notes.items()) + ".", ""]
    return "\n".join(lines)


def write_section(text: str) -> None:
    doc = DOC.read_text()
    start = doc.find(SECTION + "\n")
    if start < 0:
        doc = doc.rstrip("\n") + "\n\n" + text
    else:
        end = doc.find("\n## ", start + len(SECTION))
        doc = doc[:start] + text + (doc[end + 1:] if end >= 0 else "")
    DOC.write_text(doc)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, nargs="+", default=[1, 8, 16, 32])
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--points", type=int, default=1000)
    p.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--dist", type=Path, default=ROOT / "dist", help="the app (trunk build) the server serves")
    p.add_argument("--label", default="runlens")
    p.add_argument("--note", default="", help="what the build is (written beside the label)")
    p.add_argument("--raw", action="store_true",
                   help="post log-batch bodies with requests instead of the stock client (less client CPU)")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args()
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        binary = work / "runlens"
        shutil.copy2(args.binary, binary)
        with runlens(binary, work, args.dist.resolve()) as server:
            os.environ["MLFLOW_TRACKING_TOKEN"] = server.token
            import mlflow  # noqa: PLC0415

            exp_id = mlflow.MlflowClient(tracking_uri=server.url).create_experiment("ingest-bench")
            for n in args.clients:
                r = measure(server, exp_id, n, args.points, args.seconds, args.raw)
                print(f"[ingest] {args.label} {r}", flush=True)
                runs.append(r)
    all_results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
    key = f"{args.label} ({'requests' if args.raw else 'stock'})"
    all_results[key] = {"note": args.note or args.label, "date": time.strftime("%Y-%m-%d"),
                               "seconds": args.seconds, "runs": runs}
    RESULTS.write_text(json.dumps(all_results, indent=1))
    text = render(all_results)
    print(text)
    if not args.no_write:
        write_section(text)


if __name__ == "__main__":
    main()
