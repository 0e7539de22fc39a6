#!/usr/bin/env python3
"""Runs table benchmark (issue 11): experiments of 1,000, 10,000 and 100,000 runs (20 params,
10 metrics, 3 tags each) and what the runs page and the MLflow API cost on them.

Usage (any Python with `requests`; Node with end2end/node_modules for the browser timing):

  python bench/runs_table_bench.py seed                       # once, into --dir
  python bench/runs_table_bench.py measure --bin B --dist D --label before|after
  python bench/runs_table_bench.py report                     # prints the before/after table
  python bench/runs_table_bench.py compare [--sizes 1000 10000 100000] [--pg-dir /tmp/rl-pg-bench]

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
- `filter param`: `params.p03 = '7'` (about one run in 1,000), in the default order;
- `search_runs p1` / `p5`: MLflow `runs/search` with `max_results` 1,000: the first page,
  and the fifth (following `next_page_token`); `search_runs metric p1`: the first page
  ordered by `metrics.m0`;
- `first row`: the runs page in headless Chromium (bench/page_load.mjs), cold, until the
  first run row shows.
Results go to `<dir>/<label>.json`.

`compare` (issue 11, step 9) puts the same runs into four stores and measures them in one
run: runlens on SQLite, runlens on PostgreSQL, `mlflow server` on SQLite and `mlflow server
--workers 4` on PostgreSQL (a throwaway cluster in `--pg-dir`, scripts/pg.sh, one database
per server, dropped and the cluster stopped at the end). Each server is started once on an
empty store to create its schema and the experiments through the MLflow API, stopped, and
the runs, params, latest metrics and tags are bulk-loaded into its tables (SQLite inserts,
PostgreSQL COPY; runlens' `experiment_columns` filled as ingest would, then ANALYZE). All
four then serve at once; for each size each store is measured in turn: on runlens the
runlens rows above; on every store MLflow `runs/search` pages of 1,000 (first, fifth, by a
metric, by a param, filtered) and the runs page's first row in headless Chromium (runlens
`/experiments/{id}`, MLflow `/#/experiments/{id}/runs`). Raw numbers in
bench/runs_table_pg_results.json; section "## Runs table on PostgreSQL and vs MLflow
(issue 11)" of docs/BENCHMARKS.md unless `--no-write`.
"""

import argparse
import contextlib
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

import docsection
import servers
from servers import ROOT, Server, free_port

DEFAULT_DIR = ROOT / "target" / "bench-runs-table"
PASSWORD = "bench-runs-table-1"
SIZES = [1_000, 10_000, 100_000]
PARAMS = [f"p{i:02d}" for i in range(20)]
METRICS = [f"m{i}" for i in range(10)]
SEED = 11
T0 = 1_700_000_000_000
DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Runs table on PostgreSQL and vs MLflow (issue 11)"
AFTER_SECTION = "## Runs table at 100,000 runs (issue 11)"
PG_RESULTS = ROOT / "bench" / "runs_table_pg_results.json"
FILTER = "metrics.m1 < 0.5 AND params.p00 = 'adam'"
# A selective param filter (about 1 run in 1,000), in the default order.
PARAM_FILTER = "params.p03 = '7'"
# Fills runlens' experiment_columns for rows written straight into the tables (what
# tracking::columns does on ingest; the same SELECTs as migration 0007's backfill).
COLUMNS_SQL = [
    "INSERT INTO experiment_columns (experiment_id, kind, key) SELECT DISTINCT r.experiment_id, '{kind}', x.key "
    "FROM runs r JOIN {table} x ON x.run_uuid = r.run_uuid WHERE true ON CONFLICT DO NOTHING".format(kind=k, table=t)
    for k, t in (("param", "params"), ("metric", "latest_metrics"), ("tag", "tags"))]


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
    db = sqlite3.connect(data / "runlens.db")
    started = time.perf_counter()
    with db:
        for idx, (n, exp) in enumerate(exps.items()):
            runlens_sqlite_load(db, exp, generate(idx, n))
        for sql in COLUMNS_SQL:
            db.execute(sql)
    db.execute("ANALYZE")
    db.close()
    (d / "seed.json").write_text(json.dumps({"experiments": exps, "seconds": time.perf_counter() - started}))
    print(f"seeded {sum(SIZES):,} runs in {time.perf_counter() - started:.0f} s")


