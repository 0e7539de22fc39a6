#!/usr/bin/env python3
"""Cold and warm page load: time to the runs page's first row on an experiment of 100,000
runs, with the app served as before (gzip on every request, no cache headers) and as now
(brotli/gzip copies made at build time, hashed files cached as immutable).

Usage (any Python with `requests`; Node with end2end/node_modules; a release app build in
dist/, whose post-build hook wrote the `.br`/`.gz` copies):

  python bench/cold_load_bench.py [--bin target/release/runlens] [--runs 100000] [--repeat 5]
                                  [--baseline-bin B --baseline-dist D] [--busy N]

Seeds `--dir` once as bench/runs_table_bench.py does (one experiment of `--runs` runs,
written straight into SQLite), then starts three servers at once, each on its own copy of
it: `plain`, the baseline (`--baseline-bin`, `--baseline-dist`: an older build, else this
one) with `RUNLENS_STATIC_PRECOMPRESSED=0` (dist/ served as it was: no precompressed files,
no `Cache-Control`); `precompressed`, the baseline as it serves by default; `now`, this
build. Each of `--repeat` rounds has bench/cold_load.mjs open each one's experiment page
(the order rotating) in a new browser profile: cold (empty caches), then warm (the same
profile again: the app's files and the wasm's compiled code cached), to `tr.run-row`
visible; then (`--scroll N`, 30 unless 0) it scrolls the table a row at a time N times and
times each step to the frame that shows it. `--busy N` keeps N processes spinning on the CPU throughout (`servers.Busy`): a
loaded machine, the same on every run. Raw numbers in bench/cold_load_results.json; section "## Cold page load (issue
33)" of docs/BENCHMARKS.md unless `--no-write`.
"""

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
from pathlib import Path

import docsection
import runs_table_bench as rtb
from servers import ROOT, Busy, Server, free_port

DEFAULT_DIR = ROOT / "target" / "bench-cold-load"
RESULTS = ROOT / "bench" / "cold_load_results.json"
SECTION = "## Cold page load (issue 33)"
# label: (build, extra environment)
MODES = {"plain": ("baseline", {"RUNLENS_STATIC_PRECOMPRESSED": "0"}),
         "precompressed": ("baseline", {}), "now": ("now", {})}


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


def server(args, label: str) -> Server:
    """The server of mode `label` on its own copy of the seeded data dir."""
    data = args.dir / f"data-{label}"
    if data.exists():
        shutil.rmtree(data)
    shutil.copytree(args.dir / "seed-data", data)
    port = free_port()
    build, extra = MODES[label]
    binary, dist = (args.bin, args.dist) if build == "now" else (args.baseline_bin, args.baseline_dist)
    argv = [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", str(data),
            "--dist", str(dist.resolve())]
    env = {"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": rtb.PASSWORD, **extra}
    return Server(f"runlens-{label}", argv, port, args.dir, env=env)


def measure(args, exp: int) -> dict:
    """Every mode's loads: the three servers run at once, and each round loads each mode's
    page once (cold, then warm) in a rotating order, so a busy stretch of the machine falls
    on every mode alike and the modes compare within one run."""
    labels = args.modes
    out = {label: {"cold_ms": [], "warm_ms": [], "wasm": [], "timeline": [], "load1": [], "scroll_ms": [],
                   "scroll_floor_ms": []} for label in labels}
    penv = {**os.environ, "BENCH_USERNAME": "admin", "BENCH_PASSWORD": rtb.PASSWORD}
    with contextlib.ExitStack() as stack:
        srvs = {label: stack.enter_context(server(args, label)) for label in labels}
        busy = stack.enter_context(Busy(args.busy))
        for i in range(args.repeat):
            for label in labels[i % len(labels):] + labels[:i % len(labels)]:
                proc = subprocess.run(["node", str(ROOT / "bench" / "cold_load.mjs"),
                                       f"{srvs[label].url}/experiments/{exp}", "1", str(args.scroll)],
                                      capture_output=True, text=True, timeout=600, env=penv)
                if proc.returncode != 0:
                    raise RuntimeError(f"cold_load.mjs failed: {(proc.stderr or proc.stdout)[-2000:]}")
                raw = json.loads(proc.stdout.strip().splitlines()[-1])
                for k in ("cold_ms", "warm_ms", "wasm", "timeline", "scroll_ms", "scroll_floor_ms"):
                    out[label][k] += raw[k]
                out[label]["load1"].append(os.getloadavg()[0])
                print(f"round {i + 1} {label}: cold {raw['cold_ms'][0]} ms, warm {raw['warm_ms'][0]} ms", flush=True)
    out["busy_load"], out["busy_runnable"] = busy.load, busy.runnable
    return out


