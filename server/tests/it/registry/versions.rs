//! model-versions/* and aliases: sources, stages, latest versions, download URIs, tags,
//! deletion, and aliases (`latest`, reserved names, unknown ones).

use serde_json::json;

use super::{admin, err, model, ok, run_in, version_of_run};
use crate::helpers::TestApp;

#[tokio::test]
async fn versions_from_runs_and_their_shape() {
    let app = TestApp::new();
    let (exp, run) = run_in(&app, "v-exp").await;
    model(&app, "clf").await;
    let body = json!({"name": "clf", "source": format!("runs:/{run}/model"), "run_id": run,
                      "description": "first", "tags": [{"key": "t", "value": "v"}]});
    let v = ok(&app, "POST", "/model-versions/create", body).await;
    let mv = &v["model_version"];
    assert_eq!(mv["name"], "clf");
    assert_eq!(mv["version"], "1");
    assert_eq!(mv["status"], "READY");
    assert_eq!(mv["current_stage"], "None");
    assert_eq!(mv["source"], format!("runs:/{run}/model"));
    assert_eq!(mv["run_id"], run.as_str());
    assert_eq!(mv["description"], "first");
    assert_eq!(mv["run_link"], "");
    // MLflow's server leaves a version's user empty.
    assert!(mv.get("user_id").is_none(), "{mv}");
    assert_eq!(mv["tags"], json!([{"key": "t", "value": "v"}]));
    let uri = ok(
        &app,
        "GET",
        "/model-versions/get-download-uri?name=clf&version=1",
        json!({}),
    )
    .await;
    assert_eq!(uri, json!({"artifact_uri": format!("runs:/{run}/model")}));

    // An mlflow-artifacts source inside the run's artifact root.
    let inside = format!("mlflow-artifacts:/{exp}/{run}/artifacts/model");
    let body = json!({"name": "clf", "source": inside, "run_id": run});
    let v = ok(&app, "POST", "/model-versions/create", body).await;
    assert_eq!(v["model_version"]["version"], "2");
    let uri = ok(
        &app,
        "GET",
        "/model-versions/get-download-uri?name=clf&version=2",
        json!({}),
    )
    .await;
    assert_eq!(uri["artifact_uri"], inside.as_str());
    // Any other remote URI is stored as it is.
    let v = ok(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "clf", "source": "s3://b/m"}),
    )
    .await;
    assert_eq!(v["model_version"]["run_id"], "");
    let rm = ok(&app, "GET", "/registered-models/get?name=clf", json!({})).await;
    let latest = &rm["registered_model"]["latest_versions"];
    assert_eq!(latest.as_array().map(Vec::len), Some(1), "{rm}");
    assert_eq!(latest[0]["version"], "3");
}

#[tokio::test]
async fn sources_are_checked_like_mlflow() {
    let app = TestApp::new();
    let (exp, run) = run_in(&app, "src-exp").await;
    let (_, other) = run_in(&app, "src-other").await;
    model(&app, "m").await;
    let unvouched = "request parameter must identify the resource that contains the source";
    let cases = [
        json!({"name": "m", "source": format!("runs:/{run}/model")}),
        json!({"name": "m", "source": format!("runs:/{run}/model"), "run_id": other}),
        json!({"name": "m", "source": format!("mlflow-artifacts:/{exp}/{run}/artifacts/m")}),
        json!({"name": "m", "source": format!("mlflow-artifacts:/{exp}/{other}/artifacts/m"), "run_id": run}),
        json!({"name": "m", "source": "runs:/0123456789abcdef0123456789abcdef/m", "run_id": "0123456789abcdef0123456789abcdef"}),
        json!({"name": "m", "source": "models:/m-0123456789abcdef0123456789abcdef", "model_id": "m-0123456789abcdef0123456789abcdef"}),
        json!({"name": "m", "source": "models:/m-0123456789abcdef0123456789abcdef"}),
    ];
    for body in cases {
        let r = admin(&app, "POST", "/model-versions/create", body.clone()).await;
        err(&r, 400, "INVALID_PARAMETER_VALUE", unvouched);
        assert!(
            r.1["message"]
                .as_str()
                .unwrap()
                .contains("Invalid model version source"),
            "{body}"
        );
    }
    let r = admin(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "m", "source": "/tmp/x"}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "To use a local path as a model version source",
    );
    let traversal = format!("mlflow-artifacts:/{exp}/{run}/artifacts/../../other");
    let r = admin(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "m", "source": traversal, "run_id": run}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "without relative path references",
    );
    let r = admin(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "nope", "source": "s3://b/x"}),
    )
    .await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Registered Model with name=nope not found",
    );
    assert_eq!(app.scalar("SELECT count(*) FROM model_versions"), 0);
}

