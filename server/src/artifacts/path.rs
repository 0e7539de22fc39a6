//! [`ArtifactPath`]: a path relative to the artifact root that cannot leave it.

use std::fmt;

use crate::Error;

/// The scheme of artifact URIs served by this server's artifact proxy.
pub(crate) const SCHEME: &str = "mlflow-artifacts:";

/// The folder under the artifact root that holds uploads in progress (never listed, never
/// reachable through an [`ArtifactPath`]).
pub(crate) const UPLOADS_DIR: &str = ".uploads";

/// The longest segment of an [`ArtifactPath`], in bytes: the longest file name most file
/// systems store (Linux's `NAME_MAX`).
pub(crate) const MAX_SEGMENT_BYTES: usize = 255;

/// The longest [`ArtifactPath`], in bytes: the longest key S3 stores, and well within
/// Linux's `PATH_MAX` (4096) together with the root folder.
pub(crate) const MAX_PATH_BYTES: usize = 1024;

/// A validated path relative to the artifact root, `/`-separated: no `..`, `.` or empty
/// segment, not absolute, no NUL, backslash or control character, never under
/// `UPLOADS_DIR`, no segment over `MAX_SEGMENT_BYTES` and at most `MAX_PATH_BYTES`
/// in all. The empty path is the root itself (`ArtifactPath::root`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct ArtifactPath(String);

/// MLflow's answer to an unsafe path (`validate_path_is_safe`).
fn invalid() -> Error {
    Error::InvalidParameter("Invalid path".into())
}

/// A path over `MAX_PATH_BYTES` (which the storage could not hold: a 400, not its 500).
fn too_long(len: usize) -> Error {
    Error::InvalidParameter(format!(
        "Invalid path: it is {len} bytes long, over the limit of {MAX_PATH_BYTES} bytes"
    ))
}

impl ArtifactPath {
    /// The artifact root.
    pub(crate) fn root() -> Self {
        ArtifactPath(String::new())
    }

    /// Validates `raw` (already percent-decoded). A trailing `/` is ignored; `""` is
    /// refused (use [`ArtifactPath::parse_or_root`] where the root is meant).
    pub(crate) fn parse(raw: &str) -> Result<Self, Error> {
        let p = Self::parse_or_root(raw)?;
        if p.is_root() {
            return Err(invalid());
        }
        Ok(p)
    }

    /// Like [`ArtifactPath::parse`], but `""` (or `/`-less nothing) is the root.
    pub(crate) fn parse_or_root(raw: &str) -> Result<Self, Error> {
        let trimmed = raw.strip_suffix('/').unwrap_or(raw);
        if trimmed.is_empty() {
            return Ok(Self::root());
        }
        if trimmed.starts_with('/') || trimmed.contains('#') {
            return Err(invalid());
        }
        if trimmed.chars().any(|c| c == '\\' || c.is_control()) {
            return Err(invalid());
        }
        for (i, seg) in trimmed.split('/').enumerate() {
            if seg.is_empty() || seg == "." || seg == ".." || (i == 0 && seg == UPLOADS_DIR) {
                return Err(invalid());
            }
            if seg.len() > MAX_SEGMENT_BYTES {
                return Err(Error::InvalidParameter(format!(
                    "Invalid path: a path segment is {} bytes long, over the limit of \
                     {MAX_SEGMENT_BYTES} bytes",
                    seg.len()
                )));
            }
        }
        if trimmed.len() > MAX_PATH_BYTES {
            return Err(too_long(trimmed.len()));
        }
        Ok(ArtifactPath(trimmed.to_owned()))
    }

    /// The path of an `mlflow-artifacts:/<p>` URI (also `mlflow-artifacts://host:port/<p>`,
    /// whose host part names a server, not a folder). Other schemes are refused: their
    /// artifacts are not stored by this server.
    pub(crate) fn from_uri(uri: &str) -> Result<Self, Error> {
        let rest = uri.strip_prefix(SCHEME).ok_or_else(|| {
            Error::InvalidParameter(format!(
                "Artifact URI '{uri}' is not served by this server's artifact proxy \
                 (expected {SCHEME}/...)"
            ))
        })?;
        let rest = match rest.strip_prefix("//") {
            Some(after) => after.find('/').map_or("", |i| &after[i..]),
            None => rest,
        };
        Self::parse_or_root(rest.trim_start_matches('/'))
    }

    /// The `mlflow-artifacts:/<p>` URI of this path.
    pub fn to_uri(&self) -> String {
        format!("{SCHEME}/{}", self.0)
    }

