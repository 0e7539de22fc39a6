//! Unit tests of the permission rules on a real (temporary) store.

use crate::db::Conn;
use api_types::{Level, Principal, PrincipalKind};

use super::rules::{level_on, scope, Scope};
use super::*;
use crate::auth::{AuthMethod, Caller};
use crate::{Error, Store};

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    (dir, store)
}

fn user(c: &Conn, name: &str, admin: bool) -> Caller {
    let user_id = c
        .query_row(
            "INSERT INTO users (username, is_admin, created) VALUES (?1, ?2, 0)
             RETURNING user_id",
            crate::db::params![name, admin],
            |r| r.get(0),
        )
        .expect("user");
    Caller {
        user_id,
        username: name.into(),
        is_admin: admin,
        group_ids: Vec::new(),
        method: AuthMethod::Token,
    }
}

fn experiment(c: &Conn, name: &str) -> i64 {
    crate::tracking::experiments::create(c, name, None, &[]).expect("experiment")
}

fn principal(kind: PrincipalKind, name: &str) -> Principal {
    Principal {
        kind,
        name: name.into(),
    }
}

#[test]
fn paths_decide_scope() {
    assert_eq!(path_owner("/Users/alice/sft"), Some("alice"));
    assert_eq!(path_owner("/Users/alice"), None);
    assert_eq!(path_owner("/Users//x"), None);
    assert_eq!(scope(5, "/Users/bob/a/b"), Scope::Owned("bob".into()));
    assert_eq!(scope(5, "/Workspace/Shared/x"), Scope::Shared);
    assert_eq!(scope(0, "Default"), Scope::Shared);
    assert_eq!(scope(5, "/Workspace/Sharedx"), Scope::Plain);
    assert_eq!(scope(5, "plain-name"), Scope::Plain);
}

#[test]
fn levels_combine_owner_shared_grants_groups_and_admin() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            let alice = user(c, "alice", false);
            let mut bob = user(c, "bob", false);
            let admin = user(c, "root", true);
            let gid: i64 = c.query_row(
                "INSERT INTO groups (name, created) VALUES ('vision', 0) RETURNING group_id",
                [],
                |r| r.get(0),
            )?;
            c.execute(
                "INSERT INTO group_members VALUES (?1, ?2)",
                [gid, bob.user_id],
            )?;
            bob.group_ids = vec![gid];
            let private = experiment(c, "/Users/alice/sft");
            let shared = experiment(c, "/Workspace/Shared/x");
            let plain = experiment(c, "plain");
            let lvl = |who: &Caller, id: i64| {
                let name = super::rules::experiment_name(c, id).unwrap().unwrap();
                level_on(c, who, id, &name).unwrap()
            };
            assert_eq!(lvl(&alice, private), Some(Level::CanManage));
            assert_eq!(lvl(&bob, private), None);
            assert_eq!(lvl(&admin, private), Some(Level::CanManage));
            assert_eq!(lvl(&bob, shared), Some(Level::CanEdit));
            assert_eq!(lvl(&bob, 0), Some(Level::CanEdit));
            assert_eq!(lvl(&bob, plain), None);
            set_grant(
                c,
                private,
                &principal(PrincipalKind::User, "bob"),
                Some(Level::CanRead),
            )?;
            assert_eq!(lvl(&bob, private), Some(Level::CanRead));
            set_grant(
                c,
                private,
                &principal(PrincipalKind::Group, "vision"),
                Some(Level::CanEdit),
            )?;
            assert_eq!(
                lvl(&bob, private),
                Some(Level::CanEdit),
                "max of user and group"
            );
            set_grant(c, shared, &principal(PrincipalKind::User, "bob"), None)?;
            assert_eq!(lvl(&bob, shared), None, "level 0 removes Shared access");
            assert_eq!(lvl(&alice, shared), Some(Level::CanEdit));
            set_grant(
                c,
                shared,
                &principal(PrincipalKind::Group, "vision"),
                Some(Level::CanRead),
            )?;
            assert_eq!(
                lvl(&bob, shared),
                Some(Level::CanRead),
                "explicit grants still count"
            );
            revoke_grant(c, private, &principal(PrincipalKind::Group, "vision"))?;
            assert_eq!(lvl(&bob, private), Some(Level::CanRead));
            Ok(())
        })
        .expect("rules");
}

#[test]
fn unknown_principals_and_experiments_are_not_found() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            user(c, "alice", false);
            let id = experiment(c, "/Users/alice/a");
            let ghost = principal(PrincipalKind::User, "ghost");
            let err = set_grant(c, id, &ghost, Some(Level::CanRead)).unwrap_err();
            assert!(
                matches!(&err, Error::NotFound(m) if m.contains("ghost")),
                "{err}"
            );
            let group = principal(PrincipalKind::Group, "nope");
            assert!(matches!(
                revoke_grant(c, id, &group),
                Err(Error::NotFound(_))
            ));
            let alice = principal(PrincipalKind::User, "alice");
            assert!(matches!(
                set_grant(c, 999, &alice, None),
                Err(Error::NotFound(_))
            ));
            // No such grant (bob exists, but holds none here; alice as the owner is refused
            // differently, see decision A).
            user(c, "bob", false);
            let bob = principal(PrincipalKind::User, "bob");
            assert!(matches!(revoke_grant(c, id, &bob), Err(Error::NotFound(_))));
            Ok(())
        })
        .expect("not found");
}