#[tokio::test]
async fn a_registered_version_as_source() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "copy-exp").await;
    model(&app, "a").await;
    model(&app, "b").await;
    version_of_run(&app, "a", &run).await;
    let alias = json!({"name": "a", "alias": "best", "version": "1"});
    ok(&app, "POST", "/registered-models/alias", alias).await;
    for source in ["models:/a/1", "models:/a@best", "models:/a/latest"] {
        let v = ok(
            &app,
            "POST",
            "/model-versions/create",
            json!({"name": "b", "source": source}),
        )
        .await;
        let mv = &v["model_version"];
        assert_eq!(mv["source"], "models:/a/1", "{source}");
        assert_eq!(mv["run_id"], run.as_str(), "{source}");
    }
    let uri = ok(
        &app,
        "GET",
        "/model-versions/get-download-uri?name=b&version=1",
        json!({}),
    )
    .await;
    assert_eq!(uri["artifact_uri"], format!("runs:/{run}/model"));
    let r = admin(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "b", "source": "models:/a/7"}),
    )
    .await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Model Version (name=a, version=7) not found",
    );
}

#[tokio::test]
async fn stages_and_latest_versions() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "stage-exp").await;
    model(&app, "s").await;
    for _ in 0..3 {
        version_of_run(&app, "s", &run).await;
    }
    let to = |v: &str, stage: &str, archive: bool| json!({"name": "s", "version": v, "stage": stage, "archive_existing_versions": archive});
    let v = ok(
        &app,
        "POST",
        "/model-versions/transition-stage",
        to("1", "production", false),
    )
    .await;
    assert_eq!(v["model_version"]["current_stage"], "Production");
    ok(
        &app,
        "POST",
        "/model-versions/transition-stage",
        to("2", "Production", true),
    )
    .await;
    let v1 = ok(
        &app,
        "GET",
        "/model-versions/get?name=s&version=1",
        json!({}),
    )
    .await;
    assert_eq!(v1["model_version"]["current_stage"], "Archived");
    let r = admin(
        &app,
        "POST",
        "/model-versions/transition-stage",
        to("2", "bogus", false),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Invalid Model Version stage: bogus.",
    );
    // MLflow answers this with a retried 500; a 400 here.
    let r = admin(
        &app,
        "POST",
        "/model-versions/transition-stage",
        to("3", "None", true),
    )
    .await;
    err(&r, 400, "INVALID_PARAMETER_VALUE", "is not an Active stage");

    let all = ok(
        &app,
        "POST",
        "/registered-models/get-latest-versions",
        json!({"name": "s"}),
    )
    .await;
    let got: Vec<(String, String)> = all["model_versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["version"].as_str().unwrap().into(),
                m["current_stage"].as_str().unwrap().into(),
            )
        })
        .collect();
    let want = [("1", "Archived"), ("2", "Production"), ("3", "None")];
    assert_eq!(got, want.map(|(a, b)| (a.to_string(), b.to_string())));
    let prod = ok(
        &app,
        "GET",
        "/registered-models/get-latest-versions?name=s&stages=production",
        json!({}),
    )
    .await;
    assert_eq!(prod["model_versions"][0]["version"], "2");
    assert_eq!(prod["model_versions"].as_array().map(Vec::len), Some(1));
    let none = ok(
        &app,
        "POST",
        "/registered-models/get-latest-versions",
        json!({"name": "s", "stages": ["Staging"]}),
    )
    .await;
    assert_eq!(none, json!({}));
}

