"""Start and stop the two servers under test: `runlens serve` and a real `mlflow server`,
on SQLite or on a throwaway PostgreSQL cluster (`PgCluster`, through scripts/pg.sh)."""

import os
import secrets
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[1]
MLFLOW_VENV = ROOT / "bench" / ".venv-mlflow"
MLFLOW_REQUIREMENTS = ROOT / "bench" / "requirements-mlflow.txt"
PG_SCRIPT = ROOT / "scripts" / "pg.sh"


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
    wanted = [line for line in MLFLOW_REQUIREMENTS.read_text().splitlines() if line and not line.startswith("#")]
    print(f"[bench] creating {MLFLOW_VENV} ({', '.join(wanted)})", flush=True)
    if not (MLFLOW_VENV / "bin" / "pip").exists():
        subprocess.run([sys.executable, "-m", "venv", str(MLFLOW_VENV)], check=True)
    subprocess.run([str(MLFLOW_VENV / "bin" / "pip"), "install", "--quiet", "--disable-pip-version-check",
                    "-r", str(MLFLOW_REQUIREMENTS)], check=True)
    marker.write_text(MLFLOW_REQUIREMENTS.read_text())
    return exe


class MemoryWatch:
    """A process's resident memory, split as Linux counts it (`/proc/PID/status`): `anon`
    (RssAnon: the heap and stacks, what the process allocated), `file` (RssFile: pages of
    mapped files, here the SQLite database and the binary, which the kernel may drop and
    read again) and `shmem` (RssShmem: SQLite's WAL index). A thread samples every
    `interval` seconds; `peak()` gives the highest of each since `mark()`, in MiB.

    Use as a context manager around the work: `with MemoryWatch(pid) as m: m.mark(); ...;
    m.peak()`."""

    FIELDS = {"RssAnon:": "anon", "RssFile:": "file", "RssShmem:": "shmem"}

    def __init__(self, pid: int, interval: float = 0.02):
        self.pid, self.interval = pid, interval
        self._peak = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def read(self) -> dict:
        """The current values, MiB."""
        out = {}
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                key = self.FIELDS.get(line.split(None, 1)[0] if line.strip() else "")
                if key:
                    out[key] = int(line.split()[1]) / 1024
        return out

    def _run(self):
        while not self._stop.is_set():
            try:
                now = self.read()
            except OSError:
                return
            with self._lock:
                for k, v in now.items():
                    self._peak[k] = max(self._peak.get(k, 0.0), v)
            self._stop.wait(self.interval)

    def mark(self) -> dict:
        """Starts a new peak from the current values; returns them."""
        now = self.read()
        with self._lock:
            self._peak = dict(now)
        return now

    def peak(self) -> dict:
        """The highest values since `mark()` (one more sample taken first), MiB, rounded."""
        now = self.read()
        with self._lock:
            for k, v in now.items():
                self._peak[k] = max(self._peak.get(k, 0.0), v)
            return {k: round(v, 1) for k, v in self._peak.items()}

    def __enter__(self):
        self.mark()
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=2)


class Busy:
    """A loaded machine made on purpose: `n` processes that each spin on a core until the
    block ends, so a measurement's "busy" is the same on every run instead of whatever other
    work happens to share the machine (on 2 cores, `n` = 8 gives a load average near 8-10
    with the bench's own processes). `n` = 0 does nothing.

    Use as a context manager: `with Busy(8) as b: ...; b.load, b.runnable` (the 1-minute load
    average, which lags behind a short block, and the processes runnable at that moment, from
    `/proc/loadavg`; each seen at the start and at the end)."""

    def __init__(self, n: int):
        self.n = n
        self.procs: list[subprocess.Popen] = []
        self.load: list[float] = []
        self.runnable: list[int] = []

    def _note(self):
        self.load.append(os.getloadavg()[0])
        with open("/proc/loadavg") as f:
            self.runnable.append(int(f.read().split()[3].split("/")[0]))

    def __enter__(self):
        self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(self.n)]
        if self.n:
            time.sleep(2)  # every spinner running before the first measurement
        self._note()
        return self

    def __exit__(self, *exc):
        self._note()
        for p in self.procs:
            p.kill()
        for p in self.procs:
            p.wait()
        self.procs = []


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


def runlens(binary: Path, workdir: Path, dist: Path, database_url: str | None = None, name: str = "runlens",
            data_dir: Path | None = None, admin_password: str | None = None) -> Server:
    """runlens with a fresh data dir (`workdir/runlens-data` unless `data_dir`); `admin`'s
    password is random unless given, its token in `.token`. With `database_url` the store is
    that PostgreSQL database and the data dir holds only the files beside it (artifacts):
    two servers given the same URL, data dir and password are two replicas of one store."""
    port = free_port()
    argv = [str(binary), "serve", "--addr", f"127.0.0.1:{port}",
            # Absolute: the server runs in `workdir`, where a relative path names nothing
            # (its pages would never load).
            "--data-dir", str(data_dir or workdir / "runlens-data"), "--dist", str(Path(dist).resolve())]
    if database_url:
        argv += ["--database-url", database_url]
    env = {"RUNLENS_LOG": "warn", "RUNLENS_ADMIN_PASSWORD": admin_password or "bench-" + secrets.token_urlsafe(16)}
    return Server(name, argv, port, workdir, env=env)


