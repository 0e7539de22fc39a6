"""MLflow 3 logged models through the stock client: `mlflow.pyfunc.log_model`, then
`load_model` by `models:/<model_id>` and by `runs:/<run_id>/model` and predict; the
logged-model API (create, get, finalize, params, tags, search, delete) and metrics linked
to a model."""

import mlflow
import pandas as pd
import pytest
from mlflow.entities import LoggedModelStatus

from auth_helpers import as_user
from helpers import raises_code


class AddN(mlflow.pyfunc.PythonModel):
    """The smallest useful pyfunc model: adds `n` to every cell (no type hints, so MLflow
    warns that it will not validate inputs)."""

    def __init__(self, n: float):
        self.n = n

    def predict(self, context, model_input, params=None):
        return model_input + self.n


def log_and_load(experiment_name: str):
    """Logs an `AddN(2)` pyfunc model in a new run of `experiment_name`, loads it back by
    `models:/<model_id>` and by `runs:/<run_id>/model`, and checks its predictions; returns
    (run id, model info)."""
    mlflow.set_experiment(experiment_name)
    with mlflow.start_run() as run:
        mlflow.log_param("n", "2")
        # No requirement inference: it would run a subprocess and is not what is tested.
        info = mlflow.pyfunc.log_model(name="model", python_model=AddN(2), pip_requirements=[])
    assert info.model_id.startswith("m-")
    frame = pd.DataFrame({"x": [1.0, 2.5]})
    for uri in (f"models:/{info.model_id}", f"runs:/{run.info.run_id}/model"):
        loaded = mlflow.pyfunc.load_model(uri)
        assert loaded.predict(frame)["x"].tolist() == [3.0, 4.5], uri
    return run.info.run_id, info


def test_pyfunc_log_model_then_load_and_predict(server, unique):
    run_id, info = log_and_load(f"/Workspace/Shared/models-{unique}")

    client = mlflow.MlflowClient(tracking_uri=server.url)
    model = client.get_logged_model(info.model_id)
    assert model.status == LoggedModelStatus.READY
    assert (model.name, model.source_run_id) == ("model", run_id)
    assert model.artifact_location.endswith(f"/models/{info.model_id}/artifacts")
    # log_model copies the run's params onto the model.
    assert model.params == {"n": "2"}
    outputs = client.get_run(run_id).outputs.model_outputs
    assert [o.model_id for o in outputs] == [info.model_id]
    # The model's files, listed through the run (runs:/ resolves them by searching models).
    names = {f.path for f in mlflow.artifacts.list_artifacts(run_id=run_id, artifact_path="model")}
    assert "model/MLmodel" in names


def test_logged_model_lifecycle(client, experiment):
    m = client.create_logged_model(experiment, name="clf", params={"lr": "0.1"},
                                   tags={"team": "a"}, model_type="classifier")
    assert m.model_id.startswith("m-") and len(m.model_id) == 34
    assert m.status == LoggedModelStatus.PENDING
    assert (m.experiment_id, m.name, m.model_type) == (experiment, "clf", "classifier")
    assert m.artifact_location.endswith(f"/{experiment}/models/{m.model_id}/artifacts")
    client.log_model_params(m.model_id, {"depth": "3"})
    client.set_logged_model_tags(m.model_id, {"stage": "dev"})
    client.delete_logged_model_tag(m.model_id, "team")
    done = client.finalize_logged_model(m.model_id, LoggedModelStatus.READY)
    assert done.status == LoggedModelStatus.READY
    got = client.get_logged_model(m.model_id)
    assert got.params == {"lr": "0.1", "depth": "3"}
    assert got.tags == {"stage": "dev"}
    assert got.last_updated_timestamp >= got.creation_timestamp
    found = client.search_logged_models([experiment], filter_string="name = 'clf'")
    assert [x.model_id for x in found] == [m.model_id]

    client.delete_logged_model(m.model_id)
    with raises_code("RESOURCE_DOES_NOT_EXIST", "not found"):
        client.get_logged_model(m.model_id)
    assert list(client.search_logged_models([experiment])) == []


def test_unnamed_model_gets_a_random_name(client, experiment):
    a, b = client.create_logged_model(experiment), client.create_logged_model(experiment)
    assert a.name and b.name and a.model_id != b.model_id
    assert not a.source_run_id