#[tokio::test]
async fn update_tags_and_delete_versions() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "del-exp").await;
    model(&app, "d").await;
    version_of_run(&app, "d", &run).await;
    version_of_run(&app, "d", &run).await;
    let v = ok(
        &app,
        "PATCH",
        "/model-versions/update",
        json!({"name": "d", "version": "1", "description": "x"}),
    )
    .await;
    assert_eq!(v["model_version"]["description"], "x");
    let tag = json!({"name": "d", "version": "1", "key": "k", "value": "v"});
    ok(&app, "POST", "/model-versions/set-tag", tag).await;
    ok(
        &app,
        "DELETE",
        "/model-versions/delete-tag",
        json!({"name": "d", "version": "1", "key": "k"}),
    )
    .await;
    let v = ok(
        &app,
        "GET",
        "/model-versions/get?name=d&version=1",
        json!({}),
    )
    .await;
    assert!(v["model_version"].get("tags").is_none(), "{v}");

    let alias = json!({"name": "d", "alias": "champ", "version": "2"});
    ok(&app, "POST", "/registered-models/alias", alias).await;
    ok(
        &app,
        "DELETE",
        "/model-versions/delete",
        json!({"name": "d", "version": "2"}),
    )
    .await;
    let r = admin(
        &app,
        "GET",
        "/model-versions/get?name=d&version=2",
        json!({}),
    )
    .await;
    err(&r, 404, "RESOURCE_DOES_NOT_EXIST", "version=2");
    let rm = ok(&app, "GET", "/registered-models/get?name=d", json!({})).await;
    assert!(
        rm["registered_model"].get("aliases").is_none(),
        "the alias goes with its version: {rm}"
    );
    // Numbers are never given twice.
    assert_eq!(version_of_run(&app, "d", &run).await, "3");
}

#[tokio::test]
async fn aliases() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "alias-exp").await;
    model(&app, "a").await;
    version_of_run(&app, "a", &run).await;
    version_of_run(&app, "a", &run).await;
    let set = |alias: &str, v: &str| json!({"name": "a", "alias": alias, "version": v});
    ok(
        &app,
        "POST",
        "/registered-models/alias",
        set("champion", "1"),
    )
    .await;
    ok(
        &app,
        "POST",
        "/registered-models/alias",
        set("champion", "2"),
    )
    .await;
    let v = ok(
        &app,
        "GET",
        "/registered-models/alias?name=a&alias=champion",
        json!({}),
    )
    .await;
    assert_eq!(v["model_version"]["version"], "2");
    let v = ok(
        &app,
        "GET",
        "/registered-models/alias?name=a&alias=latest",
        json!({}),
    )
    .await;
    assert_eq!(v["model_version"]["version"], "2");
    for (alias, part) in [
        (
            "latest",
            "'latest' alias name (case insensitive) is reserved.",
        ),
        ("v3", "Version alias name 'v3' is reserved."),
        ("a b", "Invalid alias name: 'a b'."),
    ] {
        let r = admin(&app, "POST", "/registered-models/alias", set(alias, "1")).await;
        err(&r, 400, "INVALID_PARAMETER_VALUE", part);
    }
    let r = admin(&app, "POST", "/registered-models/alias", set("x", "9")).await;
    err(
        &r,
        404,
        "RESOURCE_DOES_NOT_EXIST",
        "Model Version (name=a, version=9) not found",
    );
    let r = admin(
        &app,
        "GET",
        "/registered-models/alias?name=a&alias=nope",
        json!({}),
    )
    .await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "Registered model alias nope not found.",
    );
    ok(
        &app,
        "DELETE",
        "/registered-models/alias",
        json!({"name": "a", "alias": "champion"}),
    )
    .await;
    ok(
        &app,
        "DELETE",
        "/registered-models/alias",
        json!({"name": "a", "alias": "champion"}),
    )
    .await;
    let r = admin(
        &app,
        "GET",
        "/registered-models/alias?name=a&alias=champion",
        json!({}),
    )
    .await;
    err(&r, 400, "INVALID_PARAMETER_VALUE", "not found");
}

