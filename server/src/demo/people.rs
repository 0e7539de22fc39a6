//! Demo users, a group and grants that show off sharing: alice owns `/Users/alice/llm-sft`
//! and shares it with bob at CAN_READ; bob owns `/Users/bob/resnet-ablation`; the
//! `vision-team` group (bob, carol) manages `/Workspace/Shared/vision/detection`; carol sees
//! only Shared experiments (and the Default one) and her own. Idempotent: existing users, memberships and
//! grants are left as they are or re-set to the same values.

use crate::db::Conn;
use api_types::{Level, Principal, PrincipalKind};

use crate::auth::{groups, users};
use crate::permissions::set_grant;
use crate::tracking::experiments::find_id_by_name;
use crate::Error;

/// Demo accounts and their fixed passwords. This is demo data: anyone who reads this file
/// knows them, so never load the demo into a data dir that holds real work.
pub(crate) const DEMO_USERS: [(&str, &str); 3] = [
    ("alice", "alice-demo-pw"),
    ("bob", "bob-demo-pw"),
    ("carol", "carol-demo-pw"),
];
/// The demo group.
pub(crate) const DEMO_GROUP: &str = "vision-team";
/// alice's private experiment.
pub(crate) const ALICE_EXPERIMENT: &str = "/Users/alice/llm-sft";
/// bob's private experiment.
pub(crate) const BOB_EXPERIMENT: &str = "/Users/bob/resnet-ablation";

/// The Shared experiment the demo group manages.
pub(crate) const DETECTION_EXPERIMENT: &str = "/Workspace/Shared/vision/detection";

/// Creates the demo users and group and writes the demo grants (where the experiments exist).
pub(crate) fn load(conn: &Conn) -> Result<(), Error> {
    for (name, password) in DEMO_USERS {
        if users::find_user_id(conn, name)?.is_none() {
            users::create_user(conn, name, Some(password), false)?;
        }
    }
    if groups::find_group_id(conn, DEMO_GROUP)?.is_none() {
        groups::create_group(conn, DEMO_GROUP)?;
    }
    for member in ["bob", "carol"] {
        groups::add_member(conn, DEMO_GROUP, member)?;
    }
    let grants = [
        (
            ALICE_EXPERIMENT,
            PrincipalKind::User,
            "alice",
            Level::CanManage,
        ),
        (ALICE_EXPERIMENT, PrincipalKind::User, "bob", Level::CanRead),
        (BOB_EXPERIMENT, PrincipalKind::User, "bob", Level::CanManage),
        (
            DETECTION_EXPERIMENT,
            PrincipalKind::Group,
            DEMO_GROUP,
            Level::CanManage,
        ),
    ];
    for (experiment, kind, name, level) in grants {
        let Some(id) = find_id_by_name(conn, experiment)? else {
            continue;
        };
        let principal = Principal {
            kind,
            name: name.to_string(),
        };
        set_grant(conn, id, &principal, Some(level))?;
    }
    Ok(())
}

/// What `runlens serve --demo` prints: how to sign in as each demo user.
pub fn sign_in_hint() -> String {
    let mut out = String::from("Demo users (demo data, fixed passwords; not for real work):\n");
    for (name, password) in DEMO_USERS {
        out.push_str(&format!("  sign in as {name} / {password}\n"));
    }
    out
}
