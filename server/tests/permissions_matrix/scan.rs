//! Every route of the router, read from the source: each `.route("<path>", <methods>)` in
//! `server/src/**/*.rs`, with the nest prefixes of the function that registers it resolved
//! by [`PREFIXES`]. axum cannot list its routes, so this is how a new route gets noticed.

use std::path::Path;

/// Where each route-registering function's router is nested (`file`, `fn`, prefixes).
/// A function missing here fails the test, so a new router gets a row.
pub const PREFIXES: &[(&str, &str, &[&str])] = &[
    ("lib.rs", "app", &[""]),
    (
        "mlflow/mod.rs",
        "routes",
        &["/api/2.0/mlflow", "/ajax-api/2.0/mlflow"],
    ),
    (
        "mlflow/mod.rs",
        "routes_v3",
        &["/api/3.0/mlflow", "/ajax-api/3.0/mlflow"],
    ),
    (
        "auth/mlflow_users.rs",
        "routes",
        &["/api/2.0/mlflow", "/ajax-api/2.0/mlflow"],
    ),
    ("auth/mod.rs", "routes", &["/api/v1"]),
    ("v1/mod.rs", "routes", &["/api/v1"]),
];

/// One registered route: method (`GET`, ..., or `ANY`) and full path pattern.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Route {
    /// HTTP method, or `ANY`.
    pub method: String,
    /// Full path as registered, e.g. `/api/v1/runs/{id}`.
    pub path: String,
}

/// All routes registered in the crate's source.
pub fn routes() -> Vec<Route> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    for file in rust_files(&src) {
        let text = std::fs::read_to_string(&file).expect("read source");
        let rel = file
            .strip_prefix(&src)
            .expect("under src")
            .to_string_lossy()
            .replace('\\', "/");
        for (func, path, methods) in registrations(&text) {
            let prefixes = PREFIXES
                .iter()
                .find(|(f, n, _)| *f == rel && *n == func)
                .map(|(_, _, p)| *p)
                .unwrap_or_else(|| {
                    panic!("route {path} is registered in {rel} fn {func}, which has no nest prefix in PREFIXES")
                });
            for prefix in prefixes {
                for method in &methods {
                    out.push(Route {
                        method: method.clone(),
                        path: format!("{prefix}{path}"),
                    });
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out
}

/// `(enclosing fn, literal path, methods)` of each `.route("...", ...)` in `text`.
fn registrations(text: &str) -> Vec<(String, String, Vec<String>)> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(i) = text[at..].find(".route(") {
        let start = at + i + ".route(".len();
        at = start;
        let rest = text[start..].trim_start();
        let Some(lit) = rest.strip_prefix('"') else {
            continue; // not a literal path (e.g. spa.rs's generated API 404s)
        };
        let path = &lit[..lit.find('"').expect("closing quote")];
        let body = balanced(&text[start..]);
        out.push((
            enclosing_fn(&text[..start]),
            path.to_string(),
            methods(body),
        ));
    }
    out
}

/// The text up to the `)` that closes the call whose arguments start `s`.
fn balanced(s: &str) -> &str {
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return &s[..i];
                }
            }
            _ => {}
        }
    }
    s
}

fn methods(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    for m in ["get", "post", "put", "delete", "patch", "any"] {
        let pattern = format!("{m}(");
        let hits = body.match_indices(&pattern).filter(|(i, _)| {
            let before = body[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
        });
        if hits.count() > 0 {
            out.push(m.to_uppercase());
        }
    }
    out
}

fn enclosing_fn(before: &str) -> String {
    let i = before.rfind("fn ").expect("route outside a fn");
    before[i + 3..]
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect()
}
