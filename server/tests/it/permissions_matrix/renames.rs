//! Renames and moves (`experiments/update`) as a matrix: every caller kind × three kinds of
//! experiment (the Default experiment 0, the caller's own private `/Users/<me>/own`, and the
//! fixture `/Users/owner/secret-exp` where the caller has their kind's grant, CAN_MANAGE for
//! the manager) × every kind of new name (own folder, someone else's folder, the
//! experiment owner's folder, `/Workspace/Shared/`, a plain name).
//!
//! The rule (as decided): CAN_EDIT when the implicit access stays the same,
//! CAN_MANAGE when it changes; the right to create at the new name (`/Users/<x>/` only x or
//! an admin) unless the experiment stays in its owner's folder; out of `/Users/<owner>/`
//! only the owner or an admin; experiment 0 never into `/Users/` (400). While an experiment
//! stays in its owner's folder the owner keeps CAN_MANAGE.

use api_types::Level;
use axum::http::StatusCode;

use super::fixture::{send, Template, Who, EXPERIMENT};

/// The experiment renamed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    /// Experiment 0.
    Default,
    /// The caller's own `/Users/<me>/own`.
    Own,
    /// The fixture, owned by `owner`, with the caller's grant.
    Others,
}

/// The new name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Target {
    /// `/Users/<me>/moved`.
    OwnFolder,
    /// `/Users/zed/moved` (an existing user other than the caller and the owner).
    OtherFolder,
    /// `/Users/owner/moved`.
    OwnerFolder,
    /// `/Workspace/Shared/moved`.
    Shared,
    /// `moved-plain`.
    Plain,
}

const TARGETS: [Target; 5] = [
    Target::OwnFolder,
    Target::OtherFolder,
    Target::OwnerFolder,
    Target::Shared,
    Target::Plain,
];

/// The implicit access a name gives (the README's rules, written out independently of the
/// server's code): `/Users/<x>/...` private to x; `/Workspace/Shared/...` and experiment 0
/// everyone's; anything else grants only.
#[derive(Debug, PartialEq, Eq)]
enum Scope {
    Owned(String),
    Shared,
    Plain,
}

fn scope(id: i64, name: &str) -> Scope {
    if id == 0 || name.starts_with("/Workspace/Shared/") {
        return Scope::Shared;
    }
    match name.strip_prefix("/Users/").and_then(|r| r.split_once('/')) {
        Some((owner, _)) if !owner.is_empty() => Scope::Owned(owner.to_string()),
        _ => Scope::Plain,
    }
}

/// What the rename must answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    Renamed,
    Unauthenticated,
    Denied,
    /// 400 INVALID_PARAMETER_VALUE.
    Invalid,
    /// 400 or 403 (experiment 0 into a folder the caller may not create in either).
    InvalidOrDenied,
}

fn target_name(t: Target, me: &str) -> String {
    match t {
        Target::OwnFolder => format!("/Users/{me}/moved"),
        Target::OtherFolder => "/Users/zed/moved".into(),
        Target::OwnerFolder => "/Users/owner/moved".into(),
        Target::Shared => "/Workspace/Shared/moved".into(),
        Target::Plain => "moved-plain".into(),
    }
}

/// Whether `me` may create an experiment named `name`.
fn may_create(who: Who, me: &str, name: &str) -> bool {
    match scope(-1, name) {
        Scope::Owned(owner) => who == Who::Admin || owner == me,
        Scope::Shared | Scope::Plain => true,
    }
}

fn expected(who: Who, source: Source, target: Target) -> Expect {
    let Some(me) = who.username() else {
        return Expect::Unauthenticated;
    };
    let new_name = target_name(target, me);
    let (id, old_name, level) = match source {
        Source::Default => (0, "Default".to_string(), Some(Level::CanEdit)),
        Source::Own => (1, format!("/Users/{me}/own"), Some(Level::CanManage)),
        Source::Others => (1, EXPERIMENT.to_string(), who.level()),
    };
    let level = if who == Who::Admin {
        Some(Level::CanManage)
    } else {
        level
    };
    if source == Source::Default && new_name.starts_with("/Users/") {
        return if may_create(who, me, &new_name) {
            Expect::Invalid
        } else {
            Expect::InvalidOrDenied
        };
    }
    let need = if scope(id, &old_name) == scope(id, &new_name) {
        Level::CanEdit
    } else {
        Level::CanManage
    };
    if level < Some(need) {
        return Expect::Denied;
    }
    let (old_owner, new_owner) = (owner_of(&old_name), owner_of(&new_name));
    let stays_in_folder = old_owner.is_some() && old_owner == new_owner;
    if let Some(owner) = old_owner {
        if !stays_in_folder && owner != me && who != Who::Admin {
            return Expect::Denied;
        }
    }
    if !stays_in_folder && !may_create(who, me, &new_name) {
        return Expect::Denied;
    }
    Expect::Renamed
}

