//! Sign-in rate limiting: at most [`MAX_FAILURES`] failed password attempts per username
//! and client address in a sliding [`WINDOW`]; in memory and bounded.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Failed attempts allowed per (username, address) within [`WINDOW`].
pub const MAX_FAILURES: usize = 5;
/// How long failures are remembered.
pub const WINDOW: Duration = Duration::from_secs(5 * 60);
/// Most (username, address) pairs tracked at once; older ones are dropped first.
const MAX_KEYS: usize = 10_000;

/// Failed sign-in attempts by (lower-cased username, client address).
#[derive(Debug, Default)]
pub struct LoginLimiter {
    failures: Mutex<HashMap<(String, String), Vec<Instant>>>,
}

fn key(username: &str, addr: &str) -> (String, String) {
    (username.to_lowercase(), addr.to_string())
}

impl LoginLimiter {
    /// Whether another attempt for `username` from `addr` is refused at `now`.
    pub fn is_limited(&self, username: &str, addr: &str, now: Instant) -> bool {
        let Ok(mut map) = self.failures.lock() else {
            return false;
        };
        let k = key(username, addr);
        match map.get_mut(&k) {
            Some(times) => {
                times.retain(|t| now.duration_since(*t) < WINDOW);
                times.len() >= MAX_FAILURES
            }
            None => false,
        }
    }

    /// Records a failed attempt.
    pub fn record_failure(&self, username: &str, addr: &str, now: Instant) {
        let Ok(mut map) = self.failures.lock() else {
            return;
        };
        if map.len() >= MAX_KEYS {
            map.retain(|_, times| times.iter().any(|t| now.duration_since(*t) < WINDOW));
            if map.len() >= MAX_KEYS {
                evict_oldest(&mut map);
            }
        }
        let times = map.entry(key(username, addr)).or_default();
        times.push(now);
        if times.len() > MAX_FAILURES {
            times.remove(0);
        }
    }

    /// Forgets the failures of a pair after a successful sign-in.
    pub fn record_success(&self, username: &str, addr: &str) {
        if let Ok(mut map) = self.failures.lock() {
            map.remove(&key(username, addr));
        }
    }

    /// Seconds until the pair may try again (for the 429 message).
    pub fn retry_after(&self, username: &str, addr: &str, now: Instant) -> u64 {
        let Ok(map) = self.failures.lock() else {
            return 0;
        };
        map.get(&key(username, addr))
            .and_then(|times| times.first())
            .map(|first| WINDOW.saturating_sub(now.duration_since(*first)).as_secs() + 1)
            .unwrap_or(0)
    }
}

/// Drops the half of the pairs whose latest failure is oldest.
fn evict_oldest(map: &mut HashMap<(String, String), Vec<Instant>>) {
    let mut latest: Vec<Instant> = map.values().filter_map(|t| t.last().copied()).collect();
    latest.sort();
    if let Some(cutoff) = latest.get(latest.len() / 2).copied() {
        map.retain(|_, times| times.last().is_some_and(|t| *t > cutoff));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_after_max_failures_then_forgets() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 0..MAX_FAILURES {
            assert!(!l.is_limited("Bob", "1.2.3.4", t0));
            l.record_failure("Bob", "1.2.3.4", t0);
        }
        assert!(l.is_limited("bob", "1.2.3.4", t0));
        assert!(
            !l.is_limited("bob", "5.6.7.8", t0),
            "other address unaffected"
        );
        assert!(
            !l.is_limited("alice", "1.2.3.4", t0),
            "other user unaffected"
        );
        assert!(l.retry_after("bob", "1.2.3.4", t0) > 290);
        assert!(!l.is_limited("bob", "1.2.3.4", t0 + WINDOW));
    }

    #[test]
    fn success_resets() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for _ in 0..MAX_FAILURES {
            l.record_failure("bob", "a", t0);
        }
        l.record_success("bob", "a");
        assert!(!l.is_limited("bob", "a", t0));
    }

    #[test]
    fn stays_bounded() {
        let l = LoginLimiter::default();
        let t0 = Instant::now();
        for i in 0..(MAX_KEYS + 10) {
            l.record_failure(&format!("u{i}"), "a", t0 + Duration::from_millis(i as u64));
        }
        assert!(l.failures.lock().unwrap().len() <= MAX_KEYS);
    }
}
