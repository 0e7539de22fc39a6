"""Users, tokens and credentials for the identity and permission tests.

`Account` is one user of the live server with a password and an API token; `as_user`
points the stock client's environment (`MLFLOW_TRACKING_TOKEN`, or
`MLFLOW_TRACKING_USERNAME` / `MLFLOW_TRACKING_PASSWORD`) at that account.
`auth_service_client` returns MLflow's own `AuthServiceClient` class.
"""

import contextlib
import dataclasses
import importlib
import os
import sys
import types
from pathlib import Path

import mlflow

CREDENTIAL_VARS = ("MLFLOW_TRACKING_TOKEN", "MLFLOW_TRACKING_USERNAME", "MLFLOW_TRACKING_PASSWORD")


@dataclasses.dataclass
class Account:
    """A user of the live server."""

    name: str
    password: str
    token: str

    @property
    def home(self) -> str:
        """The prefix of this user's private experiments."""
        return f"/Users/{self.name}"


@contextlib.contextmanager
def credentials(**env):
    """Sets exactly the given credential variables for the block (the others are unset)."""
    saved = {k: os.environ.get(k) for k in CREDENTIAL_VARS}
    try:
        for k in CREDENTIAL_VARS:
            os.environ.pop(k, None)
        os.environ.update({k: v for k, v in env.items() if v is not None})
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def as_user(account: Account, basic: bool = False):
    """The stock client authenticates as `account`: its token, or with `basic` its password."""
    if basic:
        return credentials(MLFLOW_TRACKING_USERNAME=account.name, MLFLOW_TRACKING_PASSWORD=account.password)
    return credentials(MLFLOW_TRACKING_TOKEN=account.token)


def auth_service_client():
    """MLflow's `mlflow.server.auth.client.AuthServiceClient` class, unchanged.

    The module (and its `entities`, `permissions` and `routes` siblings) is MLflow's own
    code, but importing it normally drags in the whole tracking server (Flask, SQLAlchemy,
    Alembic...) through `mlflow.server` and `mlflow.server.handlers`, which mlflow-skinny
    does not ship. If that import fails, the two parent modules are replaced by empty
    packages pointing at MLflow's own directories, and `handlers` by the three path helpers
    `routes.py` uses (copied from MLflow 3.17's `handlers.py`).
    """
    try:
        return importlib.import_module("mlflow.server.auth.client").AuthServiceClient
    except ImportError:
        pass
    for name in [m for m in sys.modules if m == "mlflow.server" or m.startswith("mlflow.server.")]:
        del sys.modules[name]
    server_dir = Path(mlflow.__file__).parent / "server"
    for name, path in (("mlflow.server", server_dir), ("mlflow.server.auth", server_dir / "auth")):
        pkg = types.ModuleType(name)
        pkg.__path__ = [str(path)]
        sys.modules[name] = pkg
    handlers = types.ModuleType("mlflow.server.handlers")

    def _add_static_prefix(route: str) -> str:
        prefix = os.environ.get("_MLFLOW_STATIC_PREFIX")
        return prefix.rstrip("/") + route if prefix else route

    handlers._add_static_prefix = _add_static_prefix
    handlers._get_rest_path = lambda base, version=2: _add_static_prefix(f"/api/{version}.0{base}")
    handlers._get_ajax_path = lambda base, version=2: _add_static_prefix(f"/ajax-api/{version}.0{base}")
    sys.modules["mlflow.server.handlers"] = handlers
    return importlib.import_module("mlflow.server.auth.client").AuthServiceClient
