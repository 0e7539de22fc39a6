//! Security headers on every response: a Content-Security-Policy that lets the wasm app
//! run (its inline scripts allowed by hash, computed from `dist/index.html` at start-up),
//! no MIME sniffing, same-origin referrers, and no framing except under `/embed/`, which
//! the configured embed origin may frame.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use base64::Engine;
use sha2::{Digest, Sha256};

/// Paths under this prefix may be framed by the embed origin (the GPU panel embed).
pub const EMBED_PREFIX: &str = "/embed/";

/// The header values, computed once.
#[derive(Debug, Clone)]
pub struct SecurityHeaders {
    csp: HeaderValue,
    embed_csp: HeaderValue,
}

impl SecurityHeaders {
    /// Headers for an app whose `index.html` is `index_html` (`None`: APIs only);
    /// `embed_origin` may frame `/embed/...` (none when `None`).
    pub fn new(index_html: Option<&str>, embed_origin: Option<&str>) -> Self {
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
        SecurityHeaders {
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
pub fn inline_script_hashes(html: &str) -> Vec<String> {
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
pub async fn add_security_headers(
    State(h): State<Arc<SecurityHeaders>>,
    req: Request,
    next: Next,
) -> Response {
    let embed = req.uri().path().starts_with(EMBED_PREFIX);
    let mut resp = next.run(req).await;
    let headers = resp.headers_mut();
    let csp = if embed { &h.embed_csp } else { &h.csp };
    headers.insert(
        HeaderName::from_static("content-security-policy"),
        csp.clone(),
    );
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
        let h = SecurityHeaders::new(Some("<script>x</script>"), Some("https://nb.example.com"));
        let csp = h.csp.to_str().unwrap();
        assert!(csp.contains("frame-ancestors 'none'") && csp.contains("'sha256-"));
        assert!(h
            .embed_csp
            .to_str()
            .unwrap()
            .contains("frame-ancestors https://nb.example.com"));
    }
}
