//! Sign-in rate limiting, in memory and bounded. Three rules, checked before any password
//! is verified:
//!
//! - per (username, client address): at most [`MAX_FAILURES`] failed attempts in a sliding
//!   [`WINDOW`]. An attempt is *reserved* before the (slow) verification, so parallel
//!   attempts cannot all slip past the check.
//! - per username across addresses, a soft back-off: after [`USER_BACKOFF_FAILURES`]
//!   failures in the window, addresses that have never signed in as that user are refused;
//!   an address that has signed in as the user before is never locked out by others'
//!   failures (so a proxy-wide or distributed attack cannot lock a user out).
//! - per client address and globally: at most [`ADDR_MAX_FAILURES`] failures per address
//!   and [`GLOBAL_MAX_FAILURES`] failures in all per [`SPRAY_WINDOW`] (password spraying
//!   and floods of random usernames); known (username, address) pairs are exempt.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed attempts allowed per (username, address) within [`WINDOW`].
pub const MAX_FAILURES: usize = 5;
/// How long failures are remembered.
pub const WINDOW: Duration = Duration::from_secs(5 * 60);
/// Failures for one username (all addresses) after which unknown addresses are refused.
pub const USER_BACKOFF_FAILURES: usize = 20;
/// Failures per client address (any usernames) allowed within [`SPRAY_WINDOW`].
pub const ADDR_MAX_FAILURES: usize = 100;
/// Failures in all allowed within [`SPRAY_WINDOW`].
pub const GLOBAL_MAX_FAILURES: usize = 600;
/// Window of the address and global budgets.
pub const SPRAY_WINDOW: Duration = Duration::from_secs(60);
/// Most keys tracked per map; the stalest are dropped first.
const MAX_KEYS: usize = 10_000;
/// How long a successful (username, address) pair counts as known.
const KNOWN_FOR: Duration = Duration::from_secs(30 * 24 * 3600);

#[derive(Debug, Default)]
struct Failures {
    times: VecDeque<Instant>,
    pending: usize,
}

impl Failures {
    fn prune(&mut self, now: Instant, window: Duration) {
        while self
            .times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            self.times.pop_front();
        }
    }
}

#[derive(Debug, Default)]
struct State {
    pairs: HashMap<(String, String), Failures>,
    users: HashMap<String, Failures>,
    addrs: HashMap<String, Failures>,
    global: Failures,
    known: HashMap<(String, String), Instant>,
}

/// The limiter; see the module docs.
#[derive(Debug, Default)]
pub struct LoginLimiter {
    state: Mutex<State>,
}

/// A reserved attempt: report its outcome with [`LoginLimiter::finish`].
#[derive(Debug)]
#[must_use]
pub struct Reservation {
    user: String,
    addr: String,
}

/// Why an attempt was refused before verification.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Limited {
    /// Seconds until another attempt may succeed.
    pub retry_after_secs: u64,
}

fn bounded<K: Clone + Eq + std::hash::Hash>(map: &mut HashMap<K, Failures>, now: Instant) {
    if map.len() < MAX_KEYS {
        return;
    }
    map.retain(|_, f| f.pending > 0 || f.times.back().is_some_and(|t| now - *t < WINDOW));
    if map.len() >= MAX_KEYS {
        let mut latest: Vec<Instant> = map
            .values()
            .filter_map(|f| f.times.back().copied())
            .collect();
        latest.sort();
        if let Some(cutoff) = latest.get(latest.len() / 2).copied() {
            map.retain(|_, f| f.pending > 0 || f.times.back().is_some_and(|t| *t > cutoff));
        }
    }
}

fn retry(f: &Failures, now: Instant, window: Duration) -> u64 {
    f.times
        .front()
        .map(|first| window.saturating_sub(now.duration_since(*first)).as_secs() + 1)
        .unwrap_or(1)
}

impl LoginLimiter {
    /// Reserves an attempt for `username` from `addr` at `now`, or says why not.
    pub fn reserve(
        &self,
        username: &str,
        addr: &str,
        now: Instant,
    ) -> Result<Reservation, Limited> {
        let user = username.to_lowercase();
        let Ok(mut s) = self.state.lock() else {
            return Err(Limited {
                retry_after_secs: 1,
            });
        };
        let s = &mut *s;
        let pair = (user.clone(), addr.to_string());
        let known = s
            .known
            .get(&pair)
            .is_some_and(|t| now.duration_since(*t) < KNOWN_FOR);
        bounded(&mut s.pairs, now);
        let p = s.pairs.entry(pair).or_default();
        p.prune(now, WINDOW);
        if p.times.len() + p.pending >= MAX_FAILURES {
            return Err(Limited {
                retry_after_secs: retry(p, now, WINDOW),
            });
        }
        if !known {
            if let Some(u) = s.users.get_mut(&user) {
                u.prune(now, WINDOW);
                if u.times.len() >= USER_BACKOFF_FAILURES {
                    return Err(Limited {
                        retry_after_secs: retry(u, now, WINDOW),
                    });
                }
            }
            if let Some(a) = s.addrs.get_mut(addr) {
                a.prune(now, SPRAY_WINDOW);
                if a.times.len() + a.pending >= ADDR_MAX_FAILURES {
                    return Err(Limited {
                        retry_after_secs: retry(a, now, SPRAY_WINDOW),
                    });
                }
            }
            s.global.prune(now, SPRAY_WINDOW);
            if s.global.times.len() + s.global.pending >= GLOBAL_MAX_FAILURES {
                return Err(Limited {
                    retry_after_secs: retry(&s.global, now, SPRAY_WINDOW),
                });
            }
        }
        // Reserve everywhere; `finish` turns the reservation into a failure or clears it.
        if let Some(p) = s.pairs.get_mut(&(user.clone(), addr.to_string())) {
            p.pending += 1;
        }
        bounded(&mut s.addrs, now);
        s.addrs.entry(addr.to_string()).or_default().pending += 1;
        s.global.pending += 1;
        Ok(Reservation {
            user,
            addr: addr.to_string(),
        })
    }

