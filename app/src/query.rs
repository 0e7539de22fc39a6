//! Query strings: an ordered list of key/value pairs with percent-encoding, used for the
//! URL's view state and for API requests. Pure, so it is unit-tested natively.
//!
//! Escaping and unescaping are `percent-encoding`'s and parsing is `form_urlencoded`'s;
//! only the two escape sets are ours. Encoding stays here rather than in
//! `form_urlencoded::Serializer` because that one escapes `/ : ,` too, which would make
//! view-state URLs long and unreadable.

use percent_encoding::{percent_decode_str, utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};

/// Bytes escaped by [`encode_component`]: all but RFC 3986's unreserved characters.
const COMPONENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'_')
    .remove(b'.')
    .remove(b'~');

/// Bytes escaped by [`encode_value`]: as [`COMPONENT`], less `/ ? : @ ! * ,`.
const VALUE: &AsciiSet = &COMPONENT
    .remove(b'/')
    .remove(b'?')
    .remove(b':')
    .remove(b'@')
    .remove(b'!')
    .remove(b'*')
    .remove(b',');

/// Percent-encodes everything except RFC 3986's unreserved characters.
pub fn encode_component(s: &str) -> String {
    utf8_percent_encode(s, COMPONENT).to_string()
}

/// Encodes a query-string key or value compactly: besides the unreserved characters it
/// keeps `/ ? : @ ! * ,` (legal in a query, RFC 3986 §3.4) and writes a space as `+`, so
/// view-state URLs stay short and readable. `& = + # %` and the rest are escaped.
pub fn encode_value(s: &str) -> String {
    s.split(' ')
        .map(|part| utf8_percent_encode(part, VALUE).to_string())
        .collect::<Vec<_>>()
        .join("+")
}

/// Decodes `%XX` escapes and `+` (as space); invalid escapes are kept literally.
pub fn decode_component(s: &str) -> String {
    percent_decode_str(&s.replace('+', " "))
        .decode_utf8_lossy()
        .into_owned()
}

/// An ordered query string; a key may repeat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Query(Vec<(String, String)>);

impl Query {
    /// An empty query.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses `a=1&b=2` (a leading `?` is allowed).
    pub fn parse(search: &str) -> Self {
        let search = search.strip_prefix('?').unwrap_or(search);
        let pairs = form_urlencoded::parse(search.as_bytes())
            .map(|(k, v)| (k.into_owned(), v.into_owned()))
            .collect();
        Self(pairs)
    }

    /// Appends a pair (builder style).
    pub fn with(mut self, key: &str, value: impl Into<String>) -> Self {
        self.0.push((key.to_owned(), value.into()));
        self
    }

    /// Appends a pair when `value` is `Some`.
    pub fn with_opt(self, key: &str, value: Option<impl Into<String>>) -> Self {
        match value {
            Some(v) => self.with(key, v),
            None => self,
        }
    }

    /// The first value of `key`.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    /// Every value of `key`, in order.
    pub fn get_all(&self, key: &str) -> Vec<&str> {
        self.0
            .iter()
            .filter(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Replaces every value of `key` by `values` (none removes the key), keeping the
    /// position of its first occurrence.
    pub fn set_all(&mut self, key: &str, values: &[String]) {
        let pos = self
            .0
            .iter()
            .position(|(k, _)| k == key)
            .unwrap_or(self.0.len());
        self.0.retain(|(k, _)| k != key);
        let pos = pos.min(self.0.len());
        for (i, v) in values.iter().enumerate() {
            self.0.insert(pos + i, (key.to_owned(), v.clone()));
        }
    }

    /// Sets `key` to one value, or removes it for `None`.
    pub fn set(&mut self, key: &str, value: Option<String>) {
        self.set_all(key, &value.into_iter().collect::<Vec<_>>());
    }

    /// The encoded string without the leading `?`.
    pub fn encode(&self) -> String {
        self.0
            .iter()
            .map(|(k, v)| format!("{}={}", encode_value(k), encode_value(v)))
            .collect::<Vec<_>>()
            .join("&")
    }

    /// `path` followed by `?query` when the query is not empty.
    pub fn url(&self, path: &str) -> String {
        if self.0.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{}", self.encode())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_and_decodes_round_trip() {
        for s in [
            "metrics.`loss` < 0.5 AND params.lr = '1e-3'",
            "ünï/cödé &=?#",
            "",
        ] {
            assert_eq!(decode_component(&encode_component(s)), s);
        }
        assert_eq!(encode_component("a b&c"), "a%20b%26c");
        assert_eq!(decode_component("a+b%2"), "a b%2");
        assert_eq!(decode_component("%zz%41"), "%zzA");
    }

    #[test]
    fn query_keeps_order_and_repeats() {
        let mut q = Query::parse("?tab=metrics&zoom=loss:1:2&x=step&zoom=acc:3:4");
        assert_eq!(q.get("x"), Some("step"));
        assert_eq!(q.get_all("zoom"), vec!["loss:1:2", "acc:3:4"]);
        q.set("zoom", Some("z:0:1".into()));
        q.set("x", None);
        q.set("log", Some("1".into()));
        assert_eq!(q.encode(), "tab=metrics&zoom=z:0:1&log=1");
        assert_eq!(Query::new().url("/"), "/");
        assert_eq!(Query::new().with("q", "a b").url("/p"), "/p?q=a+b");
    }

    #[test]
    fn query_values_round_trip() {
        for v in [
            "metrics.`loss` < 0.5 AND params.lr = '1e-3'",
            "a+b&c=d#e%f",
            "/x?y=1&z=2",
            "ünï cödé",
        ] {
            let q = Query::new().with("k", v).with("k2", "x");
            let parsed = Query::parse(&q.encode());
            assert_eq!(parsed.get("k"), Some(v), "{}", q.encode());
            assert_eq!(parsed.get("k2"), Some("x"));
        }
        assert_eq!(encode_value("a,b:c/d e+f"), "a,b:c/d+e%2Bf");
    }
}
