//! The built app's files: precompressed variants chosen by `Accept-Encoding`, hashed files
//! cached as immutable, `index.html` (and the deep links it answers) revalidated.

use std::io::Read;
use std::path::Path;

use axum::http::{Method, StatusCode};
use server::auth::AuthSettings;
use server::StaticConfig;

use crate::helpers::{Resp, TestApp};

const WASM: &str = "app-0123456789abcdef_bg.wasm";
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// A file's bytes: varied enough that the compressed copies differ from it.
fn content(len: usize) -> Vec<u8> {
    (0..len).map(|i| ((i * 7919) % 251) as u8).collect()
}

fn gzip(raw: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut enc, raw).unwrap();
    enc.finish().unwrap()
}

/// A dist dir as the release build leaves it: the wasm and `index.html`, each with a
/// `.gz` and a `.br` copy.
fn dist(wasm: &[u8]) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    let html =
        format!("<html><head><script type=\"module\">import '/{WASM}';</script></head></html>");
    write_with_copies(d.path(), WASM, wasm);
    write_with_copies(d.path(), "index.html", html.as_bytes());
    d
}

fn write_with_copies(dir: &Path, name: &str, raw: &[u8]) {
    std::fs::write(dir.join(name), raw).unwrap();
    std::fs::write(dir.join(format!("{name}.gz")), gzip(raw)).unwrap();
    std::fs::write(dir.join(format!("{name}.br")), brotli_stored(raw)).unwrap();
}

/// Brotli of `raw` in uncompressed meta-blocks, so the test needs only a decoder: a valid
/// stream (RFC 7932 §9.2): window bits 16, then
/// per block of at most 65,536 bytes the header ISLAST=0, MNIBBLES=4, MLEN-1, ISUNCOMPRESSED=1,
/// padding to a byte and the bytes; then an empty last meta-block.
fn brotli_stored(raw: &[u8]) -> Vec<u8> {
    let mut bits = BitWriter::default();
    bits.put(0, 1); // WBITS = 16
    for chunk in raw.chunks(1 << 16) {
        bits.put(0, 1); // ISLAST
        bits.put(0, 2); // MNIBBLES = 4
        bits.put((chunk.len() - 1) as u64, 16);
        bits.put(1, 1); // ISUNCOMPRESSED
        bits.align();
        bits.out.extend_from_slice(chunk);
    }
    bits.put(1, 1); // ISLAST
    bits.put(1, 1); // ISLASTEMPTY
    bits.align();
    bits.out
}

#[derive(Default)]
struct BitWriter {
    out: Vec<u8>,
    acc: u64,
    n: u32,
}

impl BitWriter {
    fn put(&mut self, value: u64, width: u32) {
        self.acc |= value << self.n;
        self.n += width;
        while self.n >= 8 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.n -= 8;
        }
    }

    fn align(&mut self) {
        if self.n > 0 {
            self.put(0, 8 - self.n);
        }
    }
}

fn app(d: &tempfile::TempDir) -> TestApp {
    let statics = StaticConfig {
        dist_dir: Some(d.path().to_path_buf()),
        embed_origin: None,
    };
    TestApp::with(AuthSettings::default(), statics)
}

async fn get(app: &TestApp, uri: &str, accept: Option<&str>) -> Resp {
    let headers: Vec<(&str, &str)> = accept.map(|a| ("accept-encoding", a)).into_iter().collect();
    app.call(Method::GET, uri, &headers, None).await
}

#[tokio::test]
async fn hashed_files_are_immutable_and_index_html_is_revalidated() {
    let d = dist(&content(40_000));
    let app = app(&d);
    let r = get(&app, &format!("/{WASM}"), None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("cache-control"), IMMUTABLE);
    for uri in [
        "/",
        "/index.html",
        "/experiments/3",
        "/app-fedcba9876543210_bg.wasm",
    ] {
        let r = get(&app, uri, Some("br, gzip")).await;
        assert_eq!(r.status, StatusCode::OK, "{uri}");
        assert_eq!(r.header("cache-control"), "no-cache", "{uri}");
    }
    let r = get(&app, "/api/v1/experiments", None).await;
    assert_ne!(
        r.header("cache-control"),
        IMMUTABLE,
        "API answers keep their own"
    );
}