def mlflow(exe: Path, workdir: Path, env: dict | None = None, backend_uri: str | None = None,
           workers: int | None = None, name: str = "mlflow") -> Server:
    """A stock `mlflow server` without its auth app (how most teams run it); `env` adds
    environment variables for it. Its store is `workdir/mlflow.db` (SQLite) unless
    `backend_uri` (e.g. `PgCluster.mlflow_uri(db)`); `workers` is its `--workers`."""
    port = free_port()
    argv = [str(exe), "server", "--backend-store-uri", backend_uri or f"sqlite:///{workdir / 'mlflow.db'}",
            "--artifacts-destination", str(workdir / f"{name}-artifacts"),
            "--host", "127.0.0.1", "--port", str(port)]
    if workers:
        argv += ["--workers", str(workers)]
    return Server(name, argv, port, workdir, env=env)


class PgCluster:
    """A throwaway PostgreSQL cluster in `dir` (`bash scripts/pg.sh start DIR`: initdb, a free
    port on 127.0.0.1, superuser `runlens` with trust auth), stopped and removed on exit
    (`pg.sh stop DIR`) unless it was already running when entered (then it is left running
    for the caller who started it, e.g. several bench scripts in a row).

    `create(name)` makes a fresh, empty database (dropping one of that name first) and
    returns its URL for runlens; `mlflow_uri(name)` is the same database for MLflow
    (SQLAlchemy's `postgresql+psycopg2://` scheme); `sql(text)` runs SQL through psql."""

    def __init__(self, dir: Path):
        self.dir = Path(dir)
        self.url = None
        self.owned = False

    def __enter__(self):
        self.owned = not (self.dir / "url").exists()
        proc = subprocess.run(["bash", str(PG_SCRIPT), "start", str(self.dir)], capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"pg.sh start {self.dir} failed:\n{proc.stderr[-3000:]}")
        self.url = proc.stdout.strip().splitlines()[-1]
        print(f"[pg] cluster {self.dir}: {self.url}{'' if self.owned else ' (already running: kept at exit)'}",
              flush=True)
        return self

    def __exit__(self, *exc):
        if self.owned:
            subprocess.run(["bash", str(PG_SCRIPT), "stop", str(self.dir)], check=False)

    def db_url(self, name: str) -> str:
        return re.sub(r"/[^/]*$", f"/{name}", self.url)

    def mlflow_uri(self, name: str) -> str:
        # SQLAlchemy 2.1 takes plain postgresql:// to mean psycopg 3; the venv has psycopg2.
        return self.db_url(name).replace("postgres://", "postgresql+psycopg2://", 1)

    def sql(self, text: str, db: str = "postgres", stdin: str | None = None) -> str:
        """Runs `text` with psql (`-c`; `-f -` reading `stdin` instead when given)."""
        args = ["psql", self.db_url(db), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
        args += ["-c", text] if stdin is None else ["-c", text, "-f", "-"]
        proc = subprocess.run(args, input=stdin, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"psql failed: {proc.stderr[-2000:]}")
        return proc.stdout.strip()

    def copy(self, db: str, table: str, columns: list[str], rows) -> None:
        """Bulk-loads `rows` (tuples of str/int/float/None) into `table` with COPY FROM STDIN."""
        def field(v):
            if v is None:
                return "\\N"
            return str(v).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")
        data = "".join("\t".join(field(v) for v in row) + "\n" for row in rows)
        proc = subprocess.run(["psql", self.db_url(db), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c",
                               f"COPY {table} ({', '.join(columns)}) FROM STDIN"],
                              input=data, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"COPY {table} failed: {proc.stderr[-2000:]}")

    def create(self, name: str) -> str:
        self.drop(name)
        self.sql(f'CREATE DATABASE "{name}"')
        return self.db_url(name)

    def drop(self, name: str) -> None:
        self.sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def size(self, name: str) -> int:
        """Bytes on disk of database `name`."""
        return int(self.sql(f"SELECT pg_database_size('{name}')"))


def pg_dir_default() -> Path:
    """The bench's own cluster dir (other work uses /tmp/rl-pg...)."""
    return Path(os.environ.get("RUNLENS_BENCH_PG_DIR", "/tmp/rl-pg-bench"))


def disk_free_gib(path: Path = Path("/")) -> float:
    return shutil.disk_usage(path).free / 2**30
