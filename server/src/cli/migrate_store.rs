//! `runlens migrate-store --from sqlite:DIR --to postgres://…`: moves an embedded data dir
//! into an empty PostgreSQL database (the copy itself is `server::store::copy`) and prints
//! what it copied and how to serve the result.

use std::path::{Path, PathBuf};

use server::store::copy::{migrate_store, Report};

/// Arguments of `runlens migrate-store`.
#[derive(clap::Args)]
pub(crate) struct MigrateStoreArgs {
    /// The embedded data dir to copy, as `sqlite:DIR` (its runlens.db and logs.db). It is
    /// opened as `serve` opens it, so it is first migrated to this runlens's schema. Stop
    /// the server using it first: what it writes during the copy is not copied.
    #[arg(long, value_name = "sqlite:DIR")]
    from: String,
    /// The empty PostgreSQL database to copy into, `postgres://user:password@host:port/db`
    /// (default: `--database-url` / RUNLENS_DATABASE_URL, which keeps a password out of
    /// the process list). A database holding anything beyond what a fresh start creates
    /// is refused and left untouched.
    #[arg(long, value_name = "postgres://...")]
    to: Option<String>,
}

/// Runs the copy and prints its summary.
pub(crate) fn migrate(data: &super::DataDir, args: MigrateStoreArgs) -> Result<(), String> {
    let dir = source_dir(&args.from)?;
    let url = args
        .to
        .or_else(|| data.database_url.clone())
        .filter(|u| !u.is_empty())
        .ok_or("give the PostgreSQL database with --to postgres://user:password@host/db")?;
    if !url.starts_with("postgres://") && !url.starts_with("postgresql://") {
        return Err(format!(
            "--to must be a postgres:// URL, not {}",
            redact(&url)
        ));
    }
    println!("copying {} into {} ...", dir.display(), redact(&url));
    let report = migrate_store(&dir, &url).map_err(|e| e.to_string())?;
    print!("{}", summary(&report));
    println!(
        "\nArtifacts are files, not rows: they stay in {dir}/artifacts, where runs and \
         experiments find them through their mlflow-artifacts:/ locations. Serve the copy \
         with the same data dir (and the same --artifacts-dir or --artifacts-url, if you \
         used one):\n\n  runlens serve --database-url '{url}' --data-dir {dir}\n\n\
         runlens.db and logs.db in {dir} are no longer used; keep them as a backup.",
        dir = dir.display(),
        url = redact(&url),
    );
    Ok(())
}

/// The directory of `sqlite:DIR` (a bare path is taken as the directory too).
fn source_dir(from: &str) -> Result<PathBuf, String> {
    let dir = from.strip_prefix("sqlite:").unwrap_or(from);
    if dir.is_empty() || from.contains("://") {
        return Err(format!(
            "--from must name an embedded data dir as sqlite:DIR, not {from}"
        ));
    }
    Ok(Path::new(dir).to_path_buf())
}

/// The per-table lines, the totals and the time taken.
fn summary(r: &Report) -> String {
    let width = r.tables.iter().map(|t| t.table.len()).max().unwrap_or(5);
    let mut out = format!(
        "{:<width$}  {:<10}  {:>10}  verified\n",
        "table", "from", "rows"
    );
    for t in &r.tables {
        out += &format!(
            "{:<width$}  {:<10}  {:>10}  count, {} rows compared\n",
            t.table,
            t.database.to_string(),
            t.rows,
            t.sampled
        );
    }
    let secs = r.elapsed.as_secs_f64();
    let total = r.total_rows();
    out += &format!(
        "total: {} tables, {total} rows, {} rows compared, in {secs:.1} s ({:.0} rows/s)\n",
        r.tables.len(),
        r.tables.iter().map(|t| t.sampled).sum::<u64>(),
        total as f64 / secs.max(1e-3)
    );
    if !r.sequences.is_empty() {
        let seqs: Vec<String> = r
            .sequences
            .iter()
            .map(|(c, last)| format!("{c} {last}"))
            .collect();
        out += &format!("sequences moved past: {}\n", seqs.join(", "));
    }
    if !r.triggers.is_empty() {
        out += &format!("triggers off during the copy: {}\n", r.triggers.join(", "));
    }
    if !r.target_only.is_empty() {
        out += &format!(
            "PostgreSQL tables with nothing to copy: {}\n",
            r.target_only.join(", ")
        );
    }
    out
}

/// `url` with its password, if any, as `****`.
fn redact(url: &str) -> String {
    let Some(start) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[start..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    match authority.rfind('@').and_then(|at| {
        let user = &authority[..at];
        user.find(':').map(|colon| (colon, at))
    }) {
        Some((colon, at)) => format!("{}{}:****{}", &url[..start], &rest[..colon], &rest[at..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_not_printed() {
        assert_eq!(
            redact("postgres://u:secret@h:5432/db"),
            "postgres://u:****@h:5432/db"
        );
        assert_eq!(redact("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(redact("postgres://h/db?x=a@b"), "postgres://h/db?x=a@b");
    }

    #[test]
    fn the_source_is_a_directory() {
        assert_eq!(source_dir("sqlite:/srv/rl").unwrap(), Path::new("/srv/rl"));
        assert_eq!(source_dir("data").unwrap(), Path::new("data"));
        assert!(source_dir("sqlite:").is_err());
        assert!(source_dir("postgres://h/db").is_err());
    }
}
