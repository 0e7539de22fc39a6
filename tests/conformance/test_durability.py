"""Durability: every acknowledged write survives `kill -9` of the server."""

import os
import shutil
import signal
import tempfile
from pathlib import Path

import mlflow
import pytest
from mlflow.entities import Metric, Param

from conftest import Server, find_binary
from helpers import now_ms


@pytest.mark.skipif(bool(os.environ.get("CONFORMANCE_TRACKING_URI")), reason="needs its own server process")
def test_acknowledged_batches_survive_kill_9(monkeypatch):
    tmp = Path(tempfile.mkdtemp(prefix="runlens-durability-"))
    data = tmp / "data"
    pg = os.environ.get("RUNLENS_DATABASE_URL")
    if pg:
        # A database of its own beside the session's (its server bootstraps its own admin).
        import subprocess
        subprocess.run(["psql", pg, "-qc", "CREATE DATABASE durability"], check=True)
        monkeypatch.setenv("RUNLENS_DATABASE_URL", pg.rsplit("/", 1)[0] + "/durability")
    srv = Server(find_binary(), data)
    srv.start()
    monkeypatch.setenv("MLFLOW_TRACKING_TOKEN", srv.admin_token)
    try:
        client = mlflow.MlflowClient(tracking_uri=srv.url)
        exp_id = client.create_experiment("/Workspace/Shared/durability")
        run_id = client.create_run(exp_id, run_name="crash-me").info.run_id
        t = now_ms()
        acknowledged = 0
        for b in range(40):
            batch = [Metric("burst", float(b * 1000 + i), t + i, b * 1000 + i) for i in range(1000)]
            client.log_batch(run_id, metrics=batch, params=[Param(f"p{b:02d}", str(b))])
            acknowledged += len(batch)
        srv.proc.send_signal(signal.SIGKILL)
        srv.proc.wait()

        srv.start()
        monkeypatch.setenv("MLFLOW_TRACKING_TOKEN", srv.admin_token)
        client = mlflow.MlflowClient(tracking_uri=srv.url)
        run = client.get_run(run_id)
        assert run.info.run_name == "crash-me"
        assert len(run.data.params) == 40
        assert run.data.metrics["burst"] == float(acknowledged - 1)
        history = client.get_metric_history(run_id, "burst")
        assert len(history) == acknowledged
        assert sorted(m.step for m in history) == list(range(acknowledged))
    finally:
        srv.stop()
        shutil.rmtree(tmp, ignore_errors=True)
