//! registered-models/search and model-versions/search: filters, order, pages.

use serde_json::{json, Value};

use super::{admin, err, model, ok, run_in, version_of_run};
use crate::helpers::TestApp;

fn names(v: &Value, key: &str) -> Vec<String> {
    v[key]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|m| m["name"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test]
async fn registered_models_filter_order_and_pages() {
    let app = TestApp::new();
    for name in ["beta", "alpha", "Alpine", "gamma", "delta"] {
        model(&app, name).await;
    }
    let tag = json!({"name": "gamma", "key": "team", "value": "vision"});
    ok(&app, "POST", "/registered-models/set-tag", tag).await;
    let a = &app;
    let get = |q: &str| {
        let path = format!("/registered-models/search?{q}");
        async move { ok(a, "GET", &path, json!({})).await }
    };
    assert_eq!(
        names(&get("").await, "registered_models"),
        ["Alpine", "alpha", "beta", "delta", "gamma"]
    );
    assert_eq!(
        names(
            &get("filter=name+LIKE+%27al%25%27").await,
            "registered_models"
        ),
        ["alpha"]
    );
    assert_eq!(
        names(
            &get("filter=name+ILIKE+%27al%25%27").await,
            "registered_models"
        ),
        ["Alpine", "alpha"]
    );
    assert_eq!(
        names(
            &get("filter=name+%3D+%27beta%27").await,
            "registered_models"
        ),
        ["beta"]
    );
    assert_eq!(
        names(
            &get("filter=name+IN+(%27beta%27,%27delta%27)").await,
            "registered_models"
        ),
        ["beta", "delta"]
    );
    assert_eq!(
        names(
            &get("filter=tags.team+%3D+%27vision%27").await,
            "registered_models"
        ),
        ["gamma"]
    );
    assert_eq!(
        names(
            &get("order_by=name+DESC&max_results=2").await,
            "registered_models"
        ),
        ["gamma", "delta"]
    );
    assert_eq!(get("filter=name+%3D+%27none%27").await, json!({}));

    // Pages of two, by name.
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = get(&format!("max_results=2&page_token={token}")).await;
        seen.extend(names(&page, "registered_models"));
        match page["next_page_token"].as_str() {
            Some(t) => token = t.to_string(),
            None => break,
        }
    }
    assert_eq!(seen, ["Alpine", "alpha", "beta", "delta", "gamma"]);

    let bad = |q: &'static str| admin(&app, "GET", q, json!({}));
    err(
        &bad("/registered-models/search?filter=foo+%3D+%27x%27").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid attribute key 'foo'",
    );
    err(
        &bad("/registered-models/search?order_by=foo").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid order by key 'foo'",
    );
    err(
        &bad("/registered-models/search?max_results=1001").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "max_results",
    );
    err(
        &bad("/registered-models/search?page_token=abc").await,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid page token",
    );
}

#[tokio::test]
async fn prompts_stay_out_of_model_searches() {
    let app = TestApp::new();
    model(&app, "plain").await;
    let prompt =
        json!({"name": "p", "tags": [{"key": "mlflow.prompt.is_prompt", "value": "true"}]});
    ok(&app, "POST", "/registered-models/create", prompt).await;
    let all = ok(&app, "GET", "/registered-models/search", json!({})).await;
    assert_eq!(names(&all, "registered_models"), ["plain"]);
    let q = "/registered-models/search?filter=tags.%60mlflow.prompt.is_prompt%60+%3D+%27true%27";
    assert_eq!(
        names(&ok(&app, "GET", q, json!({})).await, "registered_models"),
        ["p"]
    );
}

#[tokio::test]
async fn model_versions_filter_order_and_pages() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "mv-search").await;
    let (_, other) = run_in(&app, "mv-search-2").await;
    model(&app, "a").await;
    model(&app, "b").await;
    version_of_run(&app, "a", &run).await;
    version_of_run(&app, "a", &other).await;
    version_of_run(&app, "b", &run).await;
    let versions = |v: &Value| -> Vec<String> {
        v["model_versions"]
            .as_array()
            .map(|a| {
                a.iter()
                    .map(|m| {
                        format!(
                            "{}/{}",
                            m["name"].as_str().unwrap(),
                            m["version"].as_str().unwrap()
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    };
    let a = &app;
    let get = |q: String| async move {
        ok(a, "GET", &format!("/model-versions/search?{q}"), json!({})).await
    };
    let by_name = get("filter=name%3D%27a%27&order_by=version_number+ASC".into()).await;
    assert_eq!(versions(&by_name), ["a/1", "a/2"]);
    let by_run = get(format!("filter=run_id%3D%27{run}%27&order_by=name+ASC")).await;
    assert_eq!(versions(&by_run), ["a/1", "b/1"]);
    let numeric = get("filter=name%3D%27a%27+AND+version_number+%3E+1".into()).await;
    assert_eq!(versions(&numeric), ["a/2"]);
    let first = get("max_results=2&order_by=name+ASC&order_by=version_number+ASC".into()).await;
    assert_eq!(versions(&first), ["a/1", "a/2"]);
    let token = first["next_page_token"]
        .as_str()
        .expect("a second page")
        .to_string();
    let second = get(format!(
        "max_results=2&order_by=name+ASC&order_by=version_number+ASC&page_token={token}"
    ))
    .await;
    assert_eq!(versions(&second), ["b/1"]);
    assert!(second.get("next_page_token").is_none());
    let r = admin(
        &app,
        "GET",
        "/model-versions/search?filter=bogus%3D%27x%27",
        json!({}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid attribute key 'bogus'",
    );
}