    /// Whether this is the root.
    pub(crate) fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The path as text (`""` for the root).
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }

    /// Its segments (none for the root).
    pub(crate) fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// The first segment (an experiment id in MLflow's layout), if any.
    pub(crate) fn first(&self) -> Option<&str> {
        self.segments().next()
    }

    /// The last segment (`None` for the root).
    pub(crate) fn file_name(&self) -> Option<&str> {
        self.segments().last()
    }

    /// The folder holding this path (the root for a single segment and for the root).
    pub(crate) fn parent(&self) -> ArtifactPath {
        match self.0.rsplit_once('/') {
            Some((dir, _)) => ArtifactPath(dir.to_owned()),
            None => Self::root(),
        }
    }

    /// `self/rel`, with `rel` validated (`""` gives `self`).
    pub(crate) fn join(&self, rel: &str) -> Result<Self, Error> {
        let rel = Self::parse_or_root(rel)?;
        self.join_path(&rel)
    }

    /// `self/rel` for an already valid `rel`; refused when the two together are over
    /// [`MAX_PATH_BYTES`].
    pub(crate) fn join_path(&self, rel: &ArtifactPath) -> Result<Self, Error> {
        Ok(match (self.is_root(), rel.is_root()) {
            (true, _) => rel.clone(),
            (_, true) => self.clone(),
            _ => {
                let joined = format!("{}/{}", self.0, rel.0);
                if joined.len() > MAX_PATH_BYTES {
                    return Err(too_long(joined.len()));
                }
                ArtifactPath(joined)
            }
        })
    }

    /// This path relative to `base` (`Some("")` when equal), if it lies under `base`.
    pub fn relative_to<'a>(&'a self, base: &ArtifactPath) -> Option<&'a str> {
        if base.is_root() {
            return Some(&self.0);
        }
        match self.0.strip_prefix(base.as_str())? {
            "" => Some(""),
            rest => rest.strip_prefix('/'),
        }
    }
}

impl fmt::Display for ArtifactPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn valid_paths_are_kept_and_a_trailing_slash_dropped() {
        for (raw, want) in [
            ("1/abc/artifacts", "1/abc/artifacts"),
            ("a/", "a"),
            ("x.txt", "x.txt"),
        ] {
            assert_eq!(ArtifactPath::parse(raw).unwrap().as_str(), want);
        }
        assert!(ArtifactPath::parse_or_root("").unwrap().is_root());
    }

    #[test]
    fn traversal_and_odd_paths_are_refused() {
        for raw in [
            "",
            "..",
            "../x",
            "a/../b",
            "a/..",
            "/etc/passwd",
            "a//b",
            "./a",
            "a/./b",
            "a\\b",
            "a\0b",
            "a\nb",
            ".uploads",
            ".uploads/x",
            "a#b",
            "//",
        ] {
            assert!(ArtifactPath::parse(raw).is_err(), "{raw:?} accepted");
        }
        // Not at the root, `.uploads` is a plain name.
        assert!(ArtifactPath::parse("1/.uploads").is_ok());
    }

    #[test]
    fn long_segments_and_paths_are_refused() {
        let longest = "x".repeat(MAX_SEGMENT_BYTES);
        assert!(ArtifactPath::parse(&format!("1/{longest}")).is_ok());
        // Bytes count, not characters: 128 two-byte characters are 256 bytes.
        for seg in ["x".repeat(MAX_SEGMENT_BYTES + 1), "é".repeat(128)] {
            let e = ArtifactPath::parse(&format!("1/{seg}/a")).unwrap_err();
            assert!(e.to_string().contains("segment is 256 bytes"), "{e}");
        }
        let deep = [longest.as_str(); 4].join("/");
        assert!(ArtifactPath::parse(&deep).is_ok());
        let e = ArtifactPath::parse(&format!("{deep}/{longest}")).unwrap_err();
        assert!(
            e.to_string().contains("over the limit of 1024 bytes"),
            "{e}"
        );
        let base = ArtifactPath::parse(&deep).unwrap();
        assert!(base.join("a").is_err());
        assert!(base.join("").is_ok());
    }

    #[test]
    fn uris_map_to_paths() {
        let p = ArtifactPath::from_uri("mlflow-artifacts:/1/r1/artifacts").unwrap();
        assert_eq!(p.as_str(), "1/r1/artifacts");
        assert_eq!(p.to_uri(), "mlflow-artifacts:/1/r1/artifacts");
        let p = ArtifactPath::from_uri("mlflow-artifacts://host:5000/2/x").unwrap();
        assert_eq!(p.as_str(), "2/x");
        assert!(ArtifactPath::from_uri("mlflow-artifacts:/")
            .unwrap()
            .is_root());
        assert!(ArtifactPath::from_uri("s3://b/1").is_err());
        assert!(ArtifactPath::from_uri("mlflow-artifacts:/1/../../etc").is_err());
    }

    #[test]
    fn join_and_relative() {
        let base = ArtifactPath::parse("1/r/artifacts").unwrap();
        let p = base.join("model/MLmodel").unwrap();
        assert_eq!(p.as_str(), "1/r/artifacts/model/MLmodel");
        assert_eq!(p.relative_to(&base), Some("model/MLmodel"));
        assert_eq!(base.relative_to(&base), Some(""));
        assert_eq!(
            ArtifactPath::parse("1/r/artifactsX")
                .unwrap()
                .relative_to(&base),
            None
        );
        assert_eq!(base.join("").unwrap(), base);
        assert!(base.join("../x").is_err());
        assert_eq!(p.file_name(), Some("MLmodel"));
        assert_eq!(p.first(), Some("1"));
    }
}
