#!/usr/bin/env python3
"""Seeding rate: runs a second that stock-client processes can log through the MLflow API,
each run as a training script's tracking makes it (`create_run`, one `log_batch` of params,
metrics and tags, `set_terminated`), for two builds in one run.

Usage: .venv/bin/python bench/seed_rate.py --before PATH [--binary target/release/runlens]
       [--clients 3] [--seconds 20] [--rounds 2] [--no-write]

Each round starts each build in turn (the order alternating) on a fresh data dir (SQLite,
as `make run` serves) and runs `--clients` processes of the stock client (`MlflowClient`)
for `--seconds`: each makes runs back to back, a run being `create_run`, `log_batch` with
20 params, 10 metrics at one step and 3 tags, and `set_terminated`; runs finished inside the
window count. Both builds see the same stretch of machine load within a round; the median
over rounds is reported. Per call kind the median and p99 milliseconds, with the server's own
share from its `Server-Timing` header where the build sends one; and the server's CPU time
(user + system, from /proc) over the window divided by the runs made, and the clients' own
(their process time): what a run costs each side, which the machine's load moves far less
than the rate; and the store's size after the window (the database file and its WAL) over
the runs made.

Results: bench/seed_rate_results.json and, unless `--no-write`, the section
"## Seeding runs through the MLflow API (issue 33)" of docs/BENCHMARKS.md.
"""

import argparse
import multiprocessing as mp
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import ab
from ingest_bench import pct, server_ms, wait_start
from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Seeding runs through the MLflow API (issue 33)"
RESULTS = ROOT / "bench" / "seed_rate_results.json"
KINDS = ("create_run", "log_batch", "set_terminated")


def client(url: str, token: str, exp_id: str, start_at, seconds: float, out) -> None:
    os.environ["MLFLOW_TRACKING_TOKEN"] = token
    import mlflow  # noqa: PLC0415 (after the token is in the environment)
    import mlflow.utils.rest_utils as rest  # noqa: PLC0415
    from mlflow.entities import Metric, Param, RunTag  # noqa: PLC0415

    seen = []
    inner = rest.http_request

    def timed(*args, **kwargs):
        resp = inner(*args, **kwargs)
        seen.append(server_ms(resp.headers))
        return resp

    rest.http_request = timed
    c = mlflow.MlflowClient(tracking_uri=url)
    ms = {k: [] for k in KINDS}
    srv = {k: [] for k in KINDS}
    runs, errors, i = 0, 0, 0
    start_at = wait_start(start_at)
    cpu_start = time.process_time()
    end = start_at + seconds
    while time.time() < end:
        now = int(time.time() * 1000)
        try:
            for kind in KINDS:
                seen.clear()
                t = time.perf_counter()
                if kind == "create_run":
                    run_id = c.create_run(exp_id, run_name=f"seed-{os.getpid()}-{i}").info.run_id
                elif kind == "log_batch":
                    c.log_batch(run_id,
                                params=[Param(f"p{k:02d}", str((i * 7 + k) % 97)) for k in range(20)],
                                metrics=[Metric(f"m{k}", (i % 100) * 0.01 * (k + 1), now, 0) for k in range(10)],
                                tags=[RunTag(f"t{k}", f"v{i % (k + 2)}") for k in range(3)])
                else:
                    c.set_terminated(run_id)
                ms[kind].append((time.perf_counter() - t) * 1000)
                if seen and all(v is not None for v in seen):
                    srv[kind].append(sum(seen))
            runs += time.time() <= end
        except Exception:  # noqa: BLE001 (counted, reported)
            errors += 1
        i += 1
    out.put({"runs": runs, "errors": errors, "ms": ms, "server_ms": srv,
             "cpu_ms": (time.process_time() - cpu_start) * 1000})


