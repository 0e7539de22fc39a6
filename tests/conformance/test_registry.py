"""The model registry through the stock client: `mlflow.register_model` from a logged
pyfunc model, `search_registered_models`, versions, aliases and stages, and loading a
registered model by version and by alias (`models:/name/1`, `models:/name@champion`) and
predicting; MLflow's error codes; registered-model permissions (runlens' users)."""

import warnings

import mlflow
import pandas as pd
import pytest

from auth_helpers import as_user, auth_service_client
from helpers import raises_code


class AddN(mlflow.pyfunc.PythonModel):
    """The smallest useful pyfunc model: adds `n` to every cell."""

    def __init__(self, n: float):
        self.n = n

    def predict(self, context, model_input, params=None):
        return model_input + self.n


FRAME = pd.DataFrame({"x": [1.0, 2.5]})


def log_pyfunc(experiment_name: str, n: float):
    """A run with a logged pyfunc model adding `n`; returns (run id, model info)."""
    mlflow.set_experiment(experiment_name)
    with mlflow.start_run() as run:
        # No requirement inference: it would run a subprocess and is not what is tested.
        info = mlflow.pyfunc.log_model(name="model", python_model=AddN(n), pip_requirements=[])
    return run.info.run_id, info


def register_load_and_predict(server, unique):
    """Registers a logged model, aliases it and loads it back by version and by alias."""
    name = f"adder-{unique}"
    run_id, info = log_pyfunc(f"/Workspace/Shared/registry-{unique}", 3)
    mv = mlflow.register_model(f"models:/{info.model_id}", name)
    assert (mv.name, mv.version, mv.status) == (name, "1", "READY")
    assert mv.run_id == run_id

    client = mlflow.MlflowClient(tracking_uri=server.url)
    found = client.search_registered_models(filter_string=f"name = '{name}'")
    assert [m.name for m in found] == [name]
    assert [v.version for v in found[0].latest_versions] == ["1"]
    got = client.get_model_version(name, "1")
    assert (got.source, got.run_id, got.current_stage) == (f"models:/{info.model_id}", run_id, "None")

    client.set_registered_model_alias(name, "champion", "1")
    assert client.get_model_version_by_alias(name, "champion").version == "1"
    assert client.get_registered_model(name).aliases == {"champion": "1"}

    for uri in (f"models:/{name}/1", f"models:/{name}@champion", f"models:/{name}/latest"):
        loaded = mlflow.pyfunc.load_model(uri)
        assert loaded.predict(FRAME)["x"].tolist() == [4.0, 5.5], uri
    # `runs:/<run>/model` of an MLflow 3 run registers its logged model.
    again = mlflow.register_model(f"runs:/{run_id}/model", name)
    assert again.version == "2"
    assert client.get_model_version(name, "2").source == f"models:/{info.model_id}"
    return name


def test_register_logged_model_then_load_by_version_and_alias(server, unique):
    register_load_and_predict(server, unique)


@pytest.mark.auth
def test_register_and_load_as_a_basic_auth_user(server, make_user, unique):
    dana = make_user("dana")
    with as_user(dana, basic=True):
        name = register_load_and_predict(server, unique)
        client = mlflow.MlflowClient(tracking_uri=server.url)
        assert client.get_registered_model(name).name == name


def test_registered_model_crud_and_errors(client, unique):
    name = f"crud-{unique}"
    rm = client.create_registered_model(name, tags={"team": "cv"}, description="first")
    assert (rm.name, rm.description, rm.tags) == (name, "first", {"team": "cv"})
    with raises_code("RESOURCE_ALREADY_EXISTS", "already exists"):
        client.create_registered_model(name)
    with raises_code("RESOURCE_DOES_NOT_EXIST", "not found"):
        client.get_registered_model(f"nope-{unique}")
    with raises_code("INVALID_PARAMETER_VALUE", "Names cannot contain '/' or ':'"):
        client.create_registered_model(f"a/{unique}")

    assert client.update_registered_model(name, description="second").description == "second"
    client.set_registered_model_tag(name, "stage", "dev")
    client.delete_registered_model_tag(name, "team")
    assert client.get_registered_model(name).tags == {"stage": "dev"}

    client.rename_registered_model(name, f"{name}-renamed")
    assert client.get_registered_model(f"{name}-renamed").tags == {"stage": "dev"}
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.get_registered_model(name)
    client.delete_registered_model(f"{name}-renamed")
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.get_registered_model(f"{name}-renamed")


