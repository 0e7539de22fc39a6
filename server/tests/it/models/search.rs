//! `logged-models/search`: filters on attributes, params, tags and metrics, order_by,
//! paging, datasets, and MLflow's errors.

use serde_json::{json, Value};

use super::{create, id};
use crate::helpers::{assert_error, TestApp};

/// Three models `m0..m2` in a fresh experiment: param `i`, tag `even`, metric `acc`
/// (0.5, 0.6, 0.7) logged by one run on dataset `ds`; returns (app, experiment, ids).
async fn fixture() -> (TestApp, String, Vec<String>) {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    let run = app.run(&exp, "r").await;
    let mut ids = Vec::new();
    for i in 0..3 {
        let even = if i % 2 == 0 { "yes" } else { "no" };
        let m = create(
            &app,
            &exp,
            json!({"name": format!("m{i}"), "params": [{"key": "i", "value": i.to_string()}],
                   "tags": [{"key": "even", "value": even}]}),
        )
        .await;
        let mid = id(&m);
        let metric = json!({"key": "acc", "value": 0.5 + f64::from(i) / 10.0,
                            "timestamp": 1000 + i, "step": i, "model_id": mid,
                            "dataset_name": "ds", "dataset_digest": "d1"});
        app.ok(
            "/runs/log-batch",
            json!({"run_id": run, "metrics": [metric]}),
        )
        .await;
        ids.push(mid);
    }
    (app, exp, ids)
}

async fn search(app: &TestApp, exp: &str, extra: Value) -> Value {
    let mut body = json!({"experiment_ids": [exp]});
    for (k, v) in extra.as_object().unwrap() {
        body[k] = v.clone();
    }
    app.ok("/logged-models/search", body).await
}

fn ids_of(v: &Value) -> Vec<String> {
    v["models"]
        .as_array()
        .map(|ms| ms.iter().map(id).collect())
        .unwrap_or_default()
}

#[tokio::test]
async fn filters_select_by_every_entity() {
    let (app, exp, ids) = fixture().await;
    let by = |filter: &'static str| {
        let app = &app;
        let exp = exp.clone();
        async move { ids_of(&search(app, &exp, json!({"filter": filter})).await) }
    };
    assert_eq!(by("name = 'm1'").await, vec![ids[1].clone()]);
    assert_eq!(
        by("attributes.name != 'm1'").await,
        vec![ids[2].clone(), ids[0].clone()]
    );
    assert_eq!(
        by("name LIKE 'm%' AND params.i = '2'").await,
        vec![ids[2].clone()]
    );
    assert_eq!(
        by("name IN ('m0', 'm2')").await,
        vec![ids[2].clone(), ids[0].clone()]
    );
    assert_eq!(by("tags.even = 'no'").await, vec![ids[1].clone()]);
    assert_eq!(
        by("metrics.acc >= 0.6").await,
        vec![ids[2].clone(), ids[1].clone()]
    );
    assert_eq!(by("metrics.acc > 0.9").await, Vec::<String>::new());
    assert_eq!(by("model_id = 'nope'").await, Vec::<String>::new());
    assert_eq!(
        by("status = 'LOGGED_MODEL_PENDING' AND creation_time > 0")
            .await
            .len(),
        3
    );
    let mid = ids[0].clone();
    let v = search(&app, &exp, json!({"filter": format!("model_id = '{mid}'")})).await;
    assert_eq!(ids_of(&v), vec![mid]);
    // Metrics come with each model, with their run and dataset.
    let m = &v["models"][0];
    assert_eq!(m["data"]["metrics"][0]["key"], "acc");
    assert_eq!(m["data"]["metrics"][0]["dataset_name"], "ds");
    assert_eq!(m["data"]["metrics"][0]["model_id"], ids[0].as_str());
    // Deleted models never match; another experiment's models neither.
    let (s, _) = super::call(&app, "DELETE", &format!("/logged-models/{}", ids[1]), None).await;
    assert_eq!(s, 200);
    assert_eq!(by("tags.even = 'no'").await, Vec::<String>::new());
    let other = app.experiment("other").await;
    assert_eq!(search(&app, &other, json!({})).await, json!({}));
}

