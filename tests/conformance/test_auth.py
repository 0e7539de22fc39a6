"""Identity through the stock client: API token, HTTP basic, and a clear, fast 401 without
credentials (no retry storm)."""

import time

import mlflow
import pytest
import requests
from mlflow.exceptions import MlflowException

from auth_helpers import as_user, credentials
from helpers import raises_code

pytestmark = pytest.mark.auth


def log_and_read_back(server, account, unique):
    """Logs a run into the account's own experiment with the fluent API; returns the run."""
    mlflow.set_experiment(f"{account.home}/auth-{unique}")
    with mlflow.start_run(run_name="authed") as run:
        mlflow.log_param("lr", "0.01")
        for step in range(3):
            mlflow.log_metric("loss", 1.0 / (step + 1), step=step)
    return mlflow.MlflowClient(tracking_uri=server.url).get_run(run.info.run_id)


def test_logging_with_mlflow_tracking_token(server, make_user, unique):
    alice = make_user("alice")
    with as_user(alice):
        run = log_and_read_back(server, alice, unique)
    assert run.data.params == {"lr": "0.01"}
    assert run.data.metrics == {"loss": pytest.approx(1 / 3)}


def test_logging_with_http_basic_password(server, make_user, unique):
    bob = make_user("bob")
    with as_user(bob, basic=True):
        run = log_and_read_back(server, bob, unique)
    assert run.data.params == {"lr": "0.01"}


def test_http_basic_accepts_a_token_as_the_password(server, make_user, unique):
    carol = make_user("carol")
    with credentials(MLFLOW_TRACKING_USERNAME=carol.name, MLFLOW_TRACKING_PASSWORD=carol.token):
        run = log_and_read_back(server, carol, unique)
    assert run.data.metrics["loss"] == pytest.approx(1 / 3)


def test_without_credentials_the_client_fails_fast_with_unauthenticated(server, monkeypatch):
    # The client's default retry policy (7 retries with back-off) must not kick in: a 401
    # is final, so the error arrives at once.
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", raising=False)
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with credentials():
        start = time.monotonic()
        with raises_code("UNAUTHENTICATED") as info:
            client.search_experiments()
        elapsed = time.monotonic() - start
    assert elapsed < 5, f"took {elapsed:.1f}s: the client retried"
    assert "MLFLOW_TRACKING_TOKEN" in info.value.message, info.value.message


def test_fluent_logging_without_credentials_is_a_clear_error(server, monkeypatch, unique):
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", raising=False)
    with credentials():
        start = time.monotonic()
        with pytest.raises(MlflowException) as info:
            mlflow.set_experiment(f"/Workspace/Shared/anon-{unique}")
        assert time.monotonic() - start < 5
    assert info.value.error_code == "UNAUTHENTICATED"


@pytest.mark.parametrize("how", ["bad-token", "revoked-token", "wrong-password"])
def test_bad_credentials_are_unauthenticated(server, make_user, monkeypatch, how):
    monkeypatch.delenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", raising=False)
    dave = make_user("dave")
    if how == "revoked-token":
        listed = server.http.get(f"{server.url}/api/v1/tokens", params={"user": dave.name}, timeout=30)
        assert listed.status_code == 200, listed.text
        for t in listed.json():
            r = server.http.delete(f"{server.url}/api/v1/tokens/{t['id']}", params={"user": dave.name}, timeout=30)
            assert r.status_code == 204, r.text
    env = {
        "bad-token": {"MLFLOW_TRACKING_TOKEN": "rl_not-a-real-token"},
        "revoked-token": {"MLFLOW_TRACKING_TOKEN": dave.token},
        "wrong-password": {"MLFLOW_TRACKING_USERNAME": dave.name, "MLFLOW_TRACKING_PASSWORD": "wrong"},
    }[how]
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with credentials(**env):
        start = time.monotonic()
        with raises_code("UNAUTHENTICATED"):
            client.search_experiments()
        assert time.monotonic() - start < 5


def test_401_bodies_in_both_dialects(server):
    mlflow_401 = requests.get(f"{server.url}/api/2.0/mlflow/experiments/search", timeout=10)
    assert mlflow_401.status_code == 401
    assert mlflow_401.json()["error_code"] == "UNAUTHENTICATED"
    assert mlflow_401.headers.get("WWW-Authenticate", "").startswith("Basic")
    ajax_401 = requests.get(f"{server.url}/ajax-api/2.0/mlflow/experiments/search", timeout=10)
    assert ajax_401.status_code == 401 and "WWW-Authenticate" not in ajax_401.headers
    app_401 = requests.get(f"{server.url}/api/v1/experiments", timeout=10)
    assert app_401.status_code == 401
    assert app_401.json()["code"] == "UNAUTHENTICATED"
    for r in (mlflow_401, ajax_401, app_401):
        assert "experiments" not in r.json(), r.text
    assert requests.get(f"{server.url}/health", timeout=10).status_code == 200
