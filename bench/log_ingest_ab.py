#!/usr/bin/env python3
"""Log ingest, two builds side by side: lines a second that senders get stored through
`POST /api/v1/job-runs/{id}/attempts/1/logs` (the agent's route), for an older build and
this one in one run.

Usage: .venv/bin/python bench/log_ingest_ab.py --before PATH [--binary target/release/runlens]
       [--rounds 3] [--no-write]

Each round starts each build in turn (the order alternating) on a fresh SQLite data dir and
runs two cases: 4 senders posting batches of 5,000 lines (1,000,000 lines; the logs bench's
ingest) and 16 senders posting batches of 50 lines (160,000 lines; many small commits, as
agents shipping every 200 ms send them). Per case: lines a second until the last ack, and
the server's CPU time (user + system, from /proc) per 1,000 lines. Medians over rounds.

Results: bench/log_ingest_ab_results.json and, unless `--no-write`, the section
"## Log ingest, two builds side by side" of docs/BENCHMARKS.md.
"""

import argparse
import os
import shutil
import statistics
import tempfile
from pathlib import Path

import ab
import logs_bench
from servers import ROOT, runlens

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Log ingest, two builds side by side"
RESULTS = ROOT / "bench" / "log_ingest_ab_results.json"
# (name, senders, lines a batch, lines in all)
CASES = [("4 senders × 5,000-line batches", 4, 5_000, 1_000_000),
         ("16 senders × 50-line batches", 16, 50, 160_000)]


def measure(binary: Path, dist: Path) -> dict:
    work = Path(tempfile.mkdtemp(prefix="log-ingest-ab-"))
    out = {}
    try:
        with runlens(binary, work, dist) as server:
            api = logs_bench.Api(server)
            for i, (name, senders, batch, total) in enumerate(CASES):
                logs_bench.BATCH = batch
                nodes = [f"node-{k}" for k in range(senders)]
                job_run, _ = api.job_run(f"ab-{i}", nodes)
                c0 = ab.cpu_ms(server.proc.pid)
                secs = logs_bench.ingest(api, job_run, nodes, total)
                cpu = ab.cpu_ms(server.proc.pid) - c0
                out[name] = {"lines_per_s": total / secs, "cpu_ms_per_1k": cpu / (total / 1000),
                             "load1": os.getloadavg()[0]}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


def render(res: dict) -> str:
    med = statistics.median
    builds = list(res["builds"])
    lines = [SECTION, "",
             f"Measured {res['date']} by `bench/log_ingest_ab.py --rounds {res['rounds']}`: one `runlens serve` "
             "(release) on a fresh SQLite data dir per build and round, the builds in turn (order alternating); "
             "senders post pre-encoded batches to the agent's log route, one node each; lines a second until the "
             "last ack, and the server's CPU time per 1,000 lines. Builds: "
             + "; ".join(f"**{b}**: {res['builds'][b]}" for b in builds)
             + f". Load average {res['load'][0]:.1f} at the start, {res['load_after'][0]:.1f} at the end.", "",
             "| case | build | lines/s (median) | each round | server CPU per 1,000 lines (median) |",
             "|---|---|---:|---|---:|"]
    for name, *_ in CASES:
        for b in builds:
            rounds = [r[name] for r in res["rounds_data"][b]]
            lines.append(f"| {name} | {b} | **{med([r['lines_per_s'] for r in rounds]):,.0f}** | "
                         + ", ".join(f"{r['lines_per_s']:,.0f} (load {r['load1']:.1f})" for r in rounds)
                         + f" | {med([r['cpu_ms_per_1k'] for r in rounds]):.2f} ms |")
    lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ab.add_args(p, rounds=3)
    args = p.parse_args()
    res = ab.run(args, measure, lambda i, name, r: f"[log-ingest-ab] round {i} {name}: "
                 + ", ".join(f"{k}: {v['lines_per_s']:,.0f} lines/s" for k, v in r.items()))
    ab.publish(args, res, RESULTS, render, DOC, SECTION)


if __name__ == "__main__":
    main()
