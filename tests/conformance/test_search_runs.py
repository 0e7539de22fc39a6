"""MlflowClient.search_runs: filter grammar, order_by, paging with page tokens."""

import pytest
from mlflow.entities import Metric, Param, RunTag

from helpers import now_ms, raises_code


@pytest.fixture
def sweep(client, experiment):
    """Nine runs: lr in {0.1, 0.01, 0.001} x seed in {1, 2, 3}; returns (exp_id, runs by name)."""
    runs = {}
    t = now_ms()
    for i, lr in enumerate(("0.1", "0.01", "0.001")):
        for seed in (1, 2, 3):
            name = f"lr{lr}-s{seed}"
            run = client.create_run(experiment, run_name=name, start_time=t + len(runs))
            acc = 0.5 + 0.1 * i + 0.01 * seed
            client.log_batch(
                run.info.run_id,
                metrics=[Metric("acc", acc, t, 0), Metric("loss", 1 - acc, t, 0)],
                params=[Param("lr", lr), Param("seed", str(seed))],
                tags=[RunTag("family", "resnet" if seed < 3 else "vit")],
            )
            if seed == 3:
                client.set_terminated(run.info.run_id, "FAILED")
            runs[name] = run.info.run_id
    return experiment, runs


def names(client, runs, found):
    by_id = {v: k for k, v in runs.items()}
    return [by_id[r.info.run_id] for r in found]


def test_filter_by_param(client, sweep):
    exp, runs = sweep
    found = client.search_runs([exp], "params.lr = '0.01'")
    assert sorted(names(client, runs, found)) == ["lr0.01-s1", "lr0.01-s2", "lr0.01-s3"]


def test_filter_by_metric_and_tag_and_status(client, sweep):
    exp, runs = sweep
    found = client.search_runs([exp], "metrics.acc > 0.7 AND tags.family = 'resnet'")
    assert sorted(names(client, runs, found)) == ["lr0.001-s1", "lr0.001-s2"]
    failed = client.search_runs([exp], "attributes.status = 'FAILED'")
    assert sorted(names(client, runs, failed)) == ["lr0.001-s3", "lr0.01-s3", "lr0.1-s3"]
    like = client.search_runs([exp], "attributes.run_name LIKE 'lr0.1-%'")
    assert sorted(names(client, runs, like)) == ["lr0.1-s1", "lr0.1-s2", "lr0.1-s3"]
    ilike = client.search_runs([exp], "tags.family ILIKE 'VIT'")
    assert len(ilike) == 3


def test_filter_run_id_in(client, sweep):
    exp, runs = sweep
    wanted = [runs["lr0.1-s1"], runs["lr0.001-s3"]]
    found = client.search_runs([exp], f"attributes.run_id IN ('{wanted[0]}', '{wanted[1]}')")
    assert sorted(r.info.run_id for r in found) == sorted(wanted)


def test_order_by_metric_and_default_order(client, sweep):
    exp, runs = sweep
    found = client.search_runs([exp], order_by=["metrics.acc DESC"])
    accs = [r.data.metrics["acc"] for r in found]
    assert accs == sorted(accs, reverse=True)
    assert names(client, runs, found)[0] == "lr0.001-s3"
    # Default order: start_time DESC (runs were created with increasing start times).
    default = client.search_runs([exp])
    assert names(client, runs, default) == list(reversed(list(runs)))
    by_param = client.search_runs([exp], order_by=["params.seed ASC", "metrics.acc ASC"])
    assert names(client, runs, by_param)[:3] == ["lr0.1-s1", "lr0.01-s1", "lr0.001-s1"]


def test_order_by_run_name(client, experiment):
    # Names created in an order that is neither their sorted order nor its reverse (and run
    # ids are random), so only a real sort by name gives these lists.
    created = ["delta", "alpha", "echo", "charlie", "bravo"]
    t = now_ms()
    ids = {name: client.create_run(experiment, run_name=name, start_time=t + i).info.run_id
           for i, name in enumerate(created)}
    for order, expected in (("DESC", sorted(created, reverse=True)), ("ASC", sorted(created))):
        found = client.search_runs([experiment], order_by=[f"attributes.run_name {order}"])
        assert [r.info.run_name for r in found] == expected, order
        assert [r.info.run_id for r in found] == [ids[n] for n in expected], order


def test_paging_with_page_tokens(client, sweep):
    exp, runs = sweep
    seen, token, pages = [], None, 0
    while True:
        page = client.search_runs([exp], max_results=4, order_by=["metrics.acc ASC"], page_token=token)
        pages += 1
        assert len(page) <= 4
        seen += [r.info.run_id for r in page]
        token = page.token
        if not token:
            break
    assert pages == 3
    assert len(seen) == len(set(seen)) == 9
    everything = client.search_runs([exp], order_by=["metrics.acc ASC"])
    assert seen == [r.info.run_id for r in everything]


def test_search_across_experiments(client, sweep, unique):
    exp, runs = sweep
    other = client.create_experiment(f"/Workspace/Shared/other-{unique}")
    client.create_run(other, run_name="elsewhere")
    found = client.search_runs([exp, other], "attributes.run_name = 'elsewhere'")
    assert [r.info.run_name for r in found] == ["elsewhere"]
    assert len(client.search_runs([exp, other])) == 10


def test_bad_filters_are_invalid_parameter_value(client, sweep):
    exp, _ = sweep
    for bad in (
        "params.lr = 0.01",  # params compare to quoted strings
        "metrics.acc > 'high'",  # metrics compare to numbers
        "params.lr = '0.01' OR params.lr = '0.1'",  # no OR in MLflow's grammar
        "nonsense ===",
    ):
        with raises_code("INVALID_PARAMETER_VALUE"):
            client.search_runs([exp], bad)


def test_bad_page_token(client, sweep):
    exp, _ = sweep
    with raises_code("INVALID_PARAMETER_VALUE"):
        client.search_runs([exp], page_token="definitely-not-a-token")
