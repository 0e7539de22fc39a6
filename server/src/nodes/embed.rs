//! Signed embed links: `/embed/gpus?nodes=a,b&exp=UNIX_S&sig=HEX`, where `sig` is
//! HMAC-SHA256 over `"<nodes>\n<exp>"` with a 32-byte secret kept in the `meta` table (so
//! every replica over the same database signs and checks alike). The link is the
//! credential of the public `GET /api/v1/embed/gpus`: read-only, scoped to exactly the
//! nodes signed, and expiring.

use crate::db::{Behavior, Conn};
use api_types::nodes::EmbedLink;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;

use crate::store::meta;
use crate::Error;

/// The `meta` key of the secret (hex).
const SECRET_KEY: &str = "embed_link_secret";
/// Lifetime of a link when the request names none: 7 days.
pub(crate) const DEFAULT_TTL_SECS: u64 = 7 * 24 * 3600;
/// Longest lifetime: 30 days.
pub(crate) const MAX_TTL_SECS: u64 = 30 * 24 * 3600;

/// The signing key. Its `Debug` never shows it.
#[derive(Clone)]
pub struct Secret([u8; 32]);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// The secret from the `meta` table, made (32 random bytes from the OS-seeded RNG) and
/// stored on first use. Read and written in one IMMEDIATE transaction, so two servers
/// starting at once agree on one secret.
pub fn load_or_create_secret(conn: &mut Conn) -> Result<Secret, Error> {
    let tx = conn.transaction(Behavior::Immediate)?;
    let stored = meta::get(&tx, SECRET_KEY)?;
    let secret = match stored.as_deref().and_then(|h| hex::decode(h).ok()) {
        Some(bytes) if bytes.len() == 32 => {
            let mut key = [0u8; 32];
            key.copy_from_slice(&bytes);
            key
        }
        _ => {
            let mut key = [0u8; 32];
            rand::rng().fill_bytes(&mut key);
            meta::set(&tx, SECRET_KEY, &hex::encode(key))?;
            key
        }
    };
    tx.commit()?;
    Ok(Secret(secret))
}

fn mac(secret: &Secret, nodes: &str, exp: i64) -> Hmac<Sha256> {
    // HMAC takes keys of any length: this cannot fail.
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(&secret.0).expect("HMAC key");
    m.update(nodes.as_bytes());
    m.update(b"\n");
    m.update(exp.to_string().as_bytes());
    m
}

/// The hex signature of `nodes` (the comma-separated list exactly as in the link) expiring
/// at `exp` (Unix seconds).
pub fn sign(secret: &Secret, nodes: &str, exp: i64) -> String {
    hex::encode(mac(secret, nodes, exp).finalize().into_bytes())
}

/// The link to the chrome-less panel of `nodes` (already checked), valid for `ttl_secs`
/// (default 7 days; 400 outside 1 s..=30 days) from `now_ms`.
pub(crate) fn link(
    secret: &Secret,
    nodes: &[String],
    ttl_secs: Option<u64>,
    now_ms: i64,
) -> Result<EmbedLink, Error> {
    let ttl = ttl_secs.unwrap_or(DEFAULT_TTL_SECS);
    if !(1..=MAX_TTL_SECS).contains(&ttl) {
        return Err(Error::InvalidParameter(format!(
            "ttl_secs must be between 1 and {MAX_TTL_SECS} (30 days), got {ttl}"
        )));
    }
    let exp = now_ms.div_euclid(1000) + ttl as i64;
    let list = nodes.join(",");
    let sig = sign(secret, &list, exp);
    Ok(EmbedLink {
        path: format!("/embed/gpus?nodes={list}&exp={exp}&sig={sig}"),
        expires_at_ms: exp * 1000,
        frame_origin: None,
    })
}

/// Checks a link's `nodes`, `exp` and `sig` at `now_ms`: 403 "This embed link is not
/// valid" for a signature that does not match (compared in constant time), then 403
/// "This embed link expired on <RFC 3339>" once `exp` has passed.
pub(crate) fn verify(
    secret: &Secret,
    nodes: &str,
    exp: i64,
    sig: &str,
    now_ms: i64,
) -> Result<(), Error> {
    let denied = |message: String| Error::PermissionDenied {
        message,
        grantors: Vec::new(),
    };
    let valid =
        hex::decode(sig).is_ok_and(|bytes| mac(secret, nodes, exp).verify_slice(&bytes).is_ok());
    if !valid {
        return Err(denied("This embed link is not valid".into()));
    }
    if now_ms.div_euclid(1000) >= exp {
        return Err(denied(format!(
            "This embed link expired on {}",
            rfc3339(exp)
        )));
    }
    Ok(())
}

/// `YYYY-MM-DDTHH:MM:SSZ` of Unix seconds `t` (UTC; proleptic Gregorian calendar).
pub(crate) fn rfc3339(t: i64) -> String {
    match chrono::DateTime::from_timestamp(t, 0) {
        Some(at) => at.format("%Y-%m-%dT%H:%M:%SZ").to_string(),
        None => format!("{t} seconds after 1970"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_rfc3339_utc() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_764_544_800), "2025-11-30T23:20:00Z");
        assert_eq!(rfc3339(-1), "1969-12-31T23:59:59Z");
    }

    #[test]
    fn signatures_bind_nodes_and_expiry() {
        let s = Secret([7; 32]);
        let now = 1_000_000_000_000;
        let link = link(&s, &["a".into(), "b".into()], Some(60), now).unwrap();
        let exp = now / 1000 + 60;
        assert_eq!(link.expires_at_ms, exp * 1000);
        let sig = link.path.rsplit("sig=").next().unwrap();
        assert!(verify(&s, "a,b", exp, sig, now).is_ok());
        assert!(verify(&s, "a", exp, sig, now).is_err());
        assert!(verify(&s, "a,b", exp + 1, sig, now).is_err());
        assert!(verify(&Secret([8; 32]), "a,b", exp, sig, now).is_err());
        assert!(verify(&s, "a,b", exp, "zz", now).is_err());
        let expired = verify(&s, "a,b", exp, sig, exp * 1000).unwrap_err();
        assert!(expired.to_string().contains("expired on"), "{expired}");
        assert!(link_err(&s, Some(0)) && link_err(&s, Some(MAX_TTL_SECS + 1)));
    }

    fn link_err(s: &Secret, ttl: Option<u64>) -> bool {
        link(s, &["a".into()], ttl, 0).is_err()
    }
}
