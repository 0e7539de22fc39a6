//! Serving an artifact's bytes safely: the content type MLflow guesses, `Range` (206/416),
//! `X-Content-Type-Options: nosniff` and a sandboxing Content-Security-Policy, so an
//! uploaded SVG or HTML never runs script in runlens' origin. The security-header layer
//! sets the app's CSP on every response; `apply_sandbox` (a layer outside it) puts the
//! sandbox policy back on responses marked `Sandboxed`. Downloads are marked `Raw` so
//! the compression layer leaves them alone (`CompressUnlessRaw`).

use axum::body::Body;
use axum::http::{header, HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

use crate::artifacts::{ByteRange, Object};

/// The policy of every artifact download.
pub(crate) const SANDBOX_CSP: &str =
    "sandbox; default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'";

/// Response extension: this response must carry [`SANDBOX_CSP`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sandboxed;

/// Response extension: stored bytes, served as they are (never compressed).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Raw;

/// Extensions MLflow serves as `text/plain` (`mlflow.utils.mime_type_utils`).
const TEXT_EXTENSIONS: &[&str] = &[
    "txt",
    "log",
    "err",
    "cfg",
    "conf",
    "cnf",
    "cf",
    "ini",
    "properties",
    "prop",
    "hocon",
    "toml",
    "yaml",
    "yml",
    "xml",
    "json",
    "js",
    "py",
    "py3",
    "csv",
    "tsv",
    "md",
    "rst",
    "ipynb",
    "MLmodel",
    "MLproject",
];

/// The content type MLflow's server sends for a file named `name`: known text files as
/// `text/plain`, else a guess from the extension, else `application/octet-stream`.
pub(crate) fn mlflow_mime_type(name: &str) -> String {
    let ext = match name.rsplit_once('.') {
        Some((_, e)) if !e.is_empty() => e,
        _ => name,
    };
    if TEXT_EXTENSIONS.contains(&ext) {
        return "text/plain".into();
    }
    mime_guess::from_path(name)
        .first_raw()
        .unwrap_or("application/octet-stream")
        .to_owned()
}

/// Bytes escaped in `filename*=UTF-8''...`: all but RFC 8187's `attr-char`.
const ATTR_CHAR_ESCAPED: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'!')
    .remove(b'#')
    .remove(b'$')
    .remove(b'&')
    .remove(b'+')
    .remove(b'-')
    .remove(b'.')
    .remove(b'^')
    .remove(b'_')
    .remove(b'`')
    .remove(b'|')
    .remove(b'~');

/// `attachment; filename=...` (RFC 6266), with `filename*=UTF-8''...` for names that are
/// not plain ASCII, as MLflow sends it.
pub(crate) fn attachment(name: &str) -> HeaderValue {
    let plain = |c: char| c.is_ascii_graphic() && !matches!(c, '"' | '\\' | ';' | ',');
    let value = if name.chars().all(plain) && !name.is_empty() {
        format!("attachment; filename={name}")
    } else {
        let fallback: String = name
            .chars()
            .map(|c| if plain(c) { c } else { '_' })
            .collect();
        let fallback = if fallback.trim_matches('_').is_empty() {
            "download".to_owned()
        } else {
            fallback
        };
        let quoted = utf8_percent_encode(name, ATTR_CHAR_ESCAPED);
        format!("attachment; filename=\"{fallback}\"; filename*=UTF-8''{quoted}")
    };
    HeaderValue::from_str(&value).unwrap_or_else(|_| HeaderValue::from_static("attachment"))
}

/// The single byte range of a `Range: bytes=...` header; anything else (several ranges,
/// other units, nonsense) is ignored and the whole file served, as RFC 9110 allows.
///
/// Not `http-range-header`: its parser refuses what is served here (`bytes= 0-9`, leading
/// zeros, `bytes=-0`, which is a 416 here) and its `validate` turns a suffix longer than
/// the file into an error where RFC 9110 serves the whole file, and wants the size before
/// the object is opened.
pub(crate) fn requested_range(headers: &HeaderMap) -> Option<ByteRange> {
    let v = headers.get(header::RANGE)?.to_str().ok()?.trim();
    let spec = v.strip_prefix("bytes=")?.trim();
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    if a.is_empty() {
        return b.parse().ok().map(ByteRange::Suffix);
    }
    let start = a.parse().ok()?;
    let end = if b.is_empty() {
        None
    } else {
        Some(b.parse().ok()?)
    };
    if end.is_some_and(|e| e < start) {
        return None;
    }
    Some(ByteRange::From { start, end })
}