def generate(idx: int, n: int) -> dict:
    """The runs of the idx-th experiment (n runs), the same in every store: run ids, names,
    times, params, latest metrics and tags from a fixed seed."""
    rng = random.Random(SEED * 1000 + idx)
    runs, params, metrics, tags = [], [], [], []
    for i in range(n):
        rid = f"{idx:04x}{rng.getrandbits(112):028x}"
        start = T0 + i * 1000
        runs.append((rid, f"run-{i:06d}", start))
        for key in PARAMS:
            if key == "p19" and i % 7 == 0:
                continue
            if key == "p00":
                v = ["adam", "sgd", "adamw"][i % 3]
            elif key == "p01":
                v = f"{rng.choice([1, 3])}e-{rng.randint(2, 5)}"
            else:
                v = str(rng.randint(0, 1000))
            params.append((rid, key, v))
        for key in METRICS:
            if key == "m9" and i % 10 == 0:
                continue
            metrics.append((rid, key, start + 50_000, rng.random()))
        tags += [(rid, "mlflow.user", "bench"), (rid, "mlflow.runName", f"run-{i:06d}"),
                 (rid, "team", ["vision", "nlp"][i % 2])]
    return {"runs": runs, "params": params, "metrics": metrics, "tags": tags}


def runlens_rows(exp: int, g: dict) -> dict:
    """Rows for runlens' tables (runs, params, latest_metrics, tags)."""
    return {
        "runs": (["run_uuid", "experiment_id", "name", "user_id", "status", "start_time", "end_time",
                  "lifecycle_stage", "artifact_uri"],
                 [(rid, exp, name, "bench", "FINISHED", start, start + 60_000, "active", f"file:///tmp/{rid}")
                  for rid, name, start in g["runs"]]),
        "params": (["run_uuid", "key", "value"], g["params"]),
        "latest_metrics": (["run_uuid", "key", "step", "timestamp", "is_nan", "value"],
                           [(rid, key, 100, ts, 0, v) for rid, key, ts, v in g["metrics"]]),
        "tags": (["run_uuid", "key", "value"], g["tags"]),
    }


def mlflow_rows(exp: int, g: dict, false) -> dict:
    """Rows for MLflow's tables (SqlRun, SqlParam, SqlLatestMetric, SqlTag); `false` is how
    its is_nan column spells false on that database."""
    return {
        "runs": (["run_uuid", "name", "source_type", "source_name", "entry_point_name", "user_id", "status",
                  "start_time", "end_time", "source_version", "lifecycle_stage", "artifact_uri", "experiment_id"],
                 [(rid, name, "LOCAL", "", "", "bench", "FINISHED", start, start + 60_000, "", "active",
                   f"file:///tmp/{rid}", exp) for rid, name, start in g["runs"]]),
        "params": (["key", "value", "run_uuid"], [(k, v, rid) for rid, k, v in g["params"]]),
        "latest_metrics": (["key", "value", "timestamp", "step", "is_nan", "run_uuid"],
                           [(k, v, ts, 100, false, rid) for rid, k, ts, v in g["metrics"]]),
        "tags": (["key", "value", "run_uuid"], [(k, v, rid) for rid, k, v in g["tags"]]),
    }


def sqlite_load(db: sqlite3.Connection, rows: dict) -> None:
    for table, (cols, values) in rows.items():
        db.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", values)


def runlens_sqlite_load(db: sqlite3.Connection, exp: int, g: dict) -> None:
    sqlite_load(db, runlens_rows(exp, g))


def timed(fn, repeat: int) -> tuple[float, object]:
    times, last = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        last = fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), last


def page_load(url: str, repeat: int, login: bool = True) -> int | None:
    env = {**os.environ, "BENCH_USERNAME": "admin", "BENCH_PASSWORD": PASSWORD} if login else dict(os.environ)
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
                ("filter param", [("filter", PARAM_FILTER), ("order_by", "attributes.start_time DESC")]),
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


STORES = {
    "runlens-sqlite": "runlens, SQLite",
    "runlens-pg": "runlens, PostgreSQL",
    "mlflow-sqlite": "MLflow, SQLite",
    "mlflow-pg": "MLflow, PostgreSQL",
}
RUNLENS_ROWS = ["header", "first page", "sort metric", "sort param", "filter"]
SEARCH_ROWS = ["search_runs p1", "search_runs p5", "search_runs metric p1", "search_runs param p1",
               "search_runs filter p1"]