/// The shapes MLflow 3.17.2's server gives with its stock client: no `user_id` on any
/// version, `aliases` on a version read alone but never in `model-versions/search`; the
/// app's Models page still shows who registered each version, and its aliases.
#[tokio::test]
async fn search_leaves_aliases_out_and_no_version_names_its_user() {
    let app = TestApp::new();
    let (_, run) = run_in(&app, "shape-exp").await;
    model(&app, "shape").await;
    let created = ok(
        &app,
        "POST",
        "/model-versions/create",
        json!({"name": "shape", "source": format!("runs:/{run}/model"), "run_id": run}),
    )
    .await;
    version_of_run(&app, "shape", &run).await;
    let alias = json!({"name": "shape", "alias": "champion", "version": "1"});
    ok(&app, "POST", "/registered-models/alias", alias).await;

    let got = ok(
        &app,
        "GET",
        "/model-versions/get?name=shape&version=1",
        json!({}),
    )
    .await;
    assert_eq!(got["model_version"]["aliases"], json!(["champion"]));
    let by_alias = ok(
        &app,
        "GET",
        "/registered-models/alias?name=shape&alias=champion",
        json!({}),
    )
    .await;
    assert_eq!(by_alias["model_version"]["aliases"], json!(["champion"]));
    let found = ok(
        &app,
        "GET",
        "/model-versions/search?filter=name%3D%27shape%27",
        json!({}),
    )
    .await;
    let found = found["model_versions"]
        .as_array()
        .expect("versions")
        .clone();
    assert_eq!(found.len(), 2);
    for mv in &found {
        assert!(mv.get("aliases").is_none(), "{mv}");
    }
    let moved = ok(
        &app,
        "POST",
        "/model-versions/transition-stage",
        json!({"name": "shape", "version": "1", "stage": "Staging"}),
    )
    .await;
    let rm = ok(&app, "GET", "/registered-models/get?name=shape", json!({})).await;
    let mut every = vec![&created["model_version"], &got["model_version"]];
    every.extend([&by_alias["model_version"], &moved["model_version"]]);
    every.extend(found.iter());
    every.extend(
        rm["registered_model"]["latest_versions"]
            .as_array()
            .expect("latest"),
    );
    for mv in every {
        assert!(mv.get("user_id").is_none(), "{mv}");
    }

    let page = app
        .get_as(&app.admin_token, "/api/v1/registered-models/shape")
        .await;
    assert_eq!(page.status, 200, "{}", page.text);
    let v1 = &page.body["versions"][1];
    assert_eq!(v1["version"], "1");
    assert_eq!(v1["user_id"], "root");
    assert_eq!(v1["aliases"], json!(["champion"]));
}

#[tokio::test]
async fn versions_from_logged_models() {
    let app = TestApp::new();
    let (exp, run) = run_in(&app, "lm-exp").await;
    let v = app
        .ok(
            "/logged-models",
            json!({"experiment_id": exp, "name": "model", "source_run_id": run}),
        )
        .await;
    let id = v["model"]["info"]["model_id"]
        .as_str()
        .expect("model id")
        .to_string();
    let location = v["model"]["info"]["artifact_uri"]
        .as_str()
        .expect("location")
        .to_string();
    assert!(
        location.starts_with(&format!("mlflow-artifacts:/{exp}/models/{id}")),
        "{location}"
    );
    model(&app, "lm").await;
    let body = json!({"name": "lm", "source": format!("models:/{id}"), "model_id": id});
    let v = ok(&app, "POST", "/model-versions/create", body).await;
    let mv = &v["model_version"];
    assert_eq!(mv["source"], format!("models:/{id}"));
    assert_eq!(mv["run_id"], run.as_str(), "the logged model's source run");
    assert_eq!(mv["model_id"], id.as_str());
    let uri = ok(
        &app,
        "GET",
        "/model-versions/get-download-uri?name=lm&version=1",
        json!({}),
    )
    .await;
    assert_eq!(
        uri["artifact_uri"],
        location.as_str(),
        "its files are the logged model's"
    );
    // The logged model lists the versions made from it, as MLflow's server tags it.
    let body = json!({"name": "lm", "source": "models:/lm/1"});
    ok(&app, "POST", "/model-versions/create", body).await;
    let model_id = id.clone();
    let tags = app
        .store
        .blocking(move |c| Ok(server::models::logged::get(c, &model_id)?.tags))
        .expect("logged model");
    let tag = tags
        .iter()
        .find(|(k, _)| k == "mlflow.modelVersions")
        .expect("tag");
    let listed: serde_json::Value = serde_json::from_str(&tag.1).expect("json");
    assert_eq!(
        listed,
        json!([{"name": "lm", "version": 1}, {"name": "lm", "version": 2}])
    );
    // An artifact source must lie inside the logged model's artifacts.
    let outside =
        json!({"name": "lm", "source": format!("mlflow-artifacts:/{exp}/other"), "model_id": id});
    let r = admin(&app, "POST", "/model-versions/create", outside).await;
    err(
        &r,
        400,
        "INVALID_PARAMETER_VALUE",
        "The model_id request parameter must identify",
    );
}
