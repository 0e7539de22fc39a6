"""MLflow's auth REST API, as admin scripts written for MLflow's basic-auth app call it:
through MLflow 3.17's own `AuthServiceClient` (users create / get / update-password /
update-admin / delete, per-user experiment permissions) and raw `requests`."""

import mlflow
import pytest
import requests

from auth_helpers import as_user, auth_service_client, credentials
from helpers import raises_code

pytestmark = pytest.mark.auth


@pytest.fixture
def admin_client(server):
    """`AuthServiceClient` signed in as the bootstrapped admin (HTTP basic, like MLflow's docs)."""
    with credentials(MLFLOW_TRACKING_USERNAME="admin", MLFLOW_TRACKING_PASSWORD=server.admin_password):
        yield auth_service_client()(server.url)


def basic_ok(server, username, password) -> int:
    """Status of an authenticated read with HTTP basic."""
    return requests.get(f"{server.url}/api/2.0/mlflow/users/current", auth=(username, password),
                        timeout=30).status_code


def test_user_lifecycle_with_the_stock_client(server, admin_client, unique):
    name = f"scripted-{unique}"
    user = admin_client.create_user(name, "first-pw-1")
    assert user.username == name and user.is_admin is False and isinstance(user.id, int)
    assert admin_client.get_user(name).id == user.id
    with raises_code("RESOURCE_ALREADY_EXISTS"):
        admin_client.create_user(name, "again-pw-12")
    assert basic_ok(server, name, "first-pw-1") == 200

    admin_client.update_user_password(name, "second-pw-2")
    assert basic_ok(server, name, "second-pw-2") == 200
    assert basic_ok(server, name, "first-pw-1") == 401

    admin_client.update_user_admin(name, True)
    assert admin_client.get_user(name).is_admin is True
    listed = requests.get(f"{server.url}/api/2.0/mlflow/users/list", auth=(name, "second-pw-2"), timeout=30)
    assert listed.status_code == 200 and name in {u["username"] for u in listed.json()["users"]}
    admin_client.update_user_admin(name, False)
    assert admin_client.get_user(name).is_admin is False

    admin_client.delete_user(name)
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        admin_client.get_user(name)
    assert basic_ok(server, name, "second-pw-2") == 401


def test_self_service_password_change_needs_the_current_one(server, make_user):
    erin = make_user("erin")
    with as_user(erin, basic=True):
        client = auth_service_client()(server.url)
        with raises_code("INVALID_PARAMETER_VALUE"):
            client.update_user_password(erin.name, "new-pw-123")
        client.update_user_password(erin.name, "new-pw-123", current_password=erin.password)
    assert basic_ok(server, erin.name, "new-pw-123") == 200


def test_non_admins_cannot_manage_users(server, make_user, unique):
    frank, grace = make_user("frank"), make_user("grace")
    with as_user(frank, basic=True):
        client = auth_service_client()(server.url)
        with raises_code("PERMISSION_DENIED"):
            client.create_user(f"intruder-{unique}", "intruder-pw-1")
        with raises_code("PERMISSION_DENIED"):
            client.update_user_admin(frank.name, True)
        with raises_code("PERMISSION_DENIED"):
            client.delete_user(grace.name)
        with raises_code("PERMISSION_DENIED"):
            client.get_user(grace.name)
        assert client.get_user(frank.name).is_admin is False
    r = requests.get(f"{server.url}/api/2.0/mlflow/users/list", auth=(frank.name, frank.password), timeout=30)
    assert r.status_code == 403 and r.json()["error_code"] == "PERMISSION_DENIED"
    assert "users" not in r.json()


def test_experiment_permissions_grant_get_revoke(server, admin_client, make_user, unique):
    owner, reader = make_user("owner"), make_user("reader")
    client = mlflow.MlflowClient(tracking_uri=server.url)
    with as_user(owner):
        exp_id = client.create_experiment(f"{owner.home}/perm-{unique}")
    got = admin_client.get_user_permission(reader.name, "experiment", exp_id)
    assert (got.permission, got.allowed) == ("NO_PERMISSIONS", False)

    admin_client.grant_user_permission(reader.name, "experiment", exp_id, "READ")
    got = admin_client.get_user_permission(reader.name, "experiment", exp_id)
    assert (got.permission, got.allowed) == ("READ", False)
    with as_user(reader):
        assert client.get_experiment(exp_id).name == f"{owner.home}/perm-{unique}"

    admin_client.grant_user_permission(reader.name, "experiment", exp_id, "EDIT")
    got = admin_client.get_user_permission(reader.name, "experiment", exp_id)
    assert (got.permission, got.allowed) == ("EDIT", True)
    assert admin_client.get_user_permission(owner.name, "experiment", exp_id).permission == "MANAGE"

    admin_client.revoke_user_permission(reader.name, "experiment", exp_id)
    with as_user(reader), raises_code("PERMISSION_DENIED"):
        client.get_experiment(exp_id)

    with raises_code("INVALID_PARAMETER_VALUE"):
        admin_client.grant_user_permission(reader.name, "experiment", exp_id, "SUPERUSER")
    with raises_code("INVALID_PARAMETER_VALUE"):
        admin_client.grant_user_permission(reader.name, "no_such_type", "m", "READ")
