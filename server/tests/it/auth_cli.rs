//! The real `runlens` binary's admin commands on a data directory, and the first-start
//! administrator bootstrap.

use server::auth::{groups, tokens, users};

use crate::helpers::binary::{runlens, runlens_ok as ok};
use crate::helpers::store::open_dir_store;

#[tokio::test]
async fn user_group_token_and_grant_commands() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &["user", "add", "alice", "--password-stdin"],
        Some("alice password 1\n"),
    );
    ok(
        d,
        &["user", "add", "boss", "--admin", "--password-stdin"],
        Some("boss password 1\n"),
    );
    let dup = runlens(
        d,
        &["user", "add", "alice", "--password-stdin"],
        Some("whatever12\n"),
    );
    assert!(!dup.status.success());
    assert!(String::from_utf8_lossy(&dup.stderr).contains("already exists"));
    let none = runlens(d, &["user", "add", "carol"], None);
    assert!(!none.status.success(), "no password given");
    let list = ok(d, &["user", "list"], None);
    assert!(list.contains("alice") && list.contains("boss"), "{list}");
    assert!(!list.contains("alice password 1"));

    ok(d, &["group", "add", "vision"], None);
    ok(d, &["group", "add-member", "vision", "alice"], None);
    assert!(ok(d, &["group", "list"], None).contains("alice"));

    let token = ok(
        d,
        &["token", "create", "--user", "alice", "--name", "ci"],
        None,
    );
    let token = token.trim().to_string();
    assert!(tokens::looks_like_token(&token), "{token}");
    let listed = ok(d, &["token", "list", "--user", "alice"], None);
    assert!(
        listed.contains("ci") && !listed.contains(&token),
        "{listed}"
    );

    ok(
        d,
        &[
            "grant",
            "--experiment",
            "0",
            "--user",
            "alice",
            "--level",
            "read",
        ],
        None,
    );
    ok(
        d,
        &[
            "grant",
            "--experiment",
            "Default",
            "--group",
            "vision",
            "--level",
            "edit",
        ],
        None,
    );
    let missing = runlens(
        d,
        &[
            "grant",
            "--experiment",
            "nope",
            "--user",
            "alice",
            "--level",
            "read",
        ],
        None,
    );
    assert!(!missing.status.success());

    let store = open_dir_store(d).unwrap();
    let (alice, groups_of, live) = store
        .blocking(|c| {
            let id = users::find_user_id(c, "alice")?.unwrap();
            let grants: i64 = c.query_row(
                "SELECT count(*) FROM experiment_grants WHERE experiment_id = 0",
                [],
                |r| r.get(0),
            )?;
            assert_eq!(grants, 2);
            Ok((
                users::get_user(c, "alice")?,
                groups::groups_of(c, id)?,
                tokens::resolve_token(c, &token, 0)?,
            ))
        })
        .unwrap();
    assert!(alice.has_password && !alice.is_admin);
    assert_eq!(groups_of.len(), 1);
    assert_eq!(live, Some(alice.user_id));

    ok(
        d,
        &["token", "revoke", "--user", "alice", "--name", "ci"],
        None,
    );
    ok(d, &["user", "disable", "alice"], None);
    ok(d, &["group", "remove-member", "vision", "alice"], None);
    let (revoked, disabled) = store
        .blocking(|c| {
            Ok((
                tokens::resolve_token(c, &token, 0)?,
                users::get_user(c, "alice")?.disabled,
            ))
        })
        .unwrap();
    assert_eq!((revoked, disabled), (None, true));
    assert!(!signs_in(d, "alice", "alice password 1").await, "disabled");
    ok(d, &["user", "enable", "alice"], None);
    assert!(
        signs_in(d, "alice", "alice password 1").await,
        "enabled again"
    );
    ok(
        d,
        &["user", "passwd", "alice", "--password-stdin"],
        Some("a new password\n"),
    );
    assert!(signs_in(d, "alice", "a new password").await, "new password");
    assert!(
        !signs_in(d, "alice", "alice password 1").await,
        "old password"
    );
}

/// Whether `username` / `pw` signs in over HTTP (`POST /api/v1/session`) on the data dir.
async fn signs_in(d: &std::path::Path, username: &str, pw: &str) -> bool {
    let app = router(d);
    let body = serde_json::json!({ "username": username, "password": pw });
    let req = axum::http::Request::post("/api/v1/session")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(body.to_string()))
        .expect("request");
    let r = crate::helpers::oneshot(&app, req).await;
    assert!(
        matches!(r.status.as_u16(), 200 | 401),
        "{}: {}",
        r.status,
        r.text
    );
    r.status == 200
}

/// The real router over the data dir `d`.
fn router(d: &std::path::Path) -> axum::Router {
    let store = open_dir_store(d).expect("store");
    server::app(
        server::AppState::new(store),
        &server::StaticConfig::default(),
    )
}

