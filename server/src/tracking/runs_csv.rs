//! The runs table as CSV: a header row for the requested columns and pages of runs as CSV
//! rows, for the streamed export (`GET /experiments/{id}/runs/csv`).
//!
//! Columns: `run_id, run_name, status, user, start_time, end_time` (ISO 8601 UTC with
//! milliseconds), `duration_s` (empty while running), then `metrics.<k>`, `params.<k>`
//! and `tags.<k>` for the requested columns in order. Fields are quoted as RFC 4180 says,
//! rows end with CRLF. Text that a spreadsheet would run as a formula (a cell starting with
//! `=`, `+`, `-`, `@`, tab or CR that is not a plain number) gets a leading `'`; quoting
//! is the `csv` crate's.

use std::borrow::Cow;
use std::fmt::Write as _;

use api_types as json;

use super::run_table::{load_rows, search_query};
use super::search::search_run_page;
use crate::db::Conn;
use crate::logs::wire::rfc3339_ms;
use crate::Error;

/// Runs read per page.
pub(crate) const PAGE: usize = 1_000;

/// The page of experiment `id`'s runs matching `query` (its filter, order, view and
/// columns; not its limit or page token) that starts at `token` (the first page when
/// `None`), as CSV rows, and the token of the next page (`None` after the last).
pub(crate) fn page(
    c: &Conn,
    id: i64,
    query: &json::RunTableQuery,
    token: Option<&str>,
) -> Result<(String, Option<String>), Error> {
    let page = search_run_page(
        c,
        &search_query(std::slice::from_ref(&id), query),
        token,
        PAGE,
        false,
    )?;
    let rows = load_rows(c, &page.ids, &query.columns)?;
    let mut w = csv_writer(rows.len() * 128);
    for row in &rows {
        write_row(&mut w, row)?;
    }
    Ok((csv_text(w)?, page.next_page_token))
}

/// A CSV writer into memory: RFC 4180 quoting (only the fields that need it), CRLF rows.
fn csv_writer(capacity: usize) -> csv::Writer<Vec<u8>> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::CRLF)
        .from_writer(Vec::with_capacity(capacity))
}

/// What `w` wrote, as text.
fn csv_text(w: csv::Writer<Vec<u8>>) -> Result<String, Error> {
    let bytes = w
        .into_inner()
        .map_err(|e| Error::Internal(format!("writing CSV: {}", e.error())))?;
    String::from_utf8(bytes).map_err(|e| Error::Internal(format!("writing CSV: {e}")))
}

fn csv_error(e: csv::Error) -> Error {
    Error::Internal(format!("writing CSV: {e}"))
}

/// The header row for `columns`.
pub(crate) fn header_row(columns: &json::RunTableColumns) -> Result<String, Error> {
    let mut names: Vec<String> = [
        "run_id",
        "run_name",
        "status",
        "user",
        "start_time",
        "end_time",
        "duration_s",
    ]
    .map(String::from)
    .to_vec();
    names.extend(columns.metrics.iter().map(|k| format!("metrics.{k}")));
    names.extend(columns.params.iter().map(|k| format!("params.{k}")));
    names.extend(columns.tags.iter().map(|k| format!("tags.{k}")));
    let mut w = csv_writer(256);
    w.write_record(names.iter().map(|n| neutralised(n).into_owned()))
        .map_err(csv_error)?;
    csv_text(w)
}

/// Writes one run's row.
fn write_row(w: &mut csv::Writer<Vec<u8>>, r: &json::RunRow) -> Result<(), Error> {
    let duration = r
        .end_time
        .map(|end| format!("{:?}", (end - r.start_time) as f64 / 1000.0))
        .unwrap_or_default();
    let fixed = [
        r.run_id.clone(),
        r.run_name.clone(),
        r.status.clone(),
        r.user_id.clone(),
        rfc3339_ms(r.start_time),
        r.end_time.map(rfc3339_ms).unwrap_or_default(),
        duration,
    ];
    let mut cells: Vec<String> = fixed.iter().map(|v| neutralised(v).into_owned()).collect();
    cells.extend(r.metrics.iter().map(|m| {
        let mut out = String::new();
        if let Some(v) = m {
            push_number(&mut out, v.0);
        }
        out
    }));
    cells.extend(r.params.iter().chain(&r.tags).map(|v| {
        v.as_deref()
            .map(neutralised)
            .unwrap_or_default()
            .into_owned()
    }));
    w.write_record(&cells).map_err(csv_error)
}

/// A metric value: shortest round-trip form (`0.1`, `1e-7`), `NaN`, `inf` or `-inf`.
fn push_number(out: &mut String, v: f64) {
    let _ = write!(out, "{v:?}");
}

/// A text cell, with a leading `'` when a spreadsheet would run it as a formula.
fn neutralised(v: &str) -> Cow<'_, str> {
    let formula = v.starts_with(['=', '+', '-', '@', '\t', '\r'])
        && !v.parse::<f64>().is_ok_and(f64::is_finite);
    if formula {
        Cow::Owned(format!("'{v}"))
    } else {
        Cow::Borrowed(v)
    }
}

#[cfg(test)]
mod tests {
    use super::{csv_text, csv_writer, neutralised, push_number};

    fn cell(v: &str) -> String {
        let mut w = csv_writer(0);
        w.write_record([&*neutralised(v)]).unwrap();
        let row = csv_text(w).unwrap();
        row.strip_suffix("\r\n").unwrap().to_owned()
    }

    #[test]
    fn cells_are_quoted_and_formulas_neutralised() {
        assert_eq!(cell("plain"), "plain");
        assert_eq!(cell("a,b"), "\"a,b\"");
        assert_eq!(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(cell("two\nlines"), "\"two\nlines\"");
        assert_eq!(cell("=HYPERLINK(\"x\")"), "\"'=HYPERLINK(\"\"x\"\")\"");
        assert_eq!(cell("+cmd"), "'+cmd");
        assert_eq!(cell("-2+3"), "'-2+3");
        assert_eq!(cell("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(cell("\tx"), "'\tx");
        assert_eq!(cell("\r=1"), "\"'\r=1\"");
        assert_eq!(cell("-inf"), "'-inf");
        // Numbers are not formulas.
        assert_eq!(cell("-0.5"), "-0.5");
        assert_eq!(cell("+1e-3"), "+1e-3");
    }

    #[test]
    fn numbers_round_trip() {
        for v in [-0.5, 0.1, 1e-7, 12345.678, 1e300, f64::MIN_POSITIVE] {
            let mut out = String::new();
            push_number(&mut out, v);
            assert_eq!(out.parse::<f64>().unwrap(), v, "{out}");
        }
        let mut out = String::new();
        push_number(&mut out, f64::NAN);
        push_number(&mut out, f64::NEG_INFINITY);
        assert_eq!(out, "NaN-inf");
    }
}