def test_search_filters_and_pages(client, unique):
    names = [f"page-{unique}-{i}" for i in range(3)]
    for n in reversed(names):
        client.create_registered_model(n)
    found = client.search_registered_models(filter_string=f"name LIKE 'page-{unique}-%'",
                                            max_results=2)
    assert [m.name for m in found] == names[:2] and found.token
    rest = client.search_registered_models(filter_string=f"name LIKE 'page-{unique}-%'",
                                           max_results=2, page_token=found.token)
    assert [m.name for m in rest] == names[2:] and not rest.token
    desc = client.search_registered_models(filter_string=f"name LIKE 'page-{unique}-%'",
                                           order_by=["name DESC"])
    assert [m.name for m in desc] == names[::-1]
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.search_registered_models(filter_string="bogus = 'x'")


def test_versions_aliases_and_stages(client, experiment, unique):
    name = f"versions-{unique}"
    run_id = client.create_run(experiment).info.run_id
    client.create_registered_model(name)
    for _ in range(3):
        client.create_model_version(name, f"runs:/{run_id}/model", run_id=run_id)
    mv = client.get_model_version(name, "2")
    assert (mv.version, mv.run_id, mv.status) == ("2", run_id, "READY")
    assert client.get_model_version_download_uri(name, "2") == f"runs:/{run_id}/model"
    client.update_model_version(name, "2", description="better")
    assert client.get_model_version(name, "2").description == "better"
    client.set_model_version_tag(name, "2", "k", "v")
    assert client.get_model_version(name, "2").tags == {"k": "v"}
    client.delete_model_version_tag(name, "2", "k")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        client.transition_model_version_stage(name, "1", "Production")
        moved = client.transition_model_version_stage(name, "2", "production",
                                                      archive_existing_versions=True)
        assert moved.current_stage == "Production"
        assert client.get_model_version(name, "1").current_stage == "Archived"
        latest = client.get_latest_versions(name, stages=["Production"])
        assert [v.version for v in latest] == ["2"]

    client.set_registered_model_alias(name, "champion", "3")
    assert client.get_model_version_by_alias(name, "champion").aliases == ["champion"]
    # Search leaves aliases out; no version names its user.
    searched = {v.version: v for v in client.search_model_versions(f"name = '{name}'")}
    assert searched["3"].aliases == [] and not searched["3"].user_id
    with raises_code("INVALID_PARAMETER_VALUE", "reserved"):
        client.set_registered_model_alias(name, "latest", "1")
    with raises_code("INVALID_PARAMETER_VALUE", "not found"):
        client.get_model_version_by_alias(name, "nobody")
    client.delete_registered_model_alias(name, "champion")
    assert client.get_registered_model(name).aliases == {}

    client.delete_model_version(name, "3")
    with raises_code("RESOURCE_DOES_NOT_EXIST", "not found"):
        client.get_model_version(name, "3")
    assert client.create_model_version(name, f"runs:/{run_id}/model", run_id=run_id).version == "4"
    by_run = client.search_model_versions(f"run_id = '{run_id}'")
    assert sorted(int(v.version) for v in by_run) == [1, 2, 4]
    with raises_code("INVALID_PARAMETER_VALUE", "Invalid model version source"):
        client.create_model_version(name, f"runs:/{run_id}/model")


@pytest.mark.runlens_only
def test_archiving_from_an_inactive_stage_is_a_400(client, experiment, unique):
    """MLflow answers a 500 INTERNAL_ERROR (which clients retry); runlens a 400."""
    name = f"inactive-{unique}"
    run_id = client.create_run(experiment).info.run_id
    client.create_registered_model(name)
    client.create_model_version(name, f"runs:/{run_id}/model", run_id=run_id)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with raises_code("INVALID_PARAMETER_VALUE", "not an Active stage"):
            client.transition_model_version_stage(name, "1", "None",
                                                  archive_existing_versions=True)


@pytest.mark.auth
def test_registered_model_permissions(server, make_user, unique):
    """The creator manages; others see nothing until granted, through MLflow 3's
    per-user permission endpoints (`resource_type` `registered_model`)."""
    alice, bob = make_user("alice"), make_user("bob")
    name = f"private-{unique}"
    with as_user(alice):
        client = mlflow.MlflowClient(tracking_uri=server.url)
        client.create_registered_model(name)
    with as_user(bob):
        client = mlflow.MlflowClient(tracking_uri=server.url)
        with raises_code("PERMISSION_DENIED"):
            client.get_registered_model(name)
        assert name not in {m.name for m in client.search_registered_models()}
        client.create_registered_model(f"{name}-bobs")  # anyone signed in may create
        with raises_code("PERMISSION_DENIED"):
            client.delete_registered_model(name)
    with as_user(alice, basic=True):
        auth = auth_service_client()(server.url)
        auth.grant_user_permission(bob.name, "registered_model", name, "READ")
        assert auth.get_user_permission(bob.name, "registered_model", name).permission == "READ"
    with as_user(bob):
        client = mlflow.MlflowClient(tracking_uri=server.url)
        assert client.get_registered_model(name).name == name
        assert name in {m.name for m in client.search_registered_models()}
        with raises_code("PERMISSION_DENIED"):
            client.update_registered_model(name, description="mine now")
