"""Fixtures for the MLflow conformance suite.

A session-wide ``runlens serve`` is started on a free loopback port with a temporary data
directory, and the stock ``mlflow`` client is pointed at it through ``MLFLOW_TRACKING_URI``.

Environment:
  RUNLENS_BIN                 the server binary (default: the newest of
                              target/{release,debug}/runlens, honouring CARGO_TARGET_DIR)
  CONFORMANCE_TRACKING_URI    run against an already running server instead (for example a
                              real `mlflow server`, to check that the suite encodes MLflow's
                              own behaviour); tests that need to own the process are skipped
"""

import os
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

# The client retries 5xx answers for minutes; a conformance failure should fail fast instead.
os.environ.setdefault("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
os.environ.setdefault("MLFLOW_HTTP_REQUEST_TIMEOUT", "60")
os.environ.setdefault("MLFLOW_SYSTEM_METRICS_SAMPLING_INTERVAL", "1")
os.environ.pop("MLFLOW_RUN_ID", None)
os.environ.pop("MLFLOW_EXPERIMENT_ID", None)
os.environ.pop("MLFLOW_EXPERIMENT_NAME", None)

import mlflow  # noqa: E402
import pytest  # noqa: E402
import requests  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def find_binary() -> Path:
    """The runlens binary to test: $RUNLENS_BIN, else the newest cargo build."""
    explicit = os.environ.get("RUNLENS_BIN")
    if explicit:
        return Path(explicit)
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    found = [p for p in (target / "release" / "runlens", target / "debug" / "runlens") if p.is_file()]
    if not found:
        pytest.exit(
            f"no runlens binary under {target}; run `cargo build --release -p server` "
            "or set RUNLENS_BIN",
            returncode=2,
        )
    return max(found, key=lambda p: p.stat().st_mtime)


def free_port() -> int:
    """A port that was free a moment ago on 127.0.0.1."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running `runlens serve` child process."""

    def __init__(self, binary: Path, data_dir: Path):
        self.binary = binary
        self.data_dir = data_dir
        self.proc = None
        self.url = None
        self.log_path = data_dir.parent / "runlens.log"

    def start(self, attempts: int = 3) -> None:
        for _ in range(attempts):
            port = free_port()
            self.url = f"http://127.0.0.1:{port}"
            log = open(self.log_path, "ab")
            self.proc = subprocess.Popen(
                [str(self.binary), "serve", "--addr", f"127.0.0.1:{port}",
                 "--data-dir", str(self.data_dir), "--dist", str(self.data_dir / "no-dist")],
                stdout=log, stderr=subprocess.STDOUT,
                env={**os.environ, "RUNLENS_LOG": os.environ.get("RUNLENS_LOG", "warn")},
            )
            if self._wait_healthy():
                return
            self.stop()
        raise RuntimeError(f"runlens did not start; log:\n{self.log_path.read_text()[-4000:]}")

    def _wait_healthy(self, timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                return False
            try:
                if requests.get(f"{self.url}/health", timeout=1).status_code == 200:
                    return True
            except requests.RequestException:
                pass
            time.sleep(0.1)
        return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def pytest_collection_modifyitems(config, items):
    """Against another server (say, MLflow itself), skip runlens' deliberate departures."""
    if not os.environ.get("CONFORMANCE_TRACKING_URI"):
        return
    skip = pytest.mark.skip(reason="runlens_only: deliberate departure from MLflow")
    for item in items:
        if "runlens_only" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def server():
    """The live server for the whole session; its URL is the tracking URI."""
    external = os.environ.get("CONFORMANCE_TRACKING_URI")
    if external:
        srv = Server(Path("external"), Path(tempfile.gettempdir()))
        srv.url = external.rstrip("/")
        os.environ["MLFLOW_TRACKING_URI"] = srv.url
        mlflow.set_tracking_uri(srv.url)
        yield srv
        return
    tmp = Path(tempfile.mkdtemp(prefix="runlens-conformance-"))
    srv = Server(find_binary(), tmp / "data")
    srv.start()
    os.environ["MLFLOW_TRACKING_URI"] = srv.url
    mlflow.set_tracking_uri(srv.url)
    try:
        yield srv
    finally:
        srv.stop()
        if srv.proc is not None and srv.proc.returncode not in (0, None, -15):
            print(f"runlens exited with {srv.proc.returncode}; log kept at {srv.log_path}")
        else:
            shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture
def client(server):
    """A fresh `MlflowClient` bound to the live server."""
    return mlflow.MlflowClient(tracking_uri=server.url)


@pytest.fixture(autouse=True)
def _no_leaked_runs(server):
    """Every test starts and ends without an active fluent run."""
    while mlflow.active_run():
        mlflow.end_run()
    yield
    while mlflow.active_run():
        mlflow.end_run()


@pytest.fixture
def unique():
    """A short unique suffix, so tests never collide on names."""
    return uuid.uuid4().hex[:8]


@pytest.fixture
def experiment(client, unique):
    """A fresh experiment under a workspace path; returns its id."""
    return client.create_experiment(f"/Users/alice@example.com/conformance/{unique}")
