//! CSV and TSV previews: the first [`MAX_ROWS`] rows of the file's first page as a grid
//! (RFC 4180 quoting: `"a, b"`, `""` for a quote, line breaks inside quotes).

use leptos::prelude::*;

use super::text::{decode_page, PAGE};
use crate::api::{self, ArtifactOwner};
use crate::components::states::Loading;
use crate::format;

/// Rows shown, header included.
pub const MAX_ROWS: usize = 200;

/// The rows of `src` split on `sep`, at most `max` of them. When `complete` is false the
/// text was cut off, so a last row without its line break is dropped (it may be partial).
pub fn parse_rows(src: &str, sep: char, max: usize, complete: bool) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = src.chars().peekable();
    while let Some(c) = chars.next() {
        if rows.len() >= max {
            return rows;
        }
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            '"' if quoted => quoted = false,
            '"' if field.is_empty() => quoted = true,
            c if c == sep && !quoted => row.push(std::mem::take(&mut field)),
            '\r' if !quoted => {}
            '\n' if !quoted => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            c => field.push(c),
        }
    }
    if complete && (!field.is_empty() || !row.is_empty()) && rows.len() < max {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// A grid of rows, the first as the header.
#[component]
fn Grid(
    /// The rows.
    rows: Vec<Vec<String>>,
) -> impl IntoView {
    let mut rows = rows.into_iter();
    let head = rows
        .next()
        .unwrap_or_default()
        .into_iter()
        .map(|h| view! { <th>{h}</th> })
        .collect_view();
    let body = rows
        .map(|r| {
            let cells = r.into_iter().map(|c| view! { <td>{c}</td> }).collect_view();
            view! { <tr>{cells}</tr> }
        })
        .collect_view();
    view! {
        <div class="artifact-grid-wrap">
            <table class="table artifact-grid" data-testid="artifact-grid">
                <thead><tr>{head}</tr></thead>
                <tbody>{body}</tbody>
            </table>
        </div>
    }
}

/// A CSV (`sep` `,`) or TSV (`\t`) file as a grid of its first rows.
#[component]
pub fn TablePreview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// Its path.
    path: String,
    /// The field separator.
    sep: u8,
) -> impl IntoView {
    let first =
        LocalResource::new(move || api::get_artifact_range(owner.clone(), path.clone(), 0, PAGE));
    view! {
        <Suspense fallback=|| view! { <Loading label="Loading file…" /> }>
            {move || Suspend::new(async move {
                match first.await {
                    Ok(r) => {
                        let complete = r.total.is_some_and(|t| t <= r.bytes.len() as u64);
                        let rows = parse_rows(&decode_page(&r.bytes, true).0, sep as char, MAX_ROWS, complete);
                        let note = (!complete || rows.len() >= MAX_ROWS).then(|| {
                            let total = r.total.map(format::bytes).unwrap_or_default();
                            format!("The first {} rows of {total}; download the file for the rest.", rows.len().saturating_sub(1))
                        });
                        view! {
                            <Grid rows=rows />
                            {note.map(|n| view! { <p class="preview-note muted small">{n}</p> })}
                        }.into_any()
                    }
                    Err(e) => view! { <p class="preview-note preview-error" role="alert">{super::error_text(&e)}</p> }.into_any(),
                }
            })}
        </Suspense>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(src: &str, complete: bool) -> Vec<Vec<String>> {
        parse_rows(src, ',', 10, complete)
    }

    #[test]
    fn quoting_follows_rfc_4180() {
        assert_eq!(
            rows(
                "a,b\r\n\"x, y\",\"say \"\"hi\"\"\"\n\"two\nlines\",3\n",
                true
            ),
            vec![
                vec!["a", "b"],
                vec!["x, y", "say \"hi\""],
                vec!["two\nlines", "3"]
            ]
        );
    }

    #[test]
    fn a_cut_off_last_row_is_dropped_and_rows_are_capped() {
        assert_eq!(
            rows("a,b\n1,2\n3,", false),
            vec![vec!["a", "b"], vec!["1", "2"]]
        );
        assert_eq!(rows("a,b\n1,2", true), vec![vec!["a", "b"], vec!["1", "2"]]);
        assert_eq!(parse_rows("1\n2\n3\n4\n", ',', 2, true).len(), 2);
        assert_eq!(parse_rows("a\tb\n", '\t', 5, true), vec![vec!["a", "b"]]);
    }
}
