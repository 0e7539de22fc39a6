//! `can_edit` on the experiment and run pages: CAN_EDIT or more on the experiment.

use api_types::{Level, Principal, PrincipalKind};

use crate::helpers::TestApp;

#[tokio::test]
async fn can_edit_is_true_for_editors_managers_and_admins_only() {
    let app = TestApp::new();
    // A private experiment (under the administrator's /Users/ folder).
    let exp = app.experiment("/Users/root/private").await;
    let run = app.run(&exp, "r").await;
    let id: i64 = exp.parse().unwrap();
    let mut tokens = Vec::new();
    for (name, level) in [
        ("reader", Level::CanRead),
        ("editor", Level::CanEdit),
        ("manager", Level::CanManage),
    ] {
        tokens.push((app.user_token(name, false), Some(level)));
        app.store
            .blocking(|c| {
                let p = Principal {
                    kind: PrincipalKind::User,
                    name: name.into(),
                };
                server::permissions::set_grant(c, id, &p, Some(level))
            })
            .unwrap();
    }
    tokens.push((app.admin_token.clone(), Some(Level::CanManage)));
    for (token, level) in &tokens {
        let want = *level >= Some(Level::CanEdit);
        for uri in [
            format!("/api/v1/experiments/{exp}"),
            format!("/api/v1/runs/{run}"),
        ] {
            let r = app.get_as(token, &uri).await;
            assert_eq!(r.status, 200, "{uri}: {}", r.text);
            assert_eq!(r.body["can_edit"], want, "{uri} at {level:?}");
        }
    }
    // A /Workspace/Shared/ experiment gives every user CAN_EDIT.
    let shared = app.experiment("/Workspace/Shared/team").await;
    let r = app
        .get_as(&tokens[0].0, &format!("/api/v1/experiments/{shared}"))
        .await;
    assert_eq!(r.body["can_edit"], true);
}
