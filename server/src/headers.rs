//! Security headers on every response: a Content-Security-Policy that lets the wasm app
//! run (its inline scripts allowed by hash, from `dist/index.html`, recomputed when it changes),
//! no MIME sniffing, same-origin referrers, and no framing except under `/embed/`, which
//! the configured embed origin may frame.
//!
//! Offers the layer `add_security_headers` over `SecurityHeaders` (built once by
//! `crate::app`), [`validate_embed_origin`] (the `--embed-origin` check) and the `/embed/`
//! prefix; the policy's text and the script hashes stay inside.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::SystemTime;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine;
use sha2::{Digest, Sha256};

/// Paths under this prefix may be framed by the embed origin (the GPU panel embed).
pub(crate) const EMBED_PREFIX: &str = "/embed/";

/// The header values for one version of `index.html`.
#[derive(Debug, Clone)]
struct Policies {
    csp: HeaderValue,
    embed_csp: HeaderValue,
}

/// The security headers. The CSP allows `index.html`'s inline scripts by hash; when the
/// file changes on disk (Trunk rebuilt the app under a running server) the hashes are
/// computed again, so a rebuild never leaves the app blocked by a stale policy.
#[derive(Debug)]
pub(crate) struct SecurityHeaders {
    index_path: Option<PathBuf>,
    embed_origin: Option<String>,
    cached: RwLock<(Option<SystemTime>, Policies)>,
}

impl SecurityHeaders {
    /// Headers for the app whose `index.html` is at `index_path` (`None`: APIs only);
    /// `embed_origin` may frame `/embed/...` (none when `None`).
    pub(crate) fn new(index_path: Option<PathBuf>, embed_origin: Option<&str>) -> Self {
        let mtime = index_path.as_deref().and_then(modified);
        let html = index_path
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok());
        let policies = Policies::new(html.as_deref(), embed_origin);
        SecurityHeaders {
            index_path,
            embed_origin: embed_origin.map(str::to_owned),
            cached: RwLock::new((mtime, policies)),
        }
    }

    /// The policies for the current `index.html`, recomputed if it changed.
    fn current(&self) -> Policies {
        let mtime = self.index_path.as_deref().and_then(modified);
        if let Ok(c) = self.cached.read() {
            if c.0 == mtime {
                return c.1.clone();
            }
        }
        let html = self
            .index_path
            .as_deref()
            .and_then(|p| std::fs::read_to_string(p).ok());
        let policies = Policies::new(html.as_deref(), self.embed_origin.as_deref());
        if let Ok(mut c) = self.cached.write() {
            *c = (mtime, policies.clone());
        }
        policies
    }
}

fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

impl Policies {
    fn new(index_html: Option<&str>, embed_origin: Option<&str>) -> Self {
        let hashes: String = index_html
            .map(inline_script_hashes)
            .unwrap_or_default()
            .iter()
            .map(|h| format!(" '{h}'"))
            .collect();
        let base = format!(
            "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{hashes}; \
             style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
             base-uri 'none'; form-action 'self'; object-src 'none'"
        );
        let embed = embed_origin.unwrap_or("'none'");
        let value = |s: String| {
            HeaderValue::from_str(&s)
                .unwrap_or_else(|_| HeaderValue::from_static("default-src 'self'"))
        };
        Policies {
            csp: value(format!("{base}; frame-ancestors 'none'")),
            embed_csp: value(format!("{base}; frame-ancestors {embed}")),
        }
    }
}

/// Checks an embed origin such as `https://notebooks.example.com:8443` (one origin; no
/// characters that could add CSP directives).
pub fn validate_embed_origin(origin: &str) -> Result<(), String> {
    let ok_chars = origin
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || ":/.-*_[]".contains(c));
    let scheme_ok = origin.starts_with("https://") || origin.starts_with("http://");
    if ok_chars && scheme_ok && origin.len() > "https://".len() {
        return Ok(());
    }
    Err(format!(
        "invalid embed origin {origin:?}: give one origin such as https://notebooks.example.com"
    ))
}

/// `sha256-<base64>` of the body of every inline `<script>` (one without `src`).
pub(crate) fn inline_script_hashes(html: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(start) = rest.find("<script") {
        let Some(open_end) = rest[start..].find('>') else {
            break;
        };
        let open_tag = &rest[start..start + open_end];
        let body_start = start + open_end + 1;
        let Some(len) = rest[body_start..].find("</script>") else {
            break;
        };
        if !open_tag.contains("src=") {
            let digest = Sha256::digest(&rest.as_bytes()[body_start..body_start + len]);
            let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
            out.push(format!("sha256-{b64}"));
        }
        rest = &rest[body_start + len..];
    }
    out
}

/// The layer: adds the headers to every response.
pub(crate) async fn add_security_headers(
    State(h): State<Arc<SecurityHeaders>>,
    req: Request,
    next: Next,
) -> Response {
    let embed = req.uri().path().starts_with(EMBED_PREFIX);
    let mut resp = next.run(req).await;
    let headers = resp.headers_mut();
    let policies = h.current();
    let csp = if embed {
        policies.embed_csp
    } else {
        policies.csp
    };
    headers.insert(HeaderName::from_static("content-security-policy"), csp);
    headers.insert(
        HeaderName::from_static("x-content-type-options"),
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        HeaderName::from_static("referrer-policy"),
        HeaderValue::from_static("same-origin"),
    );
    if !embed {
        headers.insert(
            HeaderName::from_static("x-frame-options"),
            HeaderValue::from_static("DENY"),
        );
    }
    resp
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hashes_inline_scripts_only() {
        let html = "<head><script>var a=1;</script><script type=\"module\">import x from '/a.js';</script>\
                    <script src=\"/b.js\"></script></head>";
        let h = inline_script_hashes(html);
        assert_eq!(h.len(), 2);
        let expect = base64::engine::general_purpose::STANDARD.encode(Sha256::digest(b"var a=1;"));
        assert_eq!(h[0], format!("sha256-{expect}"));
    }

    #[test]
    fn embed_origin_only_on_embed_csp() {
        let h = Policies::new(Some("<script>x</script>"), Some("https://nb.example.com"));
        let csp = h.csp.to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("'sha256-"));
        assert!(h
            .embed_csp
            .to_str()
            .unwrap()
            .contains("frame-ancestors https://nb.example.com"));
    }
}

#[cfg(test)]
mod rebuild_tests {
    use super::*;

    #[test]
    fn policy_follows_a_rebuilt_index() {
        let dir = tempfile::tempdir().unwrap();
        let index = dir.path().join("index.html");
        std::fs::write(&index, "<script>one()</script>").unwrap();
        let h = SecurityHeaders::new(Some(index.clone()), None);
        let first = h.current().csp;
        // A later mtime, as a rebuild gives.
        std::fs::write(&index, "<script>two()</script>").unwrap();
        let later = SystemTime::now() + std::time::Duration::from_secs(5);
        std::fs::File::options()
            .write(true)
            .open(&index)
            .unwrap()
            .set_modified(later)
            .unwrap();
        let second = h.current().csp;
        assert_ne!(first, second);
        let expect = inline_script_hashes("<script>two()</script>").remove(0);
        assert!(second.to_str().unwrap().contains(&expect));
    }
}
