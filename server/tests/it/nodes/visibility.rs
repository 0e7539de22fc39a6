//! Who may watch which node: admins every node; a user the nodes named in `runlens.nodes`
//! tags of runs they may read; everything else is a 404 like an unknown node.

use serde_json::Value;

use super::{experiment_with_nodes, gpus, grant_read, register};
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
async fn users_see_the_nodes_of_runs_they_may_read_and_admins_all() {
    let app = TestApp::new();
    let alice = app.user_token("alice", false);
    let bob = app.user_token("bob", false);
    // Nothing listens on port 1: these nodes are unreachable, which is beside the point.
    for n in ["node-a", "node-b", "node-c"] {
        register(&app, n, "http://127.0.0.1:1", "tok", 10).await;
    }
    let exp = experiment_with_nodes(&app, "team-exp", "node-a, node-unregistered").await;
    grant_read(&app, &exp, "alice").await;
    // node-c is named by a run of an experiment alice may not read.
    experiment_with_nodes(&app, "other-exp", "node-c").await;

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

    // Losing read access loses the node.
    let (status, _) = app
        .call_as(
            &app.admin_token,
            "DELETE",
            &format!("/api/v1/experiments/{exp}/access?kind=user&name=alice"),
            None,
        )
        .await;
    assert_eq!(status, 204);
    assert_eq!(gpus(&app, &alice, "node-a", None).await.status, 404);
}