    /// Records the outcome of a reserved attempt.
    pub fn finish(&self, r: Reservation, success: bool, now: Instant) {
        let Ok(mut s) = self.state.lock() else {
            return;
        };
        let s = &mut *s;
        let pair = (r.user.clone(), r.addr.clone());
        let release = |f: &mut Failures| f.pending = f.pending.saturating_sub(1);
        s.global.pending = s.global.pending.saturating_sub(1);
        if let Some(a) = s.addrs.get_mut(&r.addr) {
            release(a);
        }
        if success {
            s.pairs.remove(&pair);
            if s.known.len() >= MAX_KEYS {
                s.known.retain(|_, t| now.duration_since(*t) < KNOWN_FOR);
                if s.known.len() >= MAX_KEYS {
                    s.known.clear();
                }
            }
            s.known.insert(pair, now);
            return;
        }
        if let Some(p) = s.pairs.get_mut(&pair) {
            release(p);
            p.times.push_back(now);
            while p.times.len() > MAX_FAILURES {
                p.times.pop_front();
            }
        }
        bounded(&mut s.users, now);
        let u = s.users.entry(r.user).or_default();
        u.times.push_back(now);
        while u.times.len() > USER_BACKOFF_FAILURES {
            u.times.pop_front();
        }
        if let Some(a) = s.addrs.get_mut(&r.addr) {
            a.times.push_back(now);
            while a.times.len() > ADDR_MAX_FAILURES {
                a.times.pop_front();
            }
        }
        s.global.times.push_back(now);
        while s.global.times.len() > GLOBAL_MAX_FAILURES {
            s.global.times.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fail(l: &LoginLimiter, u: &str, a: &str, t: Instant) -> Result<(), Limited> {
        let r = l.reserve(u, a, t)?;
        l.finish(r, false, t);
        Ok(())
    }

    #[test]
    fn limits_after_max_failures_then_forgets() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 0..MAX_FAILURES {
            fail(&l, "Bob", "1.2.3.4", t0).unwrap();
        }
        let e = l.reserve("bob", "1.2.3.4", t0).unwrap_err();
        assert!(e.retry_after_secs > 290);
        assert!(
            l.reserve("bob", "5.6.7.8", t0).is_ok(),
            "other address unaffected"
        );
        assert!(
            l.reserve("alice", "1.2.3.4", t0).is_ok(),
            "other user unaffected"
        );
        assert!(l.reserve("bob", "1.2.3.4", t0 + WINDOW).is_ok());
    }

    #[test]
    fn parallel_attempts_are_reserved_before_verification() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        // 40 attempts arrive before any finishes: only MAX_FAILURES may proceed.
        let granted: Vec<Reservation> = (0..40)
            .filter_map(|_| l.reserve("bob", "a", t0).ok())
            .collect();
        assert_eq!(granted.len(), MAX_FAILURES);
        for r in granted {
            l.finish(r, false, t0);
        }
        assert!(l.reserve("bob", "a", t0).is_err());
    }

    #[test]
    fn success_resets_and_makes_the_address_known() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 0..MAX_FAILURES - 1 {
            fail(&l, "bob", "home", t0).unwrap();
        }
        let r = l.reserve("bob", "home", t0).unwrap();
        l.finish(r, true, t0);
        // Attackers elsewhere trip the per-user back-off ...
        // (bob's own 4 earlier failures count toward the per-user back-off too)
        for i in 0..USER_BACKOFF_FAILURES - (MAX_FAILURES - 1) {
            fail(&l, "bob", &format!("evil{i}"), t0).unwrap();
        }
        assert!(
            l.reserve("bob", "new-place", t0).is_err(),
            "unknown address backs off"
        );
        // ... but bob's known address still gets to try.
        assert!(l.reserve("bob", "home", t0).is_ok());
    }

    #[test]
    fn address_budget_stops_sprays_of_random_usernames() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for i in 0..ADDR_MAX_FAILURES {
            fail(&l, &format!("u{i}"), "sprayer", t0).unwrap();
        }
        assert!(l.reserve("someone", "sprayer", t0).is_err());
        assert!(l.reserve("someone", "elsewhere", t0).is_ok());
        assert!(l.reserve("someone", "sprayer", t0 + SPRAY_WINDOW).is_ok());
    }

    #[test]
    fn stays_bounded() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for i in 0..(MAX_KEYS + 10) {
            let t = t0 + Duration::from_millis(i as u64);
            let _ = fail(&l, &format!("u{i}"), &format!("a{i}"), t);
        }
        let s = l.state.lock().unwrap();
        assert!(s.pairs.len() <= MAX_KEYS && s.users.len() <= MAX_KEYS);
    }
}
