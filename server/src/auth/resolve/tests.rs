//! `recheck`: what an open stream reads to check its credential again.

use super::*;
use crate::auth::sessions::IDLE_TIMEOUT_MS;
use crate::Store;

const T0: i64 = 1_800_000_000_000;

/// What a stream's check reads, and that it reads only: an expired session ends the
/// proof but is neither refreshed nor deleted (the next request does that).
#[test]
fn each_kind_holds_until_a_new_request_would_be_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    store
        .blocking(|c| {
            let id = users::create_user(c, "ann", Some("pw-of-ann-123"), false)?;
            let token = tokens::create_token(c, id, "t")?;
            let session = sessions::create_session(c, id, T0)?;
            let phc = users::login_row(c, "ann")?.and_then(|r| r.1).expect("hash");
            let proofs = [
                Proof::token(&token.token, AuthMethod::Token),
                Proof::session(&session.id, None),
                Proof::password("ann", phc),
                Proof::proxy(id),
            ];
            for p in &proofs {
                assert_eq!(recheck(c, p, T0)?.user_id, id, "{p:?}");
            }
            // Idle past the timeout: the session no longer holds, and is still stored.
            let idle = T0 + IDLE_TIMEOUT_MS + 1;
            assert!(matches!(
                recheck(c, &proofs[1], idle),
                Err(Error::Unauthenticated(_))
            ));
            let stored: i64 = c.query_row("SELECT count(*) FROM sessions", [], |r| r.get(0))?;
            assert_eq!(stored, 1);
            // The session ended with the proxy header beside it: the proxy's user.
            let with_proxy = Proof::session(&session.id, Some("ann".into()));
            assert_eq!(recheck(c, &with_proxy, idle)?.method, AuthMethod::Proxy);
            // A changed password ends the password's proof only.
            users::set_password(c, "ann", "another-pw-456")?;
            assert!(recheck(c, &proofs[2], T0).is_err());
            assert!(recheck(c, &proofs[0], T0).is_ok());
            // Disabled: none holds.
            users::set_disabled(c, "ann", true)?;
            for p in &proofs {
                assert!(recheck(c, p, T0).is_err(), "{p:?}");
            }
            Ok(())
        })
        .expect("proofs");
}
