#!/usr/bin/env python3
"""Where the seed time goes: for one 1,000-point `log_batch` of the long metric, how much is
the stock client building and encoding the request, and how much is the server answering it.

Per batch (median over `--batches` batches, same values as bench.py's long metric):

  client_total   `MlflowClient.log_batch` end to end, as workload (1) calls it
  encode         the client's own work before sending: `Metric` entities, protobuf messages
                 and `message_to_json` (the same calls as mlflow's RestStore.log_batch)
  server         the pre-encoded request body POSTed over one kept-alive `http.client`
                 connection: the server's time plus loopback, without the stock client
  other          client_total - encode - server: the stock client's HTTP layer (requests
                 session, retries, response parsing)

Run with the conformance venv: `.venv/bin/python bench/seed_breakdown.py` (runlens and a real
`mlflow server`, each started fresh as bench.py does) or `--only runlens`. bench.py runs the
same measurement (`measure`) in every full benchmark and BENCHMARKS.md reports it.
"""

import argparse
import http.client
import json
import logging
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

from mlflow import MlflowClient
from mlflow.entities import Metric
from mlflow.protos.service_pb2 import LogBatch
from mlflow.utils.proto_json_utils import message_to_json

import servers
import workloads

ROOT = Path(__file__).resolve().parents[1]
POINTS = 1000


def _batch(start: int, t0: int) -> list[Metric]:
    return [Metric(workloads.BIG_KEY, workloads.big_value(s, -1), t0 + s, s) for s in range(start, start + POINTS)]


def _encode(run_id: str, start: int, t0: int) -> str:
    metrics = _batch(start, t0)
    return message_to_json(LogBatch(run_id=run_id, metrics=[m.to_proto() for m in metrics], params=[], tags=[]))


def measure(url: str, headers: dict, batches: int = 200) -> dict:
    """Median milliseconds per 1,000-point batch: client_total, encode, server, other."""
    client = MlflowClient(tracking_uri=url)
    exp_id = client.create_experiment(f"/Workspace/Shared/bench/seed-breakdown-{time.time_ns()}")
    t0 = int(time.time() * 1000)
    timings = {"client_total": [], "encode": [], "server": []}

    run_id = client.create_run(exp_id, run_name="stock-client").info.run_id
    for b in range(batches):
        started = time.perf_counter()
        client.log_batch(run_id, metrics=_batch(b * POINTS, t0))
        timings["client_total"].append(time.perf_counter() - started)

    run_id = client.create_run(exp_id, run_name="pre-encoded").info.run_id
    bodies = []
    for b in range(batches):
        started = time.perf_counter()
        bodies.append(_encode(run_id, b * POINTS, t0).encode())
        timings["encode"].append(time.perf_counter() - started)

    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=600)
    hdrs = {"Content-Type": "application/json", **headers}
    try:
        for body in bodies:
            started = time.perf_counter()
            conn.request("POST", "/api/2.0/mlflow/runs/log-batch", body=body, headers=hdrs)
            resp = conn.getresponse()
            data = resp.read()
            timings["server"].append(time.perf_counter() - started)
            if resp.status != 200:
                raise RuntimeError(f"log-batch answered {resp.status}: {data[:300]!r}")
    finally:
        conn.close()
    got = len(client.get_metric_history(run_id, workloads.BIG_KEY))
    if got != batches * POINTS:
        raise RuntimeError(f"pre-encoded batches stored {got} points, expected {batches * POINTS}")

    out = {k: statistics.median(v) * 1000 for k, v in timings.items()}
    out["other"] = out["client_total"] - out["encode"] - out["server"]
    out["batches"] = batches
    return out


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--batches", type=int, default=200, help="1,000-point batches per measurement")
    p.add_argument("--only", choices=["both", "runlens", "mlflow"], default="both")
    p.add_argument("--runlens-bin", type=Path,
                   default=Path(os.environ.get("RUNLENS_BIN", ROOT / "target" / "release" / "runlens")))
    args = p.parse_args()
    logging.getLogger("mlflow").setLevel(logging.WARNING)
    workdir = Path(tempfile.mkdtemp(prefix="runlens-seed-breakdown-"))
    results = {}
    try:
        if args.only in ("both", "runlens"):
            with servers.runlens(args.runlens_bin, workdir, workdir / "no-dist") as srv:
                os.environ["MLFLOW_TRACKING_TOKEN"] = srv.token
                results["runlens"] = measure(srv.url, srv.headers, args.batches)
        if args.only in ("both", "mlflow"):
            os.environ.pop("MLFLOW_TRACKING_TOKEN", None)
            with servers.mlflow(servers.ensure_mlflow_venv(), workdir) as srv:
                results["mlflow"] = measure(srv.url, srv.headers, args.batches)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    for name, r in results.items():
        print(f"{name}: per {POINTS}-point batch (median of {r['batches']}): stock client "
              f"{r['client_total']:.1f} ms = encode {r['encode']:.1f} ms + server {r['server']:.1f} ms "
              f"+ other client work {r['other']:.1f} ms")
    print(json.dumps(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
