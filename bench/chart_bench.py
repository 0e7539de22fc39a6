#!/usr/bin/env python3
"""Charts at 1M and 10M points (issue 11): the time of a 1,000-px `/series` chart of a
1,000,000- and a 10,000,000-point series, whole range and a 10 % zoom, before and after the
block summaries, and what keeping them costs ingest.

Usage: .venv/bin/python bench/chart_bench.py --before PATH [--binary target/release/runlens]
       [--points 1000000 10000000] [--repeat 9] [--before-repeat 3] [--ingest-batches 300]
       [--busy N] [--no-write]
       .venv/bin/python bench/chart_bench.py --backends sqlite postgres [--binary ...]
       [--points 1000000 10000000] [--repeat 9] [--pg-dir /tmp/rl-pg-bench] [--no-write]
       [--shapes periodic noise]

1. A `--before` build (one without migration 0006) serves a fresh data dir; each series is
   logged through `runs/log-batch` (1,000 points a call, a body built as text, steps 0..N-1,
   timestamps growing with the step, values near 0 with one spike of 100.0 inside a block),
   then each chart is fetched `--before-repeat` times (median; at 10M each call takes
   seconds).
2. The `--binary` build then opens the same data dir (migration 0006 backfills the
   summaries; its time is reported) and the same charts are fetched `--repeat` times; the
   answers must be the same as before, point for point.
3. Ingest: each build on a fresh data dir takes `--ingest-batches` log-batch calls of 1,000
   points (one key, consecutive steps, as a chart's series is logged; and 10 keys x 100
   steps, as `bench/ingest_bench.py` logs), alternating builds twice; median ms per call.

Times are wall clock of a kept-alive HTTP client on loopback (the server's time plus
well under a millisecond: an empty `/health` round trip is reported as the floor).
`--busy N` fetches the charts (both builds) with N processes spinning on the CPU beside
the server (`servers.Busy`): a loaded machine, the same on every run. The
section "## Charts at 1M and 10M points (issue 11)" of docs/BENCHMARKS.md is rewritten
unless `--no-write`; raw numbers go to bench/chart_results.json.

`--backends sqlite postgres` (issue 11, step 9) compares stores instead of builds: the
`--binary` build serves a fresh SQLite data dir and a fresh database on a throwaway
PostgreSQL cluster (`--pg-dir`, scripts/pg.sh; the database is dropped and the cluster
stopped at the end), both running at once; each gets the same series logged as in 1., one
a size for each of `--shapes` (`periodic`: the values of 1., which repeat every 1,000 steps;
`noise`: a distinct float at every step; see SHAPE_NOTES), its seeding time and, on
PostgreSQL, the database's size reported; then every chart is
fetched from each backend in turn, `--repeat` rounds (median per backend), and the answers
of the backends must be the same point for point. Section "## Charts on PostgreSQL
(issue 11)", raw numbers in bench/chart_pg_results.json.
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import requests

import docsection
import servers
from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Charts at 1M and 10M points (issue 11)"
RESULTS = ROOT / "bench" / "chart_results.json"
PG_SECTION = "## Charts on PostgreSQL (issue 11)"
PG_RESULTS = ROOT / "bench" / "chart_pg_results.json"
WIDTH = 1000
# MLflow's UI asks `get-history-bulk-interval` for 320 points; 2,500 is its maximum.
BULK_MAX_RESULTS = (320, 2500)


def spike_step(n: int) -> int:
    """A step ~61.7 % into the series, inside a block at every level (not a block edge)."""
    return int(n * 0.617) | 0x15


def value(step: int, n: int) -> float:
    """The "periodic" series' value at `step` (see SHAPE_NOTES)."""
    return 100.0 if step == spike_step(n) else round(((step * 7919) % 1000) / 1000.0, 3)


def noise_value(step: int, n: int) -> float:
    """The "noise" series' value at `step` (see SHAPE_NOTES)."""
    return 100.0 if step == spike_step(n) else ((step * 2654435761) % 4294967291) / 4294967291.0


