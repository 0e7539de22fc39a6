"""Machine facts and the Markdown rendering of docs/BENCHMARKS.md."""

import hashlib
import os
import platform
import subprocess
from pathlib import Path

import mlflow

ROOT = Path(__file__).resolve().parents[1]


def _first(cmd) -> str:
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[-1]
    except (OSError, IndexError, subprocess.TimeoutExpired):
        return "unknown"


def machine_facts() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kb = int(next(line.split()[1] for line in Path("/proc/meminfo").read_text().splitlines()
                          if line.startswith("MemTotal")))
    except (OSError, StopIteration, ValueError):
        mem_kb = 0
    os_name = "unknown"
    if Path("/etc/os-release").exists():
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                os_name = line.split("=", 1)[1].strip('"')
    return {
        "cpu": cpu, "cores": os.cpu_count(), "memory_gib": round(mem_kb / 1024 / 1024, 1),
        "os": os_name, "kernel": platform.release(), "python": platform.python_version(),
        "mlflow_client": mlflow.__version__, "chromium": _first(["/usr/bin/chromium", "--version"]),
        "runlens_commit": _first(["git", "-C", str(ROOT), "describe", "--always", "--dirty", "--abbrev=7"]),
    }


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def build_facts(binary: Path, dist: Path | None) -> dict:
    """What was measured, not what was checked out: the runlens binary's sha256 and
    `--version`, and one sha256 over dist/ (every file's path and sha256, sorted) with the
    sha256 of its index.html and .wasm files."""
    facts = {"runlens_sha256": _sha256(binary), "runlens_version": _first([str(binary), "--version"])}
    if dist is not None:
        files = sorted(f for f in dist.rglob("*") if f.is_file())
        listing = "".join(f"{f.relative_to(dist).as_posix()}  {_sha256(f)}\n" for f in files)
        facts["dist_sha256"] = hashlib.sha256(listing.encode()).hexdigest()
        facts["dist_files"] = {f.relative_to(dist).as_posix(): _sha256(f) for f in files
                               if f.name == "index.html" or f.suffix == ".wasm"}
    return facts


def _s(x):
    return "n/a" if x is None else f"{x:,.3f} s" if x < 10 else f"{x:,.1f} s"


def _b(x):
    return "n/a" if x is None else f"{x / 1024:,.0f} KiB" if x < 10 * 1024 * 1024 else f"{x / 1048576:,.1f} MiB"


def _ratio(a, b):
    if a is None or b is None or b == 0:
        return "n/a"
    return f"{a / b:.3f} ({b / a:.1f}x)" if a else "0"


def _get(d, *path):
    for p in path:
        if not isinstance(d, dict) or p not in d:
            return None
        d = d[p]
    return d


def _yes(x):
    return "n/a" if x is None else "yes" if x else "**no**"


