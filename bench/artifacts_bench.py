#!/usr/bin/env python3
"""Artifacts benchmark: the stock mlflow client uploading and downloading through runlens'
artifact proxy and through a real `mlflow server --serve-artifacts`, side by side.

Usage: .venv/bin/python bench/artifacts_bench.py [--big-mb 1024] [--small-files 10000]
       [--small-kb 10] [--binary target/release/runlens] [--no-write]

Each server starts on a fresh directory under the system temp dir and stores artifacts on
local disk (runlens: `<data dir>/artifacts`; MLflow: `--artifacts-destination`, experiments
get `mlflow-artifacts:/` URIs so every byte goes through the server). A client process (the
stock `mlflow` of .venv, defaults as a user has them: one streamed PUT per file, below the
500 MB proxy-multipart opt-in) measures, one after another:

- **1 GB file**: `mlflow.log_artifact` of one file of (seeded) random bytes, then
  `mlflow.artifacts.download_artifacts` of it (checked against the source's SHA-256);
- **10,000 small files**: `mlflow.log_artifacts` of a folder of 10 KB files, then
  `download_artifacts` of the folder (the client lists it and fetches files on its thread
  pool; file count and bytes checked);
- **server memory**: the resident set of the server (runlens: its one process; MLflow: the
  sum over its process tree, the gunicorn/uvicorn workers included) sampled every 50 ms
  during each 1 GB transfer; the peak minus the resident set before it shows whether the
  server buffers the file.

Writes (or replaces) the "## Artifacts" section of docs/BENCHMARKS.md. Every file it makes
is under one temp directory that is removed at the end.
"""

import argparse
import hashlib
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import servers
import docsection
from servers import ROOT, Server, free_port

DOC = ROOT / "docs" / "BENCHMARKS.md"
SECTION = "## Artifacts"
CLIENT_PY = ROOT / ".venv" / "bin" / "python"
MB = 1024 * 1024

# Runs in the client process: one measurement, printed as JSON on the last line.
CLIENT = r"""
import hashlib, json, os, sys, time
import mlflow
from mlflow.artifacts import download_artifacts

op, uri, arg, dst = sys.argv[1:5]
mlflow.set_tracking_uri(uri)
if op == "upload":
    exp = mlflow.create_experiment(f"artifacts-bench-{time.time_ns()}")
    with mlflow.start_run(experiment_id=exp) as run:
        t = time.perf_counter()
        if os.path.isdir(arg):
            mlflow.log_artifacts(arg, artifact_path=os.path.basename(arg))
        else:
            mlflow.log_artifact(arg)
        secs = time.perf_counter() - t
    print(json.dumps({"run_id": run.info.run_id, "artifact_uri": run.info.artifact_uri, "seconds": secs}))
else:
    run_id, path = arg.split(":", 1)
    t = time.perf_counter()
    local = download_artifacts(run_id=run_id, artifact_path=path, dst_path=dst)
    secs = time.perf_counter() - t
    files, size, digest = 0, 0, hashlib.sha256()
    for root, _, names in os.walk(local) if os.path.isdir(local) else [(os.path.dirname(local), [], [os.path.basename(local)])]:
        for n in names:
            p = os.path.join(root, n)
            files += 1
            size += os.path.getsize(p)
            if not os.path.isdir(local):
                with open(p, "rb") as f:
                    while chunk := f.read(8 * 1024 * 1024):
                        digest.update(chunk)
    print(json.dumps({"seconds": secs, "files": files, "bytes": size, "sha256": digest.hexdigest()}))
"""


def tree_rss_kib(pid: int) -> int:
    """Resident set of `pid` and all its descendants, in KiB."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        try:
            status = Path(f"/proc/{p}/status").read_text()
            total += int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmRSS:")))
            for task in Path(f"/proc/{p}/task").iterdir():
                children = (task / "children").read_text().split()
                todo.extend(int(c) for c in children)
        except (OSError, StopIteration, ValueError):
            continue
    return total


class RssSampler:
    """Samples a process tree's resident set every 50 ms while in a `with` block."""

    def __init__(self, pid: int):
        self.pid, self.peak, self.before = pid, 0, tree_rss_kib(pid)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self._stop.is_set():
            self.peak = max(self.peak, tree_rss_kib(self.pid))
            time.sleep(0.05)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, tree_rss_kib(self.pid))