/// 416 for a range outside a file of `size` bytes.
pub(crate) fn unsatisfiable(size: u64) -> Response {
    let mut r = (StatusCode::RANGE_NOT_SATISFIABLE, Body::empty()).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("bytes */{size}")) {
        r.headers_mut().insert(header::CONTENT_RANGE, v);
    }
    r.extensions_mut().insert(Sandboxed);
    r
}

/// The response for `obj`: 200 (or 206 with `Content-Range`), `Content-Length`,
/// `Accept-Ranges`, the given type and disposition, `nosniff`, the sandbox CSP and
/// `Cache-Control: no-cache`.
pub(crate) fn respond(
    obj: Object,
    content_type: &str,
    disposition: Option<HeaderValue>,
) -> Response {
    let (status, len) = match obj.range {
        Some((a, b)) => (StatusCode::PARTIAL_CONTENT, b - a + 1),
        None => (StatusCode::OK, obj.size),
    };
    let mut r = Response::new(Body::from_stream(obj.body));
    *r.status_mut() = status;
    let h = r.headers_mut();
    let ct = HeaderValue::from_str(content_type)
        .unwrap_or_else(|_| HeaderValue::from_static("application/octet-stream"));
    h.insert(header::CONTENT_TYPE, ct);
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    h.insert(header::ACCEPT_RANGES, HeaderValue::from_static("bytes"));
    if let Some((a, b)) = obj.range {
        if let Ok(v) = HeaderValue::from_str(&format!("bytes {a}-{b}/{}", obj.size)) {
            h.insert(header::CONTENT_RANGE, v);
        }
    }
    if let Some(d) = disposition {
        h.insert(header::CONTENT_DISPOSITION, d);
    }
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SANDBOX_CSP),
    );
    r.extensions_mut().insert(Sandboxed);
    r.extensions_mut().insert(Raw);
    r
}

/// Layer (outside the security headers): responses marked [`Sandboxed`] get
/// [`SANDBOX_CSP`] instead of the app's policy.
pub(crate) async fn apply_sandbox(mut r: Response) -> Response {
    if r.extensions().get::<Sandboxed>().is_some() {
        r.headers_mut().insert(
            HeaderName::from_static("content-security-policy"),
            HeaderValue::from_static(SANDBOX_CSP),
        );
    }
    r
}

/// The compression layer's predicate: its defaults, except responses marked [`Raw`].
#[derive(Clone, Default)]
pub(crate) struct CompressUnlessRaw(tower_http::compression::DefaultPredicate);

impl tower_http::compression::Predicate for CompressUnlessRaw {
    fn should_compress<B>(&self, response: &axum::http::Response<B>) -> bool
    where
        B: axum::body::HttpBody,
    {
        response.extensions().get::<Raw>().is_none() && self.0.should_compress(response)
    }
}

/// The content type of the app's file route: MLflow's guess, except that HTML (which
/// would run in a browser) is plain text, and text is UTF-8.
pub(crate) fn safe_content_type(name: &str) -> String {
    let t = mlflow_mime_type(name);
    let html = t == "text/html" || t == "application/xhtml+xml";
    if html || t == "text/plain" {
        "text/plain; charset=utf-8".into()
    } else {
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_types_follow_mlflow() {
        assert_eq!(mlflow_mime_type("a.txt"), "text/plain");
        assert_eq!(mlflow_mime_type("MLmodel"), "text/plain");
        assert_eq!(mlflow_mime_type("x.json"), "text/plain");
        assert_eq!(mlflow_mime_type("p.png"), "image/png");
        assert_eq!(mlflow_mime_type("p.svg"), "image/svg+xml");
        assert_eq!(mlflow_mime_type("model.pkl"), "application/octet-stream");
        assert_eq!(mlflow_mime_type("noext"), "application/octet-stream");
    }

    #[test]
    fn ranges_parse() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::RANGE, HeaderValue::from_str(v).unwrap());
            requested_range(&m)
        };
        assert_eq!(
            h("bytes=0-9"),
            Some(ByteRange::From {
                start: 0,
                end: Some(9)
            })
        );
        assert_eq!(
            h("bytes=5-"),
            Some(ByteRange::From {
                start: 5,
                end: None
            })
        );
        assert_eq!(h("bytes=-5"), Some(ByteRange::Suffix(5)));
        assert_eq!(h("bytes=0-1,3-4"), None);
        assert_eq!(h("items=0-1"), None);
        assert_eq!(h("bytes=9-2"), None);
    }

    #[test]
    fn dispositions_are_ascii() {
        assert_eq!(attachment("a.txt"), "attachment; filename=a.txt");
        let v = attachment("résumé \"x\".txt");
        let s = v.to_str().unwrap();
        assert!(
            s.contains("filename*=UTF-8''r%C3%A9sum%C3%A9%20%22x%22.txt"),
            "{s}"
        );
    }
}
