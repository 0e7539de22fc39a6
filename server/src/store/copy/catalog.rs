//! What the two catalogs say: the tables, columns and foreign keys of a SQLite file
//! (`sqlite_master`, `pragma_table_info`, `pragma_foreign_key_list`) and of the
//! PostgreSQL database (`pg_tables`, `pg_attribute`, `pg_constraint`).

use std::collections::BTreeSet;

use crate::db::Conn;

use super::CopyError;

/// Tables a fresh open fills for itself (the applied migrations): never copied, never
/// counted against emptiness.
pub(super) const BOOKKEEPING: [&str; 2] = ["schema_migrations", "logs_schema_migrations"];

/// The tables of the PostgreSQL database's current schema.
pub(super) fn target_tables(dst: &Conn) -> Result<Vec<String>, CopyError> {
    dst.prepare(
        "SELECT tablename::text FROM pg_tables WHERE schemaname = current_schema() \
         ORDER BY tablename",
    )
    .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
    .map_err(CopyError::db("listing the PostgreSQL tables"))
}

/// A column of a PostgreSQL table.
pub(super) struct TargetColumn {
    /// Its name.
    pub name: String,
    /// `a` (GENERATED ALWAYS), `d` (BY DEFAULT) or empty.
    pub identity: String,
    /// NOT NULL without a default.
    pub required: bool,
    /// The sequence behind it (identity or serial), if any.
    pub sequence: Option<String>,
}

/// A column of a SQLite table: name, declared type, position in the primary key (0: none).
pub(super) type SourceColumn = (String, String, i64);

/// The tables of a SQLite file worth copying: not SQLite's own (`sqlite_sequence`,
/// `sqlite_stat1`), not the migrations' bookkeeping, which the target keeps for itself.
pub(super) fn source_tables(conn: &Conn) -> Result<Vec<String>, CopyError> {
    let names: Vec<String> = conn
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .and_then(|mut s| s.query_map([], |r| r.get(0))?.collect())
        .map_err(CopyError::db("listing the SQLite tables"))?;
    Ok(names
        .into_iter()
        .filter(|n| !n.starts_with("sqlite_") && n != "schema_migrations")
        .collect())
}

/// The tables `table` references (SQLite's foreign keys), itself left out.
pub(super) fn source_parents(conn: &Conn, table: &str) -> Result<BTreeSet<String>, CopyError> {
    let parents: BTreeSet<String> = conn
        .prepare("SELECT \"table\" FROM pragma_foreign_key_list(?1)")
        .and_then(|mut s| s.query_map([table], |r| r.get(0))?.collect())
        .map_err(CopyError::db(format!(
            "reading the foreign keys of {table}"
        )))?;
    Ok(parents.into_iter().filter(|p| p != table).collect())
}

/// PostgreSQL's foreign keys, (child, parent), in case they name more than SQLite's.
pub(super) fn target_foreign_keys(dst: &Conn) -> Result<Vec<(String, String)>, CopyError> {
    dst.prepare(
        "SELECT r.relname::text, f.relname::text
           FROM pg_constraint c
           JOIN pg_class r ON r.oid = c.conrelid
           JOIN pg_class f ON f.oid = c.confrelid
          WHERE c.contype = 'f' AND r.oid <> f.oid
            AND r.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())",
    )
    .and_then(|mut s| s.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?.collect())
    .map_err(CopyError::db("reading the PostgreSQL foreign keys"))
}

/// The columns of a SQLite table, in order.
pub(super) fn source_columns(src: &Conn, table: &str) -> Result<Vec<SourceColumn>, CopyError> {
    src.prepare("SELECT name, type, pk FROM pragma_table_info(?1) ORDER BY cid")
        .and_then(|mut s| {
            s.query_map([table], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
                .collect()
        })
        .map_err(CopyError::db(format!("reading the columns of {table}")))
}

/// The columns of a PostgreSQL table of the current schema, in order (none when there is
/// no such table).
pub(super) fn target_columns(dst: &Conn, table: &str) -> Result<Vec<TargetColumn>, CopyError> {
    dst.prepare(
        "SELECT a.attname::text, a.attidentity::text, a.attnotnull AND NOT a.atthasdef,
                pg_get_serial_sequence(quote_ident(?1), a.attname::text)
           FROM pg_attribute a
          WHERE a.attrelid = to_regclass(quote_ident(?1)) AND a.attnum > 0
            AND NOT a.attisdropped
          ORDER BY a.attnum",
    )
    .and_then(|mut s| {
        s.query_map([table], |r| {
            Ok(TargetColumn {
                name: r.get(0)?,
                identity: r.get(1)?,
                required: r.get(2)?,
                sequence: r.get(3)?,
            })
        })?
        .collect()
    })
    .map_err(CopyError::db(format!(
        "reading the PostgreSQL columns of {table}"
    )))
}
