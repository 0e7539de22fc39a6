"""runs/log-inputs: datasets logged as a run's inputs come back in the run's `inputs`
(get_run and search_runs), de-duplicated, with their context tag; logged models a run takes
as input come back in `inputs.model_inputs`."""

import json

import mlflow
from mlflow.data.dataset import Dataset as DataDataset
from mlflow.data.http_dataset_source import HTTPDatasetSource
from mlflow.entities import Dataset, DatasetInput, InputTag, LoggedModelInput

import pandas as pd


class UrlDataset(DataDataset):
    """A dataset known by its URL alone: the smallest `mlflow.data.dataset.Dataset` for
    `mlflow.log_input` (mlflow-skinny's built-in ones need numpy or pandas)."""

    def _compute_digest(self) -> str:
        return "f1u3n7"

    @property
    def profile(self):
        return None

    @property
    def schema(self):
        return None


def dataset(name: str, digest: str) -> Dataset:
    return Dataset(
        name=name, digest=digest, source_type="http",
        source=json.dumps({"url": f"https://data.example.com/{name}.csv"}),
        schema=json.dumps({"mlflow_colspec": [{"type": "double", "name": "x", "required": True}]}),
        profile=json.dumps({"num_rows": 1000}),
    )


def context(value: str) -> list[InputTag]:
    return [InputTag("mlflow.data.context", value)]


def inputs_of(run) -> dict[tuple[str, str], tuple[Dataset, dict[str, str]]]:
    """The run's dataset inputs by (name, digest): the dataset and its input tags."""
    return {(i.dataset.name, i.dataset.digest): (i.dataset, {t.key: t.value for t in i.tags})
            for i in run.inputs.dataset_inputs}


def test_logged_dataset_comes_back_with_the_run(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    train, evals = dataset("train", "d1g3st01"), dataset("eval", "d1g3st02")
    client.log_inputs(run_id, datasets=[DatasetInput(train, context("training")),
                                        DatasetInput(evals, context("eval"))])
    got = inputs_of(client.get_run(run_id))
    assert set(got) == {("train", "d1g3st01"), ("eval", "d1g3st02")}
    ds, tags = got[("train", "d1g3st01")]
    assert (ds.source_type, ds.source, ds.schema, ds.profile) == (
        train.source_type, train.source, train.schema, train.profile)
    assert tags == {"mlflow.data.context": "training"}
    assert got[("eval", "d1g3st02")][1] == {"mlflow.data.context": "eval"}
    # search_runs returns the inputs too.
    [found] = client.search_runs([experiment], f"attributes.run_id = '{run_id}'")
    assert set(inputs_of(found)) == set(got)


def test_logging_a_dataset_again_does_not_duplicate_it(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    train = dataset("train", "d1g3st03")
    for _ in range(2):
        client.log_inputs(run_id, datasets=[DatasetInput(train, context("training"))])
    assert len(client.get_run(run_id).inputs.dataset_inputs) == 1
    # The same dataset in a second run of the experiment is that run's input too.
    other = client.create_run(experiment).info.run_id
    client.log_inputs(other, datasets=[DatasetInput(train, context("training"))])
    assert set(inputs_of(client.get_run(other))) == {("train", "d1g3st03")}


def test_fluent_log_input(server, unique):
    mlflow.set_experiment(f"/Workspace/Shared/inputs-{unique}")
    ds = UrlDataset(HTTPDatasetSource("https://data.example.com/fluent.csv"), name="fluent")
    with mlflow.start_run() as run:
        mlflow.log_input(ds, context="training")
    got = inputs_of(mlflow.MlflowClient(tracking_uri=server.url).get_run(run.info.run_id))
    assert list(got) == [("fluent", "f1u3n7")]
    logged, tags = got[("fluent", "f1u3n7")]
    assert json.loads(logged.source) == {"url": "https://data.example.com/fluent.csv"}
    assert logged.source_type == "http"
    assert tags == {"mlflow.data.context": "training"}


def test_pandas_dataset_logged_with_fluent_log_input(server, unique):
    mlflow.set_experiment(f"/Workspace/Shared/inputs-pandas-{unique}")
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [0, 1, 0]})
    ds = mlflow.data.from_pandas(df, name="tiny-frame", targets="y")
    with mlflow.start_run() as run:
        mlflow.log_input(ds, context="training")
    got = inputs_of(mlflow.MlflowClient(tracking_uri=server.url).get_run(run.info.run_id))
    assert list(got) == [("tiny-frame", ds.digest)]
    logged, tags = got[("tiny-frame", ds.digest)]
    assert tags == {"mlflow.data.context": "training"}
    sent = ds.to_dict()  # what log_input sends (mlflow-skinny infers no schema: None)
    assert (logged.source_type, logged.source, logged.schema, logged.profile) == (
        sent["source_type"], sent["source"], sent["schema"], sent["profile"])
    assert json.loads(logged.profile)["num_rows"] == 3


def test_model_inputs_come_back_with_the_run(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    model = client.create_logged_model(experiment, name="consumed")
    client.log_inputs(run_id, models=[LoggedModelInput(model.model_id)])
    run = client.get_run(run_id)
    assert [m.model_id for m in run.inputs.model_inputs] == [model.model_id]
    assert run.inputs.dataset_inputs == []


def test_search_runs_filters_on_dataset_name_digest_and_context(client, experiment):
    """`dataset.name`, `dataset.digest` and `dataset.context` match any of a run's inputs
    (a run with none never matches; the other run's dataset does not leak across)."""
    with_train = client.create_run(experiment).info.run_id
    with_eval = client.create_run(experiment).info.run_id
    client.create_run(experiment)  # no inputs
    client.log_inputs(with_train, datasets=[DatasetInput(dataset("train", "aa11"), context("training"))])
    client.log_inputs(with_eval, datasets=[DatasetInput(dataset("eval", "bb22"), context("eval"))])

    def ids(f: str) -> set[str]:
        return {r.info.run_id for r in client.search_runs([experiment], f)}

    assert ids("dataset.name = 'train'") == {with_train}
    assert ids("dataset.digest = 'bb22'") == {with_eval}
    assert ids("dataset.context = 'eval'") == {with_eval}
    assert ids("dataset.name IN ('train', 'eval')") == {with_train, with_eval}
    assert ids("dataset.name LIKE 'tr%'") == {with_train}
    assert ids("dataset.name = 'train' AND dataset.context = 'training'") == {with_train}
    assert ids("dataset.name = 'nope'") == set()