def render(r: dict) -> str:
    rl, mf = r.get("runlens", {}), r.get("mlflow", {})
    ms = lambda v: None if v is None else v / 1000  # noqa: E731
    rows = [
        ("(1) seed: runs with params and metrics", _get(rl, "seed", "runs_seconds"), _get(mf, "seed", "runs_seconds"), _s),
        ("(1) seed: the long metric (log_batch, 1000 points a call)", _get(rl, "seed", "big_metric_seconds"), _get(mf, "seed", "big_metric_seconds"), _s),
        ("(1) seed: total", _get(rl, "seed", "seed_seconds"), _get(mf, "seed", "seed_seconds"), _s),
        ("(2) chart fetch, 1000 px (runlens series vs MLflow UI's 320-point sample)", _get(rl, "chart", "chart_seconds"), _get(mf, "chart", "interval_320", "seconds"), _s),
        ("(2) chart fetch vs MLflow's 2500-point sample (its maximum)", _get(rl, "chart", "chart_seconds"), _get(mf, "chart", "interval_2500", "seconds"), _s),
        ("(2') full history via get_metric_history", _get(rl, "full_history", "seconds"), _get(mf, "full_history", "seconds"), _s),
        ("(3) runs page: time to first row (cold)", ms(_get(rl, "page", "first_row_ms")), ms(_get(mf, "page", "first_row_ms")), _s),
        ("(3) runs page: bytes transferred", _get(rl, "page", "bytes"), _get(mf, "page", "bytes"), _b),
    ]
    m = r["machine"]
    out = [
        "# Benchmarks: runlens vs MLflow",
        "",
        f"Measured {r['date']} by `bench/bench.py {r.get('argv', '')}`: "
        f"{r['runs']:,} runs x (20 params, 10 metrics x 50 steps) and one {r['steps']:,}-step metric "
        "with a single spike of 100.0 among values near 1.0.",
        "Both servers run on loopback on the same machine, one after the other, each with a fresh "
        "SQLite database, and are driven by the same stock client (`mlflow-skinny`). Times are wall "
        "clock as seen by the client (median of repeats where repeated). Ratio = runlens / MLflow "
        "(below 1 is better for runlens; the factor in brackets is MLflow / runlens).",
        "",
        "| workload | runlens | MLflow | ratio runlens/MLflow |",
        "|---|---|---|---|",
    ]
    for name, a, b, fmt in rows:
        out.append(f"| {name} | {fmt(a)} | {fmt(b)} | {_ratio(a, b)} |")
    out += ["", "## Against the targets", ""] + _targets(rl, mf, ms) + [
        "",
        "## Does the spike survive the chart fetch?",
        "",
        "| fetch | points returned | bytes | spike (100.0) present |",
        "|---|---|---|---|",
        f"| runlens `/api/v1/runs/{{id}}/series?width=1000` (M4) | {_get(rl, 'chart', 'chart_points')} | {_b(_get(rl, 'chart', 'chart_bytes'))} | {_yes(_get(rl, 'chart', 'chart_spike'))} |",
        f"| MLflow `get-history-bulk-interval` max_results=320 (UI default) | {_get(mf, 'chart', 'interval_320', 'points')} | {_b(_get(mf, 'chart', 'interval_320', 'bytes'))} | {_yes(_get(mf, 'chart', 'interval_320', 'spike'))} |",
        f"| MLflow `get-history-bulk-interval` max_results=2500 | {_get(mf, 'chart', 'interval_2500', 'points')} | {_b(_get(mf, 'chart', 'interval_2500', 'bytes'))} | {_yes(_get(mf, 'chart', 'interval_2500', 'spike'))} |",
        f"| runlens full `get_metric_history` | {_get(rl, 'full_history', 'points')} | | {_yes(_get(rl, 'full_history', 'spike'))} |",
        f"| MLflow full `get_metric_history` | {_get(mf, 'full_history', 'points')} | | {_yes(_get(mf, 'full_history', 'spike'))} |",
        "",
        "## Runs page details",
        "",
        f"- runlens: {_page(rl)}",
        f"- MLflow: {_page(mf)}",
        "",
        "## Where the seed time goes",
        "",
    ] + _breakdown(rl, mf) + [
        "",
        "## Notes",
        "",
        "- Seeding times include the client's own work (building and JSON-encoding the protobuf "
        "messages in Python), which is the same for both servers and bounds the ratio from below.",
        "- The machine is shared: other builds may have run during the measurement, so treat "
        "small differences as noise; ratios come from the same run.",
        "- Bytes are as sent on the wire (Chromium's `encodedDataLength`, headers included), with "
        "the browser cache disabled, counted until the network has been idle for 1.5 s.",
        "",
        "## Machine",
        "",
        f"- CPU: {m['cpu']}, {m['cores']} cores; memory {m['memory_gib']} GiB; {m['os']}, kernel {m['kernel']}",
        f"- `runlens --version`: {m.get('runlens_version', 'n/a')}; binary sha256 {m.get('runlens_sha256', 'n/a')} "
        f"(checkout {m['runlens_commit']}, release build); dist/ sha256 {m.get('dist_sha256', 'n/a')} "
        "(over every file's path and sha256; index.html and the .wasm in `bench/results.json`)",
        f"- MLflow server {m.get('mlflow_server', 'n/a')} "
        f"(`mlflow server`, SQLite backend, default workers); client mlflow-skinny {m['mlflow_client']}, "
        f"Python {m['python']}; {m['chromium']} (headless, via Playwright)",
        "- Authentication: runlens runs with it on (the client sends an API token, every request "
        "is checked against the experiment's grants; the page load signs in before the clock "
        "starts); MLflow runs without its basic-auth app, as it does by default.",
        "",
        "Reproduce: `make bench` (full scale; MLflow's side takes the longest) or "
        "`make bench BENCH_ARGS='--scale 0.01'` for a smoke run. Raw numbers: `bench/results.json`, "
        "written with this file by the same run.",
        "",
    ]
    return "\n".join(out)


def _breakdown(rl: dict, mf: dict) -> list[str]:
    """Per 1,000-point log_batch (bench/seed_breakdown.py): stock client vs server."""
    lines = ["Per 1,000-point `log_batch` of the long metric, median, measured by "
             "`bench/seed_breakdown.py` in this run: the stock client end to end, the client's own "
             "encoding (entities, protobuf, JSON), and the same pre-encoded body POSTed over a kept-alive "
             "connection (server plus loopback).", "",
             "| server | stock client | of which encoding | pre-encoded POST | other client work |",
             "|---|---|---|---|---|"]
    for name, side in (("runlens", rl), ("MLflow", mf)):
        b = side.get("seed_breakdown")
        if not b:
            lines.append(f"| {name} | not measured | | | |")
            continue
        lines.append(f"| {name} | {b['client_total']:.1f} ms | {b['encode']:.1f} ms | {b['server']:.1f} ms "
                     f"| {b['other']:.1f} ms |")
    return lines


def _page(side: dict) -> str:
    page = side.get("page")
    if not page:
        return "not measured"
    if "error" in page:
        return f"failed: {' '.join(page['error'])}"
    raw = page["raw"]
    join = lambda xs: ", ".join(f"{x:,}" for x in xs)  # noqa: E731
    compressed = raw.get("compressed")
    enc = f", {compressed[0]} of them compressed (Content-Encoding)" if compressed else ""
    return (f"first row after {join(raw['first_row_ms'])} ms (each cold load), "
            f"{page['requests']} requests{enc}, bytes per load {join(raw['bytes'])}")


def _targets(rl: dict, mf: dict, ms) -> list[str]:
    """The issue's targets: 10x on (1) and (2), 5x on (3), runs-page bytes under 1/10."""
    checks = [
        ("(1) seed total, MLflow/runlens", _get(mf, "seed", "seed_seconds"), _get(rl, "seed", "seed_seconds"), 10),
        ("(2) chart fetch, MLflow (320-point sample)/runlens", _get(mf, "chart", "interval_320", "seconds"),
         _get(rl, "chart", "chart_seconds"), 10),
        ("(3) time to first row, MLflow/runlens", ms(_get(mf, "page", "first_row_ms")), ms(_get(rl, "page", "first_row_ms")), 5),
        ("(3) bytes, MLflow/runlens", _get(mf, "page", "bytes"), _get(rl, "page", "bytes"), 10),
    ]
    lines = []
    for name, slow, fast, target in checks:
        if not slow or not fast:
            lines.append(f"- {name}: not measured")
            continue
        factor = slow / fast
        verdict = "met" if factor >= target else "**not met**"
        lines.append(f"- {name} = {factor:,.1f}x (target {target}x): {verdict}")
    return lines
