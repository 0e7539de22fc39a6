#!/usr/bin/env python3
"""Cold and warm page load: time to the runs page's first row on an experiment of 100,000
runs, with the app served as before (gzip on every request, no cache headers) and as now
(brotli/gzip copies made at build time, hashed files cached as immutable).

Usage (any Python with `requests`; Node with end2end/node_modules; a release app build in
dist/, whose post-build hook wrote the `.br`/`.gz` copies):

  python bench/cold_load_bench.py [--bin target/release/runlens] [--runs 100000] [--repeat 5]

Seeds `--dir` once as bench/runs_table_bench.py does (one experiment of `--runs` runs,
written straight into SQLite), then starts the server on a copy of it twice: `before` with
`RUNLENS_STATIC_PRECOMPRESSED=0` (dist/ served as it was: no precompressed files, no
`Cache-Control`), and `after`. Each time bench/cold_load.mjs opens the experiment's page in
`--repeat` fresh browser contexts: cold (empty cache), then warm (the same context again), to
`tr.run-row` visible. Raw numbers in bench/cold_load_results.json; section "## Cold page
load (issue 33)" of docs/BENCHMARKS.md unless `--no-write`.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path

import docsection
import runs_table_bench as rtb
from servers import ROOT, Server, free_port

DEFAULT_DIR = ROOT / "target" / "bench-cold-load"
RESULTS = ROOT / "bench" / "cold_load_results.json"
SECTION = "## Cold page load (issue 33)"
MODES = {"before": {"RUNLENS_STATIC_PRECOMPRESSED": "0"}, "after": {}}


def seeded(args) -> int:
    """The seeded experiment's id, seeding `args.dir` first if it holds no store of this size."""
    meta = args.dir / "seed.json"
    if meta.exists():
        exps = json.loads(meta.read_text())["experiments"]
        if str(args.runs) in exps:
            return int(exps[str(args.runs)])
    rtb.SIZES = [args.runs]
    rtb.seed(args)
    return int(json.loads(meta.read_text())["experiments"][str(args.runs)])


def wasm_sizes(dist: Path) -> dict:
    """The app's wasm: bytes as built, and its build-time gzip and brotli copies."""
    wasm = next(dist.glob("*_bg.wasm"))
    size = lambda p: p.stat().st_size if p.exists() else None  # noqa: E731
    return {"file": wasm.name, "raw": size(wasm), "gzip": size(Path(f"{wasm}.gz")),
            "brotli": size(Path(f"{wasm}.br"))}


def measure(args, exp: int, label: str) -> dict:
    data = args.dir / f"data-{label}"
    if data.exists():
        shutil.rmtree(data)
    shutil.copytree(args.dir / "seed-data", data)
    port = free_port()
    argv = [str(args.bin), "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", str(data),
            "--dist", str(args.dist.resolve())]
    env = {"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": rtb.PASSWORD, **MODES[label]}
    with Server(f"runlens-{label}", argv, port, args.dir, env=env) as srv:
        penv = {**os.environ, "BENCH_USERNAME": "admin", "BENCH_PASSWORD": rtb.PASSWORD}
        proc = subprocess.run(["node", str(ROOT / "bench" / "cold_load.mjs"), f"{srv.url}/experiments/{exp}",
                               str(args.repeat)], capture_output=True, text=True, timeout=1800, env=penv)
    if proc.returncode != 0:
        raise RuntimeError(f"cold_load.mjs failed: {(proc.stderr or proc.stdout)[-2000:]}")
    raw = json.loads(proc.stdout.strip().splitlines()[-1])
    print(label, json.dumps(raw), flush=True)
    return raw


def render(res: dict) -> str:
    med = lambda xs: round(statistics.median(xs))  # noqa: E731
    w = res["wasm"]
    lines = [SECTION, "",
             f"The runs page of one experiment of {res['runs']:,} runs in headless Chromium "
             f"(bench/cold_load_bench.py, {res['build']} server, {res['repeat']} fresh contexts each): "
             "milliseconds from navigation to the first `tr.run-row` visible, median (min–max). "
             "Cold: a fresh context, empty cache; warm: the same page again in that context. "
             "`before`: `dist/` served as it was (gzip made on every request, no `Cache-Control`; "
             "`RUNLENS_STATIC_PRECOMPRESSED=0`); `after`: the build's brotli/gzip copies, hashed files "
             f"`immutable`, `index.html` `no-cache`. Load average {res['load'][0]:.1f} at the start.", "",
             "| serving | cold (ms) | warm (ms) | wasm on the wire, cold (bytes, encoding) |",
             "|---|---:|---:|---:|"]
    for label in MODES:
        r = res[label]
        cold = [x for x in r["wasm"][0::2]]
        wire = cold[0].get("wire_bytes") if cold else None
        enc = cold[0].get("encoding") if cold else "?"
        lines.append(f"| {label} | {med(r['cold_ms']):,} ({min(r['cold_ms']):,}–{max(r['cold_ms']):,}) | "
                     f"{med(r['warm_ms']):,} ({min(r['warm_ms']):,}–{max(r['warm_ms']):,}) | "
                     f"{wire if wire is None else format(wire, ',')} {enc} |")
    lines += ["", f"The wasm (`{w['file']}`): {w['raw']:,} bytes raw, {w['gzip']:,} gzip (level 9), "
              f"{w['brotli']:,} brotli (quality 11), made once by `scripts/precompress.mjs` in Trunk's "
              "post-build hook.", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    p.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--no-write", action="store_true", help="do not rewrite docs/BENCHMARKS.md")
    args = p.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    exp = seeded(args)
    res = {"runs": args.runs, "repeat": args.repeat, "load": os.getloadavg(), "wasm": wasm_sizes(args.dist),
           "build": "release" if "release" in args.bin.parts else "debug"}
    for label in MODES:
        res[label] = measure(args, exp, label)
    RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    text = render(res)
    print(text)
    if not args.no_write:
        docsection.write_section(rtb.DOC, SECTION, text)


if __name__ == "__main__":
    main()
