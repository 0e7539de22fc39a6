"""`metrics/get-history-bulk-interval`, as raw HTTP: MLflow 3.17.2's per-run sample (NTILE
buckets over each run's own points, each bucket's first point, the run's last point in place
of the last bucket's first), its 400 messages, and runlens' one departure: a spike that
sample would hide comes back as an extra point."""

import pytest

API = "/api/2.0/mlflow"
HINT = " See the API docs for more information about request parameters."


def new_run(server, experiment) -> str:
    r = server.http.post(f"{server.url}{API}/runs/create", json={"experiment_id": experiment}, timeout=30)
    assert r.status_code == 200, r.text
    return r.json()["run"]["info"]["run_id"]


def log_points(server, run_id, points) -> None:
    """Logs `(step, timestamp, value)` points as metric `s`, 1,000 per batch."""
    points = list(points)
    for start in range(0, len(points), 1000):
        metrics = [{"key": "s", "value": v, "timestamp": ts, "step": step}
                   for step, ts, v in points[start:start + 1000]]
        r = server.http.post(f"{server.url}{API}/runs/log-batch", json={"run_id": run_id, "metrics": metrics},
                             timeout=60)
        assert r.status_code == 200, r.text


def log_series(server, experiment, values: dict[int, float], default: float = 1.0, steps: int = 1000) -> str:
    """A new run with metric `s` at steps 0..steps-1: `values[step]` where given, else `default`."""
    run_id = new_run(server, experiment)
    log_points(server, run_id, ((step, 1, values.get(step, default)) for step in range(steps)))
    return run_id


def request(server, run_ids, **params):
    return server.http.get(f"{server.url}{API}/metrics/get-history-bulk-interval",
                           params={"run_ids": run_ids, "metric_key": "s", **params}, timeout=60)


def bulk_interval(server, run_ids, **params):
    r = request(server, run_ids, **params)
    assert r.status_code == 200, r.text
    return r.json().get("metrics", [])


def ntile_sample(total: int, buckets: int) -> list[int]:
    """The places MLflow samples among `total` ordered points for `max_results=buckets`."""
    if total <= buckets:
        return list(range(total))
    q, r = divmod(total, buckets)
    firsts = [k * (q + 1) if k < r else r * (q + 1) + (k - r) * q for k in range(buckets)]
    return firsts[:-1] + [total - 1]


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
    assert [p["step"] for p in points] == ntile_sample(steps, 100)
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


def test_each_run_is_sampled_on_its_own(server, experiment):
    long_run = new_run(server, experiment)
    log_points(server, long_run, ((s, 1, -s) for s in range(1000)))
    short_run = new_run(server, experiment)
    log_points(server, short_run, ((s * 7, 1, s) for s in range(30)))
    points = bulk_interval(server, [short_run, long_run], max_results=10)
    steps = lambda run: [p["step"] for p in points if p["run_id"] == run]  # noqa: E731
    # Each run's own ten places: not a sample of the union of both runs' steps.
    assert steps(long_run) == ntile_sample(1000, 10)
    assert steps(short_run) == [7 * i for i in ntile_sample(30, 10)]
    # In the order the runs were asked for.
    assert [p["run_id"] for p in points] == [short_run] * 10 + [long_run] * 10


def test_a_step_logged_twice_counts_as_two_points(server, experiment):
    run_id = new_run(server, experiment)
    log_points(server, run_id, ((s, ts, 2 * s + ts) for s in range(1000) for ts in (1, 2)))
    # Room for every point: both points of each step come back, by timestamp.
    few = bulk_interval(server, run_id, start_step=5, end_step=6)
    assert [(p["step"], p["timestamp"]) for p in few] == [(5, 1), (5, 2), (6, 1), (6, 2)]
    # Sampled: 2,000 points in 100 buckets of 20, one point from each, so one per step,
    # the step's first (the last point of the run closes the line).
    points = bulk_interval(server, run_id, max_results=100)
    assert [(p["step"], p["timestamp"]) for p in points] == \
        [(k * 10, 1) for k in range(99)] + [(999, 2)]


@pytest.mark.parametrize("params,message", [
    ({"run_ids": None}, "Missing value for required parameter 'run_ids'." + HINT),
    ({"run_ids": [f"{i:032x}" for i in range(101)]},
     "GetMetricHistoryBulkInterval request must specify at most 100 run_ids. Received 101 run_ids." + HINT),
    ({"metric_key": ""}, "Missing value for required parameter 'metric_key'." + HINT),
    ({"metric_key": None}, "Missing value for required parameter 'metric_key'." + HINT),
    ({"start_step": 5, "end_step": 3}, "end_step must be greater than start_step. Found start_step=5 and end_step=3."),
    ({"start_step": 5}, "If either start step or end step are specified, both must be specified."),
    ({"max_results": 0}, "max_results must be between 1 and 2500." + HINT),
    ({"max_results": 2501, "start_step": 5, "end_step": 3}, "max_results must be between 1 and 2500." + HINT),
], ids=["no-run-ids", "101-run-ids", "empty-key", "no-key", "end-before-start", "start-only",
        "max-results-0", "max-results-first"])
def test_bad_requests_get_mlflows_messages(server, experiment, params, message):
    run_id = log_series(server, experiment, {}, steps=3)
    query = {"run_ids": run_id, "metric_key": "s", **params}
    query = {k: v for k, v in query.items() if v is not None}
    r = server.http.get(f"{server.url}{API}/metrics/get-history-bulk-interval", params=query, timeout=30)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == "INVALID_PARAMETER_VALUE"
    assert r.json()["message"] == message


def test_a_spike_on_the_sampling_grid_is_returned(server, experiment):
    # Step 770 is the first of its bucket (1,000 points in 100 buckets of 10): MLflow's
    # sample holds it.
    run_id = log_series(server, experiment, {770: 100.0})
    points = bulk_interval(server, run_id, max_results=100)
    assert [p["step"] for p in points] == ntile_sample(1000, 100)
    assert [(p["step"], p["value"]) for p in points if p["value"] != 1.0] == [(770, 100.0)]


@pytest.mark.runlens_only  # MLflow's sample drops a spike between two of its points
def test_a_spike_off_the_sampling_grid_is_kept(server, experiment):
    # 20,000 points in 320 buckets of 62 or 63: step 7,777 is no bucket's first point.
    steps, spike, max_results = 20_000, 7_777, 320
    assert spike not in ntile_sample(steps, max_results)
    run_id = log_series(server, experiment, {spike: 100.0}, steps=steps)
    points = bulk_interval(server, run_id, max_results=max_results)
    spikes = [(p["step"], p["value"]) for p in points if p["value"] != 1.0]
    assert spikes == [(spike, 100.0)], f"the spike at step {spike} is lost: {spikes}"
    # Everything else is MLflow's sample, point for point: one extra point in all.
    assert [p["step"] for p in points if p["step"] != spike] == ntile_sample(steps, max_results)