def _api(srv: Server) -> requests.Session:
    s = requests.Session()
    s.headers.update(srv.headers)
    return s


def measure_runlens(srv: Server, exp: int, repeat: int) -> dict:
    """The runlens-only rows (header, the runs endpoint's pages) for one experiment."""
    s = _api(srv)
    cols = [("metric", m) for m in METRICS] + [("param", p) for p in PARAMS]

    def get(path, params=()):
        r = s.get(f"{srv.url}{path}", params=list(params), timeout=600)
        r.raise_for_status()
        return r.json()

    res = {}
    base = f"/api/v1/experiments/{exp}"
    res["header"], _ = timed(lambda: get(base), repeat)
    for name, extra in [
        ("first page", [("order_by", "attributes.start_time DESC")]),
        ("sort metric", [("order_by", "metrics.m0 ASC")]),
        ("sort param", [("order_by", "params.p01 DESC")]),
        ("filter", [("filter", FILTER), ("order_by", "metrics.m2 ASC")]),
        ("filter param", [("filter", PARAM_FILTER), ("order_by", "attributes.start_time DESC")]),
    ]:
        ms, body = timed(lambda: get(f"{base}/runs", extra + cols), repeat)
        res[name] = ms
        res[f"{name} rows"] = len(body["rows"])
        res[f"{name} total"] = body["total"]
    return res


def measure_search(srv: Server, exp: str, repeat: int) -> dict:
    """MLflow `runs/search`, pages of 1,000, on any server."""
    s = _api(srv)

    def search(token=None, order_by=(), flt=""):
        body = {"experiment_ids": [str(exp)], "max_results": 1000, "order_by": list(order_by), "filter": flt}
        if token:
            body["page_token"] = token
        r = s.post(f"{srv.url}/api/2.0/mlflow/runs/search", json=body, timeout=900)
        r.raise_for_status()
        return r.json()

    res = {}
    res["search_runs p1"], page = timed(search, repeat)
    res["search_runs p1 rows"] = len(page.get("runs", []))
    token = page.get("next_page_token")
    for _ in range(3):
        token = token and search(token).get("next_page_token")
    if token:
        res["search_runs p5"], _ = timed(lambda: search(token), repeat)
    res["search_runs metric p1"], page = timed(lambda: search(order_by=["metrics.m0 ASC"]), repeat)
    res["metric p1 first"] = page["runs"][0]["info"]["run_id"] if page.get("runs") else None
    res["search_runs param p1"], _ = timed(lambda: search(order_by=["params.p01 DESC"]), repeat)
    res["search_runs filter p1"], page = timed(lambda: search(order_by=["metrics.m2 ASC"], flt=FILTER), repeat)
    res["search_runs filter p1 rows"] = len(page.get("runs", []))
    return res