# Series shape (`--shapes`) -> its values; the first is the one measured before/after.
SHAPES = {"periodic": value, "noise": noise_value}
SHAPE_NOTES = {
    "periodic": "1,000 distinct values of three decimals, each once every 1,000 steps (so a long block "
                "holds its column's extremes several times over: ties)",
    "noise": "a distinct float at every step, as a training loss has",
}


def log_series(s: requests.Session, url: str, run_id: str, n: int, t0: int, value=value) -> float:
    """Logs steps 0..n-1 of `loss`, 1,000 a call; returns the seconds it took."""
    start = time.perf_counter()
    for base in range(0, n, 1000):
        body = ('{"run_id":"%s","metrics":[' % run_id) + ",".join(
            '{"key":"loss","value":%r,"timestamp":%d,"step":%d}' % (value(i, n), t0 + i, i)
            for i in range(base, min(n, base + 1000))) + "]}"
        s.post(f"{url}/api/2.0/mlflow/runs/log-batch", data=body, timeout=300).raise_for_status()
    return time.perf_counter() - start


def session(server) -> requests.Session:
    s = requests.Session()
    s.headers.update({**server.headers, "Content-Type": "application/json"})
    return s


def charts(n: int) -> dict:
    """Label -> query string of the charts measured for a series of n points."""
    lo, hi = int(n * 0.45), int(n * 0.55)
    return {
        "step, whole": f"x=step&width={WIDTH}",
        "step, 10% zoom": f"x=step&width={WIDTH}&x_min={lo}&x_max={hi}",
        "wall, whole": f"x=wall&width={WIDTH}",
    }


def fetch(s: requests.Session, url: str, run_id: str, query: str, repeat: int) -> dict:
    times, body = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        r = s.get(f"{url}/api/v1/runs/{run_id}/series?key=loss&{query}", timeout=600)
        r.raise_for_status()
        content = r.content
        times.append((time.perf_counter() - t) * 1000)
        body = content
    return {"ms": statistics.median(times), "all_ms": times, "body": json.loads(body)}


def floor_ms(s: requests.Session, url: str) -> float:
    times = []
    for _ in range(50):
        t = time.perf_counter()
        s.get(f"{url}/health", timeout=10).raise_for_status()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


def measure_charts(server, runs: dict, repeat: int) -> dict:
    s = session(server)
    out = {"floor_ms": floor_ms(s, server.url)}
    for n, run_id in runs.items():
        for label, query in charts(n).items():
            f = fetch(s, server.url, run_id, query, repeat)
            b = f.pop("body")
            f["points"] = len(b["points"])
            f["points_in_range"] = b["points_in_range"]
            f["total_points"] = b["total_points"]
            f["spike"] = any(p["step"] == spike_step(n) and p["value"] == 100.0 for p in b["points"])
            f["answer"] = b
            out[f"{n} {label}"] = f
            print(f"  {n:>10,} {label:<16} {f['ms']:8.1f} ms  {f['points']} points, "
                  f"{f['points_in_range']:,} in range, spike {f['spike']}", flush=True)
    return out


