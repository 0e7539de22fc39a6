//! The store seam holds: the modules that serve requests (both dialects, the identity
//! routes), the CLI and the demo contain no SQL and never name the SQLite driver; they call
//! the domain modules (`tracking`, `permissions`, `auth`'s table modules), which own it.

use std::path::{Path, PathBuf};

/// Source folders and files on the handler side of the seam.
const HANDLER_SIDE: [&str; 7] = [
    "src/mlflow",
    "src/app_api",
    "src/cli",
    "src/demo",
    "src/auth/session_routes.rs",
    "src/auth/token_routes.rs",
    "src/auth/middleware.rs",
];

/// Text that only SQL or the driver would put in a source file.
const FORBIDDEN: [&str; 9] = [
    "rusqlite",
    "SELECT ",
    "INSERT INTO",
    "UPDATE ",
    "DELETE FROM",
    "json_each",
    "PRAGMA",
    "GLOB",
    "prepare_cached",
];

fn rust_files(path: &Path, out: &mut Vec<PathBuf>) {
    if path.is_file() {
        out.push(path.to_path_buf());
        return;
    }
    for entry in std::fs::read_dir(path).unwrap() {
        let p = entry.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn handlers_cli_and_demo_hold_no_sql() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for part in HANDLER_SIDE {
        rust_files(&root.join(part), &mut files);
    }
    assert!(files.len() > 20, "found only {} files", files.len());
    let mut found = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            for word in FORBIDDEN {
                if code.contains(word) {
                    found.push(format!("{}:{}: {word}", f.display(), n + 1));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "SQL on the handler side:\n{}",
        found.join("\n")
    );
}

/// Where the SQLite driver may be named: the database layer (`db`, its SQLite pool in
/// `db/sqlite.rs`). Everything else takes `db::Conn` and its types, so a second backend
/// changes no domain module.
const DRIVER_SIDE: [&str; 1] = ["src/db"];

#[test]
fn only_the_database_seam_names_the_driver() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("tests"), &mut files);
    assert!(files.len() > 100, "found only {} files", files.len());
    let this = Path::new(file!()).file_name().unwrap();
    let mut found = Vec::new();
    for f in &files {
        let rel = f.strip_prefix(root).unwrap();
        if DRIVER_SIDE.iter().any(|d| rel.starts_with(d)) || rel.file_name() == Some(this) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("rusqlite") || code.contains("r2d2_sqlite") {
                found.push(format!("{}:{}", rel.display(), n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "the driver named outside src/db:\n{}",
        found.join("\n")
    );
}

/// The tests only PostgreSQL can run are ignored on SQLite and named `pg_*`, the name the
/// PostgreSQL step (`scripts/test.sh`, `--ignored ::pg_`) runs them by; and no test skips
/// itself by returning early without a PostgreSQL server, which would count it as passed.
#[test]
fn postgresql_only_tests_are_ignored_and_named_for_the_postgresql_step() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("tests/it"), &mut files);
    let mut marked = 0;
    let mut wrong = Vec::new();
    for f in files.iter().filter(|f| !f.ends_with("architecture.rs")) {
        let text = std::fs::read_to_string(f).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (n, line) in lines.iter().enumerate() {
            let here = format!("{}:{}", f.display(), n + 1);
            if line.contains("#[ignore = \"PostgreSQL only") {
                marked += 1;
                let name = lines[n..]
                    .iter()
                    .find_map(|l| l.split("fn ").nth(1))
                    .and_then(|rest| rest.split('(').next())
                    .unwrap_or("");
                if !name.starts_with("pg_") {
                    wrong.push(format!(
                        "{here}: PostgreSQL-only test `{name}` is not named pg_*"
                    ));
                }
            }
            if line.contains("pg_url().is_none()") || line.contains("let Some(url) = pg_url() else")
            {
                wrong.push(format!(
                    "{here}: a test skips itself without PostgreSQL; ignore it"
                ));
            }
        }
    }
    assert!(marked >= 12, "found only {marked} PostgreSQL-only tests");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
