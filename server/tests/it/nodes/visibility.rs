//! Who may watch which node: admins every node; a user the nodes granted to them or their
//! groups; everything else is a 404 like an unknown node. Nothing a user can write (a run's
//! `runlens.nodes` tag, a job run's node list) adds a node.

use serde_json::{json, Value};

use super::{gpus, grant_node, register};
use crate::helpers::TestApp;

fn names(list: &Value) -> Vec<&str> {
    list["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_see_the_nodes_granted_to_them_and_admins_all() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    // Nothing listens on port 1: these nodes are unreachable, which is beside the point.
    for n in ["node-a", "node-b", "node-c"] {
        register(&app, n, "http://127.0.0.1:1", "tok", 10).await;
    }
    grant_node(&app, "node-a", "user", "alice").await;

    let list = app.get_as(&alice, "/api/v1/nodes").await;
    assert_eq!(list.status, 200);
    assert_eq!(names(&list.body), ["node-a"]);
    assert!(
        list.body["nodes"][0].get("url").is_none(),
        "URL for admins only: {}",
        list.text
    );
    let list = app.get_as(&bob, "/api/v1/nodes").await;
    assert_eq!(names(&list.body), Vec::<&str>::new());
    let list = app.get_as(&app.admin_token, "/api/v1/nodes").await;
    assert_eq!(names(&list.body), ["node-a", "node-b", "node-c"]);
    assert_eq!(list.body["nodes"][0]["url"], "http://127.0.0.1:1");

    // Samples: alice node-a only; an invisible node answers like an unknown one.
    let r = gpus(&app, &alice, "node-a", None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    assert_eq!(r.body["nodes"][0]["node"], "node-a");
    for (who, token, nodes) in [
        ("alice", &alice, "node-b"),
        ("alice", &alice, "node-a,node-c"),
        ("alice", &alice, "node-unregistered"),
        ("bob", &bob, "node-a"),
    ] {
        let r = gpus(&app, token, nodes, None).await;
        assert_eq!(r.status, 404, "{who} {nodes}: {}", r.text);
        assert_eq!(r.body["code"], "NOT_FOUND");
        let hidden = nodes.rsplit(',').next().unwrap();
        assert_eq!(
            r.body["message"],
            format!("No node named {hidden} that you can see"),
            "{who} {nodes}"
        );
        assert!(r
            .body
            .get("grantors")
            .is_none_or(|g| g == &serde_json::json!([])));
    }
    let r = gpus(&app, &app.admin_token, "node-a,node-b,node-c", None).await;
    assert_eq!(r.status, 200, "{}", r.text);
    let order: Vec<&str> = r.body["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["node"].as_str().unwrap())
        .collect();
    assert_eq!(order, ["node-a", "node-b", "node-c"], "in the order asked");

    // At most 64 names; none is a 400; so is a malformed since.
    let many: Vec<String> = (0..65).map(|i| format!("n{i}")).collect();
    let r = gpus(&app, &app.admin_token, &many.join(","), None).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = gpus(&app, &app.admin_token, "", None).await;
    assert_eq!(r.status, 400, "{}", r.text);
    let r = app
        .get_as(
            &app.admin_token,
            "/api/v1/nodes/gpus?nodes=node-a&since=yesterday",
        )
        .await;
    assert_eq!(r.status, 400, "{}", r.text);

    // Losing the grant loses the node.
    let (status, _) = app
        .call_as(
            &app.admin_token,
            "DELETE",
            "/api/v1/nodes/node-a/access?kind=user&name=alice",
            None,
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(gpus(&app, &alice, "node-a", None).await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_group_grant_lets_its_members_watch_and_admins_list_the_viewers() {
    let app = TestApp::new();
    let carol = app.user_token("carol", false);
    app.store
        .blocking(|c| {
            server::auth::groups::create_group(c, "gpu-team")?;
            server::auth::groups::add_member(c, "gpu-team", "carol")
        })
        .expect("group");
    register(&app, "node-g", "http://127.0.0.1:1", "tok", 10).await;
    assert_eq!(gpus(&app, &carol, "node-g", None).await.status, 404);
    grant_node(&app, "node-g", "group", "gpu-team").await;
    assert_eq!(gpus(&app, &carol, "node-g", None).await.status, 200);
    let access = app
        .get_as(&app.admin_token, "/api/v1/nodes/node-g/access")
        .await;
    assert_eq!(access.status, 200, "{}", access.text);
    assert_eq!(
        access.body,
        json!({"node": "node-g", "viewers": [{"kind": "group", "name": "gpu-team"}]})
    );
    // Only administrators read or change a node's grants.
    let r = app.get_as(&carol, "/api/v1/nodes/node-g/access").await;
    assert_eq!(r.status, 403, "{}", r.text);
    let body = json!({"principal": {"kind": "user", "name": "carol"}});
    let (status, _) = app
        .call_as(&carol, "PUT", "/api/v1/nodes/node-g/access", Some(body))
        .await;
    assert_eq!(status, 403);
    // Unknown node or principal: 404.
    let body = json!({"principal": {"kind": "user", "name": "nobody"}});
    let (status, v) = app
        .call_as(
            &app.admin_token,
            "PUT",
            "/api/v1/nodes/node-g/access",
            Some(body),
        )
        .await;
    assert_eq!(status, 404, "{v}");
    let body = json!({"principal": {"kind": "user", "name": "carol"}});
    let (status, v) = app
        .call_as(
            &app.admin_token,
            "PUT",
            "/api/v1/nodes/no-such/access",
            Some(body),
        )
        .await;
    assert_eq!(status, 404, "{v}");
}

/// The probe: a user tags their own run with another team's node and submits a job run
/// naming it, then asks for that node's GPUs and an embed link. Every answer is the 404 of
/// a node that does not exist, word for word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tags_and_job_runs_naming_a_node_give_no_access_to_it() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let mallory = app.user_token("mallory", false);
    register(&app, "team-node", "http://127.0.0.1:1", "tok", 10).await;
    grant_node(&app, "team-node", "user", "alice").await;
    // Mallory's own experiment: a run tagged with the node, and a job run naming it.
    let (status, v) = app.create_as(&mallory, "/Users/mallory/probe").await;
    assert_eq!(status, 200, "{v}");
    let exp = v["experiment_id"].as_str().expect("id").to_string();
    let (status, v) = app
        .call_as(
            &mallory,
            "POST",
            "/api/2.0/mlflow/runs/create",
            Some(json!({"experiment_id": exp, "run_name": "probe-run"})),
        )
        .await;
    assert_eq!(status, 200, "{v}");
    let run = v["run"]["info"]["run_id"]
        .as_str()
        .expect("run id")
        .to_string();
    let tag = json!({"run_id": run, "key": api_types::nodes::RUN_NODES_TAG, "value": "team-node"});
    let (status, v) = app
        .call_as(&mallory, "POST", "/api/2.0/mlflow/runs/set-tag", Some(tag))
        .await;
    assert_eq!(status, 200, "{v}");
    let (status, job) = app
        .call_as(
            &mallory,
            "POST",
            "/api/v1/jobs",
            Some(json!({"name": "probe-job"})),
        )
        .await;
    assert_eq!(status, 201, "{job}");
    let job_run = json!({"experiment_id": exp, "nodes": ["team-node"], "max_retries": 0});
    let (status, v) = app
        .call_as(
            &mallory,
            "POST",
            &format!("/api/v1/jobs/{}/runs", job["job_id"]),
            Some(job_run),
        )
        .await;
    assert_eq!(status, 201, "{v}");

    let unknown = gpus(&app, &mallory, "no-such-node", None).await;
    assert_eq!(unknown.status, 404);
    let probe = gpus(&app, &mallory, "team-node", None).await;
    assert_eq!(probe.status, 404, "{}", probe.text);
    assert_eq!(
        probe.text.replace("team-node", "X"),
        unknown.text.replace("no-such-node", "X")
    );
    let link = |node: &str| json!({"nodes": [node]});
    let (s1, unknown) = app
        .call_as(
            &mallory,
            "POST",
            "/api/v1/nodes/embed-links",
            Some(link("no-such-node")),
        )
        .await;
    let (s2, probe) = app
        .call_as(
            &mallory,
            "POST",
            "/api/v1/nodes/embed-links",
            Some(link("team-node")),
        )
        .await;
    assert_eq!((s1, s2), (404, 404), "{probe}");
    assert_eq!(
        probe.to_string().replace("team-node", "X"),
        unknown.to_string().replace("no-such-node", "X")
    );
    let list = app.get_as(&mallory, "/api/v1/nodes").await;
    assert_eq!(names(&list.body), Vec::<&str>::new());
    // The node's grantee is unaffected.
    assert_eq!(gpus(&app, &alice, "team-node", None).await.status, 200);
}