def client(op: str, url: str, arg: str, dst: str, token: str | None) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MLFLOW_")}
    env["MLFLOW_HTTP_REQUEST_TIMEOUT"] = "3600"
    if token:
        env["MLFLOW_TRACKING_TOKEN"] = token
    out = subprocess.run([str(CLIENT_PY), "-c", CLIENT, op, url, arg, dst], env=env,
                         capture_output=True, text=True)
    if out.returncode != 0:
        raise RuntimeError(f"client {op} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def make_big(path: Path, mb: int) -> str:
    """Writes `mb` MiB of seeded random bytes (the same file every time) and returns its
    SHA-256; each server gets it afresh, and it is removed once uploaded, to keep the disk
    footprint to one stored and one downloaded copy."""
    digest = hashlib.sha256()
    block = random.Random(20261201).randbytes(MB)
    with open(path, "wb") as f:
        for i in range(mb):
            # Vary every block so nothing along the way can compress or dedupe it.
            chunk = i.to_bytes(8, "little") + block[8:]
            digest.update(chunk)
            f.write(chunk)
    return digest.hexdigest()


def make_small(folder: Path, n: int, kb: int) -> None:
    folder.mkdir()
    for i in range(n):
        sub = folder / f"d{i // 1000:02d}"
        sub.mkdir(exist_ok=True)
        (sub / f"f{i:05d}.bin").write_bytes(os.urandom(kb * 1024))


def mlflow_proxy(exe: Path, workdir: Path) -> Server:
    """`mlflow server --serve-artifacts` storing artifacts under `workdir` (no
    `--default-artifact-root`, so experiments get `mlflow-artifacts:/` URIs)."""
    port = free_port()
    argv = [str(exe), "server", "--backend-store-uri", f"sqlite:///{workdir / 'mlflow.db'}",
            "--serve-artifacts", "--artifacts-destination", str(workdir / "mlflow-artifacts"),
            "--host", "127.0.0.1", "--port", str(port)]
    return Server("mlflow", argv, port, workdir, env={"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"})


def measure(name: str, srv: Server, big_mb: int, check_mb: int, big: Path, small: Path, dl: Path) -> dict:
    token = srv.token
    r = {}
    # A smaller file first: the same resident set for both sizes shows it does not grow
    # with the file.
    make_big(big, check_mb)
    with RssSampler(srv.proc.pid) as rss:
        up = client("upload", srv.url, str(big), "", token)
    big.unlink()
    with RssSampler(srv.proc.pid) as rss_down:
        client("download", srv.url, f"{up['run_id']}:{big.name}", str(dl / "check"), token)
    shutil.rmtree(dl / "check", ignore_errors=True)
    r["check"] = {"up_before_kib": rss.before, "up_peak_kib": rss.peak,
                  "down_before_kib": rss_down.before, "down_peak_kib": rss_down.peak}
    big_sha = make_big(big, big_mb)
    with RssSampler(srv.proc.pid) as rss:
        up = client("upload", srv.url, str(big), "", token)
    big.unlink()
    r["big_up"] = {"seconds": up["seconds"], "rss_before_kib": rss.before, "rss_peak_kib": rss.peak,
                   "artifact_uri": up["artifact_uri"]}
    print(f"[artifacts] {name} {big_mb} MB upload {up['seconds']:.1f}s, RSS {rss.before}→{rss.peak} KiB", flush=True)
    with RssSampler(srv.proc.pid) as rss:
        down = client("download", srv.url, f"{up['run_id']}:{big.name}", str(dl / "big"), token)
    assert down["sha256"] == big_sha, f"{name}: the downloaded file differs"
    r["big_down"] = {"seconds": down["seconds"], "rss_before_kib": rss.before, "rss_peak_kib": rss.peak}
    print(f"[artifacts] {name} {big_mb} MB download {down['seconds']:.1f}s, RSS {rss.before}→{rss.peak} KiB", flush=True)
    shutil.rmtree(dl / "big", ignore_errors=True)
    up = client("upload", srv.url, str(small), "", token)
    r["small_up"] = {"seconds": up["seconds"]}
    print(f"[artifacts] {name} small files upload {up['seconds']:.1f}s", flush=True)
    down = client("download", srv.url, f"{up['run_id']}:{small.name}", str(dl / "small"), token)
    r["small_down"] = {"seconds": down["seconds"], "files": down["files"], "bytes": down["bytes"]}
    print(f"[artifacts] {name} small files download {down['seconds']:.1f}s ({down['files']} files)", flush=True)
    shutil.rmtree(dl / "small", ignore_errors=True)
    return r


def render(res: dict, args, binary: Path) -> str:
    big_mb, n, kb = args.big_mb, args.small_files, args.small_kb
    small_mb = n * kb / 1024
    rl, mf = res["runlens"], res["mlflow"]

    def rate(r, key, mb):
        return mb / r[key]["seconds"]

    rows = []
    for key, label, mb, unit in [
        ("big_up", f"upload, one {big_mb:,} MB file (`log_artifact`)", big_mb, "MB/s"),
        ("big_down", f"download, one {big_mb:,} MB file (`download_artifacts`)", big_mb, "MB/s"),
        ("small_up", f"upload, {n:,} files of {kb} KB (`log_artifacts`)", small_mb, "files/s"),
        ("small_down", f"download, {n:,} files of {kb} KB (`download_artifacts`)", small_mb, "files/s"),
    ]:
        a, b = rate(rl, key, mb), rate(mf, key, mb)
        if unit == "files/s":
            fa, fb = n / rl[key]["seconds"], n / mf[key]["seconds"]
            rows.append(f"| {label} | {fa:,.0f} files/s ({a:.1f} MB/s) | {fb:,.0f} files/s ({b:.1f} MB/s) "
                        f"| **{fa / fb:.1f}×** |")
        else:
            rows.append(f"| {label} | {a:,.0f} MB/s | {b:,.0f} MB/s | **{a / b:.1f}×** |")

    def mem(r, key):
        before, peak = r[key]["rss_before_kib"] / 1024, r[key]["rss_peak_kib"] / 1024
        return f"{before:.0f} → {peak:.0f} MiB (+{peak - before:.0f})"

    def check(r, way):
        before, peak = r["check"][f"{way}_before_kib"] / 1024, r["check"][f"{way}_peak_kib"] / 1024
        return f"{before:.0f} → {peak:.0f} MiB (+{peak - before:.0f})"

    profile = "release" if "release" in str(binary) else "debug (unoptimised)"
    return "\n".join([
        SECTION,
        "",
        f"Measured {time.strftime('%Y-%m-%dT%H:%M:%S%z')} by `bench/artifacts_bench.py` on this machine "
        f"(see Machine above), runlens {profile} build vs `mlflow server --serve-artifacts` "
        f"(MLflow {res['mlflow_version']}, its default workers), both storing on the same local disk, "
        f"the stock client (`mlflow` {res['client_version']}) with its defaults. "
        "Ratio = runlens / MLflow (higher is better for runlens).",
        "",
        "| transfer | runlens | MLflow | ratio |",
        "|---|---|---|---|",
        *rows,
        "",
        f"Server resident memory during the {big_mb:,} MB transfers, and during a {args.check_mb} MB "
        "one before them (before → peak, sampled every 50 ms; MLflow summed over its worker processes):",
        "",
        "| transfer | runlens | MLflow |",
        "|---|---|---|",
        f"| upload, {big_mb:,} MB | {mem(rl, 'big_up')} | {mem(mf, 'big_up')} |",
        f"| upload, {args.check_mb} MB | {check(rl, 'up')} | {check(mf, 'up')} |",
        f"| download, {big_mb:,} MB | {mem(rl, 'big_down')} | {mem(mf, 'big_down')} |",
        f"| download, {args.check_mb} MB | {check(rl, 'down')} | {check(mf, 'down')} |",
        "",
        "How: each figure is one transfer of a fresh run through a client process of its own "
        "(`.venv`'s mlflow, `MLFLOW_HTTP_REQUEST_TIMEOUT=3600`); the 1 GB download is checked "
        "against the source's SHA-256 and the folder download by file count. The client sends a "
        "file under 500 MB, and any file unless `MLFLOW_ENABLE_PROXY_MULTIPART_UPLOAD` is set, as "
        "one streamed PUT; it uploads a folder one file after another and downloads a folder's "
        "files on its thread pool. Both servers stream: neither resident set grows with the "
        "file. One run each, on 2 cores shared by servers, client and other work: noisy.",
        "",
    ])


def default_binary() -> Path:
    found = [p for p in (ROOT / "target/release/runlens", ROOT / "target/debug/runlens") if p.is_file()]
    return max(found, key=lambda p: p.stat().st_mtime)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--big-mb", type=int, default=1024)
    p.add_argument("--check-mb", type=int, default=256, help="a smaller file, to compare memory")
    p.add_argument("--small-files", type=int, default=10_000)
    p.add_argument("--small-kb", type=int, default=10)
    p.add_argument("--binary", type=Path, default=None, help="runlens binary (default: newest build)")
    p.add_argument("--only", choices=["runlens", "mlflow"], help="measure one server only (no write)")
    p.add_argument("--no-write", action="store_true")
    args = p.parse_args()
    binary = (args.binary or default_binary()).resolve()
    exe = servers.ensure_mlflow_venv()
    res = {
        "client_version": subprocess.run([str(CLIENT_PY), "-c", "import mlflow; print(mlflow.__version__)"],
                                         capture_output=True, text=True).stdout.strip(),
        "mlflow_version": subprocess.run([str(exe), "--version"], capture_output=True,
                                         text=True).stdout.strip().split()[-1],
    }
    tmp = Path(tempfile.mkdtemp(prefix="artifacts-bench-"))
    try:
        big, small, dl = tmp / "big.bin", tmp / "small", tmp / "download"
        dl.mkdir()
        print(f"[artifacts] making {args.big_mb} MB and {args.small_files} x {args.small_kb} KB under {tmp}",
              flush=True)
        make_small(small, args.small_files, args.small_kb)
        for name in ("runlens", "mlflow"):
            if args.only and name != args.only:
                continue
            work = tmp / name
            work.mkdir()
            srv = servers.runlens(binary, work, ROOT / "dist") if name == "runlens" else mlflow_proxy(exe, work)
            with srv:
                res[name] = measure(name, srv, args.big_mb, args.check_mb, big, small, dl)
            shutil.rmtree(work, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(res, indent=1))
    if args.only:
        return 0
    text = render(res, args, binary)
    print(text)
    if not args.no_write:
        docsection.write_section(DOC, SECTION, text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
