"""Runs: a realistic logging session with the fluent API, params, metrics, tags, names."""

import re

import mlflow

from helpers import now_ms, raises_code


def test_logging_session(server, unique):
    exp = mlflow.set_experiment(f"/Users/alice@example.com/sft-{unique}")
    with mlflow.start_run(run_name="sft-baseline") as run:
        mlflow.log_param("lr", 0.01)
        mlflow.log_params({"batch_size": 32, "optimizer": "adamw", "model": "llama-3-8b"})
        for step in range(50):
            mlflow.log_metric("loss", 2.0 / (step + 1), step=step)
        mlflow.log_metrics({"accuracy": 0.91, "f1": 0.88}, step=49)
        mlflow.set_tag("team", "vision")
        mlflow.set_tags({"dataset": "imagenet-1k", "stage": "dev"})
        run_id = run.info.run_id
    assert re.fullmatch(r"[0-9a-f]{32}", run_id)

    got = mlflow.get_run(run_id)
    assert got.info.experiment_id == exp.experiment_id
    assert got.info.status == "FINISHED"
    assert got.info.run_name == "sft-baseline"
    assert got.info.end_time is not None and got.info.end_time >= got.info.start_time
    assert got.data.params == {
        "lr": "0.01", "batch_size": "32", "optimizer": "adamw", "model": "llama-3-8b",
    }
    assert got.data.metrics["loss"] == 2.0 / 50
    assert got.data.metrics["accuracy"] == 0.91
    assert got.data.tags["team"] == "vision"
    assert got.data.tags["dataset"] == "imagenet-1k"
    assert got.data.tags["mlflow.runName"] == "sft-baseline"
    assert "mlflow.user" in got.data.tags

    history = mlflow.MlflowClient().get_metric_history(run_id, "loss")
    assert [m.step for m in history] == list(range(50))
    assert [m.value for m in history] == [2.0 / (s + 1) for s in range(50)]


def test_generated_run_name_and_rename(client, experiment):
    run = client.create_run(experiment)
    name = run.info.run_name
    assert name and len(name) <= 40
    assert client.get_run(run.info.run_id).data.tags["mlflow.runName"] == name
    client.update_run(run.info.run_id, name="renamed")
    got = client.get_run(run.info.run_id)
    assert got.info.run_name == "renamed"
    assert got.data.tags["mlflow.runName"] == "renamed"
    client.set_tag(run.info.run_id, "mlflow.runName", "via-tag")
    assert client.get_run(run.info.run_id).info.run_name == "via-tag"


def test_latest_metric_is_max_step_not_last_logged(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    client.log_metric(run_id, "m", 5.0, timestamp=t, step=10)
    client.log_metric(run_id, "m", 1.0, timestamp=t + 1, step=3)  # older step, logged later
    assert client.get_run(run_id).data.metrics["m"] == 5.0
    client.log_metric(run_id, "m", 7.0, timestamp=t, step=11)
    assert client.get_run(run_id).data.metrics["m"] == 7.0
    assert len(client.get_metric_history(run_id, "m")) == 3


def test_negative_steps_and_same_step(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    client.log_metric(run_id, "warmup", 0.5, timestamp=t, step=-5)
    client.log_metric(run_id, "warmup", 0.6, timestamp=t + 1, step=-5)
    history = client.get_metric_history(run_id, "warmup")
    assert sorted((m.step, m.value) for m in history) == [(-5, 0.5), (-5, 0.6)]


def test_param_relog_same_value_ok_different_value_rejected(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    client.log_param(run_id, "lr", "0.01")
    client.log_param(run_id, "lr", "0.01")  # same value: a no-op
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.log_param(run_id, "lr", "0.02")
    assert client.get_run(run_id).data.params["lr"] == "0.01"


def test_tags_upsert_and_delete(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    client.set_tag(run_id, "note", "first")
    client.set_tag(run_id, "note", "second")
    assert client.get_run(run_id).data.tags["note"] == "second"
    client.delete_tag(run_id, "note")
    assert "note" not in client.get_run(run_id).data.tags
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.delete_tag(run_id, "note")


def test_terminate_with_status(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    assert client.get_run(run_id).info.status == "RUNNING"
    client.set_terminated(run_id, status="KILLED")
    got = client.get_run(run_id)
    assert got.info.status == "KILLED"
    assert got.info.end_time is not None


def test_long_param_value_and_key_limits(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    client.log_param(run_id, "prompt", "x" * 6000)
    assert client.get_run(run_id).data.params["prompt"] == "x" * 6000
    client.log_param(run_id, "k" * 250, "v")
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.log_param(run_id, "k" * 251, "v")
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.log_metric(run_id, "../escape", 1.0)
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.set_tag(run_id, "bad\nkey", "v")


def test_ajax_api_mirror_serves_the_same_run(server, client, experiment):
    run_id = client.create_run(experiment).info.run_id
    client.log_param(run_id, "p", "v")
    for prefix in ("api", "ajax-api"):
        r = server.http.get(f"{server.url}/{prefix}/2.0/mlflow/runs/get", params={"run_id": run_id})
        assert r.status_code == 200
        params = r.json()["run"]["data"]["params"]
        assert params == [{"key": "p", "value": "v"}]
