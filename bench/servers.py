"""Start and stop the two servers under test: `runlens serve` and a real `mlflow server`."""

import os
import secrets
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
MLFLOW_VENV = ROOT / "bench" / ".venv-mlflow"
MLFLOW_REQUIREMENTS = ROOT / "bench" / "requirements-mlflow.txt"


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ensure_mlflow_venv() -> Path:
    """Creates bench/.venv-mlflow with the full MLflow server if needed; returns its `mlflow`."""
    marker = MLFLOW_VENV / ".requirements"
    exe = MLFLOW_VENV / "bin" / "mlflow"
    if exe.exists() and marker.exists() and marker.read_text() == MLFLOW_REQUIREMENTS.read_text():
        return exe
    print(f"[bench] creating {MLFLOW_VENV} ({MLFLOW_REQUIREMENTS.read_text().splitlines()[-1]})", flush=True)
    if not (MLFLOW_VENV / "bin" / "pip").exists():
        subprocess.run([sys.executable, "-m", "venv", str(MLFLOW_VENV)], check=True)
    subprocess.run([str(MLFLOW_VENV / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(MLFLOW_REQUIREMENTS)], check=True)
    marker.write_text(MLFLOW_REQUIREMENTS.read_text())
    return exe


class Server:
    """A child server process reachable at `url`, with its log in `log_path`."""

    def __init__(self, name: str, argv: list[str], port: int, workdir: Path, env=None):
        self.name, self.argv, self.port, self.workdir = name, argv, port, workdir
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = workdir / f"{name}.log"
        self.env = {**os.environ, **(env or {})}
        self.proc = None
        # runlens only: the bootstrapped administrator and an API token for the client.
        self.admin_password = self.env.get("RUNLENS_ADMIN_PASSWORD")
        self.token = None

    def __enter__(self):
        log = open(self.log_path, "ab")
        self.proc = subprocess.Popen(self.argv, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                                     cwd=self.workdir, start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if requests.get(f"{self.url}/health", timeout=2).status_code == 200:
                    if self.admin_password:
                        self.token = self._create_token()
                    return self
            except requests.RequestException:
                pass
            time.sleep(0.25)
        self.__exit__(None, None, None)
        raise RuntimeError(f"{self.name} did not start; log:\n{self.log_path.read_text()[-3000:]}")

    def _create_token(self) -> str:
        """An API token for `admin` (`POST /api/v1/tokens` over HTTP basic)."""
        r = requests.post(f"{self.url}/api/v1/tokens", json={"name": "bench"},
                          auth=("admin", self.admin_password), timeout=30)
        r.raise_for_status()
        return r.json()["token"]

    @property
    def headers(self) -> dict:
        """HTTP headers that authenticate raw requests (none for an open server)."""
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            # mlflow server forks workers: signal the whole process group it leads.
            try:
                os.killpg(self.proc.pid, 15)
                self.proc.wait(timeout=20)
            except (subprocess.TimeoutExpired, ProcessLookupError):
                try:
                    os.killpg(self.proc.pid, 9)
                except ProcessLookupError:
                    pass
                self.proc.wait()


def runlens(binary: Path, workdir: Path, dist: Path) -> Server:
    """runlens with a fresh data dir; `admin`'s password is random, its token in `.token`."""
    port = free_port()
    argv = [str(binary), "serve", "--addr", f"127.0.0.1:{port}", "--data-dir", str(workdir / "runlens-data"),
            "--dist", str(dist)]
    env = {"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": "bench-" + secrets.token_urlsafe(16)}
    return Server("runlens", argv, port, workdir, env=env)


def mlflow(exe: Path, workdir: Path, env: dict | None = None) -> Server:
    """A stock `mlflow server` without its auth app (how most teams run it); `env` adds
    environment variables for it."""
    port = free_port()
    argv = [str(exe), "server", "--backend-store-uri", f"sqlite:///{workdir / 'mlflow.db'}",
            "--artifacts-destination", str(workdir / "mlflow-artifacts"),
            "--host", "127.0.0.1", "--port", str(port)]
    return Server("mlflow", argv, port, workdir, env=env)
