#!/usr/bin/env python3
"""Logs benchmark: a job run's lines from the agent to the reader, next to Aim 3.29.

Usage: .venv/bin/python bench/logs_bench.py [--lines 10000000] [--aim-lines 1000000]
       [--no-aim] [--no-write]

Against one local `runlens serve` (release build), over HTTP, as the agent and the Logs
tab use it:

- **ingestion**: 4 senders post batches of 5,000 lines (one node each) to
  `POST /api/v1/job-runs/{id}/attempts/1/logs`; lines per second until the last ack;
- **search**: first page (500 lines) of `GET /api/v1/runs/{id}/logs?q=...` over every line
  stored above (`--lines`, 10,000,000 by default): a phrase on 10 lines, a common word, a
  phrase on no line, and a level filter; median of 5;
- **agent to reader latency**: `runlens-agent run -- python ...` printing a line every 5 ms
  with its own clock in the text; a follower on `GET .../logs/stream` (SSE, what the tab
  uses) takes the difference on arrival; p50 / p99 / max;
- **100 followers**: 100 SSE clients (curl processes) of one run while 50,000 lines arrive at about
  5,000 lines/s; each checks that it got every line once; the server's RSS before and at
  its peak;
- **metric throughput under a log flood**: `runs/log-batch` calls of 1,000 metrics, one
  after another, in alternating windows with and without another process flooding the log
  ingest route (6 of each, A B B A ..., 20 s in all, so that the run's own growth weighs
  on both sides alike); floods of 10,000 and 50,000 lines/s (more than a real job prints)
  and an unthrottled one;
- **Aim 3.29** (`bench/.venv-aim`): the same 1,000,000 lines printed by one run, captured by
  `aim.Run(capture_terminal_logs=True)` and read through `aim up`'s
  `/api/runs/{hash}/logs/` (what its Logs tab calls), vs printed under `runlens-agent run`
  and read through `GET /api/v1/runs/{id}/logs`: seconds from the start of the process until
  the last line is visible to the tab. Aim's tab has no search.

Writes (or replaces) the "## Logs" section of docs/BENCHMARKS.md.
"""

import argparse
import json
import multiprocessing
import re
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import requests

import docsection
from servers import ROOT, free_port, runlens

AGENT = ROOT / "target" / "release" / "runlens-agent"
RUNLENS = ROOT / "target" / "release" / "runlens"
AIM_VENV = ROOT / "bench" / ".venv-aim"
DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Logs"
RESULTS = ROOT / "bench" / "logs_results.json"
BATCH = 5_000
WORDS = ["loss", "epoch", "step", "grad_norm", "lr", "throughput", "tokens", "eval", "ckpt", "sync"]


def build() -> None:
    subprocess.run(["cargo", "build", "--release", "--locked", "-p", "server", "-p", "agent"],
                   cwd=ROOT, check=True)


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Api:
    """The app API of one runlens server with the admin's token."""

    def __init__(self, server):
        self.url = server.url
        self.s = requests.Session()
        self.s.headers.update(server.headers)

    def post(self, path: str, body) -> dict:
        r = self.s.post(f"{self.url}/api/v1{path}", json=body, timeout=120)
        if r.status_code >= 300:
            raise RuntimeError(f"POST {path}: {r.status_code} {r.text[:300]}")
        return r.json()

    def get(self, path: str, **params) -> dict:
        r = self.s.get(f"{self.url}/api/v1{path}", params=params, timeout=120)
        if r.status_code >= 300:
            raise RuntimeError(f"GET {path}: {r.status_code} {r.text[:300]}")
        return r.json()

    def experiment(self, name: str) -> str:
        r = self.s.post(f"{self.url}/api/2.0/mlflow/experiments/create", json={"name": name}, timeout=30)
        r.raise_for_status()
        return r.json()["experiment_id"]

    def job_run(self, name: str, nodes: list[str]) -> tuple[int, str]:
        """A new job run of a new job with attempt 1: (job run id, MLflow run id)."""
        exp = self.experiment(name)
        job = self.post("/jobs", {"name": name})
        jr = self.post(f"/jobs/{job['job_id']}/runs", {"experiment_id": exp, "nodes": nodes, "max_retries": 0})
        att = self.post(f"/job-runs/{jr['job_run_id']}/attempts", {})
        return jr["job_run_id"], att["run_id"]


