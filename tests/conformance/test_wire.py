"""The wire itself: JSON shapes, encodings, statuses and error bodies, as raw HTTP (as the
administrator: `server.http` carries its Bearer token)."""

import pytest
import requests

API = "/api/2.0/mlflow"


def post(server, path, body=None, **kw):
    return server.http.post(f"{server.url}{API}/{path}", json=body, timeout=30, **kw)


def get(server, path, **params):
    return server.http.get(f"{server.url}{API}/{path}", params=params, timeout=30)


def assert_error(resp, status, code):
    assert resp.status_code == status, (resp.status_code, resp.text)
    body = resp.json()
    assert body["error_code"] == code, body
    assert isinstance(body["message"], str) and body["message"]


def test_health(server):
    r = requests.get(f"{server.url}/health", timeout=5)
    assert r.status_code == 200


def test_run_json_shape(server, experiment):
    r = post(server, "runs/create", {"experiment_id": experiment, "start_time": 1700000000000,
                                     "tags": [{"key": "k", "value": "v"}], "run_name": "shape"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
    run = r.json()["run"]
    info = run["info"]
    assert info["run_id"] == info["run_uuid"]
    assert info["experiment_id"] == experiment
    assert info["status"] == "RUNNING"
    assert info["start_time"] == 1700000000000  # int64 as a JSON number
    assert info["lifecycle_stage"] == "active"
    assert info["run_name"] == "shape"
    assert {"key": "k", "value": "v"} in run["data"]["tags"]

    r = post(server, "runs/log-metric", {"run_id": info["run_id"], "key": "x", "value": "NaN",
                                         "timestamp": 1700000000001, "step": 3})
    assert r.status_code == 200 and r.json() == {}
    metrics = {m["key"]: m for m in get(server, "runs/get", run_id=info["run_id"]).json()["run"]["data"]["metrics"]}
    assert metrics["x"]["value"] == "NaN"
    assert metrics["x"]["step"] == 3 and metrics["x"]["timestamp"] == 1700000000001


@pytest.mark.runlens_only  # MLflow answers ±1.7976931348623157e308 for logged infinities
def test_infinity_encoding(server, experiment):
    run_id = post(server, "runs/create", {"experiment_id": experiment}).json()["run"]["info"]["run_id"]
    for key, value in (("pos", "Infinity"), ("neg", "-Infinity")):
        r = post(server, "runs/log-metric", {"run_id": run_id, "key": key, "value": value,
                                             "timestamp": 1700000000001, "step": 0})
        assert r.status_code == 200, r.text
    metrics = {m["key"]: m["value"] for m in get(server, "runs/get", run_id=run_id).json()["run"]["data"]["metrics"]}
    assert metrics == {"pos": "Infinity", "neg": "-Infinity"}


def test_experiment_json_shape(server, experiment):
    exp = get(server, "experiments/get", experiment_id=experiment).json()["experiment"]
    assert exp["experiment_id"] == experiment
    assert exp["lifecycle_stage"] == "active"
    assert isinstance(exp["creation_time"], int)
    assert isinstance(exp["artifact_location"], str)


def test_malformed_json_is_400(server):
    r = server.http.post(f"{server.url}{API}/runs/create", data="{not json",
                      headers={"Content-Type": "application/json"}, timeout=10)
    assert 400 <= r.status_code < 500
    assert r.json()["error_code"] in ("INVALID_PARAMETER_VALUE", "MALFORMED_REQUEST", "BAD_REQUEST")


def test_wrong_content_type_is_400(server, experiment):
    r = server.http.post(f"{server.url}{API}/runs/create", data=f'{{"experiment_id":"{experiment}"}}',
                      headers={"Content-Type": "text/plain"}, timeout=10)
    assert_error(r, 400, "INVALID_PARAMETER_VALUE")


def test_unknown_fields_are_ignored(server, experiment):
    r = post(server, "runs/create", {"experiment_id": experiment, "future_field": {"a": 1}})
    assert r.status_code == 200, r.text


def test_wrong_types_are_400(server, experiment):
    run_id = post(server, "runs/create", {"experiment_id": experiment}).json()["run"]["info"]["run_id"]
    assert_error(post(server, "runs/log-metric", {"run_id": run_id, "key": "m", "value": 1.0,
                                                  "timestamp": 1, "step": "foo"}),
                 400, "INVALID_PARAMETER_VALUE")
    assert_error(post(server, "runs/log-metric", {"run_id": run_id, "key": "m", "value": 1.0}),
                 400, "INVALID_PARAMETER_VALUE")  # timestamp is required
    assert_error(post(server, "runs/set-tag", {"run_id": run_id, "key": "k", "value": 41}),
                 400, "INVALID_PARAMETER_VALUE")
    assert_error(post(server, "experiments/create", {}), 400, "INVALID_PARAMETER_VALUE")


def test_unknown_ids_are_404(server):
    assert_error(get(server, "runs/get", run_id="f" * 32), 404, "RESOURCE_DOES_NOT_EXIST")
    assert_error(get(server, "experiments/get", experiment_id="424242"), 404, "RESOURCE_DOES_NOT_EXIST")
    assert_error(get(server, "experiments/get-by-name", experiment_name="/nope"), 404,
                 "RESOURCE_DOES_NOT_EXIST")


# MLflow answers 200 for a negative offset and 500 for a huge one; runlens rejects both.
@pytest.mark.parametrize("token", [
    "%%%", "A" * 5000,
    pytest.param("eyJvZmZzZXQiOiAtNX0=", marks=pytest.mark.runlens_only, id="offset=-5"),
    pytest.param("eyJvZmZzZXQiOiAxZTEwMH0=", marks=pytest.mark.runlens_only, id="offset=1e100"),
])
def test_absurd_page_tokens_are_400(server, experiment, token):
    r = post(server, "runs/search", {"experiment_ids": [experiment], "page_token": token})
    assert_error(r, 400, "INVALID_PARAMETER_VALUE")


def test_search_max_results_bounds(server, experiment):
    r = post(server, "runs/search", {"experiment_ids": [experiment], "max_results": 123456789})
    assert_error(r, 400, "INVALID_PARAMETER_VALUE")


def test_experiments_search_get_and_post(server, experiment):
    via_post = post(server, "experiments/search", {"max_results": 1000})
    via_get = server.http.get(f"{server.url}{API}/experiments/search", params={"max_results": 1000}, timeout=10)
    assert via_post.status_code == 200 and via_get.status_code == 200
    ids_post = {e["experiment_id"] for e in via_post.json()["experiments"]}
    ids_get = {e["experiment_id"] for e in via_get.json()["experiments"]}
    assert experiment in ids_post and ids_post == ids_get


def log_series(server, experiment, values: dict[int, float], default: float = 1.0, steps: int = 1000) -> str:
    """A new run with metric `s` at steps 0..steps-1: `values[step]` where given, else `default`."""
    run_id = post(server, "runs/create", {"experiment_id": experiment}).json()["run"]["info"]["run_id"]
    for start in range(0, steps, 1000):
        metrics = [{"key": "s", "value": values.get(step, default), "timestamp": 1, "step": step}
                   for step in range(start, min(steps, start + 1000))]
        r = post(server, "runs/log-batch", {"run_id": run_id, "metrics": metrics})
        assert r.status_code == 200, r.text
    return run_id


def bulk_interval(server, run_ids, **params):
    r = server.http.get(f"{server.url}{API}/metrics/get-history-bulk-interval",
                        params={"run_ids": run_ids, "metric_key": "s", **params}, timeout=60)
    assert r.status_code == 200, r.text
    return r.json()["metrics"]


def test_get_history_bulk_interval(server, experiment):
    # Values that differ at every step, so a point's value tells whether it was read from
    # the step it claims.
    value = lambda step: step * 0.5 + 0.25  # noqa: E731
    steps = 1000
    run_a = log_series(server, experiment, {s: value(s) for s in range(steps)})
    run_b = log_series(server, experiment, {s: -value(s) for s in range(steps)})
    # max_results caps the points per run: 1,000 steps sampled to exactly 100, the first and
    # the last step kept, each point carrying the value logged at its step.
    points = bulk_interval(server, run_a, max_results=100)
    assert len(points) == 100
    assert all(p["run_id"] == run_a and p["key"] == "s" for p in points)
    steps_seen = [p["step"] for p in points]
    assert steps_seen == sorted(set(steps_seen)) and steps_seen[0] == 0 and steps_seen[-1] == steps - 1
    assert all(p["value"] == value(p["step"]) for p in points), points
    # Two runs: each gets its own 100 points, with its own values.
    both = bulk_interval(server, [run_a, run_b], max_results=100)
    by_run = {run: [p for p in both if p["run_id"] == run] for run in (run_a, run_b)}
    assert len(by_run[run_a]) == 100 and len(by_run[run_b]) == 100 and len(both) == 200
    assert all(p["value"] == value(p["step"]) for p in by_run[run_a])
    assert all(p["value"] == -value(p["step"]) for p in by_run[run_b])
    # A step range no larger than max_results returns every point in it, nothing else.
    inside = bulk_interval(server, run_a, start_step=100, end_step=199, max_results=2500)
    assert [(p["step"], p["value"]) for p in inside] == [(s, value(s)) for s in range(100, 200)]


@pytest.mark.runlens_only  # MLflow samples steps evenly and drops the spike
@pytest.mark.parametrize("steps,spike,max_results", [
    # 777 lies on runlens' sampling grid for 1,000 steps and 100 points (77 * 999 / 99).
    pytest.param(1000, 777, 100, id="on-the-grid"),
    # 7,777 lies on neither runlens' grid (i * 19,999 / 319) nor MLflow's (NTILE buckets of
    # 62-63 rows), so only a sampler that keeps extremes returns it.
    pytest.param(20_000, 7_777, 320, id="off-the-grid", marks=pytest.mark.xfail(
        strict=True, reason="issue 10: bulk-interval samples evenly and loses a spike off its grid")),
])
def test_get_history_bulk_interval_keeps_the_spike(server, experiment, steps, spike, max_results):
    run_id = log_series(server, experiment, {spike: 100.0}, steps=steps)
    points = bulk_interval(server, run_id, max_results=max_results)
    assert 0 < len(points) <= max_results
    spikes = [(p["step"], p["value"]) for p in points if p["value"] != 1.0]
    assert spikes == [(spike, 100.0)], f"the spike at step {spike} is lost: {spikes}"


def test_logged_models_search_is_empty(server, experiment):
    r = post(server, "logged-models/search", {"experiment_ids": [experiment]})
    assert r.status_code == 200
    assert r.json().get("models", []) == []


def test_unknown_endpoint_is_404(server):
    r = post(server, "runs/fly-to-the-moon", {})
    assert r.status_code == 404