def test_search_filters_orders_and_pages(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    ids = []
    for i in range(3):
        m = client.create_logged_model(experiment, name=f"m{i}", params={"i": str(i)},
                                       tags={"even": str(i % 2 == 0)})
        client.log_metric(run_id, "acc", 0.5 + i / 10, step=i, model_id=m.model_id)
        ids.append(m.model_id)

    def search(filter_string=None, **kw):
        return [m.model_id for m in client.search_logged_models(
            [experiment], filter_string=filter_string, **kw)]

    assert search("params.i = '1'") == [ids[1]]
    assert set(search("tags.even = 'True'")) == {ids[0], ids[2]}
    assert set(search("metrics.acc > 0.55")) == {ids[1], ids[2]}
    assert search("name LIKE 'm%' AND params.i != '0'", order_by=[
        {"field_name": "name", "ascending": True}]) == ids[1:]
    assert search(order_by=[{"field_name": "metrics.acc", "ascending": False}]) == ids[::-1]
    # Newest first by default.
    assert search() == ids[::-1]

    order = [{"field_name": "name", "ascending": True}]
    page = client.search_logged_models([experiment], max_results=2, order_by=order)
    assert [m.name for m in page] == ["m0", "m1"] and page.token
    rest = client.search_logged_models([experiment], max_results=2, order_by=order,
                                       page_token=page.token)
    assert [m.name for m in rest] == ["m2"] and not rest.token

    # Metrics logged with a model_id are the model's metrics.
    model = client.get_logged_model(ids[2])
    assert [(x.key, x.value, x.step, x.run_id) for x in model.metrics] == [
        ("acc", 0.7, 2, run_id)]


def test_bad_requests_get_mlflow_errors(client, experiment):
    with raises_code("RESOURCE_DOES_NOT_EXIST", "not found"):
        client.get_logged_model("m-00000000000000000000000000000000")
    with raises_code("INVALID_PARAMETER_VALUE", "Invalid model name"):
        client.create_logged_model(experiment, name="a/b")
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.create_logged_model("987654321", name="nowhere")
    m = client.create_logged_model(experiment, name="tagged")
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.delete_logged_model_tag(m.model_id, "no-such-tag")
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.search_logged_models([experiment], filter_string="bogus")
    with raises_code("INVALID_PARAMETER_VALUE", "Invalid order by field name"):
        client.search_logged_models([experiment], order_by=[{"field_name": "bogus"}])


@pytest.mark.auth
@pytest.mark.parametrize("basic", [False, True], ids=["token", "basic"])
def test_a_users_models_round_trip_and_stay_private(server, make_user, unique, basic):
    alice, bob = make_user("alice"), make_user("bob")
    with as_user(alice, basic=basic):
        _, info = log_and_load(f"{alice.home}/models-{unique}")
        experiment_id = mlflow.MlflowClient(tracking_uri=server.url).get_logged_model(
            info.model_id).experiment_id
    with as_user(bob, basic=basic):
        client = mlflow.MlflowClient(tracking_uri=server.url)
        with raises_code("PERMISSION_DENIED"):
            client.get_logged_model(info.model_id)
        with raises_code("PERMISSION_DENIED"):
            client.search_logged_models([experiment_id])
        with raises_code("PERMISSION_DENIED"):
            mlflow.pyfunc.load_model(f"models:/{info.model_id}")


def test_active_model_gets_the_runs_metrics(server, unique):
    mlflow.set_experiment(f"/Workspace/Shared/active-model-{unique}")
    active = mlflow.set_active_model(name=f"agent-{unique}")
    # Set again by name: the same model is found (by searching its name), not a new one.
    assert mlflow.set_active_model(name=f"agent-{unique}").model_id == active.model_id
    try:
        with mlflow.start_run() as run:
            mlflow.log_metric("score", 0.9, step=3)
    finally:
        mlflow.clear_active_model()
    client = mlflow.MlflowClient(tracking_uri=server.url)
    model = client.get_logged_model(active.model_id)
    assert [(m.key, m.value, m.step, m.run_id) for m in model.metrics] == [
        ("score", 0.9, 3, run.info.run_id)]
    inputs = client.get_run(run.info.run_id).inputs.model_inputs
    assert [m.model_id for m in inputs] == [active.model_id]