def batch_bodies(node: str, variants: int = 16) -> list[tuple[bytes, bytes]]:
    """Pre-encoded batches of BATCH lines around a `first_seq` placeholder: (head, tail)."""
    out = []
    for v in range(variants):
        lines = []
        for i in range(BATCH):
            k = v * BATCH + i
            level = ("INFO", "INFO", "INFO", "DEBUG", "WARNING", "ERROR")[k % 6] if k % 7 else ""
            w = WORDS[k % len(WORDS)]
            text = f"{level + ' ' if level else ''}{node} {w}={k * 0.37:.4f} step={k} batch of the epoch {k % 97}"
            lines.append({"ts_ms": 0, "stream": "stdout", "text": text})
        body = json.dumps({"node": node, "first_seq": 123456789, "lines": lines})
        head, tail = body.split("123456789", 1)
        out.append((head.encode(), tail.encode()))
    return out


def ingest(api: Api, job_run: int, nodes: list[str], total: int, needle_every: int = 0,
           rate: float | None = None) -> float:
    """Posts `total` lines spread over `nodes` (one sender thread each); seconds taken.
    Every line's timestamp is the send time of its batch (ts placeholder 0 replaced)."""
    per_node = total // len(nodes)
    errors = []

    def send(node: str):
        bodies = batch_bodies(node)
        s = requests.Session()
        s.headers.update(api.s.headers)
        s.headers["Content-Type"] = "application/json"
        url = f"{api.url}/api/v1/job-runs/{job_run}/attempts/1/logs"
        seq, b = 0, 0
        t0 = time.monotonic()
        while seq < per_node:
            head, tail = bodies[b % len(bodies)]
            ts = str(int(time.time() * 1000)).encode()
            body = head + str(seq).encode() + tail.replace(b'"ts_ms": 0', b'"ts_ms": ' + ts)
            if needle_every and b % needle_every == needle_every // 2:
                body = body.replace(b"batch of the epoch", b"needle-7f3a in the epoch", 1)
            r = s.post(url, data=body, timeout=300)
            if r.status_code != 200:
                errors.append(f"{r.status_code} {r.text[:200]}")
                return
            seq += BATCH
            b += 1
            if rate:
                wait = t0 + seq / (rate / len(nodes)) - time.monotonic()
                if wait > 0:
                    time.sleep(wait)

    t0 = time.monotonic()
    threads = [threading.Thread(target=send, args=(n,)) for n in nodes]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise RuntimeError(errors[0])
    return time.monotonic() - t0


def timed_get(api: Api, path: str, tries: int = 5, **params) -> tuple[float, dict]:
    times, out = [], None
    for _ in range(tries):
        t0 = time.perf_counter()
        out = api.get(path, **params)
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


class Follower(threading.Thread):
    """An SSE follower of one run's logs: records each (node, seq) it gets (a regex over the
    event, cheap enough for 100 followers in one Python process) and, with `latency`, the
    arrival delay of lines whose text carries `t=<epoch ns>`."""

    SEQ = re.compile(r'"node":"((?:[^"\\]|\\.)*)","seq":(\d+)')

    def __init__(self, api: Api, run_id: str, latency: bool = False):
        super().__init__(daemon=True)
        self.api, self.run_id, self.latency = api, run_id, latency
        self.seqs: dict[str, set] = {}
        self.dups = 0
        self.latency_ms: list[float] = []
        self.ready = threading.Event()
        self.resp = None

    def run(self):
        self.resp = self.api.s.get(f"{self.api.url}/api/v1/runs/{self.run_id}/logs/stream", stream=True,
                                   timeout=(10, 600), headers={"Accept": "text/event-stream"})
        self.resp.raise_for_status()
        self.ready.set()
        event = None
        try:
            for raw in self.resp.iter_lines(decode_unicode=True):
                if raw.startswith("event:"):
                    event = raw[6:].strip()
                elif raw.startswith("data:") and event == "lines":
                    data = raw[5:]
                    now = time.time_ns()
                    for node, seq in self.SEQ.findall(data):
                        seen = self.seqs.setdefault(node, set())
                        seq = int(seq)
                        if seq in seen:
                            self.dups += 1
                        seen.add(seq)
                    if self.latency:
                        for line in json.loads(data)["lines"]:
                            text = line["text"]
                            if " t=" in text:
                                sent = int(text.rsplit(" t=", 1)[1].split()[0])
                                self.latency_ms.append((now - sent) / 1e6)
                elif raw == "":
                    event = None
        except (requests.RequestException, AttributeError, ValueError):
            pass  # closed by stop()

    def stop(self):
        if self.resp is not None:
            self.resp.close()

    def count(self) -> int:
        return sum(len(s) for s in self.seqs.values())


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))] if xs else float("nan")


