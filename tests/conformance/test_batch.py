"""log_batch at MLflow's limits, NaN/±inf round trips, and paged metric history."""

import math

import pytest
from mlflow.entities import Metric, Param, RunTag

from helpers import now_ms, raises_code, same_float


def rest_store(client):
    """The client's REST store: it sends one request per call, without client-side chunking."""
    return client._tracking_client.store


def test_batches_at_the_limits(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    store = rest_store(client)
    # 1000 metrics in one request, then 100 params in one request.
    store.log_batch(run_id, metrics=[Metric("loss", 1.0 / (i + 1), t + i, i) for i in range(1000)],
                    params=[], tags=[])
    store.log_batch(run_id, metrics=[], params=[Param(f"p{i:03d}", str(i)) for i in range(100)], tags=[])
    # 1000 entities in all: 900 metrics + 50 params + 50 tags.
    store.log_batch(run_id, metrics=[Metric("acc", i / 1000, t + i, i) for i in range(900)],
                    params=[Param(f"q{i:02d}", "x") for i in range(50)],
                    tags=[RunTag(f"t{i:02d}", "y") for i in range(50)])
    got = client.get_run(run_id)
    assert len(got.data.params) == 150
    assert got.data.params["p042"] == "42"
    assert got.data.tags["t07"] == "y"
    assert got.data.metrics["loss"] == 1.0 / 1000
    assert got.data.metrics["acc"] == 899 / 1000
    history = client.get_metric_history(run_id, "loss")
    assert len(history) == 1000
    assert sorted(m.step for m in history) == list(range(1000))


def test_batch_over_limits_rejected(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    store = rest_store(client)
    with raises_code("INVALID_PARAMETER_VALUE"):
        store.log_batch(run_id, metrics=[Metric("m", 1.0, t, i) for i in range(1001)], params=[], tags=[])
    with raises_code("INVALID_PARAMETER_VALUE"):
        store.log_batch(run_id, metrics=[], params=[Param(f"p{i}", "v") for i in range(101)], tags=[])
    with raises_code("INVALID_PARAMETER_VALUE"):
        store.log_batch(run_id, metrics=[], params=[], tags=[RunTag(f"t{i}", "v") for i in range(101)])
    with raises_code("INVALID_PARAMETER_VALUE"):  # 1001 entities in all
        store.log_batch(run_id, metrics=[Metric("m", 1.0, t, i) for i in range(901)],
                        params=[Param(f"p{i}", "v") for i in range(100)], tags=[])
    got = client.get_run(run_id)
    assert "m" not in got.data.metrics
    assert not any(k.startswith("p") for k in got.data.params)
    assert client.get_metric_history(run_id, "m") == []


def test_rejected_batch_stores_nothing(client, experiment):
    # Every part but the last is valid: a new param and a valid metric, then a tag whose key
    # is invalid (tags are checked last). Checking everything before the first write is not
    # enough: the batch must store nothing even though its param and metric were fine.
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    with raises_code("INVALID_PARAMETER_VALUE"):
        rest_store(client).log_batch(run_id, metrics=[Metric("fine_metric", 0.5, t, 3)],
                                     params=[Param("fine_param", "1")],
                                     tags=[RunTag("fine_tag", "x"), RunTag("bad tag!", "x")])
    got = client.get_run(run_id)
    assert "fine_param" not in got.data.params
    assert "fine_metric" not in got.data.metrics
    assert "fine_tag" not in got.data.tags
    assert client.get_metric_history(run_id, "fine_metric") == []
    # The same param can still be logged with any value (nothing half-written blocks it).
    client.log_param(run_id, "fine_param", "2")
    assert client.get_run(run_id).data.params["fine_param"] == "2"

    # An error only found while writing: a new param, then one that changes a logged value.
    with raises_code("INVALID_PARAMETER_VALUE"):
        rest_store(client).log_batch(run_id, metrics=[Metric("later_metric", 0.5, t, 4)],
                                     params=[Param("new_param", "1"), Param("fine_param", "3")],
                                     tags=[RunTag("later_tag", "x")])
    got = client.get_run(run_id)
    assert got.data.params == {"fine_param": "2"}
    assert "later_metric" not in got.data.metrics and "later_tag" not in got.data.tags
    assert client.get_metric_history(run_id, "later_metric") == []


def test_client_chunks_large_batches(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    client.log_batch(run_id, metrics=[Metric("big", float(i), t, i) for i in range(2500)])
    assert len(client.get_metric_history(run_id, "big")) == 2500
    assert client.get_run(run_id).data.metrics["big"] == 2499.0


def test_duplicate_param_keys_in_batch_rejected(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    with raises_code("INVALID_PARAMETER_VALUE"):
        rest_store(client).log_batch(
            run_id, metrics=[], params=[Param("a", "1"), Param("a", "2")], tags=[]
        )


def test_nan_round_trips(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    values = [1.5, math.nan, -0.25, 1e308, 5e-324, math.nan]
    client.log_batch(run_id, metrics=[Metric("odd", v, t + i, i) for i, v in enumerate(values)])
    history = sorted(client.get_metric_history(run_id, "odd"), key=lambda m: m.step)
    assert [m.step for m in history] == list(range(len(values)))
    for m, v in zip(history, values):
        assert same_float(m.value, v), (m.step, m.value, v)
    # The latest value (max step) is NaN; log a number at a later step and it takes over.
    assert math.isnan(client.get_run(run_id).data.metrics["odd"])
    client.log_metric(run_id, "odd", 2.5, timestamp=t, step=100)
    assert client.get_run(run_id).data.metrics["odd"] == 2.5


@pytest.mark.runlens_only  # MLflow's SQL store clamps ±inf to ±1.7976931348623157e308
def test_infinities_are_kept_exactly(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    values = [math.inf, -math.inf, 1.0, math.inf]
    client.log_batch(run_id, metrics=[Metric("inf", v, t + i, i) for i, v in enumerate(values)])
    history = sorted(client.get_metric_history(run_id, "inf"), key=lambda m: m.step)
    assert [m.value for m in history] == values
    assert client.get_run(run_id).data.metrics["inf"] == math.inf


def test_history_pages_past_25000_points(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    n = 26_500
    for start in range(0, n, 1000):
        client.log_batch(
            run_id,
            metrics=[Metric("long", float(s % 97), t + s, s) for s in range(start, min(n, start + 1000))],
        )
    history = client.get_metric_history(run_id, "long")
    assert len(history) == n
    assert sorted(m.step for m in history) == list(range(n))
    assert {m.step: m.value for m in history}[12_345] == float(12_345 % 97)


def test_negative_timestamp_rejected(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    with raises_code("INVALID_PARAMETER_VALUE"):
        rest_store(client).log_batch(run_id, metrics=[Metric("m", 1.0, -1, 0)], params=[], tags=[])


def test_values_round_trip_bit_exactly(client, experiment):
    run_id = client.create_run(experiment).info.run_id
    t = now_ms()
    values = [0.1 + 0.2, 1 / 3, 2 / 11, 2.0 / 11, 0.18181818181818182, 1e-300, -123456.789e10,
              2 ** 53 + 1.0, 9007199254740993.0, 3.141592653589793, 1.7976931348623157e308]
    client.log_batch(run_id, metrics=[Metric("exact", v, t, i) for i, v in enumerate(values)])
    got = {m.step: m.value for m in client.get_metric_history(run_id, "exact")}
    assert [got[i] for i in range(len(values))] == values
