//! The grants module over a real store, with node grants (the kind keyed by text) and
//! experiment grants (keyed by id, with level-0 blocks).

use api_types::nodes::{NodeSource, RegisterNode};
use api_types::{Principal, PrincipalKind};

use super::*;
use crate::auth::{groups, users};
use crate::nodes::registry;
use crate::permissions::caller_for;
use crate::Store;

fn user(name: &str) -> Principal {
    Principal {
        kind: PrincipalKind::User,
        name: name.into(),
    }
}

fn group(name: &str) -> Principal {
    Principal {
        kind: PrincipalKind::Group,
        name: name.into(),
    }
}

fn node(conn: &Conn, name: &str) -> Result<(), Error> {
    let body = RegisterNode {
        url: "http://127.0.0.1:1".into(),
        token: "t".into(),
        interval_secs: None,
        driver: None,
        simulated: false,
        gpus: Vec::new(),
    };
    registry::upsert(conn, name, &body, NodeSource::Static, 1).map(|_| ())
}

#[test]
fn one_module_answers_for_every_kind() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store
        .blocking(|c| {
            for name in ["alice", "bob", "carol"] {
                users::create_user(c, name, None, false)?;
            }
            groups::create_group(c, "team")?;
            groups::add_member(c, "team", "bob")?;
            node(c, "n1")?;
            node(c, "n2")?;
            let name = "n1".to_string();
            set(c, NODE, &name, &user("alice"), 1)?;
            set(c, NODE, &name, &group("team"), 1)?;
            let (alice, bob, carol) = (
                caller_for(c, "alice")?,
                caller_for(c, "bob")?,
                caller_for(c, "carol")?,
            );
            assert_eq!(held(c, NODE, &name, &alice)?.best, Some(1));
            assert_eq!(
                held(c, NODE, &name, &bob)?.best,
                Some(1),
                "through the group"
            );
            assert_eq!(held(c, NODE, &name, &carol)?, Held::default());
            assert_eq!(
                list(c, NODE, &name)?,
                vec![(user("alice"), 1), (group("team"), 1)]
            );
            assert_eq!(
                holders(c, NODE, &name, 1, None)?,
                vec![user("alice"), group("team")]
            );
            assert_eq!(users_holding(c, NODE, &name, 1)?, vec!["alice", "bob"]);
            assert_eq!(level_of(c, NODE, &name, &user("alice"))?, Some(1));
            // The list condition: alice sees n1 only; carol nothing.
            let visible = |who: &Caller| -> Result<Vec<String>, Error> {
                let cond = granted_sql(c.engine(), NODE, who, "name", 1);
                let sql = format!("SELECT name FROM nodes WHERE {} ORDER BY name", cond.sql);
                let mut stmt = c.prepare(&sql)?;
                let rows = stmt
                    .query_map(crate::db::params_from_iter(cond.params.iter()), |r| {
                        r.get(0)
                    })?;
                Ok(rows.collect::<Result<_, _>>()?)
            };
            assert_eq!(visible(&alice)?, vec!["n1"]);
            assert!(visible(&carol)?.is_empty());
            assert!(revoke(c, NODE, &name, &user("alice"))?);
            assert!(!revoke(c, NODE, &name, &user("alice"))?);
            assert!(matches!(
                set(c, NODE, &name, &user("nobody"), 1),
                Err(Error::NotFound(_))
            ));
            // A grant goes with its node.
            registry::delete(c, "n1")?;
            assert!(list(c, NODE, &name)?.is_empty());
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_level_zero_grant_blocks_and_grants_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    store
        .blocking(|c| {
            users::create_user(c, "dave", None, false)?;
            let dave = caller_for(c, "dave")?;
            let default = crate::permissions::DEFAULT_EXPERIMENT;
            set(c, EXPERIMENT, &default, &user("dave"), 0)?;
            let held = held(c, EXPERIMENT, &default, &dave)?;
            assert_eq!(
                held,
                Held {
                    best: Some(0),
                    blocked: true
                }
            );
            delete_user(c, EXPERIMENT, dave.user_id)?;
            assert!(list(c, EXPERIMENT, &default)?.is_empty());
            Ok(())
        })
        .unwrap();
}
