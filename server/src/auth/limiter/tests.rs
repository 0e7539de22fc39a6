//! The limiter's rules on a real (temporary) store; `tests/it` runs the sign-in routes
//! over them on both engines, and across two replicas.

use super::*;
use crate::db::Conn;
use crate::Store;

fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().expect("tempdir");
    let store = Store::open(dir.path()).expect("store");
    (dir, store)
}

const T0: i64 = 1_800_000_000_000;

fn at(c: &Conn, u: &str, a: &str, t: i64) -> Result<Reservation, Limited> {
    reserve(c, u, a, t).expect("reserve")
}

fn fail(c: &Conn, u: &str, a: &str, t: i64) -> Result<(), Limited> {
    let r = at(c, u, a, t)?;
    finish(c, r, false, t).expect("finish");
    Ok(())
}

fn rows(c: &Conn) -> i64 {
    c.query_row("SELECT count(*) FROM signin_attempts", [], |r| r.get(0))
        .unwrap()
}

#[test]
fn limits_after_max_failures_then_forgets() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            for _ in 0..MAX_FAILURES {
                fail(c, "Bob", "1.2.3.4", T0).unwrap();
            }
            let e = at(c, "bob", "1.2.3.4", T0).unwrap_err();
            assert!(e.retry_after_secs > 290, "{e:?}");
            assert!(
                at(c, "bob", "5.6.7.8", T0).is_ok(),
                "other address unaffected"
            );
            assert!(
                at(c, "alice", "1.2.3.4", T0).is_ok(),
                "other user unaffected"
            );
            assert!(at(c, "bob", "1.2.3.4", T0 + ms(WINDOW)).is_ok());
            // The reservation pruned every row older than the window.
            assert_eq!(rows(c), 1);
            Ok(())
        })
        .unwrap();
}

#[test]
fn parallel_attempts_are_reserved_before_verification() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            // 40 attempts arrive before any finishes: only MAX_FAILURES may proceed.
            let granted: Vec<Reservation> =
                (0..40).filter_map(|_| at(c, "bob", "a", T0).ok()).collect();
            assert_eq!(granted.len() as i64, MAX_FAILURES);
            for r in granted {
                finish(c, r, false, T0).unwrap();
            }
            assert!(at(c, "bob", "a", T0).is_err());
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_reservation_left_by_a_dead_replica_expires() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            let held: Vec<Reservation> = (0..MAX_FAILURES)
                .map(|_| at(c, "bob", "a", T0).unwrap())
                .collect();
            assert!(at(c, "bob", "a", T0 + 1_000).is_err());
            drop(held); // never finished
            assert!(at(c, "bob", "a", T0 + ms(PENDING_FOR) + 1).is_ok());
            Ok(())
        })
        .unwrap();
}

#[test]
fn success_resets_and_makes_the_address_known() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            for _ in 0..MAX_FAILURES - 1 {
                fail(c, "bob", "home", T0).unwrap();
            }
            let r = at(c, "bob", "home", T0).unwrap();
            finish(c, r, true, T0).unwrap();
            // The pair starts afresh ...
            for _ in 0..MAX_FAILURES - 1 {
                fail(c, "bob", "home", T0).unwrap();
            }
            assert!(check(c, "bob", "home", T0).unwrap().is_none());
            // ... attackers elsewhere trip the per-user back-off (bob's own 8 failures
            // count toward it too) ...
            for i in 0..USER_BACKOFF_FAILURES - 2 * (MAX_FAILURES - 1) {
                fail(c, "bob", &format!("evil{i}"), T0).unwrap();
            }
            assert!(
                at(c, "bob", "new-place", T0).is_err(),
                "unknown address backs off"
            );
            // ... but bob's known address still gets to try.
            assert!(check(c, "bob", "home", T0).unwrap().is_none());
            Ok(())
        })
        .unwrap();
}

#[test]
fn address_budget_stops_sprays_of_random_usernames() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            for i in 0..ADDR_MAX_FAILURES {
                fail(c, &format!("u{i}"), "sprayer", T0).unwrap();
            }
            assert!(at(c, "someone", "sprayer", T0).is_err());
            assert!(at(c, "someone", "elsewhere", T0).is_ok());
            assert!(at(c, "someone", "sprayer", T0 + ms(SPRAY_WINDOW)).is_ok());
            Ok(())
        })
        .unwrap();
}

#[test]
fn global_budget_stops_floods_from_many_addresses() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            for i in 0..GLOBAL_MAX_FAILURES {
                fail(c, &format!("u{i}"), &format!("a{i}"), T0).unwrap();
            }
            let e = at(c, "someone", "fresh", T0).unwrap_err();
            assert!(e.retry_after_secs <= 61, "{e:?}");
            Ok(())
        })
        .unwrap();
}

#[test]
fn stays_bounded() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            // An hour of failures at the global budget's rate keeps one window of rows.
            for i in 0..3_000 {
                let t = T0 + i * 1_200;
                let _ = fail(c, &format!("u{i}"), &format!("a{i}"), t);
            }
            assert!(rows(c) <= ms(WINDOW) / 1_200 + 1, "{} rows", rows(c));
            Ok(())
        })
        .unwrap();
}

#[test]
fn a_flood_of_usernames_stays_bounded_and_never_frees_a_locked_pair() {
    let (_d, store) = store();
    store
        .blocking(|c| {
            // bob signed in from home before (a known pair: the flood's budgets do not
            // apply to it, so only the pair's own failures can refuse it), then failed.
            let r = at(c, "bob", "home", T0 - 1).unwrap();
            finish(c, r, true, T0 - 1).unwrap();
            for _ in 0..MAX_FAILURES {
                fail(c, "bob", "home", T0).unwrap();
            }
            // A whole window of distinct usernames from a thousand addresses at twice the
            // global budget's rate: nothing is evicted to make room (rows leave only with
            // age), so bob's pair stays locked, and the budget keeps the rows bounded.
            let every = ms(SPRAY_WINDOW) / (2 * GLOBAL_MAX_FAILURES);
            let n = ms(WINDOW) / every;
            for i in 0..n {
                let t = T0 + i * every;
                let _ = fail(c, &format!("flood{i}"), &format!("a{}", i % 1000), t);
                if i % 500 == 0 {
                    assert!(at(c, "bob", "home", t).is_err(), "bob freed at {i}");
                }
            }
            let bound = GLOBAL_MAX_FAILURES * (ms(WINDOW) / ms(SPRAY_WINDOW)) + MAX_FAILURES;
            assert!(rows(c) <= bound, "{} rows", rows(c));
            assert!(at(c, "bob", "home", T0 + ms(WINDOW) - 1).is_err());
            assert!(at(c, "bob", "home", T0 + ms(WINDOW)).is_ok());
            Ok(())
        })
        .unwrap();
}