def measure(binary: Path, dist: Path, clients: int, seconds: float) -> dict:
    work = Path(tempfile.mkdtemp(prefix="seed-rate-"))
    try:
        with runlens(binary, work, dist) as server:
            os.environ["MLFLOW_TRACKING_TOKEN"] = server.token
            import mlflow  # noqa: PLC0415

            exp_id = mlflow.MlflowClient(tracking_uri=server.url).create_experiment("seed-rate")
            q, ready, go, at = mp.Queue(), mp.Queue(), mp.Event(), mp.Value("d", 0.0)
            procs = [mp.Process(target=client, args=(server.url, server.token, exp_id, (ready, go, at), seconds, q))
                     for _ in range(clients)]
            for p in procs:
                p.start()
            for _ in procs:
                ready.get(timeout=600)
            at.value = time.time() + 0.5
            go.set()
            time.sleep(max(0.0, at.value - time.time()))
            cpu_start = ab.cpu_ms(server.proc.pid)
            time.sleep(seconds)
            cpu_used = ab.cpu_ms(server.proc.pid) - cpu_start
            results = [q.get(timeout=seconds + 300) for _ in procs]
            for p in procs:
                p.join()
            store_bytes = sum(f.stat().st_size for f in work.rglob("*") if f.name.endswith((".db", ".db-wal")))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    runs = sum(r["runs"] for r in results)
    out = {"runs_per_s": runs / seconds, "server_cpu_ms_per_run": cpu_used / max(runs, 1),
           "client_cpu_ms_per_run": sum(r["cpu_ms"] for r in results) / max(runs, 1),
           "errors": sum(r["errors"] for r in results), "load1": os.getloadavg()[0], "calls": {},
           "store_bytes_per_run": store_bytes / max(runs, 1)}
    for kind in KINDS:
        lat = [x for r in results for x in r["ms"][kind]]
        srv = [x for r in results for x in r["server_ms"][kind]]
        out["calls"][kind] = {"p50_ms": pct(lat, 0.5), "p99_ms": pct(lat, 0.99),
                              "server_p50_ms": pct(srv, 0.5) if srv else None,
                              "server_p99_ms": pct(srv, 0.99) if srv else None}
    return out


def store(rounds: list) -> str:
    sizes = [r["store_bytes_per_run"] for r in rounds if "store_bytes_per_run" in r]
    return f"{statistics.median(sizes) / 1024:.1f} KiB" if sizes else "–"


def render(res: dict) -> str:
    builds = list(res["builds"])
    med = lambda xs: statistics.median(xs)  # noqa: E731
    lines = [SECTION, "",
             f"Measured {res['date']} by `bench/seed_rate.py --clients {res['clients']} --seconds {res['seconds']:g} "
             f"--rounds {res['rounds']}`: {res['clients']} processes of the stock client (`MlflowClient`, mlflow-skinny) "
             "each making runs back to back for the window, a run being `create_run`, one `log_batch` (20 params, "
             "10 metrics at one step, 3 tags) and `set_terminated`, against one `runlens serve` on a fresh SQLite "
             "data dir; each round runs every build in turn (order alternating). Builds: "
             + "; ".join(f"**{b}**: {res['builds'][b]}" for b in builds) + ". Load average "
             f"{res['load'][0]:.1f} at the start, {res['load_after'][0]:.1f} at the end.", "",
             "| build | runs/s (median of rounds) | each round | create_run p50 / p99 | log_batch p50 / p99 | "
             "set_terminated p50 / p99 | server's share, p50 (create / batch / end) | CPU a run, server / clients (median) "
             "| store a run (median) |",
             "|---|---:|---|---|---|---|---|---:|---:|"]
    for b in builds:
        rounds = res["rounds_data"][b]
        rate = med([r["runs_per_s"] for r in rounds])
        last = rounds[-1]["calls"]
        share = " / ".join("–" if last[k]["server_p50_ms"] is None else f"{last[k]['server_p50_ms']:.0f}"
                           for k in KINDS)
        lines.append(f"| {b} | **{rate:.0f}** | " + ", ".join(f"{r['runs_per_s']:.0f} (load {r['load1']:.1f})"
                                                              for r in rounds) + " | "
                     + " | ".join(f"{last[k]['p50_ms']:.0f} / {last[k]['p99_ms']:.0f} ms" for k in KINDS)
                     + f" | {share} ms | {med([r['server_cpu_ms_per_run'] for r in rounds]):.2f} / "
                     f"{med([r['client_cpu_ms_per_run'] for r in rounds]):.2f} ms | {store(rounds)} |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ab.add_args(p, rounds=2)
    p.add_argument("--clients", type=int, default=3)
    p.add_argument("--seconds", type=float, default=20)
    args = p.parse_args()
    res = ab.run(args, lambda binary, dist: measure(binary, dist, args.clients, args.seconds),
                 lambda i, name, r: f"[seed-rate] round {i} {name}: {r['runs_per_s']:.0f} runs/s, load {r['load1']:.1f}",
                 clients=args.clients, seconds=args.seconds)
    ab.publish(args, res, RESULTS, render, DOC, SECTION)


if __name__ == "__main__":
    main()
