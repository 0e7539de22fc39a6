"""Experiments: workspace paths, unicode names, search, rename, tags, delete and restore."""

import mlflow
from mlflow.entities import ViewType

from helpers import raises_code


def test_default_experiment_exists(client):
    exp = client.get_experiment("0")
    assert exp.name == "Default"
    assert exp.lifecycle_stage == "active"
    assert client.get_experiment_by_name("Default").experiment_id == "0"


def test_set_experiment_with_workspace_paths(server, unique):
    names = [
        f"/Users/alice@example.com/sft-{unique}",
        f"/Workspace/Shared/x-{unique}",
        f"/Workspace/Shared/vision/sft-{unique}",
    ]
    for name in names:
        exp = mlflow.set_experiment(name)
        assert exp.name == name
        assert exp.lifecycle_stage == "active"
        # set_experiment a second time finds the same experiment instead of creating one.
        assert mlflow.set_experiment(name).experiment_id == exp.experiment_id
        with mlflow.start_run() as run:
            mlflow.log_param("path", name)
        assert run.info.experiment_id == exp.experiment_id


def test_unicode_experiment_names_round_trip(client, unique):
    names = [
        f"/Users/zoë@example.com/Straße-{unique}",
        f"/Workspace/Shared/日本語の実験-{unique}",
        f"/Workspace/Shared/emoji 🚀 and spaces-{unique}",
    ]
    for name in names:
        exp_id = client.create_experiment(name)
        assert client.get_experiment(exp_id).name == name
        assert client.get_experiment_by_name(name).experiment_id == exp_id
        found = client.search_experiments(filter_string=f"name = '{name}'")
        assert [e.experiment_id for e in found] == [exp_id]


def test_create_with_tags_and_set_tag(client, unique):
    exp_id = client.create_experiment(f"/Workspace/Shared/tags-{unique}", tags={"team": "vision"})
    client.set_experiment_tag(exp_id, "stage", "dev")
    client.set_experiment_tag(exp_id, "stage", "prod")  # upsert
    tags = client.get_experiment(exp_id).tags
    assert tags["team"] == "vision"
    assert tags["stage"] == "prod"


def test_get_missing_experiment(client):
    with raises_code("RESOURCE_DOES_NOT_EXIST"):
        client.get_experiment("987654321")
    assert client.get_experiment_by_name("/Users/nobody@example.com/none") is None


def test_duplicate_experiment_name(client, unique):
    name = f"/Users/alice@example.com/dup-{unique}"
    client.create_experiment(name)
    with raises_code("RESOURCE_ALREADY_EXISTS"):
        client.create_experiment(name)


def test_rename_experiment(client, unique):
    exp_id = client.create_experiment(f"/Users/alice@example.com/old-{unique}")
    new = f"/Workspace/Shared/new-{unique}"
    client.rename_experiment(exp_id, new)
    assert client.get_experiment(exp_id).name == new
    assert client.get_experiment_by_name(new).experiment_id == exp_id
    assert client.get_experiment_by_name(f"/Users/alice@example.com/old-{unique}") is None


def test_delete_and_restore_experiment(client, unique):
    name = f"/Users/alice@example.com/del-{unique}"
    exp_id = client.create_experiment(name)
    run = client.create_run(exp_id)
    client.delete_experiment(exp_id)
    assert client.get_experiment(exp_id).lifecycle_stage == "deleted"
    # Its runs go with it, and it no longer shows among active experiments.
    assert client.get_run(run.info.run_id).info.lifecycle_stage == "deleted"
    active = client.search_experiments(filter_string=f"name = '{name}'")
    assert active == []
    deleted = client.search_experiments(
        view_type=ViewType.DELETED_ONLY, filter_string=f"name = '{name}'"
    )
    assert [e.experiment_id for e in deleted] == [exp_id]
    # A deleted experiment's name is still taken.
    with raises_code("RESOURCE_ALREADY_EXISTS"):
        client.create_experiment(name)
    client.restore_experiment(exp_id)
    assert client.get_experiment(exp_id).lifecycle_stage == "active"
    assert client.get_run(run.info.run_id).info.lifecycle_stage == "active"


def test_search_experiments_filter_order_and_paging(client, unique):
    prefix = f"/Workspace/Shared/search-{unique}"
    # Created in an order that is neither the names' order nor its reverse, so an answer in
    # id or creation order (either way) cannot pass for one sorted by name.
    created = ["03", "05", "00", "06", "02", "04", "01"]
    by_name = {n: client.create_experiment(f"{prefix}/{n}") for n in created}
    ids = [by_name[n] for n in sorted(created)]  # ids in name order
    client.set_experiment_tag(by_name["03"], "flag", "yes")

    found = client.search_experiments(
        filter_string=f"name LIKE '{prefix}/%'", order_by=["name DESC"]
    )
    assert [e.experiment_id for e in found] == list(reversed(ids))
    assert [e.name for e in found] == [f"{prefix}/{n}" for n in sorted(created, reverse=True)]

    tagged = client.search_experiments(filter_string=f"name LIKE '{prefix}/%' AND tags.flag = 'yes'")
    assert [e.experiment_id for e in tagged] == [by_name["03"]]

    seen, token, pages = [], None, 0
    while True:
        page = client.search_experiments(
            max_results=3, filter_string=f"name LIKE '{prefix}/%'",
            order_by=["name ASC"], page_token=token,
        )
        pages += 1
        assert len(page) <= 3
        seen += [e.experiment_id for e in page]
        token = page.token
        if not token:
            break
    assert seen == ids
    assert pages == 3


def test_search_experiments_ilike(client, unique):
    name = f"/Workspace/Shared/CaseMix-{unique}"
    exp_id = client.create_experiment(name)
    found = client.search_experiments(filter_string=f"name ILIKE '%casemix-{unique}'")
    assert [e.experiment_id for e in found] == [exp_id]
    assert client.search_experiments(filter_string=f"name LIKE '%casemix-{unique}'") == []
