#!/usr/bin/env python3
"""Concurrent ingest (issue 11, "fair writes"): N stock-client processes log batches into
one `runlens serve` at once; points/s and per-call latency (p50 / p99 / max).

Usage: .venv/bin/python bench/ingest_bench.py [--clients 1 8 16 32] [--seconds 20]
       [--points 1000] [--binary target/release/runlens] [--dist dist] [--label NAME]
       [--note TEXT] [--no-write]
       .venv/bin/python bench/ingest_bench.py --backends sqlite pg pg2 mlflow-pg
       [--clients 1 8 32] [--pg-dir /tmp/rl-pg-bench] [--raw] [--no-write]

Each client is a process of its own with `mlflow.MlflowClient` (the stock client, as a
training script uses it) and a run of its own; it calls `log_batch` with `--points`
metrics (10 keys x points/10 steps) back to back for `--seconds`, timing every call. The
server runs on a fresh data dir (SQLite, `synchronous = FULL`). Results go to
`bench/ingest_results.json` under `--label` (so a build before and after a change can be
compared), and, unless `--no-write`, the "## Concurrent ingest (issue 11)" section of
docs/BENCHMARKS.md is rewritten from every label in that file.

`--backends` compares servers in one run instead (issue 11, step 9 of docs/POSTGRES-PLAN.md):
`sqlite` (runlens on SQLite), `pg` (runlens on PostgreSQL), `pg2` (two `runlens serve`
replicas on the same PostgreSQL database and the same `--data-dir`, the clients spread
round-robin over the two: client i talks to replica i mod 2, no load balancer in between)
and `mlflow-pg` (`mlflow server --workers 4` on the same PostgreSQL cluster). PostgreSQL is
a throwaway cluster in `--pg-dir` (scripts/pg.sh), one fresh database per backend, dropped
at the end. For each client count, each backend in turn gets its servers started, the
clients for `--seconds`, and its servers stopped, so every backend sees the same stretch of
machine load; its data (database, experiment) carries over to the next client count.
Besides latency it records the CPU seconds of the server processes and of PostgreSQL's
processes over the window. Results: bench/ingest_pg_results.json, and the section
"## Concurrent ingest on PostgreSQL and replicas (issue 11)" of docs/BENCHMARKS.md.
"""

import argparse
import json
import multiprocessing as mp
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

import docsection
import servers
from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Concurrent ingest (issue 11)"
RESULTS = ROOT / "bench" / "ingest_results.json"
PG_SECTION = "## Concurrent ingest on PostgreSQL and replicas (issue 11)"
PG_RESULTS = ROOT / "bench" / "ingest_pg_results.json"
BACKENDS = {
    "sqlite": "runlens, SQLite",
    "pg": "runlens, PostgreSQL",
    "pg2": "runlens ×2 replicas, PostgreSQL",
    "mlflow-pg": "MLflow (4 workers), PostgreSQL",
}


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


def wait_start(start_at) -> float:
    """`start_at`: a time (the old protocol) or a (ready queue, go event, shared start time)
    triple: say ready, wait for the go, return the common start time."""
    if isinstance(start_at, (int, float)):
        time.sleep(max(0.0, start_at - time.time()))
        return start_at
    ready, go, at = start_at
    ready.put(1)
    go.wait()
    time.sleep(max(0.0, at.value - time.time()))
    return at.value


def client(url: str, token: str | None, exp_id: str, points: int, start_at, seconds: float, out) -> None:
    if token:
        os.environ["MLFLOW_TRACKING_TOKEN"] = token
    import mlflow  # noqa: PLC0415 (after the token is in the environment)
    from mlflow.entities import Metric  # noqa: PLC0415

    c = mlflow.MlflowClient(tracking_uri=url)
    run_id = c.create_run(exp_id).info.run_id
    http = _time_http_requests()
    steps = points // 10
    lat, parts, step, errors, done = [], [], 0, 0, 0
    start_at = wait_start(start_at)
    end = start_at + seconds
    while time.time() < end:
        now = int(time.time() * 1000)
        batch = [Metric(f"m{k}", (step + s) * 0.001 * (k + 1), now, step + s) for k in range(10) for s in range(steps)]
        http.clear()
        t0 = time.perf_counter()
        try:
            c.log_batch(run_id, metrics=batch)
            lat.append((time.perf_counter() - t0) * 1000)
            # (ms inside the HTTP call, the server's own ms from its Server-Timing header)
            known = bool(http) and all(sv is not None for _, sv in http)
            parts.append((sum(h for h, _ in http), sum(sv for _, sv in http) if known else None))
            done += time.time() <= end  # only calls answered inside the window count as throughput
        except Exception:  # noqa: BLE001 (counted, reported)
            errors += 1
        step += steps
    out.put({"latencies": lat, "parts": parts, "errors": errors, "points": done * points})