def render(res: dict) -> str:
    med = lambda xs: round(statistics.median(xs))  # noqa: E731
    w = res["wasm"]
    lines = [SECTION, "",
             f"The runs page of one experiment of {res['runs']:,} runs in headless Chromium "
             f"(bench/cold_load_bench.py, {res['build']} server, {res['repeat']} new browser profiles each): "
             "milliseconds from navigation to the first `tr.run-row` visible, median (min–max). "
             "Cold: a new profile, empty caches; warm: the same page again in that profile (the app's "
             "files in its HTTP cache, the wasm's compiled code in its code cache). "
             f"Baseline: {res['baseline']}. "
             "`plain`: the baseline with `dist/` served as it was (gzip made on every request, no "
             "`Cache-Control`; `RUNLENS_STATIC_PRECOMPRESSED=0`); `precompressed`: the baseline serving "
             "the build's brotli/gzip copies, hashed files `immutable`, `index.html` `no-cache`; `now`: "
             "this build, served the same way. The three servers run at once and each round loads each "
             "one's page in turn (the order rotating), so the modes share the machine's load: load average "
             f"{res['load'][0]:.1f} at the start, {res.get('load_after', res['load'])[0]:.1f} at the end, "
             f"{min(min(res[m].get('load1', [res['load'][0]])) for m in res['modes']):.1f}–"
             f"{max(max(res[m].get('load1', [res['load'][0]])) for m in res['modes']):.1f} during."
             + (f" Throughout the loads {res['busy']} processes spun on the CPU beside them (`--busy "
                f"{res['busy']}`, a loaded machine made on purpose; {min(res['busy_runnable'])}–"
                f"{max(res['busy_runnable'])} processes runnable when the loads began and ended)."
                if res.get("busy") else ""), "",
             "| build, serving | cold (ms) | warm (ms) | wasm on the wire, cold (bytes, encoding) |",
             "|---|---:|---:|---:|"]
    for label in res["modes"]:
        r = res[label]
        cold = r["wasm"][0::2]
        wire = cold[0].get("wire_bytes") if cold else None
        enc = cold[0].get("encoding") if cold else "?"
        lines.append(f"| {label} | {med(r['cold_ms']):,} ({min(r['cold_ms']):,}–{max(r['cold_ms']):,}) | "
                     f"{med(r['warm_ms']):,} ({min(r['warm_ms']):,}–{max(r['warm_ms']):,}) | "
                     f"{wire if wire is None else format(wire, ',')} {enc} |")
    if any(res[label]["scroll_ms"] for label in res["modes"]):
        pct = lambda xs, q: sorted(xs)[int(q * (len(xs) - 1))]  # noqa: E731
        lines += ["", f"Scrolling the table a row (36 px) at a time, {res['scroll']} steps a round after the "
                  "warm load, ms from the scroll to the second frame after it (the floor: steps of 1 px, "
                  "which change no row):", "",
                  "| build, serving | scroll a row, p50 | p90 | max | floor, p50 |", "|---|---:|---:|---:|---:|"]
        for label in res["modes"]:
            xs, fl = res[label]["scroll_ms"], res[label]["scroll_floor_ms"]
            lines.append(f"| {label} | {statistics.median(xs):.1f} | {pct(xs, 0.9):.1f} | {max(xs):.1f} | "
                         f"{statistics.median(fl):.1f} |")
    if {"precompressed", "now"} <= set(res["modes"]):
        pairs = []
        for kind in ("cold_ms", "warm_ms"):
            d = [n - b for b, n in zip(res["precompressed"][kind], res["now"][kind])]
            pairs.append(f"{kind.split('_')[0]} {statistics.median(d):+.0f} ms "
                         f"(faster in {sum(x < 0 for x in d)} of {len(d)})")
        lines += ["", "`now` against `precompressed`, round by round (the same serving, loaded one after the "
                  "other; median difference): " + ", ".join(pairs) + "."]
    lines += ["", "Where a cold load's time goes (the page's clock, ms from navigation, median over the "
              "cold loads; an API call as start→end; `–` where the build makes no such call):", "",
              "| build, serving | wasm fetched | `/api/v1/session` | experiment | first runs page | first row |",
              "|---|---:|---:|---:|---:|---:|"]
    for label in res["modes"]:
        t = phases(res[label]["timeline"][0::2])
        lines.append(f"| {label} | {t['wasm']} | {t['session']} | {t['experiment']} | {t['runs']} | {t['row']} |")
    lines += ["", f"The wasm (`{w['file']}`): {w['raw']:,} bytes raw, {w['gzip']:,} gzip (level 9), "
              f"{w['brotli']:,} brotli (quality 11), made once by `scripts/precompress.mjs` in Trunk's "
              "post-build hook.", ""]
    return "\n".join(lines)