def ingest(binary: Path, dist: Path, batches: int) -> dict:
    """Median ms per 1,000-point log-batch call on a fresh data dir, two workloads."""
    work = Path(tempfile.mkdtemp(prefix="chart-ingest-"))
    out = {}
    try:
        with runlens(binary, work, dist) as server:
            s = session(server)
            exp = s.post(f"{server.url}/api/2.0/mlflow/experiments/create", json={"name": "ingest"}, timeout=30)
            exp.raise_for_status()
            exp_id = exp.json()["experiment_id"]
            for shape in ("1 key x 1000 steps", "10 keys x 100 steps"):
                r = s.post(f"{server.url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp_id}, timeout=30)
                run_id = r.json()["run"]["info"]["run_id"]
                keys, steps = (1, 1000) if shape.startswith("1 ") else (10, 100)
                lat = []
                for b in range(batches):
                    now = 1_700_000_000_000 + b * steps
                    body = ('{"run_id":"%s","metrics":[' % run_id) + ",".join(
                        '{"key":"m%d","value":%r,"timestamp":%d,"step":%d}' % (k, ((b * steps + i) * 7919 % 1000) / 7.0, now + i, b * steps + i)
                        for k in range(keys) for i in range(steps)) + "]}"
                    t = time.perf_counter()
                    s.post(f"{server.url}/api/2.0/mlflow/runs/log-batch", data=body, timeout=120).raise_for_status()
                    lat.append((time.perf_counter() - t) * 1000)
                out[shape] = statistics.median(lat[batches // 10:])  # after a warm-up tenth
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def render(res: dict) -> str:
    before, after = res["before"], res["after"]
    lines = [SECTION, "",
             f"`bench/chart_bench.py` ({res['date']}, release builds, this machine: 2 cores shared with other work): "
             f"one run per size with a metric `loss` of N points (steps 0..N-1, timestamps growing with the step, one "
             f"spike of 100.0 inside a block) logged through `runs/log-batch`, 1,000 points a call, by the build before "
             f"({', '.join(f'{int(n):,} in {t:.0f} s' for n, t in res['seed_s'].items())}). "
             f"`GET /api/v1/runs/{{id}}/series?key=loss&width={WIDTH}`, median of {res['before_repeat']} calls before and {res['repeat']} after, from a kept-alive "
             f"client on loopback (an empty `/health` round trip: {after['floor_ms']:.1f} ms). **before**: the scan "
             f"(`{res['before_build']}`); **after**: block summaries (`{res['after_build']}`, same data dir after "
             f"migration 0006 backfilled it in {res['backfill_s']:.1f} s). The answers after are the answers before, "
             f"point for point ({res['identical']})."
             + (f" While the charts were fetched, {res['busy']} processes spun on the CPU beside the server "
                f"(`--busy {res['busy']}`; {min(res['busy_runnable'])}–{max(res['busy_runnable'])} processes "
                f"runnable on the 2 cores when measuring began and ended)."
                if res.get("busy") else ""), "",
             "| chart | points | before | after | in range | points drawn | spike kept |",
             "|---|---|---|---|---|---|---|"]
    sizes = sorted({int(k.split()[0]) for k in after if k[0].isdigit()})
    for n in sizes:
        for label in charts(n):
            b, a = before[f"{n} {label}"], after[f"{n} {label}"]
            lines.append(f"| {label} | {n:,} | {b['ms']:.1f} ms | **{a['ms']:.1f} ms** | {a['points_in_range']:,} | "
                         f"{a['points']:,} | {'yes' if a['spike'] else '-' if 'zoom' in label else '**no**'} |")
    if len(sizes) >= 2:
        lo, hi = sizes[0], sizes[-1]
        lines += ["", f"Growth from {lo:,} to {hi:,} points (×{hi // lo}):", ""]
        for label in charts(lo):
            b = before[f"{hi} {label}"]["ms"] / before[f"{lo} {label}"]["ms"]
            a = after[f"{hi} {label}"]["ms"] / after[f"{lo} {label}"]["ms"]
            lines.append(f"- {label}: before ×{b:.2f}, after **×{a:.2f}**")
    ing = res["ingest"]
    lines += ["", f"Ingest cost of keeping the summaries (same transaction as the points): median ms per 1,000-point "
              f"`log-batch` call, {res['ingest_batches']} calls per build and shape on a fresh data dir, builds "
              f"alternated twice (before, after, before, after):", "",
              "| shape | before | after | change |", "|---|---|---|---|"]
    for shape in ing["before"][0]:
        b = statistics.median(r[shape] for r in ing["before"])
        a = statistics.median(r[shape] for r in ing["after"])
        lines.append(f"| {shape} | {b:.2f} ms | {a:.2f} ms | {100 * (a / b - 1):+.0f} % |")
    lines.append("")
    return "\n".join(lines)


class SkipCharts(Exception):
    """`--ingest-only`: the charts were measured before."""


def build_name(binary: Path) -> str:
    v = subprocess.run([str(binary), "--version"], capture_output=True, text=True).stdout.strip()
    return f"{v}, {binary.name}"


def chart_key(shape: str, n: int, label: str) -> str:
    """A chart's key in the results: the first shape's keys are those of earlier runs."""
    return f"{n} {label}" + ("" if shape == next(iter(SHAPES)) else f" [{shape}]")


def seed_charts(server, points: list[int], shapes: list[str]) -> tuple[dict, dict]:
    """One run per shape and size with `loss` of n points; returns ((shape, n) -> run id,
    "n [shape]" -> seconds)."""
    s = session(server)
    r = s.post(f"{server.url}/api/2.0/mlflow/experiments/create", json={"name": "charts"}, timeout=30)
    r.raise_for_status()
    exp_id = r.json()["experiment_id"]
    runs, secs = {}, {}
    for shape in shapes:
        for n in points:
            r = s.post(f"{server.url}/api/2.0/mlflow/runs/create",
                       json={"experiment_id": exp_id, "start_time": 1_700_000_000_000, "run_name": f"{shape}-{n}"},
                       timeout=30)
            runs[(shape, n)] = r.json()["run"]["info"]["run_id"]
            t = log_series(s, server.url, runs[(shape, n)], n, 1_700_000_000_000, SHAPES[shape])
            secs[f"{n} [{shape}]"] = t
            print(f"[seed] {server.name}: {shape} {n:,} points in {t:.0f} s ({n / t:,.0f} points/s)", flush=True)
    return runs, secs


def compare_backends(args, dist: Path) -> dict:
    """The `--backends` mode (see the module doc)."""
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "repeat": args.repeat, "points": args.points,
           "shapes": args.shapes,
           "build": build_name(args.binary), "backends": args.backends, "seed_s": {}, "charts": {},
           "load": {"before": os.getloadavg()}}
    db = "charts_bench"
    work = Path(tempfile.mkdtemp(prefix="chart-pg-bench-"))
    try:
        with servers.PgCluster(args.pg_dir) if "postgres" in args.backends else _Nothing() as pg:
            srvs = {}
            for b in args.backends:
                url = pg.create(db) if b == "postgres" else None
                srvs[b] = runlens(args.binary, work, dist, database_url=url, name=f"runlens-{b}",
                                  data_dir=work / f"data-{b}")
            stack = contextlib.ExitStack()
            try:
                for srv in srvs.values():
                    srv.__enter__()
                runs = {}
                # Both stores are seeded at once (one client thread each): half the wall time.
                with ThreadPoolExecutor(len(srvs)) as pool:
                    seeded = {b: pool.submit(seed_charts, srv, args.points, args.shapes) for b, srv in srvs.items()}
                    for b, fut in seeded.items():
                        runs[b], res["seed_s"][b] = fut.result()
                res["load"]["after seeding"] = os.getloadavg()
                if pg:
                    pg.sql("VACUUM ANALYZE", db=db)  # as autovacuum would soon after a bulk load
                    res["postgres"] = pg.sql("SHOW server_version")
                    res["pg_db_bytes"] = pg.size(db)
                if "sqlite" in srvs:
                    res["sqlite_db_bytes"] = sum(f.stat().st_size for f in (work / "data-sqlite").glob("runlens.db*"))
                sess = {b: session(srv) for b, srv in srvs.items()}
                res["floor_ms"] = {b: floor_ms(sess[b], srv.url) for b, srv in srvs.items()}
                watches = {b: stack.enter_context(servers.MemoryWatch(srv.proc.pid)) for b, srv in srvs.items()}
                answers = {}
                res["memory_mib"] = {}
                for shape, n, (label, query) in ((sh, n, c) for sh in args.shapes for n in args.points
                                                 for c in charts(n).items()):
                        key = chart_key(shape, n, label)
                        if label == next(iter(charts(n))):
                            for w in watches.values():
                                w.mark()
                        times = {b: [] for b in srvs}
                        for _ in range(args.repeat):  # backends alternate, so they share the load
                            for b, srv in srvs.items():
                                f = fetch(sess[b], srv.url, runs[b][(shape, n)], query, 1)
                                times[b] += f["all_ms"]
                                answers.setdefault(key, {})[b] = f["body"]
                        out = {}
                        for b in srvs:
                            body = answers[key][b]
                            out[b] = {"ms": statistics.median(times[b]), "all_ms": times[b], "points": len(body["points"]),
                                      "points_in_range": body["points_in_range"],
                                      "spike": any(p["step"] == spike_step(n) and p["value"] == 100.0 for p in body["points"])}
                        # The points and counts, not the run's id or name (they differ per store).
                        bodies = [(answers[key][b]["points"], answers[key][b]["points_in_range"],
                                   answers[key][b]["total_points"]) for b in srvs]
                        out["identical"] = all(x == bodies[0] for x in bodies)
                        res["charts"][key] = out
                        print(f"  {key:<28} " + "  ".join(f"{b} {out[b]['ms']:7.1f} ms" for b in srvs)
                              + f"  same answer: {out['identical']}", flush=True)
                        if label == list(charts(n))[-1]:
                            res["memory_mib"][f"{n} [{shape}] charts"] = {b: w.peak() for b, w in watches.items()}
                # MLflow's `get-history-bulk-interval` (its UI's sampled history) over HTTP,
                # the same alternation; the answers of the backends must be the same.
                res["bulk_interval"] = {}
                for shape, n, m in ((sh, n, m) for sh in args.shapes for n in args.points for m in BULK_MAX_RESULTS):
                    for w in watches.values():
                        w.mark()
                    times, bodies = {b: [] for b in srvs}, {}
                    for _ in range(args.repeat):
                        for b, srv in srvs.items():
                            t = time.perf_counter()
                            r = sess[b].get(f"{srv.url}/api/2.0/mlflow/metrics/get-history-bulk-interval",
                                            params={"run_ids": runs[b][(shape, n)], "metric_key": "loss",
                                                    "max_results": m}, timeout=600)
                            r.raise_for_status()
                            content = r.content
                            times[b].append((time.perf_counter() - t) * 1000)
                            bodies[b] = [(p["step"], p["value"], p["timestamp"])
                                         for p in json.loads(content).get("metrics", [])]
                    key = f"{n} [{shape}] max_results={m}"
                    out = {b: {"ms": statistics.median(times[b]), "all_ms": times[b], "points": len(bodies[b]),
                               "spike": any(v == 100.0 for _, v, _ in bodies[b])} for b in srvs}
                    first = next(iter(bodies.values()))
                    out["identical"] = all(x == first for x in bodies.values())
                    res["bulk_interval"][key] = out
                    res["memory_mib"][f"{n} [{shape}] bulk-interval max_results={m}"] = {
                        b: w.peak() for b, w in watches.items()}
                    print(f"  bulk-interval {key:<36} " + "  ".join(f"{b} {out[b]['ms']:7.1f} ms" for b in srvs)
                          + f"  same answer: {out['identical']}", flush=True)
            finally:
                stack.close()
                for srv in srvs.values():
                    srv.__exit__(None, None, None)
                if pg:
                    pg.drop(db)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    res["load"]["after"] = os.getloadavg()
    return res


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


def render_backends(res: dict) -> str:
    bs = res["backends"]
    name = {"sqlite": "SQLite", "postgres": "PostgreSQL"}
    sizes = sorted({int(k.split()[0]) for k in res["charts"]})
    shapes = res.get("shapes", [next(iter(SHAPES))])

    def seeded(k: str, t: float) -> str:
        n = int(k.split()[0])
        return f"{k.split(' ', 1)[1] + ' ' if ' ' in k else ''}{n:,} in {t:.0f} s ({n / t:,.0f}/s)"
    seed = "; ".join(f"{name[b]}: " + ", ".join(seeded(k, t) for k, t in res["seed_s"][b].items()) for b in bs)
    sizes_txt = []
    if "sqlite_db_bytes" in res:
        sizes_txt.append(f"SQLite file {res['sqlite_db_bytes'] / 2**30:.2f} GiB")
    if "pg_db_bytes" in res:
        sizes_txt.append(f"PostgreSQL database {res['pg_db_bytes'] / 2**30:.2f} GiB (after VACUUM ANALYZE)")
    lines = [PG_SECTION, "",
             f"Measured {res['date']} by `bench/chart_bench.py --backends {' '.join(bs)} --points "
             f"{' '.join(str(n) for n in res['points'])} --shapes {' '.join(shapes)} --repeat {res['repeat']}` "
             f"({res['build']}, release build; "
             f"PostgreSQL {res.get('postgres', 'n/a')}, a throwaway cluster of `scripts/pg.sh` with its stock settings; this "
             f"machine: 2 cores shared with other engineers' builds, load average {res['load']['before'][0]:.1f} before, "
             f"{res['load']['after'][0]:.1f} after). Both servers ran at once on fresh stores; the same series (a metric `loss` of "
             f"N points, steps 0..N-1, one spike of 100.0) went into each through `runs/log-batch`, 1,000 points a call "
             f"from one client thread per store, both stores at once ({seed}; {', '.join(sizes_txt)}). "
             "Series shapes: " + "; ".join(f"**{sh}**, {SHAPE_NOTES[sh]}" for sh in shapes) + ". "
             f"Then `GET /api/v1/runs/{{id}}/series?key=loss&width={WIDTH}`"
             f" from a kept-alive client on loopback, the backends alternating call by call, {res['repeat']} calls each: "
             f"median (an empty `/health` round trip: " + ", ".join(f"{name[b]} {res['floor_ms'][b]:.1f} ms" for b in bs) + ").",
             "", "| chart | points | " + " | ".join(name[b] for b in bs) + " | PG / SQLite | points drawn | spike kept | same answer |",
             "|---|---:|" + "---:|" * len(bs) + "---:|---:|---|---|"]
    for shape, n, label in ((sh, n, lb) for sh in shapes for n in sizes for lb in charts(n)):
            c = res["charts"][chart_key(shape, n, label)]
            ratio = f"×{c['postgres']['ms'] / c['sqlite']['ms']:.2f}" if {"sqlite", "postgres"} <= set(bs) else "–"
            first = c[bs[0]]
            lines.append(f"| {label}{'' if len(shapes) == 1 else ', ' + shape} | {n:,} | " + " | ".join(f"**{c[b]['ms']:.1f} ms**" for b in bs) +
                         f" | {ratio} | {first['points']:,} | "
                         f"{'yes' if first['spike'] else '-' if 'zoom' in label else '**no**'} | {'yes' if c['identical'] else '**no**'} |")
    if len(sizes) >= 2:
        lo, hi = sizes[0], sizes[-1]
        lines += ["", f"Growth from {lo:,} to {hi:,} points (×{hi // lo}; target: within ×1.5, and under 50 ms at {hi:,}):", ""]
        for shape, label in ((sh, lb) for sh in shapes for lb in charts(lo)):
            parts = []
            for b in bs:
                a = res["charts"][chart_key(shape, lo, label)][b]["ms"]
                z = res["charts"][chart_key(shape, hi, label)][b]["ms"]
                parts.append(f"{name[b]} **×{z / a:.2f}** ({a:.1f} → {z:.1f} ms)")
            lines.append(f"- {label}{'' if len(shapes) == 1 else ', ' + shape}: " + "; ".join(parts))
    if res.get("bulk_interval"):
        lines += ["", "MLflow's `GET /api/2.0/mlflow/metrics/get-history-bulk-interval?run_ids=…&metric_key=loss"
                  "&max_results=M` over HTTP on the same series (the sample MLflow's own UI draws; 320 is what it "
                  "asks for, 2,500 the most it may), the backends alternating call by call, "
                  f"{res['repeat']} calls each, median:", "",
                  "| series | max_results | points back | " + " | ".join(name[b] for b in bs) +
                  " | PG / SQLite | spike kept | same answer |",
                  "|---|---:|---:|" + "---:|" * len(bs) + "---:|---|---|"]
        for key, c in res["bulk_interval"].items():
            n, shape, m = key.split(" ", 2)
            ratio = f"×{c['postgres']['ms'] / c['sqlite']['ms']:.2f}" if {"sqlite", "postgres"} <= set(bs) else "–"
            first = c[bs[0]]
            lines.append(f"| {int(n):,} points{'' if len(shapes) == 1 else ', ' + shape.strip('[]')} | "
                         f"{m.split('=')[1]} | {first['points']:,} | " +
                         " | ".join(f"**{c[b]['ms']:.1f} ms**" for b in bs) +
                         f" | {ratio} | {'yes' if first['spike'] else '**no**'} | {'yes' if c['identical'] else '**no**'} |")
        if len(sizes) >= 2:
            lo, hi = sizes[0], sizes[-1]
            parts = []
            for shape in shapes:
                for m in BULK_MAX_RESULTS:
                    k = lambda n: f"{n} [{shape}] max_results={m}"  # noqa: E731
                    if k(lo) in res["bulk_interval"] and k(hi) in res["bulk_interval"]:
                        parts.append(f"max_results={m}{'' if len(shapes) == 1 else ', ' + shape}: " + ", ".join(
                            f"{name[b]} ×{res['bulk_interval'][k(hi)][b]['ms'] / res['bulk_interval'][k(lo)][b]['ms']:.2f}"
                            for b in bs))
            lines += ["", f"Growth from {lo:,} to {hi:,} points (target: within ×1.5, under 100 ms at {hi:,}): "
                      + "; ".join(parts) + "."]
    if res.get("memory_mib"):
        lines += ["", "The servers' resident memory while they answered (`/proc/PID/status` sampled every 20 ms, "
                  "the highest value of each kind during each group of calls, MiB): **anon** is what the process "
                  "allocated (heap, stacks), **file** the pages of mapped files it touched (the SQLite database, "
                  "which SQLite reads through `mmap`, and the binary; the kernel drops and re-reads them as memory "
                  "is needed), **shmem** SQLite's WAL index.", "",
                  "| calls | " + " | ".join(f"{name[b]}: anon / file / shmem" for b in bs) + " |",
                  "|---|" + "---:|" * len(bs)]
        for key, per in res["memory_mib"].items():
            n, shape, what = key.split(" ", 2)
            label = f"{int(n):,} points{'' if len(shapes) == 1 else ', ' + shape.strip('[]')}, {what}"
            lines.append(f"| {label} | " + " | ".join(
                f"{per[b].get('anon', 0):,.0f} / {per[b].get('file', 0):,.0f} / {per[b].get('shmem', 0):,.0f}" for b in bs) + " |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", type=Path, help="the build before (the before/after mode)")
    ap.add_argument("--backends", nargs="+", choices=["sqlite", "postgres"],
                    help="compare stores with --binary instead of builds (PostgreSQL section)")
    ap.add_argument("--pg-dir", type=Path, default=servers.pg_dir_default(),
                    help="the throwaway PostgreSQL cluster's dir (scripts/pg.sh start/stop)")
    ap.add_argument("--binary", type=Path, default=ROOT / "target" / "release" / "runlens")
    ap.add_argument("--dist", type=Path, default=ROOT / "dist")
    ap.add_argument("--points", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES),
                    help="the series shapes of --backends (see SHAPES)")
    ap.add_argument("--repeat", type=int, default=9)
    ap.add_argument("--before-repeat", type=int, default=3, help="calls per chart before (at 10M each takes seconds)")
    ap.add_argument("--ingest-batches", type=int, default=300)
    ap.add_argument("--busy", type=int, default=0,
                    help="processes spinning on the CPU while the charts are fetched (servers.Busy)")
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--ingest-only", action="store_true",
                    help="only step 3; the charts' numbers come from bench/chart_results.json")
    args = ap.parse_args()
    dist = args.dist if args.dist.exists() else Path(tempfile.mkdtemp(prefix="dist-"))
    if args.backends:
        res = compare_backends(args, dist.resolve())
        PG_RESULTS.write_text(json.dumps(res, indent=1) + "\n")
        text = render_backends(res)
        print(text)
        if not args.no_write:
            docsection.write_section(DOC, PG_SECTION, text, after=SECTION)
        return
    if not args.before:
        ap.error("--before is required unless --backends")
    res = {"date": time.strftime("%Y-%m-%d"), "repeat": args.repeat, "before_repeat": args.before_repeat, "ingest_batches": args.ingest_batches,
           "before_build": build_name(args.before), "after_build": build_name(args.binary), "busy": args.busy,
           "busy_load": [], "busy_runnable": []}

    if args.ingest_only:
        old = json.loads(RESULTS.read_text())
        res.update({k: old[k] for k in old if k not in res and k != "ingest"})
        res["repeat"], res["before_repeat"] = old["repeat"], old["before_repeat"]
    work = Path(tempfile.mkdtemp(prefix="chart-bench-"))
    try:
        if args.ingest_only:
            raise SkipCharts
        with runlens(args.before, work, dist) as server:
            s = session(server)
            r = s.post(f"{server.url}/api/2.0/mlflow/experiments/create", json={"name": "charts"}, timeout=30)
            exp_id = r.json()["experiment_id"]
            runs = {}
            for n in args.points:
                r = s.post(f"{server.url}/api/2.0/mlflow/runs/create",
                           json={"experiment_id": exp_id, "start_time": 1_700_000_000_000, "run_name": f"n{n}"}, timeout=30)
                runs[n] = r.json()["run"]["info"]["run_id"]
                secs = log_series(s, server.url, runs[n], n, 1_700_000_000_000)
                res.setdefault("seed_s", {})[str(n)] = secs
                print(f"[seed] {n:,} points in {secs:.0f} s ({n / secs:,.0f} points/s)", flush=True)
            print("[before]", flush=True)
            with servers.Busy(args.busy) as busy:
                res["before"] = measure_charts(server, runs, args.before_repeat)
            res["busy_load"] += busy.load
            res["busy_runnable"] += busy.runnable
            password = server.admin_password
        # The same data dir, the same administrator, the build with the summaries.
        t = time.perf_counter()
        after = runlens(args.binary, work, dist)
        after.admin_password = after.env["RUNLENS_ADMIN_PASSWORD"] = password
        with after as server:
            res["backfill_s"] = time.perf_counter() - t
            print(f"[after] started (migration included) in {res['backfill_s']:.1f} s", flush=True)
            with servers.Busy(args.busy) as busy:
                res["after"] = measure_charts(server, runs, args.repeat)
            res["busy_load"] += busy.load
            res["busy_runnable"] += busy.runnable
    except SkipCharts:
        pass
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if not args.ingest_only:
        same = all(res["before"][k]["answer"] == res["after"][k]["answer"] for k in res["after"] if k[0].isdigit())
        res["identical"] = "checked: identical" if same else "**they differ**"
        for side in ("before", "after"):
            for k in res[side]:
                if k[0].isdigit():
                    res[side][k].pop("answer")

    res["ingest"] = {"before": [], "after": []}
    for _ in range(2):
        for side, binary in (("before", args.before), ("after", args.binary)):
            r = ingest(binary, dist, args.ingest_batches)
            print(f"[ingest] {side}: {r}", flush=True)
            res["ingest"][side].append(r)

    RESULTS.write_text(json.dumps(res, indent=2) + "\n")
    text = render(res)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text)


if __name__ == "__main__":
    os.chdir(ROOT)
    main()