def _time_http_requests() -> list:
    """Wraps the stock client's one HTTP function (`mlflow.utils.rest_utils.http_request`)
    so that each call appends (ms spent in it, the server's `Server-Timing` ms or None) to
    the returned list: a call's time then splits into the client's own work before and
    after the request (building 1,000 `Metric`s and their JSON), the server's time, and the
    rest of the round trip (the request and answer on the wire, and the client process
    waiting for a CPU while they do)."""
    import mlflow.utils.rest_utils as rest  # noqa: PLC0415

    calls = []
    inner = rest.http_request

    def timed(*args, **kwargs):
        t = time.perf_counter()
        resp = inner(*args, **kwargs)
        calls.append(((time.perf_counter() - t) * 1000, server_ms(resp.headers)))
        return resp

    rest.http_request = timed
    return calls


def server_ms(headers) -> float | None:
    """The `app;dur=` of a response's `Server-Timing` header, if it has one."""
    for part in headers.get("Server-Timing", "").split(","):
        name, _, rest = part.strip().partition(";")
        if name == "app" and rest.startswith("dur="):
            try:
                return float(rest[4:])
            except ValueError:
                return None
    return None


def raw_client(url: str, token: str, exp_id: str, points: int, start_at: float, seconds: float, out) -> None:
    """Like `client`, but posting `runs/log-batch` with `requests` and a body built as text:
    a tenth of the stock client's CPU per call, so the server's queueing shows."""
    import requests  # noqa: PLC0415

    s = requests.Session()
    s.headers.update({"Content-Type": "application/json"})
    if token:
        s.headers["Authorization"] = f"Bearer {token}"
    r = s.post(f"{url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp_id, "start_time": 0}, timeout=60)
    r.raise_for_status()
    run_id = r.json()["run"]["info"]["run_id"]
    steps = points // 10
    lat, step, errors, done = [], 0, 0, 0
    start_at = wait_start(start_at)
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
            done += time.time() <= end
        except Exception:  # noqa: BLE001 (counted, reported)
            errors += 1
        step += steps
    out.put({"latencies": lat, "errors": errors, "points": done * points})


def _ticks() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, utime + stime in clock ticks) of every process."""
    out = {}
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                f = (d / "stat").read_text().rsplit(")", 1)[1].split()
                out[int(d.name)] = (int(f[1]), int(f[11]) + int(f[12]))
            except (OSError, IndexError, ValueError):
                pass
    return out


def tree_cpu(roots: list[int]) -> float:
    """CPU seconds used so far by the processes `roots` and their descendants alive now."""
    procs = _ticks()
    seen, todo = set(), list(roots)
    while todo:
        pid = todo.pop()
        if pid in seen or pid not in procs:
            continue
        seen.add(pid)
        todo += [c for c, (ppid, _) in procs.items() if ppid == pid]
    return sum(procs[p][1] for p in seen) / os.sysconf("SC_CLK_TCK")


def measure(server, exp_id: str, clients: int, points: int, seconds: float, raw: bool = False,
            urls: list[str] | None = None, cpu_roots: dict[str, list[int]] | None = None) -> dict:
    """`urls`: the servers to spread the clients over (client i -> urls[i % len]); `cpu_roots`:
    name -> pids whose process trees' CPU seconds over the measured window are reported."""
    q = mp.Queue()
    urls = urls or [server.url]
    # Every client imports mlflow and creates its run, then says ready; the clock starts
    # for all at once when the last is ready (on a loaded machine that can take a while).
    ready, go, at = mp.Queue(), mp.Event(), mp.Value("d", 0.0)
    procs = [mp.Process(target=raw_client if raw else client,
                        args=(urls[i % len(urls)], server.token, exp_id, points, (ready, go, at), seconds, q))
             for i in range(clients)]
    for p in procs:
        p.start()
    for _ in procs:
        ready.get(timeout=600)
    at.value = start_at = time.time() + 0.5
    go.set()
    cpu0 = {}
    if cpu_roots:
        time.sleep(max(0.0, start_at - time.time()))
        cpu0 = {k: tree_cpu(v) for k, v in cpu_roots.items()}
        time.sleep(max(0.0, start_at + seconds - time.time()))
        cpu1 = {k: tree_cpu(v) for k, v in cpu_roots.items()}
        load = os.getloadavg()[0]
    results = [q.get(timeout=seconds + 300) for _ in procs]
    for p in procs:
        p.join()
    lat = [x for r in results for x in r["latencies"]]
    out = {"clients": clients, "raw": raw, "points_per_s": sum(r["points"] for r in results) / seconds,
           "calls": len(lat), "errors": sum(r["errors"] for r in results),
           "p50_ms": pct(lat, 0.5) if lat else None, "p99_ms": pct(lat, 0.99) if lat else None,
           "max_ms": max(lat) if lat else None, "mean_ms": statistics.mean(lat) if lat else None}
    # Where a stock client's call goes: the client's own work outside the HTTP call, the
    # server's time (Server-Timing), and the rest of the round trip.
    calls = [(t, h, sv) for r in results for t, (h, sv) in zip(r["latencies"], r.get("parts", [])) if sv is not None]
    if calls:
        client_ms = [t - h for t, h, _ in calls]
        srv = [sv for _, _, sv in calls]
        wire = [h - sv for _, h, sv in calls]
        slow = sorted(calls)[-max(1, len(calls) // 100):]  # the slowest 1 %
        out["split"] = {
            "calls": len(calls),
            "p50_ms": {"client": pct(client_ms, 0.5), "server": pct(srv, 0.5), "wire": pct(wire, 0.5)},
            "p99_ms": {"client": pct(client_ms, 0.99), "server": pct(srv, 0.99), "wire": pct(wire, 0.99)},
            "slowest_1pct_mean_ms": {"total": statistics.mean(t for t, _, _ in slow),
                                     "client": statistics.mean(t - h for t, h, _ in slow),
                                     "server": statistics.mean(sv for _, _, sv in slow),
                                     "wire": statistics.mean(h - sv for _, h, sv in slow)},
        }
    if cpu_roots:
        out["cpu_s"] = {k: cpu1[k] - cpu0[k] for k in cpu_roots}
        out["load1"] = load
    return out


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
    split = [(key.rsplit(" (", 1)[0], r) for key, res in all_results.items() for r in res["runs"] if r.get("split")]
    if split:
        lines += ["", "Where a stock client's call goes (builds whose server sends `Server-Timing`): **client** is "
                  "the client's own work outside the HTTP call (building 1,000 `Metric`s and the request's JSON, "
                  "reading the answer), **server** the server's time from the request reaching its router to the "
                  "answer's headers (its `Server-Timing: app;dur=`, whole ms: waiting in the write queue, the "
                  "commit and its fsync included), **wire** the rest of the HTTP call (sending the body, the "
                  "answer's transfer, and the client process waiting for a CPU meanwhile). p50 and p99 of each "
                  "part on its own, and the mean of each part over the slowest 1 % of calls:", "",
                  "| build | processes | calls | p50: client / server / wire | p99: client / server / wire | "
                  "slowest 1 %: total = client + server + wire |",
                  "|---|---:|---:|---|---|---|"]
        for label, r in split:
            sp = r["split"]
            f = lambda d: " / ".join(f"{d[k]:.0f}" for k in ("client", "server", "wire"))  # noqa: E731
            t = sp["slowest_1pct_mean_ms"]
            lines.append(f"| {label} | {r['clients']} | {sp['calls']:,} | {f(sp['p50_ms'])} ms | **{f(sp['p99_ms'])} ms** | "
                         f"{t['total']:.0f} = {t['client']:.0f} + {t['server']:.0f} + {t['wire']:.0f} ms |")
    notes = {k.rsplit(" (", 1)[0]: v for k, v in all_results.items()}
    lines += ["", "Builds: " + "; ".join(f"**{k}**: {v['note']} ({v['date']}, {v['seconds']:.0f} s per level)"
                                           for k, v in notes.items()) + ".", ""]
    return "\n".join(lines)


def _postmaster(pg_dir: Path) -> int:
    return int((pg_dir / "data" / "postmaster.pid").read_text().split()[0])


def _create_experiment(url: str, token: str | None, name: str) -> str:
    import requests  # noqa: PLC0415

    r = requests.post(f"{url}/api/2.0/mlflow/experiments/create", json={"name": name},
                      headers={"Authorization": f"Bearer {token}"} if token else {}, timeout=120)
    r.raise_for_status()
    return r.json()["experiment_id"]


def warm_up(urls: list[str], token: str | None, exp_id: str, roots: list[int]) -> None:
    """Before the clock: a few log-batch calls on every server (pools, prepared statements,
    MLflow's workers), then wait (at most 60 s) until the server processes are quiet."""
    import requests  # noqa: PLC0415

    h = {"Authorization": f"Bearer {token}"} if token else {}
    for url in urls:
        s = requests.Session()
        s.headers.update(h)
        r = s.post(f"{url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp_id, "start_time": 0}, timeout=120)
        r.raise_for_status()
        run_id = r.json()["run"]["info"]["run_id"]
        for c in range(8):
            s.post(f"{url}/api/2.0/mlflow/runs/log-batch", json={"run_id": run_id, "metrics": [
                {"key": f"m{k}", "value": 0.5, "timestamp": 0, "step": c * 100 + i} for k in range(10) for i in range(100)]},
                timeout=120).raise_for_status()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        c0 = tree_cpu(roots)
        time.sleep(1.0)
        if tree_cpu(roots) - c0 < 0.1:
            break


def run_backends(args) -> dict:
    """Every client count against every backend in `args.backends`, one after the other
    (see the module doc); returns the results as stored in PG_RESULTS."""
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "seconds": args.seconds, "points": args.points,
           "raw": args.raw, "clients": args.clients, "backends": args.backends, "runs": [],
           "machine": {"cores": os.cpu_count(), "load_before": os.getloadavg()},
           "runlens": subprocess.run([str(args.binary), "--version"], capture_output=True, text=True).stdout.strip()}
    needs_pg = any(b != "sqlite" for b in args.backends)
    mlflow_exe = servers.ensure_mlflow_venv() if "mlflow-pg" in args.backends else None
    if mlflow_exe:
        res["mlflow"] = subprocess.run([str(mlflow_exe), "--version"], capture_output=True, text=True).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="ingest-pg-") as tmp, ExitStack() as stack:
        work = Path(tmp)
        binary = work / "runlens"
        shutil.copy2(args.binary, binary)
        dist = args.dist.resolve() if args.dist.exists() else work
        pg = stack.enter_context(servers.PgCluster(args.pg_dir)) if needs_pg else None
        if pg:
            res["postgres"] = pg.sql("SHOW server_version") + ", " + ", ".join(
                f"{k}={pg.sql(f'SHOW {k}')}" for k in ("shared_buffers", "max_connections", "synchronous_commit", "fsync"))
        state = {}
        for b in args.backends:
            state[b] = {"dir": work / b, "password": "bench-ingest-pw-1", "exp": None,
                        "db": pg.create(f"ingest_{b.replace('-', '_')}") if b != "sqlite" else None}
            state[b]["dir"].mkdir()
        try:
            for n in args.clients:
                for b in args.backends:
                    st = state[b]
                    with ExitStack() as srv_stack:
                        if b == "mlflow-pg":
                            main_srv = srv_stack.enter_context(servers.mlflow(
                                mlflow_exe, st["dir"], backend_uri=pg.mlflow_uri(f"ingest_{b.replace('-', '_')}"),
                                workers=4))
                            replicas = [main_srv]
                        else:
                            data_dir = st["dir"] / "data"
                            replicas = []
                            for i in range(2 if b == "pg2" else 1):
                                replicas.append(srv_stack.enter_context(runlens(
                                    binary, st["dir"], dist, database_url=st["db"], name=f"runlens-{i}",
                                    data_dir=data_dir, admin_password=st["password"])))
                            main_srv = replicas[0]
                        if st["exp"] is None:
                            st["exp"] = _create_experiment(main_srv.url, main_srv.token, f"ingest-{b}")
                        roots = {"server": [r.proc.pid for r in replicas]}
                        warm_up([x.url for x in replicas], main_srv.token, st["exp"], roots["server"])
                        if pg:
                            roots["postgres"] = [_postmaster(args.pg_dir)]
                        r = measure(main_srv, st["exp"], n, args.points, args.seconds, args.raw,
                                    urls=[x.url for x in replicas], cpu_roots=roots)
                    r["backend"] = b
                    print(f"[ingest] {b} {json.dumps(r)}", flush=True)
                    res["runs"].append(r)
            if pg:
                res["db_bytes"] = {b: pg.size(f"ingest_{b.replace('-', '_')}") for b in args.backends if b != "sqlite"}
        finally:
            if pg:
                for b in args.backends:
                    if b != "sqlite":
                        pg.drop(f"ingest_{b.replace('-', '_')}")
    res["machine"]["load_after"] = os.getloadavg()
    return res


def _ms(v) -> str:
    return "–" if v is None else f"{v:,.0f} ms"


def render_backends(all_res: dict) -> str:
    """The PG_SECTION from every run stored in PG_RESULTS (keyed by client kind)."""
    lines = [PG_SECTION, ""]
    for kind, res in all_res.items():
        runs = res["runs"]
        lines += [
            f"### {'Stock client' if kind == 'stock' else 'Light client (requests)'}: "
            f"`{'MlflowClient.log_batch' if kind == 'stock' else 'runs/log-batch posted with requests'}`", "",
            f"Measured {res['date']} by `bench/ingest_bench.py --backends {' '.join(res['backends'])} --clients "
            f"{' '.join(map(str, res['clients']))} --seconds {res['seconds']:g}{' --raw' if res['raw'] else ''}` "
            f"(one run: for each client count, each backend in turn on its own database). {res['runlens']} "
            f"(release build); {res.get('mlflow', '')}; PostgreSQL {res.get('postgres', 'n/a')} (the stock "
            f"settings of `scripts/pg.sh`). Every server is warmed up (8 log-batch calls each, then quiet) before the clock starts. Load average before/after: {res['machine']['load_before'][0]:.1f} / "
            f"{res['machine']['load_after'][0]:.1f}.", "",
            "| clients | backend | points/s | p50 | p99 | max | errors | CPU s: server / PostgreSQL per 1M points | load |",
            "|---:|---|---:|---:|---:|---:|---:|---|---:|"]
        for r in runs:
            pts = r["points_per_s"] * res["seconds"]
            cpu = r.get("cpu_s", {})
            per_m = " / ".join(f"{cpu[k] / pts * 1e6:.1f}" if pts and k in cpu else "–" for k in ("server", "postgres"))
            lines.append(f"| {r['clients']} | {BACKENDS[r['backend']]} | {r['points_per_s']:,.0f} | {_ms(r['p50_ms'])} | "
                         f"**{_ms(r['p99_ms'])}** | {_ms(r['max_ms'])} | {r['errors']} | {per_m} | {r.get('load1', 0):.1f} |")
        by = {(r["clients"], r["backend"]): r for r in runs}
        pairs = [("pg", "sqlite", "PG / SQLite"), ("pg2", "pg", "2 replicas / 1"), ("pg", "mlflow-pg", "runlens PG / MLflow PG"),
                 ("pg2", "mlflow-pg", "runlens 2×PG / MLflow PG"), ("sqlite", "mlflow-pg", "runlens SQLite / MLflow PG")]
        pairs = [x for x in pairs if x[0] in res["backends"] and x[1] in res["backends"]]
        if pairs:
            lines += ["", "Ratios within this run (points/s: higher is better for the first; p99: lower is better "
                      "for the first):", "", "| clients | " + " | ".join(f"{t}: points/s, p99" for _, _, t in pairs) + " |",
                      "|---:|" + "---|" * len(pairs)]
            for n in res["clients"]:
                cells = []
                for a, b, _ in pairs:
                    ra, rb = by.get((n, a)), by.get((n, b))
                    if not ra or not rb or not rb["points_per_s"] or not rb["p99_ms"] or ra["p99_ms"] is None:
                        cells.append("–")
                    else:
                        cells.append(f"×{ra['points_per_s'] / rb['points_per_s']:.2f}, ×{ra['p99_ms'] / rb['p99_ms']:.2f}")
                lines.append(f"| {n} | " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)


def write_pg_section(text: str) -> None:
    docsection.write_section(DOC, PG_SECTION, text, after=SECTION)


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
    p.add_argument("--backends", nargs="+", choices=list(BACKENDS),
                   help="compare these servers in one run (PostgreSQL section); without it: runlens on SQLite only")
    p.add_argument("--pg-dir", type=Path, default=servers.pg_dir_default(),
                   help="the throwaway PostgreSQL cluster's dir (scripts/pg.sh start/stop)")
    args = p.parse_args()
    if args.backends:
        res = run_backends(args)
        all_res = json.loads(PG_RESULTS.read_text()) if PG_RESULTS.exists() else {}
        all_res["requests" if args.raw else "stock"] = res
        PG_RESULTS.write_text(json.dumps(all_res, indent=1))
        text = render_backends(all_res)
        print(text)
        if not args.no_write:
            write_pg_section(text)
        return
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
        docsection.write_section(DOC, SECTION, text)


if __name__ == "__main__":
    main()
