//! Authentication settings and the in-memory state that goes with them (the verified-basic
//! cache), held in `AppState::auth`. The sign-in limiter lives in the database
//! (`auth::limiter`), shared by every replica.

use std::collections::HashMap;
use std::sync::Mutex;

use axum::http::HeaderName;

use super::secret::{random_alphanumeric, sha256_hex};

/// How callers may authenticate, beyond passwords, tokens and sessions.
#[derive(Debug, Clone, Default)]
pub struct AuthSettings {
    /// Header set by a trusted reverse proxy carrying the signed-in username (SSO), e.g.
    /// `X-Forwarded-User`. `None` (the default) ignores such headers entirely.
    pub trusted_user_header: Option<HeaderName>,
    /// Always mark the session cookie `Secure` (served over https).
    pub secure_cookies: bool,
    /// Take the client address from the last `X-Forwarded-For` entry (behind a proxy that
    /// sets it), for sign-in rate limits.
    pub trusted_forwarded_for: bool,
}

/// Settings plus the state shared by every request.
#[derive(Debug)]
pub struct AuthState {
    /// The settings.
    pub settings: AuthSettings,
    /// Basic credentials recently verified, so that clients sending HTTP basic on every
    /// request (the mlflow client does) pay for argon2 once, not per request.
    pub basic_cache: BasicCache,
}

impl AuthState {
    /// State for `settings` with an empty cache.
    pub(crate) fn new(settings: AuthSettings) -> Self {
        AuthState {
            settings,
            basic_cache: BasicCache::default(),
        }
    }
}

impl Default for AuthState {
    fn default() -> Self {
        AuthState::new(AuthSettings::default())
    }
}

/// Most cached basic credentials; the cache is emptied when full.
const BASIC_CACHE_MAX: usize = 1024;

/// Maps a keyed digest of (username, password) to the password hash it was verified
/// against. A hit counts only while the user's stored hash is unchanged, so a password
/// change invalidates it. Neither passwords nor plain digests of them are kept: the key
/// mixes in a random per-process secret.
#[derive(Debug)]
pub struct BasicCache {
    key: String,
    entries: Mutex<HashMap<String, String>>,
}

impl Default for BasicCache {
    fn default() -> Self {
        BasicCache {
            key: random_alphanumeric(32),
            entries: Mutex::new(HashMap::new()),
        }
    }
}

impl BasicCache {
    fn digest(&self, username: &str, password: &str) -> String {
        sha256_hex(&format!("{}\0{username}\0{password}", self.key))
    }

    /// Whether (username, password) was verified against exactly `phc`.
    pub(crate) fn verified(&self, username: &str, password: &str, phc: &str) -> bool {
        let d = self.digest(username, password);
        self.entries
            .lock()
            .map(|m| m.get(&d).is_some_and(|h| h == phc))
            .unwrap_or(false)
    }

    /// Remembers a successful verification against `phc`.
    pub(crate) fn remember(&self, username: &str, password: &str, phc: &str) {
        let d = self.digest(username, password);
        if let Ok(mut m) = self.entries.lock() {
            if m.len() >= BASIC_CACHE_MAX {
                m.clear();
            }
            m.insert(d, phc.to_string());
        }
    }
}
