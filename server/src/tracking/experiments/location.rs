//! Artifact locations as MLflow 3.17.2 treats them (`mlflow/utils/uri.py`): a relative
//! local path given to `experiments/create` is stored absolute, resolved against the
//! server's working directory (`resolve_uri_if_local`), and a run's `artifact_uri` appends
//! `<run_id>/artifacts` to the location's path, before any query string
//! (`append_to_uri_path`). URIs are split as Python's `urllib.parse.urlsplit` splits them.

use std::path::Path;

use crate::Error;

/// A URI cut as `urlsplit` cuts it: `scheme:` `//netloc` `path` `?query` `#fragment`.
#[derive(Debug, PartialEq)]
struct Parts<'a> {
    /// Lower-cased, "" when none.
    scheme: String,
    netloc: Option<&'a str>,
    path: &'a str,
    query: Option<&'a str>,
    fragment: Option<&'a str>,
}

fn split(uri: &str) -> Parts<'_> {
    let mut rest = uri;
    let mut scheme = String::new();
    if let Some(i) = uri.find(':') {
        let candidate = &uri[..i];
        let valid = candidate.starts_with(|c: char| c.is_ascii_alphabetic())
            && candidate
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
        if valid {
            scheme = candidate.to_ascii_lowercase();
            rest = &uri[i + 1..];
        }
    }
    let mut netloc = None;
    if let Some(after) = rest.strip_prefix("//") {
        let end = after.find(['/', '?', '#']).unwrap_or(after.len());
        netloc = Some(&after[..end]);
        rest = &after[end..];
    }
    let mut fragment = None;
    if let Some((before, f)) = rest.split_once('#') {
        fragment = Some(f);
        rest = before;
    }
    let mut query = None;
    if let Some((before, q)) = rest.split_once('?') {
        query = Some(q);
        rest = before;
    }
    Parts {
        scheme,
        netloc,
        path: rest,
        query,
        fragment,
    }
}

/// Python's `posixpath.join(prefix, suffix)` for a relative `suffix`.
fn join_posix(prefix: &str, suffix: &str) -> String {
    let suffix = suffix.trim_start_matches('/');
    if prefix.is_empty() {
        suffix.to_string()
    } else if prefix.ends_with('/') {
        format!("{prefix}{suffix}")
    } else {
        format!("{prefix}/{suffix}")
    }
}

/// Schemes whose URIs `urlunsplit` writes with `//` even without a host (Python's
/// `urllib.parse.uses_netloc`).
const USES_NETLOC: &[&str] = &[
    "",
    "ftp",
    "http",
    "gopher",
    "nntp",
    "telnet",
    "imap",
    "wais",
    "file",
    "mms",
    "https",
    "shttp",
    "snews",
    "prospero",
    "rtsp",
    "rtspu",
    "rsync",
    "svn",
    "svn+ssh",
    "sftp",
    "nfs",
    "git",
    "git+ssh",
    "ws",
    "wss",
    "itms-services",
];

/// MLflow's `append_to_uri_path(uri, path)`: `path` (relative, e.g. `<run_id>/artifacts`)
/// joined to the path of `uri`, keeping its query and fragment after it:
/// `s3://b/p?x=1` + `r/artifacts` = `s3://b/p/r/artifacts?x=1`.
pub(crate) fn append_to_uri_path(uri: &str, path: &str) -> String {
    let p = split(uri);
    if p.scheme.is_empty() {
        // A plain path: joined as a whole, a `?` in it included.
        return join_posix(uri, path);
    }
    let mut scheme = p.scheme.as_str();
    let mut prefix = String::new();
    if !p.path.starts_with('/') {
        // urlunparse would turn `scheme:rel` into `scheme:/rel`; MLflow keeps it relative.
        prefix = format!("{scheme}:");
        scheme = "";
    }
    let mut url = join_posix(p.path, path);
    if p.netloc.is_some_and(|n| !n.is_empty())
        || (!scheme.is_empty() && USES_NETLOC.contains(&scheme))
    {
        if !url.is_empty() && !url.starts_with('/') {
            url.insert(0, '/');
        }
        url = format!("//{}{url}", p.netloc.unwrap_or(""));
    }
    let mut out = prefix;
    if !scheme.is_empty() {
        out.push_str(scheme);
        out.push(':');
    }
    out.push_str(&url);
    if let Some(q) = p.query.filter(|q| !q.is_empty()) {
        out.push('?');
        out.push_str(q);
    }
    if let Some(f) = p.fragment.filter(|f| !f.is_empty()) {
        out.push('#');
        out.push_str(f);
    }
    out
}

/// Python's `urllib.parse.unquote`: `%XX` escapes decoded, invalid UTF-8 replaced.
fn unquote(s: &str) -> String {
    percent_encoding::percent_decode_str(s)
        .decode_utf8_lossy()
        .into_owned()
}

/// `cwd` joined with the relative `path` as `pathlib` joins: empty and `.` segments
/// dropped, `..` kept.
fn join_cwd(cwd: &Path, path: &str) -> String {
    let base = cwd.to_string_lossy();
    let mut out = base.trim_end_matches('/').to_string();
    for seg in path.split('/').filter(|s| !s.is_empty() && *s != ".") {
        out.push('/');
        out.push_str(seg);
    }
    if out.is_empty() {
        out.push('/');
    }
    out
}

