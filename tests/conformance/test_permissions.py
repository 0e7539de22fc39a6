"""Permissions through the stock client: private /Users/<name>/ experiments, grants made
with MLflow 3's per-user permission endpoints, Shared experiments and NO_PERMISSIONS."""

import contextlib

import mlflow
import pytest
from mlflow.entities import Metric, ViewType
from mlflow.exceptions import MlflowException

from auth_helpers import as_user
from helpers import now_ms, raises_code

pytestmark = pytest.mark.auth


@pytest.fixture
def alice_private(server, make_user, unique):
    """alice and a private experiment of hers with one run carrying a param and a metric."""
    alice = make_user("alice")
    with as_user(alice):
        client = mlflow.MlflowClient(tracking_uri=server.url)
        exp_id = client.create_experiment(f"{alice.home}/private-{unique}")
        run_id = client.create_run(exp_id, run_name="secret-run").info.run_id
        client.log_param(run_id, "secret_param", "s3cr3t")
        client.log_metric(run_id, "secret_metric", 42.0, step=0)
    return alice, exp_id, run_id


def grant(server, granter, username, exp_id, permission):
    """MLflow 3's `users/permissions/grant`, as `granter` (a manager of the experiment)."""
    r = server.http.post(
        f"{server.url}/api/3.0/mlflow/users/permissions/grant",
        json={"username": username, "resource_type": "experiment", "resource_id": exp_id,
              "permission": permission},
        headers={"Authorization": f"Bearer {granter.token}"}, timeout=30)
    assert r.status_code == 200, r.text


def test_another_users_private_experiment_is_denied_and_unlisted(server, make_user, alice_private,
                                                                 unique):
    alice, exp_id, run_id = alice_private
    bob = make_user("bob")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(bob):
        with raises_code("PERMISSION_DENIED", "don't have access"):
            client.get_experiment(exp_id)
        with raises_code("PERMISSION_DENIED"):
            client.get_experiment_by_name(f"{alice.home}/private-{unique}")
        with raises_code("PERMISSION_DENIED"):
            client.get_run(run_id)
        with raises_code("PERMISSION_DENIED"):
            client.get_metric_history(run_id, "secret_metric")
        with raises_code("PERMISSION_DENIED"):
            client.search_runs([exp_id])
        listed = client.search_experiments(view_type=ViewType.ALL, max_results=50_000)
        assert exp_id not in {e.experiment_id for e in listed}
        assert not any(e.name.startswith(alice.home) for e in listed)
        with raises_code("PERMISSION_DENIED"):
            client.log_metric(run_id, "sneaky", 1.0)
    with as_user(alice):
        run = client.get_run(run_id)
        assert "sneaky" not in run.data.metrics
        assert exp_id in {e.experiment_id for e in client.search_experiments(max_results=50_000)}


def test_denial_names_who_can_grant(server, make_user, alice_private):
    alice, exp_id, _ = alice_private
    bob = make_user("bob")
    r = server.http.get(f"{server.url}/api/v1/experiments/{exp_id}",
                        headers={"Authorization": f"Bearer {bob.token}"}, timeout=30)
    assert r.status_code == 403, r.text
    body = r.json()
    assert body["code"] == "PERMISSION_DENIED"
    assert body["grantors"][0] == alice.name and "admin" in body["grantors"]
    assert "s3cr3t" not in r.text and "secret-run" not in r.text


def test_read_grant_reads_but_cannot_log(server, make_user, alice_private):
    alice, exp_id, run_id = alice_private
    bob = make_user("bob")
    grant(server, alice, bob.name, exp_id, "READ")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(bob):
        assert client.get_experiment(exp_id).experiment_id == exp_id
        run = client.get_run(run_id)
        assert run.data.params == {"secret_param": "s3cr3t"}
        assert [m.value for m in client.get_metric_history(run_id, "secret_metric")] == [42.0]
        assert [r.info.run_id for r in client.search_runs([exp_id])] == [run_id]
        assert exp_id in {e.experiment_id for e in client.search_experiments(max_results=50_000)}
        with raises_code("PERMISSION_DENIED", "CAN_EDIT"):
            client.log_metric(run_id, "loss", 0.5)
        with raises_code("PERMISSION_DENIED"):
            client.log_batch(run_id, metrics=[Metric("loss", 0.5, now_ms(), 1)])
        with raises_code("PERMISSION_DENIED"):
            client.set_tag(run_id, "note", "bob was here")
        with raises_code("PERMISSION_DENIED"):
            client.create_run(exp_id)
        with raises_code("PERMISSION_DENIED"):
            client.delete_experiment(exp_id)
    with as_user(alice):
        run = client.get_run(run_id)
        assert "loss" not in run.data.metrics and "note" not in run.data.tags


def test_edit_grant_logs_but_cannot_manage(server, make_user, alice_private):
    alice, exp_id, run_id = alice_private
    bob, carol = make_user("bob"), make_user("carol")
    grant(server, alice, bob.name, exp_id, "EDIT")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(bob):
        client.log_metric(run_id, "loss", 0.5, step=1)
        assert client.get_run(run_id).data.metrics["loss"] == 0.5
        r = server.http.post(
            f"{server.url}/api/3.0/mlflow/users/permissions/grant",
            json={"username": carol.name, "resource_type": "experiment", "resource_id": exp_id,
                  "permission": "READ"},
            headers={"Authorization": f"Bearer {bob.token}"}, timeout=30)
        assert r.status_code == 403 and r.json()["error_code"] == "PERMISSION_DENIED", r.text
    with as_user(carol), raises_code("PERMISSION_DENIED"):
        client.get_experiment(exp_id)


