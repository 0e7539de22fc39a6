#!/usr/bin/env python3
"""Live updates benchmark (issue 9): from the stock MLflow client's `log_metric` to the
experiment page's live stream, and what open live pages cost the server.

Usage: .venv/bin/python bench/live_bench.py [--samples 200] [--streams 50] [--seconds 20]
       [--rate 10] [--points 1000] [--pixel-samples 100] [--binary target/release/runlens]
       [--dist dist] [--only-pixel] [--no-build] [--no-write]

Against one local `runlens serve` (release build), over HTTP:

- **latency**: a reader holds `GET /api/v1/experiments/{id}/live?run=<run>` (the page's one
  SSE stream, what the Runs/Charts tabs open); `mlflow.MlflowClient().log_metric(...)` logs
  one point, and the time from the call until the point arrives in an `update` event is
  taken; `--samples` points 300 ms apart (an idle page: each write is sent at once) and as
  many 50 ms apart (a busy run: writes inside the stream's 250 ms merge window wait for it).
  p50 / p99 / max.
- **to the pixel**: the same, but until the page has painted the point: a headless Chromium
  (`bench/live_pixel.mjs`) holds the chart view (`/experiments/{id}?view=charts&sel=<run>`)
  and, separately, the run page's Metrics tab, and takes the wall clock at the animation
  frame after the chart redrew with the new point; `--pixel-samples` points 300 ms apart.
- **server CPU**: a writer posts `runs/log-batch` (`--points`, 1,000 by default: 10 keys ×
  100 steps) `--rate` (10) times a second to a run of the experiment; the server's CPU
  (utime + stime of `/proc/<pid>/stat`) over `--seconds` windows: no stream, `--streams`
  Runs-table streams (curl processes; newest values and run changes), no stream,
  `--streams` chart streams (every point of the busy run too: the worst case), no stream;
  RSS with the streams open. Each stream's events are counted.

Writes (or replaces) the "## Live updates (issue 9)" section of docs/BENCHMARKS.md.
"""

import argparse
import http.client
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from urllib.parse import urlparse

import requests

import docsection
from servers import ROOT, runlens

RUNLENS = ROOT / "target" / "release" / "runlens"
DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Live updates (issue 9)"
RESULTS = ROOT / "bench" / "live_results.json"
TICKS = os.sysconf("SC_CLK_TCK")


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "server"], cwd=ROOT, check=True)