#[tokio::test]
async fn order_by_and_pages() {
    let (app, exp, ids) = fixture().await;
    // Newest first, then by id.
    assert_eq!(
        ids_of(&search(&app, &exp, json!({})).await),
        vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]
    );
    let asc = json!({"order_by": [{"field_name": "name", "ascending": true}]});
    assert_eq!(ids_of(&search(&app, &exp, asc).await), ids);
    let by_metric = json!({"order_by": [{"field_name": "metrics.acc", "ascending": false}]});
    assert_eq!(
        ids_of(&search(&app, &exp, by_metric).await),
        vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]
    );
    let by_metric = json!({"order_by": [{"field_name": "metrics.acc", "dataset_name": "other"}]});
    // No value on that dataset: nulls last, then newest first.
    assert_eq!(
        ids_of(&search(&app, &exp, by_metric).await),
        vec![ids[2].clone(), ids[1].clone(), ids[0].clone()]
    );

    let order = json!([{"field_name": "name"}]);
    let page = search(&app, &exp, json!({"max_results": 2, "order_by": order})).await;
    assert_eq!(ids_of(&page), ids[..2].to_vec());
    let token = page["next_page_token"].as_str().expect("token").to_string();
    let rest = search(
        &app,
        &exp,
        json!({"max_results": 2, "order_by": order, "page_token": token}),
    )
    .await;
    assert_eq!(ids_of(&rest), ids[2..].to_vec());
    assert!(rest.get("next_page_token").is_none());
}

#[tokio::test]
async fn datasets_restrict_to_models_with_metrics_on_them() {
    let (app, exp, ids) = fixture().await;
    let on = |name: &str, digest: Option<&str>| {
        let mut d = json!({"dataset_name": name});
        if let Some(x) = digest {
            d["dataset_digest"] = json!(x);
        }
        json!({"datasets": [d]})
    };
    assert_eq!(
        ids_of(&search(&app, &exp, on("ds", Some("d1"))).await).len(),
        3
    );
    assert_eq!(
        ids_of(&search(&app, &exp, on("ds", Some("zz"))).await).len(),
        0
    );
    assert_eq!(
        ids_of(&search(&app, &exp, on("other", None)).await).len(),
        0
    );
    let mut q = on("ds", None);
    q["filter"] = json!("metrics.acc < 0.55");
    assert_eq!(ids_of(&search(&app, &exp, q).await), vec![ids[0].clone()]);
    assert_error(
        &app.post(
            "/logged-models/search",
            json!({"experiment_ids": [exp], "datasets": [{}]}),
        )
        .await,
        400,
        "INVALID_PARAMETER_VALUE",
        "`dataset_name` in the `datasets` clause must be specified.",
    );
}

#[tokio::test]
async fn bad_searches_get_mlflow_errors() {
    let app = TestApp::new();
    let exp = app.experiment("e").await;
    assert_error(
        &app.post("/logged-models/search", json!({})).await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Missing value for required parameter 'experiment_ids'",
    );
    let bad = |extra: Value| {
        let mut body = json!({"experiment_ids": [exp]});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        body
    };
    for (body, part) in [
        (bad(json!({"filter": "bogus"})), "Invalid filter"),
        (
            bad(json!({"filter": "datasets.name = 'x'"})),
            "Invalid entity type",
        ),
        (
            bad(json!({"filter": "shoe_size = 'x'"})),
            "Invalid attribute key",
        ),
        (
            bad(json!({"filter": "metrics.acc LIKE 'x'"})),
            "Invalid comparison operator",
        ),
        (
            bad(json!({"filter": "creation_time = 'x'"})),
            "expected a number",
        ),
        (
            bad(json!({"order_by": [{"field_name": "bogus"}]})),
            "Invalid order by field name: bogus",
        ),
        (
            bad(json!({"order_by": [{"field_name": "params.x"}]})),
            "Only metrics are supported",
        ),
        (bad(json!({"page_token": "garbage"})), "Invalid page token"),
        (bad(json!({"max_results": -1})), "max_results"),
    ] {
        let got = app.post("/logged-models/search", body.clone()).await;
        assert_error(&got, 400, "INVALID_PARAMETER_VALUE", part);
    }
}
