"""Artifacts through the stock client and MLflow's artifact proxy (`mlflow-artifacts:/`):
log_artifact, log_artifacts (a folder), log_text, log_dict, log_image, log_figure,
list_artifacts, download_artifacts, deletion, a 200 MB file (the client tries multipart
upload, gets MLflow's 501 and falls back to a streamed PUT), path traversal, and the same
round trip for a user on a token and on HTTP basic, with others' artifacts out of reach."""

import hashlib
import json
import os
from pathlib import Path

import mlflow
import pytest
import requests
from mlflow.store.artifact.artifact_repository_registry import get_artifact_repository

from auth_helpers import as_user
from helpers import raises_code

MPU_MESSAGE = "Multipart upload is not supported for the current artifact repository"


def sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def log_everything(tmp_path: Path) -> str:
    """Logs every kind of artifact in a new fluent run of the current experiment; returns
    the run id."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    single = tmp_path / "notes.txt"
    single.write_text("plain notes\n")
    folder = tmp_path / "folder"
    (folder / "nested").mkdir(parents=True)
    (folder / "a.csv").write_text("x,y\n1,2\n")
    (folder / "nested" / "b.json").write_text('{"b": 1}')
    with mlflow.start_run() as run:
        mlflow.log_artifact(str(single))
        mlflow.log_artifact(str(single), artifact_path="copies")
        mlflow.log_artifacts(str(folder), artifact_path="folder")
        mlflow.log_text("hello text", "texts/hello.txt")
        mlflow.log_dict({"lr": 0.1, "layers": [1, 2]}, "config.json")
        mlflow.log_dict({"lr": 0.1}, "config.yaml")
        mlflow.log_image(np.zeros((8, 8, 3), dtype=np.uint8), "images/black.png")
        fig, ax = plt.subplots()
        ax.plot([0, 1], [1, 0])
        mlflow.log_figure(fig, "figures/line.png")
        plt.close(fig)
    return run.info.run_id


def check_round_trip(client, run_id: str, tmp_path: Path) -> None:
    names = sorted(f.path for f in client.list_artifacts(run_id))
    assert names == ["config.json", "config.yaml", "copies", "figures", "folder", "images",
                     "notes.txt", "texts"]
    root = {f.path: f for f in client.list_artifacts(run_id)}
    assert root["folder"].is_dir and root["folder"].file_size is None
    assert not root["notes.txt"].is_dir and root["notes.txt"].file_size == len("plain notes\n")
    nested = sorted((f.path, f.is_dir) for f in client.list_artifacts(run_id, "folder"))
    assert nested == [("folder/a.csv", False), ("folder/nested", True)]
    # A file lists as nothing (the client's test for "is it a folder").
    assert client.list_artifacts(run_id, "notes.txt") == []

    out = Path(mlflow.artifacts.download_artifacts(run_id=run_id, dst_path=str(tmp_path / "dl")))
    assert (out / "notes.txt").read_text() == "plain notes\n"
    assert (out / "copies" / "notes.txt").read_text() == "plain notes\n"
    assert (out / "folder" / "nested" / "b.json").read_text() == '{"b": 1}'
    assert (out / "texts" / "hello.txt").read_text() == "hello text"
    assert json.loads((out / "config.json").read_text()) == {"lr": 0.1, "layers": [1, 2]}
    assert "lr: 0.1" in (out / "config.yaml").read_text()
    for png in ("images/black.png", "figures/line.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", png
    one = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path="folder/a.csv",
                                              dst_path=str(tmp_path / "one"))
    assert Path(one).read_text() == "x,y\n1,2\n"
    assert mlflow.artifacts.load_text(f"runs:/{run_id}/texts/hello.txt") == "hello text"
    assert mlflow.artifacts.load_dict(f"runs:/{run_id}/config.json")["layers"] == [1, 2]


def test_every_kind_of_artifact_round_trips(server, client, experiment, tmp_path):
    mlflow.set_experiment(experiment_id=experiment)
    run_id = log_everything(tmp_path)
    run = client.get_run(run_id)
    assert run.info.artifact_uri == f"mlflow-artifacts:/{experiment}/{run_id}/artifacts"
    check_round_trip(client, run_id, tmp_path)


def test_artifacts_list_endpoint_is_run_relative(server, client, experiment, tmp_path):
    run_id = client.create_run(experiment).info.run_id
    (tmp_path / "m.txt").write_text("m")
    client.log_artifact(run_id, str(tmp_path / "m.txt"), artifact_path="dir/sub")
    r = server.http.get(f"{server.url}/api/2.0/mlflow/artifacts/list",
                        params={"run_id": run_id, "path": "dir"}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json() == {"root_uri": f"mlflow-artifacts:/{experiment}/{run_id}/artifacts",
                        "files": [{"path": "dir/sub", "is_dir": True}]}
    r = server.http.get(f"{server.url}/api/2.0/mlflow/artifacts/list",
                        params={"run_id": run_id, "path": "dir/sub"}, timeout=30)
    assert r.json()["files"] == [{"path": "dir/sub/m.txt", "is_dir": False, "file_size": 1}]


def test_deleting_artifacts(client, experiment, tmp_path):
    run = client.create_run(experiment)
    (tmp_path / "gone.txt").write_text("bye")
    (tmp_path / "kept.txt").write_text("stay")
    client.log_artifact(run.info.run_id, str(tmp_path / "gone.txt"), artifact_path="d")
    client.log_artifact(run.info.run_id, str(tmp_path / "kept.txt"))
    repo = get_artifact_repository(run.info.artifact_uri)
    repo.delete_artifacts("d")
    assert [f.path for f in client.list_artifacts(run.info.run_id)] == ["kept.txt"]


def test_a_200_mb_file_falls_back_from_multipart_to_a_streamed_put(client, experiment, tmp_path,
                                                                   monkeypatch):
    monkeypatch.setenv("MLFLOW_ENABLE_PROXY_MULTIPART_UPLOAD", "true")
    monkeypatch.setenv("MLFLOW_MULTIPART_UPLOAD_MINIMUM_FILE_SIZE", str(1024 * 1024))
    big = tmp_path / "big.bin"
    block = os.urandom(1 << 20)
    with open(big, "wb") as f:
        for i in range(200):
            f.write(block[i:] + block[:i])
    run_id = client.create_run(experiment).info.run_id
    client.log_artifact(run_id, str(big), artifact_path="data")
    [entry] = client.list_artifacts(run_id, "data")
    assert (entry.path, entry.file_size) == ("data/big.bin", 200 * (1 << 20))
    got = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path="data/big.bin",
                                              dst_path=str(tmp_path / "dl"))
    assert sha256(Path(got)) == sha256(big)


def test_multipart_endpoints_answer_mlflows_not_implemented(server, client, experiment):
    run_id = client.create_run(experiment).info.run_id
    path = f"{experiment}/{run_id}/artifacts/big.bin"
    r = server.http.post(f"{server.url}/api/2.0/mlflow-artifacts/mpu/create/{path}",
                         json={"path": "big.bin", "num_parts": 2}, timeout=30)
    assert r.status_code == 501, r.text
    assert r.json() == {"error_code": "NOT_IMPLEMENTED", "message": MPU_MESSAGE}


def test_path_traversal_and_missing_files(server, client, experiment):
    run_id = client.create_run(experiment).info.run_id
    base = f"{server.url}/api/2.0/mlflow-artifacts/artifacts/{experiment}/{run_id}/artifacts"
    r = server.http.put(f"{base}/%2e%2e/%2e%2e/%2e%2e/escape.txt", data=b"evil", timeout=30)
    assert r.status_code == 400, r.text
    assert (r.json()["error_code"], r.json()["message"]) == ("INVALID_PARAMETER_VALUE", "Invalid path")
    r = server.http.get(f"{server.url}/api/2.0/mlflow-artifacts/artifacts",
                        params={"path": f"{experiment}/../.."}, timeout=30)
    assert r.status_code == 400, r.text
    assert r.json()["error_code"] == "INVALID_PARAMETER_VALUE"
    r = server.http.get(f"{base}/no-such-file.txt", timeout=30)
    assert r.status_code == 404
    # A missing folder lists as nothing.
    assert client.list_artifacts(run_id, "no-such-dir") == []


def test_downloads_never_render_in_the_browser(server, client, experiment, tmp_path):
    run_id = client.create_run(experiment).info.run_id
    svg = tmp_path / "evil.svg"
    svg.write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')
    client.log_artifact(run_id, str(svg))
    r = server.http.get(f"{server.url}/api/2.0/mlflow-artifacts/artifacts/"
                        f"{experiment}/{run_id}/artifacts/evil.svg", timeout=30)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "image/svg+xml"
    assert r.headers["Content-Disposition"] == "attachment; filename=evil.svg"
    assert r.headers["X-Content-Type-Options"] == "nosniff"


@pytest.mark.auth
@pytest.mark.parametrize("basic", [False, True], ids=["token", "basic"])
def test_a_users_artifacts_round_trip_and_stay_private(server, make_user, unique, tmp_path, basic):
    alice, bob = make_user("alice"), make_user("bob")
    with as_user(alice, basic=basic):
        mlflow.set_experiment(f"{alice.home}/artifacts-{unique}")
        run_id = log_everything(tmp_path)
        client = mlflow.MlflowClient(tracking_uri=server.url)
        check_round_trip(client, run_id, tmp_path)
        artifact_uri = client.get_run(run_id).info.artifact_uri
    secret = tmp_path / "planted.txt"
    secret.write_text("planted")
    with as_user(bob, basic=basic):
        # Straight to the proxy, without runs/get: refused there too.
        with pytest.raises(requests.HTTPError) as info:
            mlflow.artifacts.download_artifacts(artifact_uri=f"{artifact_uri}/notes.txt",
                                                dst_path=str(tmp_path / "bob"))
        assert info.value.response.status_code == 403
        with pytest.raises(requests.HTTPError) as info:
            get_artifact_repository(artifact_uri).log_artifact(str(secret))
        assert info.value.response.status_code == 403
        with raises_code("PERMISSION_DENIED"):
            mlflow.MlflowClient(tracking_uri=server.url).list_artifacts(run_id)
    with as_user(alice, basic=basic):
        names = [f.path for f in mlflow.MlflowClient(tracking_uri=server.url).list_artifacts(run_id)]
        assert "planted.txt" not in names
