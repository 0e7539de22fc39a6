//! The real `runlens` binary's admin commands on a data directory, and the first-start
//! administrator bootstrap.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use server::auth::{groups, tokens, users};
use server::Store;

fn runlens(dir: &std::path::Path, args: &[&str], stdin: Option<&str>) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_runlens"))
        .args(args)
        .arg("--data-dir")
        .arg(dir)
        .env_remove("RUNLENS_PASSWORD")
        .env("RUNLENS_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn runlens");
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
    }
    child.wait_with_output().unwrap()
}

fn ok(dir: &std::path::Path, args: &[&str], stdin: Option<&str>) -> String {
    let out = runlens(dir, args, stdin);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {err}");
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn user_group_token_and_grant_commands() {
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

    let store = Store::open(d).unwrap();
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
    ok(d, &["user", "enable", "alice"], None);
    ok(
        d,
        &["user", "passwd", "alice", "--password-stdin"],
        Some("a new password\n"),
    );
}

#[test]
fn first_start_creates_admin_and_prints_the_password_once() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
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
    let store = Store::open(other.path()).unwrap();
    assert_eq!(
        ensure_admin(&store, Some("from the env 1")).unwrap(),
        Bootstrap::CreatedWithGivenPassword
    );
}
