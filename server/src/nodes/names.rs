//! Node names, agent URLs and tokens as the registry accepts them, and the comma-separated
//! node lists of query strings.

use crate::Error;

use api_types::nodes::RESERVED_NODE_NAMES as RESERVED;
pub(crate) use api_types::nodes::{is_valid_node_name as is_valid_name, MAX_NODE_NAME as MAX_NAME};

/// Most nodes one request may name.
pub(crate) const MAX_NODES: usize = 64;
/// Longest agent URL.
const MAX_URL: usize = 2048;
/// Longest agent token.
const MAX_TOKEN: usize = 512;

/// 400 unless `name` is a valid node name.
pub(crate) fn check_name(name: &str) -> Result<(), Error> {
    if is_valid_name(name) {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "A node name is 1 to {MAX_NAME} characters of letters, digits, '.', '_' and '-' \
             (and not {}); got '{}'",
            RESERVED.join(" or "),
            shorten(name)
        )))
    }
}

/// The agent URL without a trailing `/`; 400 unless it is `http(s)://host[:port][/path]`.
pub(crate) fn check_url(url: &str) -> Result<String, Error> {
    let bad = |why: &str| {
        Error::InvalidParameter(format!(
            "The agent URL must be http(s)://host[:port][/path] ({why}); got '{}'",
            shorten(url)
        ))
    };
    if url.len() > MAX_URL {
        return Err(bad("too long"));
    }
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| bad("scheme"))?;
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let (host, port) = match authority.rfind(':') {
        Some(i) if !authority[i..].contains(']') => (&authority[..i], Some(&authority[i + 1..])),
        _ => (authority, None),
    };
    let host_ok = if let Some(v6) = host.strip_prefix('[').and_then(|h| h.strip_suffix(']')) {
        v6.parse::<std::net::Ipv6Addr>().is_ok()
    } else {
        !host.is_empty()
            && host
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-'))
    };
    if !host_ok {
        return Err(bad("host"));
    }
    if let Some(p) = port {
        if !p.parse::<u16>().is_ok_and(|p| p > 0) {
            return Err(bad("port"));
        }
    }
    let path_ok = path
        .bytes()
        .all(|b| b.is_ascii_graphic() && !matches!(b, b'?' | b'#' | b'\\'));
    if !path_ok {
        return Err(bad("path"));
    }
    if reqwest::Url::parse(url).is_err() {
        return Err(bad("unparsable"));
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// 400 unless `token` is 1..=512 printable ASCII characters without spaces (it travels in
/// an `Authorization` header). The message never repeats the token.
pub(crate) fn check_token(token: &str) -> Result<(), Error> {
    let ok = (1..=MAX_TOKEN).contains(&token.len()) && token.bytes().all(|b| b.is_ascii_graphic());
    if ok {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "The agent token must be 1 to {MAX_TOKEN} printable ASCII characters without spaces"
        )))
    }
}

/// The node names of a `nodes=a,b` list: trimmed, empty entries skipped, duplicates
/// dropped (first kept), in order; 400 when none or more than [`MAX_NODES`].
pub(crate) fn parse_list(list: &str) -> Result<Vec<String>, Error> {
    let mut out: Vec<String> = Vec::new();
    for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        if !out.iter().any(|n| n == name) {
            out.push(name.to_string());
        }
    }
    check_count(out.len())?;
    Ok(out)
}

/// 400 unless 1..=[`MAX_NODES`] nodes are named.
pub(crate) fn check_count(n: usize) -> Result<(), Error> {
    if (1..=MAX_NODES).contains(&n) {
        Ok(())
    } else {
        Err(Error::InvalidParameter(format!(
            "nodes must name 1 to {MAX_NODES} nodes, comma-separated; got {n}"
        )))
    }
}

/// The 404 of a node that does not exist or that the caller may not watch (one answer for
/// both, so names do not leak).
pub(crate) fn not_found(name: &str) -> Error {
    Error::NotFound(format!("No node named {} that you can see", shorten(name)))
}

/// At most 140 characters of `s`, for messages.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(140) {
        Some((cut, _)) => format!("{}…", &s[..cut]),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_must_be_http_with_host_port_and_path() {
        assert_eq!(
            check_url("http://10.0.0.7:9400/").unwrap(),
            "http://10.0.0.7:9400"
        );
        for ok in [
            "https://gpu-a.internal",
            "http://[::1]:9400/agent",
            "http://host:1/a/b",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        for bad in [
            "ftp://x",
            "http://",
            "http://a b",
            "http://host:0",
            "http://host:99999",
            "http://u@host",
            "http://host/p?q=1",
            "javascript:alert(1)",
            "host:9400",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn tokens_are_header_safe_and_never_echoed() {
        assert!(check_token("abc-123").is_ok());
        let err = check_token("has space").unwrap_err().to_string();
        assert!(!err.contains("has space"), "{err}");
        assert!(check_token("").is_err());
        assert!(check_token(&"t".repeat(513)).is_err());
    }

    #[test]
    fn lists_are_trimmed_deduplicated_and_bounded() {
        assert_eq!(parse_list(" a, b,,a ").unwrap(), ["a", "b"]);
        assert!(parse_list(" , ").is_err());
        let many: Vec<String> = (0..65).map(|i| format!("n{i}")).collect();
        assert!(parse_list(&many.join(",")).is_err());
        assert_eq!(parse_list(&many[..64].join(",")).unwrap().len(), 64);
    }
}
