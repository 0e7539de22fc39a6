#!/usr/bin/env python3
"""Runs the conformance suite against a real `mlflow server`, to show that the suite encodes
MLflow's own behaviour. Tests marked `runlens_only` (deliberate departures, such as keeping
±inf exactly) are strict xfails there: each must fail against MLflow, or the run fails.
Tests of runlens' own authentication (marker `auth`) are skipped. Usage: `make
conformance-mlflow` (a step of `make test`), or `.venv/bin/python bench/mlflow_conformance.py
[pytest args]`.
"""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import servers

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    exe = servers.ensure_mlflow_venv()
    workdir = Path(tempfile.mkdtemp(prefix="mlflow-conformance-"))
    try:
        # The tracking API needs no background job runner (huey consumers): without it the
        # server starts faster and leaves the CPU to the suite.
        with servers.mlflow(exe, workdir, env={"MLFLOW_SERVER_ENABLE_JOB_EXECUTION": "false"}) as srv:
            env = {**os.environ, "CONFORMANCE_TRACKING_URI": srv.url}
            cmd = [sys.executable, "-m", "pytest", "-c", str(ROOT / "tests/conformance/pytest.ini"),
                   str(ROOT / "tests/conformance"), "-p", "no:cacheprovider", *sys.argv[1:]]
            return subprocess.run(cmd, env=env, cwd=ROOT).returncode
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