def phases(timelines: list) -> dict:
    """Median end of the wasm's fetch, start→end of the session, experiment and first runs
    calls, and the first row, over `timelines` (from bench/cold_load.mjs)."""
    def call(t, pred):
        hits = [r for r in t["resources"] if pred(r[0])]
        return (hits[0][1], hits[0][2]) if hits else None

    picks = {
        "wasm": lambda p: p.endswith(".wasm"),
        "session": lambda p: p == "/api/v1/session",
        "experiment": lambda p: p.startswith("/api/v1/experiments/") and p.count("/") == 4,
        "runs": lambda p: p.startswith("/api/v1/experiments/") and p.endswith("/runs"),
    }
    med = lambda xs: round(statistics.median(xs))  # noqa: E731
    out = {}
    for name, pred in picks.items():
        spans = [s for s in (call(t, pred) for t in timelines) if s]
        if not spans:
            out[name] = "–"
        elif name == "wasm":
            out[name] = str(med([e for _, e in spans]))
        else:
            out[name] = f"{med([b for b, _ in spans])}→{med([e for _, e in spans])}"
    out["row"] = str(med([t["row"] for t in timelines]))
    return out


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    p.add_argument("--bin", type=Path, default=ROOT / "target" / "release" / "runlens")
    p.add_argument("--dist", type=Path, default=ROOT / "dist")
    p.add_argument("--baseline-bin", type=Path, help="an older server build to compare with")
    p.add_argument("--baseline-dist", type=Path, help="that build's app (dist/)")
    p.add_argument("--baseline", default="this build", help="what the baseline is, for the table")
    p.add_argument("--runs", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--modes", nargs="+", choices=list(MODES), default=list(MODES),
                   help="the servings to load (default all three; `precompressed now` compares the builds)")
    p.add_argument("--busy", type=int, default=0,
                   help="processes spinning on the CPU throughout the loads (servers.Busy): a loaded machine")
    p.add_argument("--scroll", type=int, default=30,
                   help="one-row scroll steps timed a round, after the warm load (0: none)")
    p.add_argument("--no-write", action="store_true", help="do not rewrite docs/BENCHMARKS.md")
    args = p.parse_args()
    args.dir.mkdir(parents=True, exist_ok=True)
    args.baseline_bin = args.baseline_bin or args.bin
    args.baseline_dist = args.baseline_dist or args.dist
    exp = seeded(args)
    res = {"runs": args.runs, "repeat": args.repeat, "busy": args.busy, "modes": args.modes, "scroll": args.scroll,
           "load": os.getloadavg(),
           "wasm": wasm_sizes(args.dist),
           "build": "release" if "release" in args.bin.parts else "debug", "baseline": args.baseline}
    res.update(measure(args, exp))
    res["load_after"] = os.getloadavg()
    RESULTS.write_text(json.dumps(res, indent=1) + "\n")
    text = render(res)
    print(text)
    if not args.no_write:
        docsection.write_section(rtb.DOC, SECTION, text)


if __name__ == "__main__":
    main()
