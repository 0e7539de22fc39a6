//! Which preview a file gets, from its name alone (the server's content type is not
//! trusted for this: an uploaded `.svg` or `.html` is never rendered as markup).

/// How a file is previewed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewKind {
    /// An `MLmodel` file: the summary card.
    MlModel,
    /// JSON: pretty-printed and coloured.
    Json,
    /// CSV or TSV: a grid of the first rows, with this separator.
    Table(u8),
    /// An image shown by an `<img>` pointing at the file route (SVG included: an `<img>`
    /// never runs an SVG's script).
    Image,
    /// Plain text, paged (logs, YAML, code, HTML shown as its source, ...).
    Text,
    /// Anything else: no preview, a download link.
    Binary,
}

/// Extensions shown as text.
const TEXT: &[&str] = &[
    "txt",
    "log",
    "out",
    "err",
    "yaml",
    "yml",
    "py",
    "md",
    "markdown",
    "rst",
    "toml",
    "ini",
    "cfg",
    "conf",
    "sh",
    "bash",
    "zsh",
    "js",
    "mjs",
    "ts",
    "rs",
    "go",
    "java",
    "c",
    "h",
    "cc",
    "cpp",
    "hpp",
    "cu",
    "r",
    "sql",
    "xml",
    "html",
    "htm",
    "css",
    "jsonl",
    "ndjson",
    "env",
    "properties",
    "gitignore",
    "dockerfile",
    "lock",
    "diff",
    "patch",
    "tex",
    "ipynb",
    "proto",
    "pbtxt",
    "prototxt",
];

/// Extensions shown as images.
const IMAGE: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "svg", "bmp", "ico", "avif",
];

/// File names without an extension that are text.
const TEXT_NAMES: &[&str] = &[
    "requirements.txt",
    "Dockerfile",
    "Makefile",
    "LICENSE",
    "README",
    "conda.yaml",
    "python_env.yaml",
];

/// The last segment of a `/`-separated path.
pub fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// The preview of the file at `path`.
pub fn preview_kind(path: &str) -> PreviewKind {
    let name = file_name(path);
    if name == "MLmodel" {
        return PreviewKind::MlModel;
    }
    let ext = match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => ext.to_ascii_lowercase(),
        _ if TEXT_NAMES.contains(&name) => return PreviewKind::Text,
        _ => return PreviewKind::Binary,
    };
    match ext.as_str() {
        "json" => PreviewKind::Json,
        "csv" => PreviewKind::Table(b','),
        "tsv" => PreviewKind::Table(b'\t'),
        e if IMAGE.contains(&e) => PreviewKind::Image,
        e if TEXT.contains(&e) => PreviewKind::Text,
        _ => PreviewKind::Binary,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_come_from_the_name() {
        assert_eq!(preview_kind("model/MLmodel"), PreviewKind::MlModel);
        assert_eq!(preview_kind("metrics.JSON"), PreviewKind::Json);
        assert_eq!(preview_kind("data/train.csv"), PreviewKind::Table(b','));
        assert_eq!(preview_kind("x.tsv"), PreviewKind::Table(b'\t'));
        assert_eq!(preview_kind("plots/loss.png"), PreviewKind::Image);
        assert_eq!(preview_kind("evil.svg"), PreviewKind::Image);
        assert_eq!(preview_kind("page.html"), PreviewKind::Text);
        assert_eq!(preview_kind("train.log"), PreviewKind::Text);
        assert_eq!(preview_kind("conda.yaml"), PreviewKind::Text);
        assert_eq!(preview_kind("model/requirements.txt"), PreviewKind::Text);
        assert_eq!(preview_kind("Dockerfile"), PreviewKind::Text);
        assert_eq!(preview_kind("model.pkl"), PreviewKind::Binary);
        assert_eq!(preview_kind("noext"), PreviewKind::Binary);
        assert_eq!(preview_kind(".json"), PreviewKind::Binary);
    }

    #[test]
    fn names_are_last_segments() {
        assert_eq!(file_name("a/b/c.txt"), "c.txt");
        assert_eq!(file_name("c.txt"), "c.txt");
    }
}
