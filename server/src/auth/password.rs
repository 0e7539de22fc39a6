//! Password hashing: argon2id PHC strings, verified in constant time.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::RngCore;

use crate::Error;

/// Shortest password accepted when setting one.
pub(crate) const MIN_PASSWORD_LEN: usize = 8;

/// Hashes `password` with argon2id and a fresh random salt; returns the PHC string.
pub(crate) fn hash_password(password: &str) -> Result<String, Error> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt)
        .map_err(|e| Error::Internal(format!("password salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::Internal(format!("password hash: {e}")))
}

/// Whether `password` matches the PHC string `phc` (false for a malformed hash).
pub fn verify_password(password: &str, phc: &str) -> bool {
    match PasswordHash::new(phc) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A PHC string that never verifies, hashed once: checked against when the username is
/// unknown so that unknown users and wrong passwords take the same time.
pub(crate) fn dummy_hash() -> &'static str {
    static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    DUMMY.get_or_init(|| hash_password("runlens-dummy-password").unwrap_or_default())
}

/// Refuses passwords that are too short to be worth hashing.
pub(crate) fn check_new_password(password: &str) -> Result<(), Error> {
    if password.chars().count() < MIN_PASSWORD_LEN {
        return Err(Error::InvalidParameter(format!(
            "Passwords must be at least {MIN_PASSWORD_LEN} characters long."
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_then_verify() {
        let h = hash_password("correct horse").unwrap();
        assert!(h.starts_with("$argon2id$"));
        assert!(verify_password("correct horse", &h));
        assert!(!verify_password("correct horsE", &h));
        assert!(!verify_password("x", "not a phc string"));
    }

    #[test]
    fn salts_differ() {
        assert_ne!(
            hash_password("same").unwrap(),
            hash_password("same").unwrap()
        );
    }

    #[test]
    fn dummy_never_matches_empty() {
        assert!(!verify_password("", dummy_hash()));
    }
}