/// MLflow's `resolve_uri_if_local`: a relative local location (no scheme, or `file:` with
/// a relative path) made absolute against `cwd`; anything else as given.
fn resolve_against(loc: &str, cwd: &Path) -> String {
    let p = split(loc);
    match p.scheme.as_str() {
        "" => {
            let local = unquote(loc);
            if local.starts_with('/') {
                loc.to_string()
            } else {
                join_cwd(cwd, &local)
            }
        }
        "file" => {
            let local = unquote(p.path);
            let local_host = p.netloc.is_none_or(|n| {
                let host = n.rsplit('@').next().unwrap_or(n);
                host.is_empty()
                    || host == "."
                    || host.starts_with("localhost")
                    || host.starts_with("127.0.0.1")
            });
            if local.starts_with('/') || !local_host {
                return loc.to_string();
            }
            let mut out = format!("file://{}", join_cwd(cwd, &local));
            if let Some(q) = p.query.filter(|q| !q.is_empty()) {
                out.push('?');
                out.push_str(q);
            }
            if let Some(f) = p.fragment.filter(|f| !f.is_empty()) {
                out.push('#');
                out.push_str(f);
            }
            out
        }
        _ => loc.to_string(),
    }
}

/// [`resolve_against`] the server's working directory, as `mlflow server` resolves a
/// relative `artifact_location`.
pub(crate) fn resolve_if_local(loc: &str) -> Result<String, Error> {
    if !matches!(split(loc).scheme.as_str(), "" | "file") {
        return Ok(loc.to_string());
    }
    let cwd = std::env::current_dir().map_err(|e| {
        Error::Internal(format!(
            "cannot resolve the relative artifact location {loc:?}: no working directory: {e}"
        ))
    })?;
    Ok(resolve_against(loc, &cwd))
}

/// MLflow's `validate_query_string`: a query that contains `..` once decoded could be
/// read as part of the path when something is appended to the location.
pub(crate) fn query_is_safe(loc: &str) -> bool {
    let Some(query) = split(loc).query else {
        return true;
    };
    let mut decoded = query.to_string();
    for _ in 0..10 {
        let next = unquote(&decoded);
        if next == decoded {
            break;
        }
        decoded = next;
    }
    !decoded.contains("..")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_before_the_query_as_mlflow_does() {
        // Each pair checked against MLflow 3.17.2 (`runs/create` under the location).
        for (loc, want) in [
            (
                "sqlite://host/db?driver=x",
                "sqlite://host/db/R/artifacts?driver=x",
            ),
            (
                "scheme://host/db?driver=x",
                "scheme://host/db/R/artifacts?driver=x",
            ),
            ("s3://b/p?x=1", "s3://b/p/R/artifacts?x=1"),
            ("s3://b", "s3://b/R/artifacts"),
            ("s3://b/p/", "s3://b/p/R/artifacts"),
            ("mlflow-artifacts:/5", "mlflow-artifacts:/5/R/artifacts"),
            ("mlflow-artifacts:rel", "mlflow-artifacts:rel/R/artifacts"),
            ("file:///abs/p", "file:///abs/p/R/artifacts"),
            ("file://localhost/rel", "file://localhost/rel/R/artifacts"),
            ("/abs/q", "/abs/q/R/artifacts"),
            ("/cwd/a?b=c", "/cwd/a?b=c/R/artifacts"),
            ("C:rel", "c:rel/R/artifacts"),
            ("S3://B/p", "s3://B/p/R/artifacts"),
            ("mlflow-artifacts:///x", "mlflow-artifacts:/x/R/artifacts"),
        ] {
            assert_eq!(append_to_uri_path(loc, "R/artifacts"), want, "{loc}");
        }
    }

    #[test]
    fn relative_local_locations_resolve_against_the_cwd() {
        let cwd = Path::new("/srv/w");
        for (loc, want) in [
            ("rel/dir", "/srv/w/rel/dir"),
            ("./x//y/", "/srv/w/x/y"),
            ("../up", "/srv/w/../up"),
            ("a?b=c", "/srv/w/a?b=c"),
            ("x%20y", "/srv/w/x y"),
            ("file:rel", "file:///srv/w/rel"),
            ("file:./a/b?q=1", "file:///srv/w/a/b?q=1"),
            ("file:///abs/p", "file:///abs/p"),
            ("file://localhost/rel", "file://localhost/rel"),
            ("/abs/q", "/abs/q"),
            ("s3://b/p", "s3://b/p"),
            ("mlflow-artifacts:rel", "mlflow-artifacts:rel"),
            ("C:rel", "C:rel"),
        ] {
            assert_eq!(resolve_against(loc, cwd), want, "{loc}");
        }
        assert_eq!(resolve_against("x", Path::new("/")), "/x");
    }

    #[test]
    fn traversal_in_a_query_is_refused() {
        assert!(query_is_safe("s3://b/p?x=1"));
        assert!(query_is_safe("s3://b/p..q"));
        assert!(!query_is_safe("s3://b/p?x=.."));
        assert!(!query_is_safe("s3://b/p?x=%2E%2E"));
        assert!(!query_is_safe("s3://b/p?x=%252e%252e"));
    }
}