/// The `<x>` of `/Users/<x>/...`.
fn owner_of(name: &str) -> Option<String> {
    match scope(1, name) {
        Scope::Owned(owner) => Some(owner),
        Scope::Shared | Scope::Plain => None,
    }
}

/// Name of experiment `id` as the administrator sees it.
async fn name_of(t: &Template, app: &axum::Router, id: &str) -> String {
    let admin = t.token(Who::Admin);
    let uri = format!("/api/2.0/mlflow/experiments/get?experiment_id={id}");
    let (status, v) = send(app, "GET", &uri, None, admin.as_deref()).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    v["experiment"]["name"].as_str().expect("name").to_string()
}

/// The owner of the fixture still reads and manages it (a CAN_MANAGE-only request).
async fn owner_still_manages(app: &axum::Router, store: &server::Store, id: &str, ctx: &str) {
    let token = store
        .blocking(|c| {
            let uid = server::auth::users::find_user_id(c, "owner")?.expect("owner");
            Ok(server::auth::tokens::create_token(c, uid, "owner")?.token)
        })
        .expect("owner token");
    let read = format!("/api/2.0/mlflow/experiments/get?experiment_id={id}");
    let (status, v) = send(app, "GET", &read, None, Some(&token)).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{ctx}: the owner lost read access: {v}"
    );
    let manage = format!(
        "/api/3.0/mlflow/users/permissions/get?username=target&resource_type=experiment&resource_id={id}"
    );
    let (status, v) = send(app, "GET", &manage, None, Some(&token)).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{ctx}: the owner lost CAN_MANAGE: {v}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn renames_and_moves_follow_the_creation_and_level_rules() {
    let t = Template::build().await;
    let mut failures = Vec::new();
    let mut cells = 0;
    for who in Who::ALL {
        for source in [Source::Default, Source::Own, Source::Others] {
            let id = match source {
                Source::Default => "0".to_string(),
                Source::Own => match t.own(who) {
                    Some(id) => id.to_string(),
                    None => t.own(Who::Reader).expect("own").to_string(),
                },
                Source::Others => t.exp.clone(),
            };
            for target in TARGETS {
                cells += 1;
                let me = who.username().unwrap_or("nobody");
                let new_name = target_name(target, me);
                let want = expected(who, source, target);
                // Only a rename that should happen changes the fixture: it gets a copy of
                // its own; a refused one would show on the shared copy as a changed name.
                let (_dir, app, store) = match want {
                    Expect::Renamed => {
                        let (dir, app, store) = t.copy_with_store();
                        (Some(dir), app, store)
                    }
                    _ => {
                        let (app, store) = t.shared_with_store();
                        (None, app, store)
                    }
                };
                let before = name_of(&t, &app, &id).await;
                let body = serde_json::json!({"experiment_id": id, "new_name": new_name});
                let (status, v) = send(
                    &app,
                    "POST",
                    "/api/2.0/mlflow/experiments/update",
                    Some(body.to_string()),
                    t.token(who).as_deref(),
                )
                .await;
                let ctx = format!("{who:?} renames {source:?} ({before}) to {new_name}: want {want:?}, got {status} {v}");
                let ok = match want {
                    Expect::Renamed => status == StatusCode::OK,
                    Expect::Unauthenticated => status == StatusCode::UNAUTHORIZED,
                    Expect::Denied => {
                        status == StatusCode::FORBIDDEN && v["error_code"] == "PERMISSION_DENIED"
                    }
                    Expect::Invalid => {
                        status == StatusCode::BAD_REQUEST
                            && v["error_code"] == "INVALID_PARAMETER_VALUE"
                    }
                    Expect::InvalidOrDenied => {
                        matches!(status, StatusCode::BAD_REQUEST | StatusCode::FORBIDDEN)
                    }
                };
                if !ok {
                    failures.push(ctx.clone());
                    continue;
                }
                let after = name_of(&t, &app, &id).await;
                let want_name = if want == Expect::Renamed {
                    &new_name
                } else {
                    &before
                };
                if after != *want_name {
                    failures.push(format!("{ctx}: name is now {after}"));
                }
                if source == Source::Others && owner_of(&after).as_deref() == Some("owner") {
                    owner_still_manages(&app, &store, &id, &ctx).await;
                }
            }
        }
    }
    assert_eq!(cells, 7 * 3 * TARGETS.len());
    assert!(
        failures.is_empty(),
        "{} of {cells} rename cells wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