#[test]
fn readable_sql_agrees_with_the_rules() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            let mut callers = vec![user(c, "alice", false), user(c, "bob", false)];
            callers.push(user(c, "carol", false));
            callers.push(user(c, "root", true));
            let gid: i64 = c.query_row(
                "INSERT INTO groups (name, created) VALUES ('g', 0) RETURNING group_id",
                [],
                |r| r.get(0),
            )?;
            c.execute(
                "INSERT INTO group_members VALUES (?1, ?2)",
                [gid, callers[2].user_id],
            )?;
            callers[2].group_ids = vec![gid];
            let names = [
                "/Users/alice/a",
                "/Users/bob/b",
                "/Users/bob_x/c",
                "/Workspace/Shared/s",
                "/Workspace/Shared/t",
                "plain",
                "/Users/alice%/d",
            ];
            let ids: Vec<i64> = names.iter().map(|n| experiment(c, n)).collect();
            set_grant(
                c,
                ids[0],
                &principal(PrincipalKind::User, "bob"),
                Some(Level::CanRead),
            )?;
            set_grant(
                c,
                ids[1],
                &principal(PrincipalKind::Group, "g"),
                Some(Level::CanRead),
            )?;
            set_grant(c, ids[3], &principal(PrincipalKind::User, "carol"), None)?;
            set_grant(c, ids[5], &principal(PrincipalKind::User, "alice"), None)?;
            for caller in &callers {
                let cond = readable_sql(
                    crate::db::Engine::Sqlite,
                    caller,
                    "e.experiment_id",
                    "e.name",
                );
                let sql = format!(
                    "SELECT experiment_id FROM experiments e WHERE {} ORDER BY 1",
                    cond.sql
                );
                let mut stmt = c.prepare(&sql)?;
                let got: Vec<i64> = stmt
                    .query_map(crate::db::params_from_iter(cond.params), |r| r.get(0))?
                    .collect::<Result<_, _>>()?;
                let mut want = vec![0];
                for (id, name) in ids.iter().zip(names) {
                    if level_on(c, caller, *id, name)?.is_some() {
                        want.push(*id);
                    }
                }
                assert_eq!(got, want, "{}", caller.username);
            }
            Ok(())
        })
        .expect("agree");
}

#[test]
fn refusals_name_grantors_and_unknown_ids_are_404() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            let alice = user(c, "alice", false);
            let bob = user(c, "bob", false);
            user(c, "root", true);
            user(c, "dave", false);
            let id = experiment(c, "/Users/alice/sft");
            set_grant(
                c,
                id,
                &principal(PrincipalKind::User, "dave"),
                Some(Level::CanManage),
            )?;
            let err = require_experiment(c, &bob, id, Level::CanRead).unwrap_err();
            match err {
                Error::PermissionDenied { message, grantors } => {
                    assert_eq!(message, "You don't have access to this experiment.");
                    assert_eq!(grantors, ["alice", "dave", "root"]);
                }
                other => panic!("{other:?}"),
            }
            set_grant(
                c,
                id,
                &principal(PrincipalKind::User, "bob"),
                Some(Level::CanRead),
            )?;
            assert!(require_experiment(c, &bob, id, Level::CanRead).is_ok());
            let err = require_experiment(c, &bob, id, Level::CanEdit).unwrap_err();
            assert!(err.to_string().contains("CAN_EDIT"), "{err}");
            assert!(matches!(
                require_experiment(c, &bob, 77, Level::CanRead),
                Err(Error::NotFound(_))
            ));
            assert!(matches!(
                require_run(c, &alice, "f00", Level::CanRead),
                Err(Error::NotFound(_))
            ));
            Ok(())
        })
        .expect("refusals");
}

#[test]
fn creating_and_renaming_respect_user_folders() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            let alice = user(c, "alice", false);
            let bob = user(c, "bob", false);
            let admin = user(c, "root", true);
            assert!(may_create(&alice, "/Users/alice/x").is_ok());
            assert!(may_create(&alice, "/Workspace/Shared/x").is_ok());
            assert!(may_create(&alice, "anything").is_ok());
            assert!(matches!(
                may_create(&alice, "/Users/bob/x"),
                Err(Error::PermissionDenied { .. })
            ));
            assert!(may_create(&admin, "/Users/bob/x").is_ok());
            let id = experiment(c, "/Users/alice/x");
            set_grant(
                c,
                id,
                &principal(PrincipalKind::User, "bob"),
                Some(Level::CanEdit),
            )?;
            assert!(require_rename(c, &bob, id, "/Users/alice/y").is_ok());
            let err = require_rename(c, &bob, id, "/Workspace/Shared/leak").unwrap_err();
            assert!(
                matches!(err, Error::PermissionDenied { .. }),
                "editors cannot publish"
            );
            assert!(require_rename(c, &alice, id, "/Workspace/Shared/ok").is_ok());
            assert!(require_rename(c, &alice, id, "/Users/bob/gift").is_err());
            Ok(())
        })
        .expect("create rules");
}