def agent_env(server) -> dict:
    return {**os.environ, "RUNLENS_SERVER": server.url, "RUNLENS_TOKEN": server.token,
            "RUNLENS_LOG": "warn"}


def newest_run_of(api: Api, job_name: str, timeout: float = 60) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for jr in api.get("/job-runs", all_status="true")["job_runs"]:
            if jr["job"]["name"] == job_name and jr["attempts"]:
                return jr["attempts"][-1]["run_id"]
        time.sleep(0.05)
    raise RuntimeError(f"no attempt of job {job_name}")


def measure_latency(server, api: Api, seconds: int) -> dict:
    script = ("import time,sys\ntime.sleep(3)\nend=time.time()+%d\ni=0\n"
              "while time.time()<end:\n    print(f'INFO step {i} t={time.time_ns()}', flush=True)\n"
              "    i+=1\n    time.sleep(0.005)\n" % seconds)
    proc = subprocess.Popen([str(AGENT), "run", "--experiment", "bench-latency", "--job", "bench-latency",
                             "--", sys.executable, "-c", script], env=agent_env(server),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run_id = newest_run_of(api, "bench-latency")
    f = Follower(api, run_id, latency=True)
    f.start()
    f.ready.wait(30)
    proc.wait(timeout=seconds + 120)
    time.sleep(2)
    f.stop()
    lat = f.latency_ms
    return {"lines": len(lat), "p50": pct(lat, 50), "p99": pct(lat, 99), "max": max(lat) if lat else float("nan")}


def measure_followers(server, api: Api, followers: int, lines: int, rate: float, work: Path) -> dict:
    """`followers` separate SSE clients (curl processes, like separate browsers) on one run
    while `lines` arrive at about `rate` lines/s; afterwards each client's stream is checked
    for every (node, seq) exactly once."""
    job_run, run_id = api.job_run("bench-followers", ["f-0", "f-1"])
    base = rss_mib(server.proc.pid)
    url = f"{api.url}/api/v1/runs/{run_id}/logs/stream"
    outs = [work / f"follower-{i}.sse" for i in range(followers)]
    procs = [subprocess.Popen(["curl", "-sN", "-H", f"Authorization: Bearer {server.token}", url],
                              stdout=open(out, "wb")) for out in outs]
    time.sleep(3)
    peak = [base]
    done = threading.Event()

    def sample():
        while not done.is_set():
            peak[0] = max(peak[0], rss_mib(server.proc.pid))
            time.sleep(0.2)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    took = ingest(api, job_run, ["f-0", "f-1"], lines, rate=rate)
    deadline = time.monotonic() + 60
    got = [0] * followers
    while time.monotonic() < deadline:
        got = [out.read_bytes().count(b'"seq":') for out in outs]
        if min(got) >= lines:
            break
        time.sleep(0.5)
    done.set()
    for p in procs:
        p.terminate()
        p.wait()
    complete, dups = 0, 0
    for out in outs:
        pairs = Follower.SEQ.findall(out.read_text())
        unique = set(pairs)
        dups += len(pairs) - len(unique)
        complete += len(unique) == lines
    return {"followers": followers, "lines": lines, "seconds": took, "complete": complete,
            "min_got": min(got), "dups": dups, "rss_base": base, "rss_peak": peak[0]}


def metric_rate(api: Api, run_id: str, seconds: float) -> float:
    s = requests.Session()
    s.headers.update(api.s.headers)
    step, n, t0 = 0, 0, time.monotonic()
    while time.monotonic() - t0 < seconds:
        now = int(time.time() * 1000)
        metrics = [{"key": f"m{k}", "value": k * 0.5 + step, "timestamp": now, "step": step} for k in range(1000)]
        r = s.post(f"{api.url}/api/2.0/mlflow/runs/log-batch", json={"run_id": run_id, "metrics": metrics}, timeout=60)
        r.raise_for_status()
        step += 1
        n += 1
    return n / (time.monotonic() - t0)


def measure_flood(server, api: Api, seconds: float, flood_rate: float | None, rounds: int = 6) -> dict:
    """`runs/log-batch` calls/s with and without another process flooding the log ingest
    route (at `flood_rate` lines/s, or as fast as the server acks when `None`), in
    alternating windows (A B B A A B ...), so that the run's own growth, which slows later
    calls, weighs on both sides alike."""
    exp = api.experiment(f"bench-metrics-{flood_rate}")
    r = api.s.post(f"{api.url}/api/2.0/mlflow/runs/create", json={"experiment_id": exp}, timeout=30)
    run_id = r.json()["run"]["info"]["run_id"]
    metric_rate(api, run_id, 2)  # warm-up: the 1,000 series exist from here on
    job_run, _ = api.job_run(f"bench-flood-{flood_rate}", ["flood-0"])
    sent = multiprocessing.Value("q", 0)
    on, stop = multiprocessing.Event(), multiprocessing.Event()
    # Its own process: a thread of this one would take the GIL from the metric client.
    proc = multiprocessing.Process(target=flood, args=(api.url, dict(api.s.headers), job_run, flood_rate,
                                                       on, stop, sent))
    proc.start()
    window = seconds / rounds
    alone, flooded, flood_time = [], [], 0.0
    for i in range(rounds):
        order = (False, True) if i % 2 == 0 else (True, False)
        for flooding in order:
            if flooding:
                t0 = time.monotonic()
                on.set()
                time.sleep(0.3)  # the flood is under way
                flooded.append(metric_rate(api, run_id, window))
                on.clear()
                flood_time += time.monotonic() - t0
                time.sleep(0.3)  # its last batch is acked
            else:
                alone.append(metric_rate(api, run_id, window))
    stop.set()
    on.set()
    proc.join()
    return {"alone": statistics.mean(alone), "flooded": statistics.mean(flooded),
            "flood_lines_per_s": sent.value / flood_time if flood_time else 0.0}


def flood(url: str, headers: dict, job_run: int, rate: float | None, on, stop, sent) -> None:
    """Posts batches of the `flood-0` node while `on` is set, until `stop`, at `rate`
    lines/s (or unthrottled)."""
    bodies = batch_bodies("flood-0", 4)
    s = requests.Session()
    s.headers.update(headers)
    s.headers["Content-Type"] = "application/json"
    seq, b = 0, 0
    while not stop.is_set():
        on.wait()
        if stop.is_set():
            break
        t0, start = time.monotonic(), seq
        while on.is_set() and not stop.is_set():
            head, tail = bodies[b % len(bodies)]
            s.post(f"{url}/api/v1/job-runs/{job_run}/attempts/1/logs", data=head + str(seq).encode() + tail,
                   timeout=120).raise_for_status()
            seq += BATCH
            b += 1
            sent.value = seq
            if rate:
                wait = t0 + (seq - start) / rate - time.monotonic()
                if wait > 0:
                    time.sleep(wait)


def until_visible(fetch, marker: bytes, timeout: float) -> float | None:
    """Polls `fetch()` (bytes) until it contains `marker`; the time it first did."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if marker in fetch():
                return time.monotonic()
        except requests.RequestException:
            pass
        time.sleep(0.1)
    return None


PRINT_LINES = ("import sys\nn=int(sys.argv[1])\nw=sys.stdout.write\n"
               "for i in range(n):\n    w(f'INFO epoch {i // 10000} step {i} loss {1/(i+1):.6f} line-{i}-end\\n')\n"
               "sys.stdout.flush()\n")


def measure_ours_1m(server, api: Api, lines: int) -> dict:
    t0 = time.monotonic()
    proc = subprocess.Popen([str(AGENT), "run", "--experiment", "bench-1m", "--job", "bench-1m", "--",
                             sys.executable, "-c", PRINT_LINES, str(lines)], env=agent_env(server),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    run_id = newest_run_of(api, "bench-1m")
    marker = f"line-{lines - 1}-end".encode()
    seen = until_visible(lambda: api.s.get(f"{api.url}/api/v1/runs/{run_id}/logs", params={"limit": 200},
                                           timeout=30).content, marker, 600)
    proc.wait(timeout=600)
    search, page = timed_get(api, f"/runs/{run_id}/logs", q=f"line-{lines // 2 + 17}-end")
    return {"visible_s": (seen - t0) if seen else None, "search_s": search, "search_hits": len(page["lines"])}


AIM_SCRIPT = """
import sys, aim
repo, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
run = aim.Run(repo=repo, experiment='bench-1m', capture_terminal_logs=True, system_tracking_interval=None,
              log_system_params=False)
open(out, 'w').write(run.hash)
w = sys.stdout.write
for i in range(n):
    w(f'INFO epoch {i // 10000} step {i} loss {1/(i+1):.6f} line-{i}-end\\n')
sys.stdout.flush()
run.close()
"""


def measure_aim_1m(lines: int, work: Path) -> dict:
    py, aim = AIM_VENV / "bin" / "python", AIM_VENV / "bin" / "aim"
    if not aim.exists():
        subprocess.run([sys.executable, "-m", "venv", str(AIM_VENV)], check=True)
        subprocess.run([str(AIM_VENV / "bin" / "pip"), "install", "--quiet", "aim==3.29.1"], check=True)
    repo = work / "aim-repo"
    repo.mkdir()
    subprocess.run([str(aim), "init", "--repo", str(repo)], check=True, capture_output=True)
    port = free_port()
    up = subprocess.Popen([str(aim), "up", "--repo", str(repo), "--host", "127.0.0.1", "--port", str(port)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                if requests.get(f"{base}/api/projects/", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.5)
        hash_file = work / "aim-hash"
        t0 = time.monotonic()
        proc = subprocess.Popen([str(py), "-c", AIM_SCRIPT, str(repo), str(lines), str(hash_file)],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        while not (hash_file.exists() and hash_file.read_text()):
            time.sleep(0.05)
        run_hash = hash_file.read_text()
        marker = f"line-{lines - 1}-end".encode()
        seen = until_visible(lambda: requests.get(f"{base}/api/runs/{run_hash}/logs/", timeout=30).content,
                             marker, 900)
        proc.wait(timeout=900)
        return {"visible_s": (seen - t0) if seen else None}
    finally:
        os.killpg(up.pid, 15)
        up.wait(timeout=30)


def render(r: dict, args) -> str:
    ing, se, lat, fol = r["ingest"], r["search"], r["latency"], r["followers"]
    lines = [
        SECTION,
        "",
        f"`bench/logs_bench.py` on this machine (2 cores), release build, one `runlens serve`, over HTTP "
        f"as the agent and the Logs tab use it. Measured {time.strftime('%Y-%m-%d')}.",
        "",
        "| what | result | target |",
        "|---|---|---|",
        f"| ingestion, 4 senders × batches of {BATCH:,} lines (~90 B) | **{ing['lines_per_s']:,.0f} lines/s** "
        f"({ing['lines']:,} lines in {ing['seconds']:.1f} s) | ≥ 200,000 lines/s |",
    ]
    for name, (secs, hits) in se.items():
        lines.append(f"| search over {ing['lines']:,} stored lines, first page: {name} | **{secs * 1000:.0f} ms** "
                     f"({hits} lines on the page) | < 1 s |")
    lines += [
        f"| agent → reader latency (`runlens-agent run`, SSE follower), {lat['lines']:,} lines | "
        f"p50 **{lat['p50']:.0f} ms**, p99 **{lat['p99']:.0f} ms**, max {lat['max']:.0f} ms | p99 < 1 s |",
        f"| {fol['followers']} followers of one run, {fol['lines']:,} lines at ~{fol['lines'] / fol['seconds']:,.0f} lines/s | "
        f"{fol['complete']}/{fol['followers']} got every line, {fol['dups']} duplicates; server RSS "
        f"{fol['rss_base']:.0f} → peak **{fol['rss_peak']:.0f} MiB** | none lost, bounded memory |",
    ]
    for fl, rate in zip(r["floods"], ("10,000 lines/s", "50,000 lines/s", "an unthrottled flood (as fast as the server acks; both cores busy)")):
        target = "≥ 0.90×" if "unthrottled" not in rate else "(CPU-bound)"
        lines.append(
            f"| `runs/log-batch` (1,000 metrics) calls/s, alone vs during {rate}: "
            f"~{fl['flood_lines_per_s']:,.0f} lines/s stored | {fl['alone']:.1f} vs {fl['flooded']:.1f} calls/s: "
            f"**{fl['flooded'] / fl['alone']:.2f}×** | {target} |")
    if "aim" in r:
        ours, aim = r["ours_1m"], r["aim"]
        ratio = (aim["visible_s"] / ours["visible_s"]) if aim.get("visible_s") and ours.get("visible_s") else None
        lines += [
            "",
            f"**Side by side with Aim 3.29.1** — one run printing the same {args.aim_lines:,} lines "
            "(`INFO epoch … step … loss … line-N-end`); seconds from the start of the process until "
            "the last line is visible to the Logs tab (polled every 100 ms through the API the tab calls):",
            "",
            "| | last line visible after | search |",
            "|---|---|---|",
            f"| runlens (`runlens-agent run -- python ...`, `GET /api/v1/runs/{{id}}/logs`) | "
            f"**{ours['visible_s']:.1f} s** | one line of {args.aim_lines:,}: {ours['search_s'] * 1000:.0f} ms "
            f"({ours['search_hits']} hit) |",
            f"| Aim (`aim.Run(capture_terminal_logs=True)`, `aim up`, `/api/runs/{{hash}}/logs/`) | "
            f"{'%.1f s' % aim['visible_s'] if aim.get('visible_s') else 'not within 15 min'} | "
            "none: Aim's Logs tab has no search (it shows the last 200 lines and loads more on scroll) |",
            "",
            f"- Ratio Aim / runlens: **{ratio:.1f}×**." if ratio else "- Ratio: n/a.",
        ]
    lines += [
        "",
        "How: ingestion and search numbers come from one job run holding every line; searches are "
        "the median of 5. Latency is the follower's clock minus the time the printing process "
        "wrote into the line (same host, same clock); it includes the agent's batching (≤ 200 ms) "
        "and the server's commit (`synchronous = FULL`). The follower count checks per-node "
        "sequence numbers, so a lost or repeated line shows. The flood runs in another process "
        "on the same 2 cores, so the metric figure also pays for the flood's client.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--lines", type=int, default=10_000_000)
    p.add_argument("--aim-lines", type=int, default=1_000_000)
    p.add_argument("--latency-seconds", type=int, default=20)
    p.add_argument("--follow-lines", type=int, default=50_000)
    p.add_argument("--follow-rate", type=float, default=5_000, help="lines/s while 100 follow")
    p.add_argument("--no-aim", action="store_true")
    p.add_argument("--keep-aim", action="store_true",
                   help="with --no-aim: report the Aim comparison of the last run (bench/logs_results.json)")
    p.add_argument("--no-build", action="store_true")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args()
    if not args.no_build:
        build()
    r = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with runlens(RUNLENS, work, ROOT / "dist") as server:
            api = Api(server)
            nodes = [f"node-{i}" for i in range(4)]
            job_run, run_id = api.job_run("bench-ingest", nodes)
            secs = ingest(api, job_run, nodes, args.lines, needle_every=(args.lines // BATCH) // 10 * 4 or 1)
            r["ingest"] = {"lines": args.lines, "seconds": secs, "lines_per_s": args.lines / secs}
            print(f"[logs] ingest {r['ingest']}", flush=True)
            r["search"] = {}
            for name, params in [("a phrase on a few lines (`needle-7f3a`)", {"q": "needle-7f3a"}),
                                 ("a common word (`grad_norm`)", {"q": "grad_norm"}),
                                 ("a phrase on no line (`epoch 1234`)", {"q": "epoch 1234"}),
                                 ("level ≥ ERROR", {"level": "ERROR"})]:
                secs, page = timed_get(api, f"/runs/{run_id}/logs", **params)
                r["search"][name] = (secs, len(page["lines"]))
                print(f"[logs] search {name}: {secs:.3f}s", flush=True)
            r["floods"] = []
            for rate in (10_000, 50_000, None):
                r["floods"].append(measure_flood(server, api, 20, rate))
                print(f"[logs] flood at {rate} lines/s: {r['floods'][-1]}", flush=True)
            r["latency"] = measure_latency(server, api, args.latency_seconds)
            print(f"[logs] latency {r['latency']}", flush=True)
            r["followers"] = measure_followers(server, api, 100, args.follow_lines, args.follow_rate, work)
            print(f"[logs] followers {r['followers']}", flush=True)
            if not args.no_aim:
                r["ours_1m"] = measure_ours_1m(server, api, args.aim_lines)
                print(f"[logs] ours 1M {r['ours_1m']}", flush=True)
        if not args.no_aim:
            r["aim"] = measure_aim_1m(args.aim_lines, work)
            print(f"[logs] aim 1M {r['aim']}", flush=True)
    if args.no_aim and args.keep_aim and RESULTS.exists():
        last = json.loads(RESULTS.read_text())
        r.update({k: last[k] for k in ("aim", "ours_1m") if k in last})
    RESULTS.write_text(json.dumps(r, indent=1, default=str))
    text = render(r, args)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text)


if __name__ == "__main__":
    main()
