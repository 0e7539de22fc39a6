//! Where the app may navigate to: same-origin paths only, in the canonical form the
//! browser itself would give them, so that what passes the check is what `pushState` gets.
//!
//! A path like `/..//evil.example`, `/%2e%2e//evil.example` or `/.//evil.example` starts
//! with one `/`, but the browser resolves its dot segments to `//evil.example`, a
//! protocol-relative URL to another host: `history.pushState` refuses it and the router
//! panics. So dot segments are resolved (also when percent-encoded, at any depth of
//! encoding) before the check, and anything that does not stay a plain same-origin path is
//! refused.

/// Decoding rounds tried on one segment (`%252e` is `%2e` is `.`).
const MAX_DECODE_ROUNDS: usize = 4;

/// One `%XX` decoding pass (no `+` to space: this is a path, not a form). `None` when the
/// bytes are not UTF-8.
fn percent_decode_once(s: &str) -> Option<String> {
    percent_encoding::percent_decode_str(s)
        .decode_utf8()
        .ok()
        .map(|d| d.into_owned())
}

/// A segment decoded until it stops changing (at most [`MAX_DECODE_ROUNDS`] rounds);
/// `None` when it still changes after that or is not UTF-8.
fn fully_decoded(segment: &str) -> Option<String> {
    let mut s = segment.to_owned();
    for _ in 0..MAX_DECODE_ROUNDS {
        let next = percent_decode_once(&s)?;
        if next == s {
            return Some(s);
        }
        s = next;
    }
    None
}

/// `raw` as a canonical same-origin path (with its query and fragment kept as they are),
/// or `None` when it is not one.
///
/// The path must start with a single `/` and hold no control characters or backslashes
/// (browsers read `\` as `/`). Each segment is percent-decoded (repeatedly) only to be
/// classified: `.` and `..` segments are resolved as the browser resolves them, a segment
/// that decodes to something holding `/`, `\` or a control character is refused, and any
/// other segment is kept exactly as written. If the resolved path would start with `//`
/// (another host) it is refused; empty segments inside it are collapsed.
pub fn normalize_path(raw: &str) -> Option<String> {
    if !raw.starts_with('/') || raw.starts_with("//") || raw.chars().any(|c| c.is_control()) {
        return None;
    }
    let split = raw.find(['?', '#']).unwrap_or(raw.len());
    let (path, rest) = raw.split_at(split);
    if path.contains('\\') {
        return None;
    }
    let segments: Vec<&str> = path[1..].split('/').collect();
    let mut out: Vec<&str> = Vec::with_capacity(segments.len());
    for (i, segment) in segments.iter().enumerate() {
        let last = i + 1 == segments.len();
        let decoded = fully_decoded(segment)?;
        if decoded.contains(['/', '\\']) || decoded.chars().any(char::is_control) {
            return None;
        }
        match decoded.as_str() {
            ".." => {
                out.pop();
                if last {
                    out.push("");
                }
            }
            "." if last => out.push(""),
            "." => {}
            _ => out.push(segment),
        }
    }
    // The browser's path would be "/" + out.join("/"): a leading empty segment makes it
    // "//host…", which is another origin.
    if out.len() > 1 && out[0].is_empty() {
        return None;
    }
    let trailing_slash = out.len() > 1 && out.last().is_some_and(|s| s.is_empty());
    out.retain(|s| !s.is_empty());
    let mut path = format!("/{}", out.join("/"));
    if trailing_slash {
        path.push('/');
    }
    Some(path + rest)
}

/// `raw` normalised by [`normalize_path`], or `/` when it is not a same-origin path.
pub fn safe_path(raw: &str) -> String {
    normalize_path(raw).unwrap_or_else(|| "/".to_owned())
}

/// The decoded path part of a normalised path, for comparing with a route (`/%73ignin`
/// is the sign-in page too).
pub fn decoded_path(normalized: &str) -> String {
    let path = normalized.split(['?', '#']).next().unwrap_or_default();
    let decoded = path
        .split('/')
        .map(|s| fully_decoded(s).unwrap_or_else(|| s.to_owned()))
        .collect::<Vec<_>>()
        .join("/");
    match decoded.strip_suffix('/') {
        Some(p) if !p.is_empty() => p.to_owned(),
        _ => decoded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_paths_are_kept() {
        for ok in [
            "/",
            "/experiments/3?filter=a%20b&tab=metrics",
            "/runs/x#top",
            "/settings",
            "/experiments/1?filter=a%2F..%2F..&x=//evil.example",
            "/experiments/1?next=/..//evil.example#/..//x",
            "/x/",
            "/%E2%9C%93",
            "/100%",
        ] {
            assert_eq!(normalize_path(ok).as_deref(), Some(ok), "{ok:?}");
        }
        // A view with many columns has a long URL; navigating within it must keep it.
        let long = format!("/experiments/1?metrics={}", "loss,".repeat(2000));
        assert_eq!(normalize_path(&long), Some(long));
    }

    #[test]
    fn dot_segments_that_lead_to_another_host_are_refused() {
        for bad in [
            "/..//evil.example",
            "/../..//evil.example/x?y=1",
            "/.//evil.example",
            "/././/evil.example",
            "/%2e%2e//evil.example",
            "/%2E%2E//evil.example",
            "/.%2e//evil.example",
            "/%2e.//evil.example",
            "/%2e//evil.example",
            "/%252e%252e//evil.example",
            "/a/..//evil.example",
            "/a/b/../..//evil.example",
            "/a/%2e%2e/%2E%2E//evil.example",
        ] {
            assert_eq!(normalize_path(bad), None, "{bad:?}");
            assert_eq!(safe_path(bad), "/", "{bad:?}");
        }
    }

    #[test]
    fn other_hosts_backslashes_encoded_slashes_and_controls_are_refused() {
        for bad in [
            "",
            "https://evil.example/",
            "//evil.example/x",
            "///evil.example",
            "/\\evil.example",
            "/\\/evil",
            "\\\\evil.example",
            "/a\\b",
            "/..\\evil.example",
            "/%5C%5Cevil.example",
            "/%2F%2Fevil.example",
            "/%2f/evil.example",
            "/%252F%252Fevil.example",
            "/..%2F..%2F%2Fevil.example",
            "javascript:alert(1)",
            "experiments/3",
            " /x",
            "/a\nb",
            "/a\tb",
            "/a%0Ab",
            "/%ff",
        ] {
            assert_eq!(normalize_path(bad), None, "{bad:?}");
        }
        // Encoded more deeply than anyone writes a link.
        assert_eq!(normalize_path("/%25252525252e"), None);
    }

    #[test]
    fn harmless_dot_segments_and_empty_segments_are_resolved() {
        for (raw, want) in [
            ("/experiments/./3", "/experiments/3"),
            (
                "/experiments/x/../3?tab=metrics",
                "/experiments/3?tab=metrics",
            ),
            ("/%2e%2e/experiments/3", "/experiments/3"),
            ("/..", "/"),
            ("/../", "/"),
            ("/.", "/"),
            ("/a/..", "/"),
            ("/a/.", "/a/"),
            ("/a//b", "/a/b"),
            ("/a/b/..//c", "/a/c"),
            ("/runs/x/", "/runs/x/"),
        ] {
            assert_eq!(normalize_path(raw).as_deref(), Some(want), "{raw:?}");
        }
    }

    #[test]
    fn decoded_path_compares_with_routes() {
        assert_eq!(decoded_path("/%73ignin?next=/x"), "/signin");
        assert_eq!(decoded_path("/signin/"), "/signin");
        assert_eq!(decoded_path("/"), "/");
    }
}
