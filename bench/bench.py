#!/usr/bin/env python3
"""Side-by-side benchmark: runlens vs a real MLflow tracking server, same workloads, same client.

  (1) seed 1,000 runs x (20 params, 10 metrics x 50 steps) + one 1,000,000-step metric
  (2) fetch that metric for a 1,000-px chart (and whether its single spike survives)
  (3) open the runs page of the 1,000-run experiment in headless Chromium: time to first
      row, bytes transferred
  and where the seed time goes (bench/seed_breakdown.py): per 1,000-point batch, the stock
  client's encoding vs the server's answer

Run with the conformance venv (`make bench`, or `.venv/bin/python bench/bench.py`); it creates
bench/.venv-mlflow with the MLflow server on first use. Writes docs/BENCHMARKS.md and the raw
numbers to bench/results.json (both committed; the JSON also records the sha256 of the
runlens binary and of dist/ that were measured). `--scale 0.01` makes a quick smoke run.
"""

import argparse
import datetime as dt
import json
import logging
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import seed_breakdown
import servers
import workloads
from report import build_facts, machine_facts, render

ROOT = Path(__file__).resolve().parents[1]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--scale", type=float, default=1.0, help="multiply run and step counts (default 1.0)")
    p.add_argument("--runs", type=int, help="override the number of runs (default 1000 x scale)")
    p.add_argument("--steps", type=int, help="override the long metric's steps (default 1e6 x scale)")
    p.add_argument("--repeat", type=int, default=5, help="repetitions of each chart fetch (median)")
    p.add_argument("--page-repeat", type=int, default=3, help="cold page loads per server (median)")
    p.add_argument("--only", choices=["both", "runlens", "mlflow"], default="both")
    p.add_argument("--runlens-bin", type=Path,
                   default=Path(os.environ.get("RUNLENS_BIN", ROOT / "target" / "release" / "runlens")))
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--out", type=Path, default=ROOT / "docs" / "BENCHMARKS.md")
    return p.parse_args()


def page_load(url: str, repeat: int, login: tuple[str, str] | None = None) -> dict:
    """Runs bench/page_load.mjs with Node; median time to first row and bytes. With `login`
    (username, password) each fresh browser context signs in before the clock starts."""
    env = {**os.environ}
    if login:
        env.update(BENCH_USERNAME=login[0], BENCH_PASSWORD=login[1])
    proc = subprocess.run(["node", str(ROOT / "bench" / "page_load.mjs"), url, r"^bench-\d{4}$", str(repeat)],
                          capture_output=True, text=True, timeout=1200, env=env)
    if proc.returncode != 0:
        return {"error": (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["failed"]}
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    med = lambda xs: sorted(xs)[len(xs) // 2]  # noqa: E731
    return {"first_row_ms": med(raw["first_row_ms"]), "bytes": med(raw["bytes"]),
            "requests": med(raw["requests"]), "raw": raw}


def bench_one(server, scale_runs: int, steps: int, args, page_url) -> dict:
    # The stock client authenticates to runlens with the admin's token; MLflow runs open.
    if server.token:
        os.environ["MLFLOW_TRACKING_TOKEN"] = server.token
    else:
        os.environ.pop("MLFLOW_TRACKING_TOKEN", None)
    print(f"[bench] {server.name}: seeding {scale_runs} runs + {steps:,}-step metric", flush=True)
    result = {"seed": workloads.seed(server.url, scale_runs, steps)}
    seed = result["seed"]
    print(f"[bench] {server.name}: seeded in {seed['seed_seconds']:.1f} s; fetching the chart", flush=True)
    if server.name == "runlens":
        result["chart"] = workloads.fetch_runlens(server.url, seed["big_run_id"], args.repeat, server.headers)
    else:
        result["chart"] = workloads.fetch_mlflow(server.url, seed["big_run_id"], args.repeat)
    result["full_history"] = workloads.fetch_full_history(server.url, seed["big_run_id"])
    if page_url is not None:
        print(f"[bench] {server.name}: loading the runs page", flush=True)
        login = ("admin", server.admin_password) if server.admin_password else None
        result["page"] = page_load(page_url(server.url, seed["experiment_id"]), args.page_repeat, login)
    print(f"[bench] {server.name}: where the seed time goes", flush=True)
    result["seed_breakdown"] = seed_breakdown.measure(server.url, server.headers,
                                                      max(10, round(200 * args.scale)))
    return result


KEPT_FROM = "## Node agent"


def main() -> int:
    args = parse_args()
    logging.getLogger("mlflow").setLevel(logging.WARNING)  # no "View run ..." line per run
    runs = args.runs or max(10, round(1000 * args.scale))
    steps = args.steps or max(10_000, round(1_000_000 * args.scale))
    workdir = Path(tempfile.mkdtemp(prefix="runlens-bench-"))
    results = {"date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
               "scale": args.scale, "argv": " ".join(sys.argv[1:]), "runs": runs, "steps": steps, "machine": machine_facts()}
    try:
        if args.only in ("both", "runlens"):
            if not args.runlens_bin.exists():
                sys.exit(f"no runlens binary at {args.runlens_bin}: run `make server`")
            has_app = (args.dist / "index.html").exists()
            results["machine"].update(build_facts(args.runlens_bin, args.dist if has_app else None))
            if not has_app:
                print(f"[bench] no built app in {args.dist}: skipping the page load for runlens", flush=True)
            with servers.runlens(args.runlens_bin, workdir, args.dist) as srv:
                results["runlens"] = bench_one(
                    srv, runs, steps, args,
                    (lambda url, exp: f"{url}/experiments/{exp}") if has_app else None)
        if args.only in ("both", "mlflow"):
            exe = servers.ensure_mlflow_venv()
            results["machine"]["mlflow_server"] = subprocess.run(
                [str(exe.parent / "python"), "-c", "import mlflow; print(mlflow.__version__)"],
                capture_output=True, text=True).stdout.strip()
            with servers.mlflow(exe, workdir) as srv:
                results["mlflow"] = bench_one(srv, runs, steps, args,
                                              lambda url, exp: f"{url}/#/experiments/{exp}/runs")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    raw_path = ROOT / "bench" / "results.json"
    raw_path.write_text(json.dumps(results, indent=2) + "\n")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    # Sections written by the other benchmarks (bench/agent_bench.py: "## Node agent" to the
    # end) are kept as they are.
    kept = ""
    if args.out.exists():
        old = args.out.read_text()
        at = old.find(KEPT_FROM)
        kept = "\n" + old[at:] if at >= 0 else ""
    args.out.write_text(render(results).rstrip("\n") + "\n" + kept)
    print(f"[bench] wrote {args.out} (raw: {raw_path})", flush=True)
    print(args.out.read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