def compare(args) -> None:
    """The `compare` command (see the module doc)."""
    sizes = args.sizes
    d = args.dir
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    res = {"date": time.strftime("%Y-%m-%d %H:%M:%S %z"), "sizes": sizes, "repeat": args.repeat,
           "page_repeat": args.page_repeat, "load": {"before": os.getloadavg()}, "stores": {}, "seed_s": {},
           "runlens": subprocess.run([str(args.bin), "--version"], capture_output=True, text=True).stdout.strip()}
    mlflow_exe = servers.ensure_mlflow_venv()
    res["mlflow"] = subprocess.run([str(mlflow_exe), "--version"], capture_output=True, text=True).stdout.strip()
    gens = {n: generate(i, n) for i, n in enumerate(sizes)}
    with servers.PgCluster(args.pg_dir) as pg:
        res["postgres"] = pg.sql("SHOW server_version")
        dbs = {k: v for k, v in {"runlens-pg": "runs_runlens", "mlflow-pg": "runs_mlflow"}.items()
               if k in args.stores}
        urls = {k: pg.create(v) for k, v in dbs.items()}

        def make(store: str) -> Server:
            w = d / store
            w.mkdir(exist_ok=True)
            if store.startswith("runlens"):
                srv = servers.runlens(args.bin, w, args.dist, database_url=urls.get(store), name=store,
                                      data_dir=w / "data", admin_password=PASSWORD)
                return srv
            uri = pg.mlflow_uri(dbs[store]) if store == "mlflow-pg" else None
            return servers.mlflow(mlflow_exe, w, backend_uri=uri, workers=4, name=store)

        try:
            exps = {}
            for store in args.stores:
                with make(store) as srv:
                    exps[store] = {}
                    for n in sizes:
                        r = requests.post(f"{srv.url}/api/2.0/mlflow/experiments/create", json={"name": f"runs-{n}"},
                                          headers=srv.headers, timeout=120)
                        r.raise_for_status()
                        exps[store][n] = int(r.json()["experiment_id"])
                t = time.perf_counter()
                if store == "runlens-sqlite":
                    db = sqlite3.connect(d / store / "data" / "runlens.db")
                    with db:
                        for n in sizes:
                            sqlite_load(db, runlens_rows(exps[store][n], gens[n]))
                        for sql in COLUMNS_SQL:
                            db.execute(sql)
                    db.execute("ANALYZE")
                    db.close()
                elif store == "mlflow-sqlite":
                    db = sqlite3.connect(d / store / "mlflow.db")
                    with db:
                        for n in sizes:
                            sqlite_load(db, mlflow_rows(exps[store][n], gens[n], 0))
                    db.execute("ANALYZE")
                    db.close()
                else:
                    for n in sizes:
                        rows = (runlens_rows(exps[store][n], gens[n]) if store == "runlens-pg"
                                else mlflow_rows(exps[store][n], gens[n], "f"))
                        for table, (cols, values) in rows.items():
                            pg.copy(dbs[store], table, cols, values)
                    if store == "runlens-pg":
                        for sql in COLUMNS_SQL:
                            pg.sql(sql, db=dbs[store])
                    pg.sql("VACUUM ANALYZE", db=dbs[store])
                res["seed_s"][store] = time.perf_counter() - t
                print(f"[seed] {store}: {sum(sizes):,} runs loaded in {res['seed_s'][store]:.0f} s", flush=True)
            res["experiments"] = exps
            files = {"runlens-sqlite": d / "runlens-sqlite" / "data" / "runlens.db",
                     "mlflow-sqlite": d / "mlflow-sqlite" / "mlflow.db"}
            res["db_bytes"] = {**{k: f.stat().st_size for k, f in files.items() if k in args.stores},
                               **{k: pg.size(v) for k, v in dbs.items()}}
            with contextlib.ExitStack() as stack:
                srvs = {store: stack.enter_context(make(store)) for store in args.stores}
                for n in sizes:
                    for store, srv in srvs.items():
                        exp = exps[store][n]
                        out = {}
                        if store.startswith("runlens"):
                            # The server's resident memory while it answers this size's
                            # pages: what it allocated (anon) vs database pages mapped (file).
                            with servers.MemoryWatch(srv.proc.pid) as mem:
                                out.update(measure_runlens(srv, exp, args.repeat))
                                out["memory_mib"] = mem.peak()
                        out.update(measure_search(srv, exp, args.repeat))
                        if not args.no_browser:
                            url = (f"{srv.url}/experiments/{exp}" if store.startswith("runlens")
                                   else f"{srv.url}/#/experiments/{exp}/runs")
                            out["first row"] = page_load(url, args.page_repeat, login=store.startswith("runlens"))
                        out["load1"] = os.getloadavg()[0]
                        res["stores"].setdefault(store, {})[str(n)] = out
                        print(f"[measure] {store} {n:,}: {json.dumps(out)}", flush=True)
        finally:
            for v in dbs.values():
                pg.drop(v)
    res["load"]["after"] = os.getloadavg()
    if set(args.stores) != set(STORES):
        # A subset of the stores: the raw numbers only, beside the full run's.
        out = PG_RESULTS.with_name(PG_RESULTS.stem + "-" + "-".join(args.stores) + ".json")
        out.write_text(json.dumps(res, indent=1) + "\n")
        print(f"wrote {out}")
        return
    PG_RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    text = render_compare(res)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text, after=AFTER_SECTION)


