"""Run lifecycle: nested, failed, resumed, deleted and restored runs; system metrics."""

import time

import mlflow
import pytest
from mlflow.entities import ViewType

from helpers import raises_code


def test_nested_runs_carry_parent_tag(server, unique):
    exp = mlflow.set_experiment(f"/Workspace/Shared/sweep-{unique}")
    with mlflow.start_run(run_name="sweep") as parent:
        children = []
        for lr in ("0.1", "0.01", "0.001"):
            with mlflow.start_run(run_name=f"lr={lr}", nested=True) as child:
                mlflow.log_param("lr", lr)
                children.append(child.info.run_id)
    client = mlflow.MlflowClient()
    for child_id in children:
        assert client.get_run(child_id).data.tags["mlflow.parentRunId"] == parent.info.run_id
    found = client.search_runs(
        [exp.experiment_id], filter_string=f"tags.mlflow.parentRunId = '{parent.info.run_id}'"
    )
    assert sorted(r.info.run_id for r in found) == sorted(children)
    assert "mlflow.parentRunId" not in client.get_run(parent.info.run_id).data.tags


def test_exception_inside_with_marks_run_failed(server, unique):
    mlflow.set_experiment(f"/Users/alice@example.com/failing-{unique}")
    with pytest.raises(RuntimeError):
        with mlflow.start_run() as run:
            mlflow.log_metric("loss", 3.0, step=0)
            raise RuntimeError("CUDA out of memory")
    got = mlflow.MlflowClient().get_run(run.info.run_id)
    assert got.info.status == "FAILED"
    assert got.info.end_time is not None
    assert got.data.metrics["loss"] == 3.0


def test_resume_run_by_id(server, unique):
    mlflow.set_experiment(f"/Users/alice@example.com/resume-{unique}")
    with mlflow.start_run(run_name="attempt") as first:
        mlflow.log_param("seed", 7)
        for step in range(5):
            mlflow.log_metric("loss", 1.0 - step / 10, step=step)
    run_id = first.info.run_id
    client = mlflow.MlflowClient()
    assert client.get_run(run_id).info.status == "FINISHED"

    with mlflow.start_run(run_id=run_id) as resumed:
        assert resumed.info.run_id == run_id
        assert client.get_run(run_id).info.status == "RUNNING"
        for step in range(5, 10):
            mlflow.log_metric("loss", 1.0 - step / 10, step=step)
        mlflow.log_param("seed", 7)  # same value re-logged: allowed
    got = client.get_run(run_id)
    assert got.info.status == "FINISHED"
    assert got.info.run_name == "attempt"
    assert [m.step for m in sorted(client.get_metric_history(run_id, "loss"), key=lambda m: m.step)] == list(range(10))
    assert got.data.metrics["loss"] == pytest.approx(0.1)


def test_delete_and_restore_run(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    client.log_param(run_id, "p", "1")
    client.delete_run(run_id)
    assert client.get_run(run_id).info.lifecycle_stage == "deleted"
    assert client.search_runs([experiment]) == []
    deleted = client.search_runs([experiment], run_view_type=ViewType.DELETED_ONLY)
    assert [r.info.run_id for r in deleted] == [run_id]
    assert len(client.search_runs([experiment], run_view_type=ViewType.ALL)) == 1
    # Logging into a deleted run is refused.
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.log_metric(run_id, "m", 1.0)
    client.restore_run(run_id)
    assert client.get_run(run_id).info.lifecycle_stage == "active"
    assert [r.info.run_id for r in client.search_runs([experiment])] == [run_id]
    client.log_metric(run_id, "m", 1.0)


def test_missing_run(client):
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.get_run("0123456789abcdef0123456789abcdef")
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.log_param("0123456789abcdef0123456789abcdef", "p", "v")
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.delete_run("0123456789abcdef0123456789abcdef")


def test_run_in_missing_experiment(client):
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.create_run("987654321")


def test_system_metrics_are_logged(server, unique):
    mlflow.set_experiment(f"/Users/alice@example.com/sysmetrics-{unique}")
    with mlflow.start_run(log_system_metrics=True) as run:
        time.sleep(3.5)  # sampling interval is 1 s (conftest)
    client = mlflow.MlflowClient()
    metrics = client.get_run(run.info.run_id).data.metrics
    assert "system/cpu_utilization_percentage" in metrics, sorted(metrics)
    assert "system/system_memory_usage_megabytes" in metrics
    history = client.get_metric_history(run.info.run_id, "system/cpu_utilization_percentage")
    assert len(history) >= 2
    assert sorted(m.step for m in history) == list(range(len(history)))
    assert all(0.0 <= m.value <= 100.0 for m in history)