def test_shared_workspace_is_open_until_no_permissions(server, make_user, unique):
    alice, bob = make_user("alice"), make_user("bob")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(alice):
        exp_id = client.create_experiment(f"/Workspace/Shared/team-{unique}")
    with as_user(bob):
        run_id = client.create_run(exp_id, run_name="bob-in-shared").info.run_id
        client.log_metric(run_id, "acc", 0.9)
    grant(server, alice, bob.name, exp_id, "NO_PERMISSIONS")
    with as_user(bob):
        with raises_code("PERMISSION_DENIED"):
            client.get_run(run_id)
        listed = client.search_experiments(max_results=50_000)
        assert exp_id not in {e.experiment_id for e in listed}
    with as_user(alice):
        assert client.get_run(run_id).data.metrics == {"acc": 0.9}


def test_creator_manages_and_admin_sees_everything(server, make_user, alice_private):
    alice, exp_id, run_id = alice_private
    client = mlflow.MlflowClient(tracking_uri=server.url)
    # The conftest's token is admin's: it reads alice's private run.
    assert client.get_run(run_id).data.params == {"secret_param": "s3cr3t"}
    with as_user(alice):
        client.rename_experiment(exp_id, f"{alice.home}/renamed-{exp_id}")
        assert client.get_experiment(exp_id).name == f"{alice.home}/renamed-{exp_id}"


def revoke(server, revoker, username, exp_id):
    """MLflow 3's `users/permissions/revoke`, as `revoker`; returns the raw response."""
    return server.http.post(
        f"{server.url}/api/3.0/mlflow/users/permissions/revoke",
        json={"username": username, "resource_type": "experiment", "resource_id": exp_id},
        headers={"Authorization": f"Bearer {revoker.token}"}, timeout=30)


@contextlib.contextmanager
def default_experiment_restored(client):
    """Puts the Default experiment's name back (as admin) if the block renamed it, so one
    failure here does not break every later test that uses experiment 0."""
    try:
        yield
    finally:
        if client.get_experiment("0").name != "Default":
            client.rename_experiment("0", "Default")


def test_nobody_renames_default_into_a_private_folder(server, make_user, unique):
    alice, dave = make_user("alice"), make_user("dave")
    target = f"{alice.home}/new-project-{unique}"
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with default_experiment_restored(client):
        with as_user(dave), pytest.raises(MlflowException) as info:
            client.rename_experiment("0", target)
        assert info.value.error_code in ("PERMISSION_DENIED", "INVALID_PARAMETER_VALUE"), info.value
        # Not even an administrator (the conftest's token is admin's) moves Default there.
        with raises_code("INVALID_PARAMETER_VALUE"):
            client.rename_experiment("0", f"{alice.home}/admin-made-{unique}")
    assert client.get_experiment("0").name == "Default"
    # alice's set_experiment of that name creates her own private experiment, not 0.
    with as_user(alice):
        exp = mlflow.set_experiment(target)
        assert exp.experiment_id != "0" and exp.name == target
        with mlflow.start_run() as run:
            mlflow.log_param("secret_param", "s3cr3t")
    with as_user(dave):
        with raises_code("PERMISSION_DENIED"):
            client.get_run(run.info.run_id)
        with raises_code("PERMISSION_DENIED"):
            client.search_runs([exp.experiment_id])


@pytest.mark.parametrize("source", ["own-private", "own-shared"])
def test_renaming_into_another_users_folder_is_denied(server, make_user, unique, source):
    alice, dave = make_user("alice"), make_user("dave")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    name = f"{dave.home}/mine-{unique}" if source == "own-private" else f"/Workspace/Shared/dave-{unique}"
    target = f"{alice.home}/planted-{unique}"
    with as_user(dave):
        exp_id = client.create_experiment(name)
        with raises_code("PERMISSION_DENIED"):
            client.rename_experiment(exp_id, target)
        assert client.get_experiment(exp_id).name == name
    with as_user(alice):
        assert client.get_experiment_by_name(target) is None


def test_a_manager_cannot_lock_the_owner_out(server, make_user, alice_private, unique):
    alice, exp_id, run_id = alice_private
    bob, carol = make_user("bob"), make_user("carol")
    grant(server, alice, bob.name, exp_id, "MANAGE")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(bob):
        # A manager moving it into his own folder: allowed (he may create there) or refused
        # (only the owner moves it out of /Users/<owner>/); either way...
        try:
            client.rename_experiment(exp_id, f"{bob.home}/taken-{unique}")
        except MlflowException as e:
            assert e.error_code == "PERMISSION_DENIED", e
            assert client.get_experiment(exp_id).name.startswith(f"{alice.home}/")
    # ...neither a NO_PERMISSIONS grant nor a revoke takes it from its creator.
    r = server.http.post(
        f"{server.url}/api/3.0/mlflow/users/permissions/grant",
        json={"username": alice.name, "resource_type": "experiment", "resource_id": exp_id,
              "permission": "NO_PERMISSIONS"},
        headers={"Authorization": f"Bearer {bob.token}"}, timeout=30)
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_PARAMETER_VALUE", r.text
    r = revoke(server, bob, alice.name, exp_id)
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_PARAMETER_VALUE", r.text
    with as_user(alice):
        assert client.get_run(run_id).data.params == {"secret_param": "s3cr3t"}
        client.rename_experiment(exp_id, f"{alice.home}/back-{unique}")
    grant(server, alice, carol.name, exp_id, "READ")  # alice still manages it
