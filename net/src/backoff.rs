//! Exponential back-off for retrying a server: a first delay, doubled after each failure up
//! to a cap, and back to the first delay after a success. The agent's registration
//! heartbeat, its log shipping and its job-state calls all wait by it.
//!
//! Not the `backon` crate: its builders drive a retry loop around one closure, while these
//! callers keep their own loops (a heartbeat that waits between successes too, a shipping
//! loop that resets on success and logs a failure streak once) and only need the delays.

use std::time::Duration;

/// The delays of an exponential back-off (no jitter).
#[derive(Debug, Clone)]
pub struct Backoff {
    first: Duration,
    max: Duration,
    next: Duration,
}

impl Backoff {
    /// Delays of `first`, doubled after each failure, never above `max` (nor is the first).
    pub fn new(first: Duration, max: Duration) -> Self {
        Self {
            first,
            max,
            next: first.min(max),
        }
    }

    /// The delay [`Backoff::failed`] would return now.
    pub fn peek(&self) -> Duration {
        self.next
    }

    /// After a failure: the delay to wait now; the next one is twice as long (up to the cap).
    pub fn failed(&mut self) -> Duration {
        let delay = self.next;
        self.next = delay.saturating_mul(2).min(self.max);
        delay
    }

    /// After a success: the next failure waits the first delay again.
    pub fn reset(&mut self) {
        self.next = self.first.min(self.max);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn doubles_to_the_cap_and_resets() {
        let mut b = Backoff::new(Duration::from_millis(250), Duration::from_secs(5));
        let ms: Vec<u128> = (0..7).map(|_| b.failed().as_millis()).collect();
        assert_eq!(ms, [250, 500, 1000, 2000, 4000, 5000, 5000]);
        b.reset();
        assert_eq!(b.peek(), Duration::from_millis(250));
        assert_eq!(b.failed(), Duration::from_millis(250));
    }

    #[test]
    fn the_cap_bounds_the_first_delay_and_huge_caps_do_not_overflow() {
        let mut short = Backoff::new(Duration::from_secs(1), Duration::from_millis(500));
        assert_eq!(short.failed(), Duration::from_millis(500));
        let mut open = Backoff::new(Duration::MAX / 2 + Duration::from_secs(1), Duration::MAX);
        open.failed();
        assert_eq!(open.failed(), Duration::MAX);
    }
}
