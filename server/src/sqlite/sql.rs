//! The SQLite-only SQL that store-side modules use, named here so that it is found in one
//! place and a PostgreSQL backend knows what to translate. Everything else the store
//! modules write is meant to be portable (`ON CONFLICT ... DO NOTHING/UPDATE`,
//! `RETURNING`, `EXISTS`, `coalesce`, `substr`); the other SQLite-only statements are the
//! `PRAGMA`s and migrations in this module's parent.

use serde::Serialize;

use crate::Error;

/// `(SELECT value FROM json_each(<param>))`: the elements of a JSON array bound at `param`,
/// for `x IN ...` with one cached statement whatever the list's length. Bind
/// [`json_array`] there. (PostgreSQL: `json_array_elements_text(<param>::json)`.)
pub fn json_list(param: &str) -> String {
    format!("(SELECT value FROM json_each({param}))")
}

/// The JSON array text of `items`, to bind for [`json_list`].
pub fn json_array<T: Serialize>(items: &[T]) -> Result<String, Error> {
    serde_json::to_string(items).map_err(|e| Error::Internal(format!("encoding a list: {e}")))
}

/// The larger of two values: SQLite's scalar two-argument `max`. (PostgreSQL: `GREATEST`.)
pub fn greatest(a: &str, b: &str) -> String {
    format!("max({a}, {b})")
}

/// True when `needle` occurs in `haystack`: `instr(...) > 0`. (PostgreSQL: `strpos`.)
pub fn contains(haystack: &str, needle: &str) -> String {
    format!("instr({haystack}, {needle}) > 0")
}

/// The operator of a case-sensitive pattern match, with a pattern from [`like_to_glob`]:
/// SQLite's `LIKE` ignores ASCII case, MLflow's does not. (PostgreSQL: `LIKE`, with the
/// LIKE pattern as it is.)
pub const CASE_SENSITIVE_LIKE: &str = "GLOB";

/// Translates a SQL LIKE pattern (`%`, `_`) into the equivalent GLOB pattern.
pub fn like_to_glob(pattern: &str) -> String {
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