def render_compare(res: dict) -> str:
    stores = list(res["stores"])
    fmt = lambda v: "–" if v is None else f"{v:,.0f}"  # noqa: E731
    what = {
        "header": "header (`GET /api/v1/experiments/{id}`)",
        "first page": "runs endpoint, first page (200 rows), default order",
        "sort metric": "runs endpoint, sorted by a metric",
        "sort param": "runs endpoint, sorted by a param",
        "filter": f"runs endpoint, filtered (`{FILTER}`), sorted by a metric",
        "search_runs p1": "MLflow `runs/search`, page 1 of 1,000, default order",
        "search_runs p5": "MLflow `runs/search`, page 5 of 1,000, default order",
        "search_runs metric p1": "MLflow `runs/search`, page 1 of 1,000 by `metrics.m0`",
        "search_runs param p1": "MLflow `runs/search`, page 1 of 1,000 by `params.p01 DESC`",
        "search_runs filter p1": "MLflow `runs/search`, page 1 of 1,000, filtered, by `metrics.m2`",
        "first row": "runs page, first row (browser, cold)",
    }
    lines = [SECTION, "",
             f"Measured {res['date']} by `bench/runs_table_bench.py compare --sizes {' '.join(map(str, res['sizes']))}` "
             f"({res['runlens']}, release build; {res['mlflow']} with `--workers 4`; PostgreSQL {res['postgres']}, a "
             f"throwaway cluster of `scripts/pg.sh` with its stock settings). The same runs (20 params, 10 latest "
             f"metrics, 3 tags each; `m9` missing on every 10th run, `p19` on every 7th) bulk-loaded into each store's "
             f"own tables (" + ", ".join(f"{STORES[k]} {v:.0f} s" for k, v in res["seed_s"].items()) + "; on disk: "
             + ", ".join(f"{STORES[k]} {v / 2**20:,.0f} MiB" for k, v in res["db_bytes"].items()) + "). All four "
             f"servers ran at once; for each size each store was measured in turn. Times in ms: median of "
             f"{res['repeat']} requests over loopback; the browser's first row: median of {res['page_repeat']} cold "
             f"loads (bench/page_load.mjs). Load average {res['load']['before'][0]:.1f} before, "
             f"{res['load']['after'][0]:.1f} after (2 cores shared with other engineers' builds).", "",
             "| runs | what | " + " | ".join(STORES[s] for s in stores) + " |",
             "|---:|---|" + "---:|" * len(stores)]
    for n in map(str, res["sizes"]):
        for row in RUNLENS_ROWS + SEARCH_ROWS + ["first row"]:
            cells = [fmt(res["stores"][s].get(n, {}).get(row)) if (row not in RUNLENS_ROWS or s.startswith("runlens"))
                     else "" for s in stores]
            lines.append(f"| {int(n):,} | {what[row]} | " + " | ".join(cells) + " |")
    big = str(res["sizes"][-1])
    st = res["stores"]
    pairs = [("runlens-pg", "runlens-sqlite", "runlens PG / runlens SQLite"),
             ("mlflow-sqlite", "runlens-sqlite", "MLflow SQLite / runlens SQLite"),
             ("mlflow-pg", "runlens-pg", "MLflow PG / runlens PG")]
    lines += ["", f"Ratios at {int(big):,} runs (time / time):", "",
              "| what | " + " | ".join(t for _, _, t in pairs) + " |", "|---|" + "---:|" * len(pairs)]
    for row in SEARCH_ROWS + ["first row"] + RUNLENS_ROWS:
        cells = []
        for a, b, _ in pairs:
            va, vb = st.get(a, {}).get(big, {}).get(row), st.get(b, {}).get(big, {}).get(row)
            cells.append(f"×{va / vb:.2f}" if va and vb else "–")
        if any(c != "–" for c in cells):
            lines.append(f"| {what[row]} | " + " | ".join(cells) + " |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("cmd", choices=["seed", "measure", "report", "compare"])
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    p.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--label", default="after")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--page-repeat", type=int, default=3)
    p.add_argument("--no-browser", action="store_true")
    p.add_argument("--sizes", type=int, nargs="+", default=SIZES, help="compare: experiment sizes (runs)")
    p.add_argument("--pg-dir", type=Path, default=servers.pg_dir_default(),
                   help="compare: the throwaway PostgreSQL cluster's dir (scripts/pg.sh start/stop)")
    p.add_argument("--no-write", action="store_true", help="compare: do not rewrite docs/BENCHMARKS.md")
    p.add_argument("--stores", nargs="+", choices=list(STORES), default=list(STORES),
                   help="compare: a subset of the stores (then only the raw numbers are written, to "
                        "bench/runs_table_pg_results-<stores>.json)")
    args = p.parse_args()
    if args.cmd == "compare" and args.dir == DEFAULT_DIR:
        args.dir = ROOT / "target" / "bench-runs-table-compare"
    {"seed": seed, "measure": measure, "report": report, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    main()
