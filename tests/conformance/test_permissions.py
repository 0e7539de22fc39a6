"""Permissions through the stock client: private /Users/<name>/ experiments, grants made
with MLflow 3's per-user permission endpoints, Shared experiments and NO_PERMISSIONS."""

import mlflow
import pytest
from mlflow.entities import Metric, ViewType

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
