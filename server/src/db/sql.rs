//! The SQL that differs between the engines, named here so that it is found in one place:
//! each fragment takes the connection's [`Engine`]. Everything else the store modules
//! write is portable (`ON CONFLICT ... DO NOTHING/UPDATE`, `RETURNING`, `EXISTS`,
//! `coalesce`, `substr`); the other engine-specific statements are SQLite's `PRAGMA`s and
//! the migrations (one file per engine).

use serde::Serialize;

use super::{Engine, Value};

use crate::Error;

/// The text elements of a JSON array bound at `param`, as a subquery for `x IN ...` (or a
/// FROM item with one column, `value`), with one cached statement whatever the list's
/// length. Bind [`json_array`] there.
pub(crate) fn json_list(d: Engine, param: &str) -> String {
    match d {
        Engine::Sqlite => format!("(SELECT value FROM json_each({param}))"),
        Engine::Postgres => {
            format!("(SELECT value FROM json_array_elements_text(CAST({param} AS TEXT)::json))")
        }
    }
}

/// [`json_list`] of integers (ids): PostgreSQL compares an integer column only with
/// integers.
pub(crate) fn json_int_list(d: Engine, param: &str) -> String {
    match d {
        Engine::Sqlite => json_list(d, param),
        Engine::Postgres => format!(
            "(SELECT CAST(value AS BIGINT) FROM json_array_elements_text(CAST({param} AS TEXT)::json))"
        ),
    }
}

/// The pairs of a JSON array of two-element text arrays bound at `param` (`[[a, b], ...]`,
/// bind [`json_array`] of `[String; 2]`), as a FROM item of two text columns `a` and `b`,
/// in the array's order: several rows written by one cached statement whatever their
/// number (one round trip on PostgreSQL).
pub(crate) fn json_pairs(d: Engine, param: &str) -> String {
    match d {
        Engine::Sqlite => {
            format!("(SELECT p.value ->> 0 AS a, p.value ->> 1 AS b FROM json_each({param}) AS p)")
        }
        Engine::Postgres => format!(
            "(SELECT p.value ->> 0 AS a, p.value ->> 1 AS b
                FROM json_array_elements(CAST({param} AS TEXT)::json) AS p(value))"
        ),
    }
}

/// The JSON array text of `items`, to bind for [`json_list`].
pub(crate) fn json_array<T: Serialize>(items: &[T]) -> Result<String, Error> {
    serde_json::to_string(items).map_err(|e| Error::Internal(format!("encoding a list: {e}")))
}

/// The larger of two values: SQLite's scalar two-argument `max`, PostgreSQL's `GREATEST`.
pub(crate) fn greatest(d: Engine, a: &str, b: &str) -> String {
    match d {
        Engine::Sqlite => format!("max({a}, {b})"),
        Engine::Postgres => format!("GREATEST({a}, {b})"),
    }
}

/// True when `needle` occurs in `haystack`.
pub(crate) fn contains(d: Engine, haystack: &str, needle: &str) -> String {
    match d {
        Engine::Sqlite => format!("instr({haystack}, {needle}) > 0"),
        Engine::Postgres => format!("strpos({haystack}, {needle}) > 0"),
    }
}

/// MLflow's case-sensitive `LIKE ?`, with the pattern from [`like_pattern`]: SQLite's
/// `LIKE` ignores ASCII case, so there it is `GLOB` with the pattern translated.
pub(crate) fn like(d: Engine) -> &'static str {
    match d {
        Engine::Sqlite => "GLOB ?",
        Engine::Postgres => "LIKE ?",
    }
}

/// MLflow's `ILIKE ?` (ASCII case ignored): SQLite's `LIKE`, PostgreSQL's `ILIKE`.
pub(crate) fn ilike(d: Engine) -> &'static str {
    match d {
        Engine::Sqlite => "LIKE ?",
        Engine::Postgres => "ILIKE ?",
    }
}

/// The pattern to bind for [`like`]: a SQL LIKE pattern (`%`, `_`) as GLOB on SQLite, as
/// it is on PostgreSQL.
pub(crate) fn like_pattern(d: Engine, pattern: &str) -> String {
    match d {
        Engine::Sqlite => like_to_glob(pattern),
        Engine::Postgres => pattern.to_owned(),
    }
}

/// The integer column `col`, as a search compares it with the number `n`, and the value to
/// bind: `n` as an integer where it is one (so an index on `col` serves), else `col` read
/// as a float, because PostgreSQL binds no fraction or infinity to an integer parameter.
pub(crate) fn integer_column_vs(col: &str, n: f64) -> (String, Value) {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        (col.to_owned(), Value::Integer(n as i64))
    } else {
        (format!("CAST({col} AS DOUBLE PRECISION)"), Value::Real(n))
    }
}

/// How a table without a key is read in insertion order: SQLite's `rowid`, the `seq`
/// identity column of the PostgreSQL schema.
pub(crate) fn insertion_order(d: Engine) -> &'static str {
    match d {
        Engine::Sqlite => "rowid",
        Engine::Postgres => "seq",
    }
}

/// Translates a SQL LIKE pattern (`%`, `_`) into the equivalent GLOB pattern.
pub(crate) fn like_to_glob(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    for c in pattern.chars() {
        match c {
            '%' => out.push('*'),
            '_' => out.push('?'),
            '*' => out.push_str("[*]"),
            '?' => out.push_str("[?]"),
            '[' => out.push_str("[[]"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::like_to_glob;

    #[test]
    fn like_patterns_become_globs_with_glob_metacharacters_escaped() {
        assert_eq!(like_to_glob("a%b_c"), "a*b?c");
        assert_eq!(like_to_glob("*?["), "[*][?][[]");
    }
}