/// Alice's effective access to experiment `exp` over HTTP, as seen through `runs/search`
/// with her token: 200 or 403.
async fn alice_can_read(d: &std::path::Path, exp: &str, token: &str) -> bool {
    let app = router(d);
    let req = axum::http::Request::post("/api/2.0/mlflow/runs/search")
        .header("authorization", format!("Bearer {token}"))
        .header("content-type", "application/json")
        .body(axum::body::Body::from(
            serde_json::json!({ "experiment_ids": [exp] }).to_string(),
        ))
        .expect("request");
    let r = crate::helpers::oneshot(&app, req).await;
    assert!(
        matches!(r.status.as_u16(), 200 | 403),
        "{}: {}",
        r.status,
        r.text
    );
    r.status == 200
}

#[tokio::test]
async fn admin_revoke_grant_revoke_and_level_none_take_effect() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(
        d,
        &["user", "add", "boss", "--admin", "--password-stdin"],
        Some("boss password 1\n"),
    );
    ok(
        d,
        &["user", "add", "alice", "--password-stdin"],
        Some("alice password 1\n"),
    );
    ok(
        d,
        &["user", "add", "owner", "--password-stdin"],
        Some("owner password 1\n"),
    );
    let is_admin = |name: &str| {
        let store = open_dir_store(d).expect("store");
        store
            .blocking(|c| users::get_user(c, name))
            .expect("user")
            .is_admin
    };
    ok(d, &["user", "admin", "alice"], None);
    assert!(is_admin("alice"));
    ok(d, &["user", "admin", "alice", "--revoke"], None);
    assert!(!is_admin("alice"), "user admin --revoke keeps the role");
    assert!(is_admin("boss"));

    // A private experiment of `owner`, and one in the Shared workspace.
    let store = open_dir_store(d).expect("store");
    let (private, shared) = store
        .blocking(|c| {
            let mk = |c: &mut server::db::Conn, name: &str| -> Result<String, server::Error> {
                let id: i64 = c.query_row(
                    "INSERT INTO experiments (name, artifact_location, creation_time, last_update_time)
                     VALUES (?1, '', 1, 1) RETURNING experiment_id",
                    [name],
                    |r| r.get(0),
                )?;
                Ok(id.to_string())
            };
            Ok((mk(c, "/Users/owner/private")?, mk(c, "/Workspace/Shared/team")?))
        })
        .expect("experiments");
    drop(store);
    let token = ok(
        d,
        &["token", "create", "--user", "alice", "--name", "t"],
        None,
    )
    .trim()
    .to_string();
    assert!(
        !alice_can_read(d, &private, &token).await,
        "private by default"
    );
    let grant = |exp: &str, extra: &[&str]| {
        let mut args = vec!["grant", "--experiment", exp, "--user", "alice"];
        args.extend_from_slice(extra);
        ok(d, &args, None);
    };
    grant(&private, &["--level", "read"]);
    assert!(alice_can_read(d, &private, &token).await, "granted read");
    grant(&private, &["--revoke"]);
    assert!(
        !alice_can_read(d, &private, &token).await,
        "grant --revoke keeps access"
    );

    assert!(
        alice_can_read(d, &shared, &token).await,
        "Shared is readable by all"
    );
    grant(&shared, &["--level", "none"]);
    assert!(
        !alice_can_read(d, &shared, &token).await,
        "--level none keeps access"
    );
    grant(&shared, &["--revoke"]);
    assert!(
        alice_can_read(d, &shared, &token).await,
        "revoking the none grant restores it"
    );
}

#[test]
fn first_start_creates_admin_and_prints_the_password_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = open_dir_store(dir.path()).unwrap();
    use server::auth::bootstrap::{ensure_admin, Bootstrap};
    let first = ensure_admin(&store, None).unwrap();
    let Bootstrap::CreatedWithRandomPassword(pw) = first else {
        panic!("expected a random password, got {first:?}");
    };
    assert!(pw.len() >= 20);
    assert_eq!(ensure_admin(&store, None).unwrap(), Bootstrap::AdminExists);
    let text = server::auth::bootstrap::announce_random_password(&pw);
    assert!(
        text.contains("username: admin") && text.contains(&pw) && text.contains("only this once")
    );
    let (admin, ok) = store
        .blocking(|c| {
            let phc: String = c.query_row(
                "SELECT password_hash FROM users WHERE username = 'admin'",
                [],
                |r| r.get(0),
            )?;
            Ok((
                users::get_user(c, "admin")?,
                server::auth::password::verify_password(&pw, &phc),
            ))
        })
        .unwrap();
    assert!(admin.is_admin && ok);

    let other = tempfile::tempdir().unwrap();
    let store = open_dir_store(other.path()).unwrap();
    assert_eq!(
        ensure_admin(&store, Some("from the env 1")).unwrap(),
        Bootstrap::CreatedWithGivenPassword
    );
}