#[tokio::test]
async fn brotli_is_sent_to_clients_that_accept_it() {
    let raw = content(40_000);
    let d = dist(&raw);
    let app = app(&d);
    let r = get(&app, &format!("/{WASM}"), Some("gzip, deflate, br")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-encoding"), "br");
    assert!(r
        .header("vary")
        .to_ascii_lowercase()
        .contains("accept-encoding"));
    assert_eq!(r.header("content-type"), "application/wasm");
    let mut decoded = Vec::new();
    brotli_decompressor::Decompressor::new(&r.bytes[..], 4096)
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(decoded, raw);
}

#[tokio::test]
async fn gzip_is_sent_to_clients_that_accept_only_gzip() {
    let raw = content(40_000);
    let d = dist(&raw);
    let app = app(&d);
    let r = get(&app, &format!("/{WASM}"), Some("gzip")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-encoding"), "gzip");
    assert!(r
        .header("vary")
        .to_ascii_lowercase()
        .contains("accept-encoding"));
    assert_eq!(r.bytes, gzip(&raw), "the stored copy, not compressed again");
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&r.bytes[..])
        .read_to_end(&mut decoded)
        .unwrap();
    assert_eq!(decoded, raw);
}

#[tokio::test]
async fn identity_is_sent_without_accept_encoding() {
    let raw = content(40_000);
    let d = dist(&raw);
    let app = app(&d);
    let r = get(&app, &format!("/{WASM}"), None).await;
    assert_eq!(r.status, StatusCode::OK);
    assert!(r.header("content-encoding").is_empty());
    assert_eq!(r.bytes, raw);
    let r = get(&app, "/experiments/3", Some("br")).await;
    assert_eq!(
        r.header("content-encoding"),
        "br",
        "index.html's copy for deep links"
    );
}

/// The `runlens_signed_in` cookie a page load sets (`true`) or clears (`false`); panics
/// when the answer carries none.
fn signed_in_hint(r: &Resp) -> bool {
    let cookie = r
        .header("set-cookie")
        .lines()
        .find(|c| c.starts_with("runlens_signed_in="))
        .unwrap_or_else(|| panic!("no signed-in hint in {:?}", r.header("set-cookie")))
        .to_owned();
    assert!(!cookie.contains("HttpOnly"), "the app reads it: {cookie}");
    assert!(
        cookie.contains("Path=/") && cookie.contains("SameSite=Lax"),
        "{cookie}"
    );
    cookie.starts_with("runlens_signed_in=1;")
}

#[tokio::test]
async fn a_page_load_tells_the_app_whether_a_credential_came_with_it() {
    let d = dist(&content(1_000));
    let statics = StaticConfig {
        dist_dir: Some(d.path().to_path_buf()),
        embed_origin: None,
    };
    let settings = AuthSettings {
        trusted_user_header: Some(axum::http::HeaderName::from_static("x-forwarded-user")),
        ..AuthSettings::default()
    };
    let app = TestApp::with(settings, statics);
    app.user("ana", false);
    let (cookie, _, _) = app.login("ana", crate::helpers::PASSWORD).await;
    assert!(cookie.starts_with("runlens_session="), "{cookie}");
    let page = |headers: Vec<(&'static str, String)>| {
        let app = &app;
        async move {
            let h: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
            app.call(Method::GET, "/experiments/3", &h, None).await
        }
    };
    let accept = ("accept", "text/html".to_owned());
    let signed_out = page(vec![accept.clone()]).await;
    assert_eq!(signed_out.status, StatusCode::OK);
    assert!(!signed_in_hint(&signed_out), "no credential clears it");
    let with_session = page(vec![accept.clone(), ("cookie", cookie.clone())]).await;
    assert!(signed_in_hint(&with_session), "a session cookie sets it");
    let with_proxy = page(vec![accept.clone(), ("x-forwarded-user", "ana".into())]).await;
    assert!(
        signed_in_hint(&with_proxy),
        "the trusted proxy's header sets it"
    );
    let r = get(&app, &format!("/{WASM}"), None).await;
    assert!(
        !r.header("set-cookie").contains("runlens_signed_in"),
        "only page loads carry it"
    );
    let r = app
        .call(Method::GET, "/api/v1/session", &[("cookie", &cookie)], None)
        .await;
    assert!(
        !r.header("set-cookie").contains("runlens_signed_in"),
        "nor API answers"
    );
}
