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


def test_relative_artifact_location_is_stored_absolute(server, unique):
    # Resolved against the server's working directory, which the client cannot know: the
    # stored location is absolute and ends with the relative path, normalised.
    r = post(server, "experiments/create", {"name": f"rel-{unique}", "artifact_location": f"./rel//{unique}/"})
    assert r.status_code == 200, r.text
    exp_id = r.json()["experiment_id"]
    loc = get(server, "experiments/get", experiment_id=exp_id).json()["experiment"]["artifact_location"]
    assert loc.startswith("/") and loc.endswith(f"/rel/{unique}"), loc
    run = post(server, "runs/create", {"experiment_id": exp_id}).json()["run"]["info"]
    assert run["artifact_uri"] == f"{loc}/{run['run_id']}/artifacts"


def test_run_artifact_uri_goes_before_the_query(server, unique):
    loc = "scheme://host/db?driver=x"
    r = post(server, "experiments/create", {"name": f"query-{unique}", "artifact_location": loc})
    assert r.status_code == 200, r.text
    exp_id = r.json()["experiment_id"]
    assert get(server, "experiments/get", experiment_id=exp_id).json()["experiment"]["artifact_location"] == loc
    run = post(server, "runs/create", {"experiment_id": exp_id}).json()["run"]["info"]
    assert run["artifact_uri"] == f"scheme://host/db/{run['run_id']}/artifacts?driver=x"
    # A query that could climb out of the path once appended to is refused.
    assert_error(post(server, "experiments/create", {"name": f"dots-{unique}",
                                                     "artifact_location": "s3://b/p?x=%2e%2e"}),
                 400, "INVALID_PARAMETER_VALUE")


def test_logged_models_search_is_empty(server, experiment):
    r = post(server, "logged-models/search", {"experiment_ids": [experiment]})
    assert r.status_code == 200
    assert r.json().get("models", []) == []


def test_unknown_endpoint_is_404(server):
    r = post(server, "runs/fly-to-the-moon", {})
    assert r.status_code == 404