def cpu_seconds(pid: int) -> float:
    """utime + stime of the process, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    # fields[0] is the state (field 3): utime and stime are fields 14 and 15.
    return (int(fields[11]) + int(fields[12])) / TICKS


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, int(round(q * (len(s) - 1))))]


class Reader(threading.Thread):
    """One live stream read line by line; records when each point (by step) arrives."""

    def __init__(self, url: str, token: str, path: str):
        super().__init__(daemon=True)
        u = urlparse(url)
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60)
        self.conn.request("GET", path, headers={"Authorization": f"Bearer {token}",
                                                "Accept": "text/event-stream"})
        self.resp = self.conn.getresponse()
        assert self.resp.status == 200, self.resp.status
        self.arrived: dict[int, float] = {}
        self.cond = threading.Condition()
        self.updates = 0

    def run(self) -> None:
        event, data = "", []
        while True:
            try:
                line = self.resp.fp.readline()
            except (AttributeError, OSError, ValueError):
                return  # closed by the measurement
            if not line:
                return
            now = time.perf_counter()
            line = line.decode().rstrip("\r\n")
            if line.startswith("event:"):
                event = line[6:].strip()
            elif line.startswith("data:"):
                data.append(line[5:].lstrip())
            elif line == "":
                if event == "update" and data:
                    u = json.loads("\n".join(data))
                    with self.cond:
                        self.updates += 1
                        for s in u["series"]:
                            for p in s["points"]:
                                self.arrived.setdefault(p["step"], now)
                        self.cond.notify_all()
                event, data = "", []

    def wait_for(self, step: int, timeout: float = 10.0) -> float | None:
        deadline = time.perf_counter() + timeout
        with self.cond:
            while step not in self.arrived:
                left = deadline - time.perf_counter()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return self.arrived[step]


def measure_latency(server, client, exp_id: str, run_id: str, samples: int, gap: float, first: int) -> dict:
    reader = Reader(server.url, server.token, f"/api/v1/experiments/{exp_id}/live?run={run_id}")
    reader.start()
    time.sleep(0.5)
    lat, missed = [], 0
    for i in range(samples):
        step = first + i
        t0 = time.perf_counter()
        client.log_metric(run_id, "latency", float(i), step=step)
        if gap >= 0.25:
            got = reader.wait_for(step)
            if got is None:
                missed += 1
            else:
                lat.append((got - t0) * 1000)
            time.sleep(max(0.0, gap - (time.perf_counter() - t0)))
        else:
            # Busy: keep writing on schedule; collect the arrivals afterwards.
            lat.append(t0)
            time.sleep(max(0.0, gap - (time.perf_counter() - t0)))
    if gap < 0.25:
        sent = lat
        lat = []
        for i, t0 in enumerate(sent):
            got = reader.wait_for(first + i)
            if got is None:
                missed += 1
            else:
                lat.append((got - t0) * 1000)
    reader.conn.close()
    return {"samples": len(lat), "missed": missed, "gap_ms": gap * 1000, "updates": reader.updates,
            "p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "max": max(lat), "mean": statistics.mean(lat)}


def measure_pixel(server, client, exp_id: str, page: str, samples: int, gap: float) -> dict:
    """`log_metric` → the chart on `page` (`charts` or `run`) painted with the point."""
    run_id = client.create_run(exp_id).info.run_id
    client.log_metric(run_id, "pixel", 0.0, step=0)
    url = (f"{server.url}/experiments/{exp_id}?view=charts&sel={run_id}" if page == "charts"
           else f"{server.url}/runs/{run_id}?tab=metrics")
    env = {**os.environ, "BENCH_USERNAME": "admin", "BENCH_PASSWORD": server.admin_password}
    node = subprocess.Popen(["node", str(ROOT / "bench" / "live_pixel.mjs"), url, "pixel"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        ready = node.stdout.readline().split()
        assert ready and ready[0] == "ready", f"live_pixel.mjs: {ready}"
        first = int(ready[1])
        time.sleep(1.0)
        sent = []
        for i in range(1, samples + 1):
            t0 = time.time() * 1000
            client.log_metric(run_id, "pixel", float(i % 7), step=i)
            sent.append(t0)
            time.sleep(max(0.0, gap - (time.time() * 1000 - t0) / 1000))
        time.sleep(2.0)
        node.stdin.write("done\n")
        node.stdin.flush()
        seen = json.loads(node.stdout.readline())
    finally:
        node.stdin.close()
        node.wait(timeout=60)
    lat, missed = [], 0
    for i, t0 in enumerate(sent, start=1):
        rec = next((r for r in seen if r["points"] >= first + i and r["t"]), None)
        if rec is None:
            missed += 1
        else:
            lat.append(rec["t"] - t0)
    return {"page": page, "samples": len(lat), "missed": missed, "gap_ms": gap * 1000, "redraws": len(seen),
            "p50": pct(lat, 0.5), "p99": pct(lat, 0.99), "max": max(lat), "mean": statistics.mean(lat)}


class Writer(threading.Thread):
    """`runs/log-batch` of `points` points (10 keys), `rate` times a second, until stopped."""

    def __init__(self, server, run_id: str, rate: float, points: int):
        super().__init__(daemon=True)
        self.url = f"{server.url}/api/2.0/mlflow/runs/log-batch"
        self.s = requests.Session()
        self.s.headers.update(server.headers)
        self.run_id, self.rate, self.steps = run_id, rate, points // 10
        self.stop = threading.Event()
        self.batches, self.step = 0, 0

    def run(self) -> None:
        period = 1.0 / self.rate
        next_at = time.perf_counter()
        while not self.stop.is_set():
            now_ms = int(time.time() * 1000)
            metrics = [{"key": f"m{k}", "value": (self.step + s) * 0.001 * (k + 1), "timestamp": now_ms,
                        "step": self.step + s} for k in range(10) for s in range(self.steps)]
            r = self.s.post(self.url, json={"run_id": self.run_id, "metrics": metrics}, timeout=30)
            r.raise_for_status()
            self.step += self.steps
            self.batches += 1
            next_at += period
            time.sleep(max(0.0, next_at - time.perf_counter()))


def cpu_window(pid: int, seconds: float) -> tuple[float, float]:
    """Server CPU over `seconds` as % of one core, and RSS at the end (MiB)."""
    c0, t0 = cpu_seconds(pid), time.perf_counter()
    time.sleep(seconds)
    c1, t1 = cpu_seconds(pid), time.perf_counter()
    return (c1 - c0) / (t1 - t0) * 100, rss_mib(pid)


def streams_window(server, url: str, streams: int, seconds: float, work: Path, name: str) -> dict:
    """`streams` curl clients of `url` open for the window: server CPU and RSS, and what
    each client got."""
    pid = server.proc.pid
    procs, outs = [], []
    for i in range(streams):
        out = work / f"{name}-{i}.txt"
        outs.append(out)
        procs.append(subprocess.Popen(["curl", "-sN", "-H", f"Authorization: Bearer {server.token}", "-o", str(out),
                                       url], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    time.sleep(2)
    cpu, rss = cpu_window(pid, seconds)
    for p in procs:
        p.terminate()
    for p in procs:
        p.wait(timeout=10)
    texts = [o.read_text(errors="replace") for o in outs]
    updates = [t.count("event: update") for t in texts]
    return {"cpu": cpu, "rss": rss, "updates_min": min(updates), "updates_max": max(updates),
            "resyncs": sum(t.count("event: resync") for t in texts),
            "mib_per_stream": statistics.mean(len(t) for t in texts) / 2**20}


def measure_cpu(server, exp_id: str, run_id: str, streams: int, seconds: float, rate: float, points: int,
                work: Path) -> dict:
    """Windows A B A C A: no stream, table streams (`latest` and run changes), no stream,
    chart streams (also every point of the busy run), no stream."""
    pid = server.proc.pid
    writer = Writer(server, run_id, rate, points)
    writer.start()
    time.sleep(2)
    base = f"{server.url}/api/v1/experiments/{exp_id}/live"
    none, out = [], {"streams": streams, "seconds": seconds, "points_per_batch": points}
    b0, t0 = writer.batches, time.perf_counter()
    none.append(cpu_window(pid, seconds))
    out["table"] = streams_window(server, base, streams, seconds, work, "table")
    time.sleep(2)
    none.append(cpu_window(pid, seconds))
    out["charts"] = streams_window(server, f"{base}?run={run_id}", streams, seconds, work, "charts")
    time.sleep(2)
    none.append(cpu_window(pid, seconds))
    out["batches_per_s"] = (writer.batches - b0) / (time.perf_counter() - t0)
    writer.stop.set()
    writer.join(timeout=10)
    out["cpu_none"] = [c for c, _ in none]
    out["rss_none"] = none[0][1]
    return out


def pixel_rows(r: dict) -> list[str]:
    """The `log_metric` → painted rows, where measured."""
    rows = []
    for key, what in (("pixel_charts", "the chart view"), ("pixel_run", "the run page's Metrics tab")):
        if key in r:
            p = r[key]
            rows.append(f"| `MlflowClient.log_metric` → the point painted in {what} (headless Chromium), "
                        f"{p['samples']} points {p['gap_ms']:.0f} ms apart | p50 **{p['p50']:.0f} ms**, "
                        f"p99 **{p['p99']:.0f} ms**, max {p['max']:.0f} ms ({p['missed']} missed) |")
    return rows


def render(r: dict) -> str:
    idle, busy, cpu = r["latency_idle"], r["latency_busy"], r["cpu"]
    none = statistics.mean(cpu["cpu_none"])
    spread = ", ".join(f"{c:.1f}" for c in cpu["cpu_none"])
    n = cpu["streams"]

    def streams_row(kind: str, what: str) -> str:
        w = cpu[kind]
        return (f"| the same with {n} live streams open: {what} | **{w['cpu']:.1f} %** of a core "
                f"(**{(w['cpu'] - none) / n:+.2f} %** per stream); RSS {w['rss']:.0f} MiB; "
                f"{w['updates_min']}–{w['updates_max']} updates and {w['mib_per_stream']:.2f} MiB per stream in "
                f"{cpu['seconds'] + 2:.0f} s, {w['resyncs']} resyncs |")

    lines = [
        SECTION,
        "",
        f"`bench/live_bench.py` on this machine ({os.cpu_count()} cores, shared with other work while it ran), "
        f"release build, one `runlens serve`, over HTTP. Measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| what | result |",
        "|---|---|",
        f"| `MlflowClient.log_metric` → point in the page's live stream (`event: update`), "
        f"{idle['samples']} points {idle['gap_ms']:.0f} ms apart | p50 **{idle['p50']:.0f} ms**, "
        f"p99 **{idle['p99']:.0f} ms**, max {idle['max']:.0f} ms ({idle['missed']} missed) |",
        f"| the same, {busy['samples']} points {busy['gap_ms']:.0f} ms apart (a busy run: merged into "
        f"{busy['updates']} updates, at most one per 250 ms) | p50 **{busy['p50']:.0f} ms**, "
        f"p99 **{busy['p99']:.0f} ms**, max {busy['max']:.0f} ms ({busy['missed']} missed) |",
        *pixel_rows(r),
        f"| server CPU, a writer logging {cpu['batches_per_s']:.1f} batches/s of {cpu['points_per_batch']:,} points "
        f"to one run, no live stream | {none:.1f} % of a core (3 windows: {spread} %); RSS {cpu['rss_none']:.0f} MiB |",
        streams_row("table", "Runs-table pages (newest values and run changes of every run)"),
        streams_row("charts", "chart pages (also every new point of the busy run)"),
        "",
        "How: the latency is the reader's clock at the arrival of the `update` carrying the point minus the "
        "clock before `log_metric` was called (same host), so it includes the client's HTTP call, the "
        "commit (`synchronous = FULL`), the bus and the stream's merge window. A stream sends the first "
        "write after a quiet spell at once and later ones at most every 250 ms, so points logged 50 ms "
        "apart wait up to 250 ms for the next update (four events a second per page however fast a run "
        "logs). CPU is utime + stime of the server process from `/proc/<pid>/stat` over each "
        f"{cpu['seconds']:.0f}-s window, in the order none, table streams, none, chart streams, none (so a "
        "drift shows); the streams are curl processes on the same cores. Writers build live events only "
        "while a stream is open, so a server nobody watches pays nothing. To the pixel: the browser's "
        "clock (`Date.now()`, the same clock on this host) at the animation frame after the chart's "
        "canvas was redrawn with the point (`bench/live_pixel.mjs`, a MutationObserver on the canvas' "
        "`data-points`), minus the clock before `log_metric`; the browser, the server and the client "
        "share the 2 cores.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--samples", type=int, default=200)
    p.add_argument("--streams", type=int, default=50)
    p.add_argument("--seconds", type=float, default=20)
    p.add_argument("--rate", type=float, default=10, help="log-batch calls per second of the writer")
    p.add_argument("--points", type=int, default=1000, help="points per log-batch call (10 keys)")
    p.add_argument("--pixel-samples", type=int, default=100)
    p.add_argument("--only-pixel", action="store_true",
                   help="measure only the latency to the pixel; keep the other figures from the last run")
    p.add_argument("--dist", type=Path, default=ROOT / "dist", help="the app (trunk build) the pages load")
    p.add_argument("--binary", type=Path, default=RUNLENS)
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args()
    if not args.no_build:
        build()
    r = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # A private copy: another build may replace the binary while this runs.
        binary = work / "runlens"
        shutil.copy2(args.binary, binary)
        with runlens(binary, work, args.dist.resolve()) as server:
            os.environ["MLFLOW_TRACKING_TOKEN"] = server.token
            import mlflow  # noqa: PLC0415 (after the token is in the environment)

            client = mlflow.MlflowClient(tracking_uri=server.url)
            exp_id = client.create_experiment("live-bench")
            run_id = client.create_run(exp_id).info.run_id
            if args.only_pixel:
                r = {k: v for k, v in json.loads(RESULTS.read_text()).items() if not k.startswith("pixel_")}
            else:
                r["latency_idle"] = measure_latency(server, client, exp_id, run_id, args.samples, 0.3, 0)
                print(f"[live] idle {r['latency_idle']}", flush=True)
                r["latency_busy"] = measure_latency(server, client, exp_id, run_id, args.samples, 0.05,
                                                    1_000_000)
                print(f"[live] busy {r['latency_busy']}", flush=True)
            for page in ("charts", "run"):
                r[f"pixel_{page}"] = measure_pixel(server, client, exp_id, page, args.pixel_samples, 0.3)
                print(f"[live] pixel {r[f'pixel_{page}']}", flush=True)
            if not args.only_pixel:
                busy = client.create_run(exp_id).info.run_id
                r["cpu"] = measure_cpu(server, exp_id, busy, args.streams, args.seconds, args.rate,
                                       args.points, work)
                print(f"[live] cpu {r['cpu']}", flush=True)
    RESULTS.write_text(json.dumps(r, indent=1))
    text = render(r)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text)


if __name__ == "__main__":
    main()
