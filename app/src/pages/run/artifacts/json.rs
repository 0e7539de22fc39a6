//! JSON previews: the text is tokenised ([`tokens`]) and laid out again two spaces per
//! level ([`pretty_lines`]), keeping key order and numbers exactly as written, each token
//! coloured by kind. Files over one page, or not valid JSON, are shown as plain text.

use leptos::prelude::*;

use super::text::{decode_page, TextPreview, PAGE};
use crate::api::{self, ArtifactOwner};
use crate::components::states::Loading;

/// What a token is, for its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tok {
    /// An object key.
    Key,
    /// A string value.
    Str,
    /// A number.
    Num,
    /// `true`, `false` or `null`.
    Lit,
    /// `{ } [ ] : ,` and indentation.
    Punct,
}

impl Tok {
    fn class(self) -> &'static str {
        match self {
            Tok::Key => "tok-key",
            Tok::Str => "tok-str",
            Tok::Num => "tok-num",
            Tok::Lit => "tok-lit",
            Tok::Punct => "tok-punct",
        }
    }
}

/// The tokens of `src`, or `None` if it is not JSON's token grammar (brackets are checked
/// by [`pretty_lines`]).
pub fn tokens(src: &str) -> Option<Vec<(Tok, &str)>> {
    let b = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let start = i;
        let kind = match b[i] {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'{' | b'}' | b'[' | b']' | b':' | b',' => {
                i += 1;
                Tok::Punct
            }
            b'"' => {
                i += 1;
                loop {
                    match b.get(i)? {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
                i += 1;
                Tok::Str
            }
            b'-' | b'0'..=b'9' => {
                while i < b.len() && matches!(b[i], b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    i += 1;
                }
                Tok::Num
            }
            _ => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| src[i..].starts_with(w))?;
                i += word.len();
                Tok::Lit
            }
        };
        out.push((kind, &src[start..i]));
    }
    // A string followed by `:` is a key.
    for k in 0..out.len().saturating_sub(1) {
        if out[k].0 == Tok::Str && out[k + 1].1 == ":" {
            out[k].0 = Tok::Key;
        }
    }
    Some(out)
}

/// One output line: its tokens (indentation first).
pub type Line = Vec<(Tok, String)>;

/// `src` pretty-printed as lines of coloured tokens, or `None` if it is not JSON (bad
/// tokens or unbalanced brackets). Empty containers stay on one line (`{}`, `[]`).
pub fn pretty_lines(src: &str) -> Option<Vec<Line>> {
    let toks = tokens(src)?;
    if toks.is_empty() {
        return None;
    }
    let mut lines: Vec<Line> = vec![Vec::new()];
    let mut stack: Vec<&str> = Vec::new();
    let newline = |lines: &mut Vec<Line>, depth: usize| {
        lines.push(vec![(Tok::Punct, "  ".repeat(depth))]);
    };
    for (k, &(kind, text)) in toks.iter().enumerate() {
        let next = toks.get(k + 1).map(|t| t.1);
        match text {
            "{" | "[" => {
                stack.push(if text == "{" { "}" } else { "]" });
                lines.last_mut()?.push((kind, text.to_owned()));
                if next != stack.last().copied() {
                    newline(&mut lines, stack.len());
                }
            }
            "}" | "]" => {
                if stack.pop()? != text {
                    return None;
                }
                let prev = k.checked_sub(1).map(|p| toks[p].1);
                if !matches!(prev, Some("{") | Some("[")) {
                    newline(&mut lines, stack.len());
                }
                lines.last_mut()?.push((kind, text.to_owned()));
            }
            "," => {
                lines.last_mut()?.push((kind, ",".to_owned()));
                newline(&mut lines, stack.len());
            }
            ":" => lines.last_mut()?.push((kind, ": ".to_owned())),
            _ => lines.last_mut()?.push((kind, text.to_owned())),
        }
    }
    stack.is_empty().then_some(lines)
}

/// Lines of coloured tokens.
#[component]
fn JsonLines(
    /// The lines.
    lines: Vec<Line>,
) -> impl IntoView {
    let lines = lines
        .into_iter()
        .map(|line| {
            let toks = line
                .into_iter()
                .map(|(k, t)| view! { <span class=k.class()>{t}</span> })
                .collect_view();
            view! { <div class="json-line">{toks}</div> }
        })
        .collect_view();
    view! { <pre class="artifact-text artifact-json" data-testid="artifact-json">{lines}</pre> }
}

/// A JSON file: pretty-printed and coloured when it fits one page and parses, else text.
#[component]
pub fn JsonPreview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// Its path.
    path: String,
) -> impl IntoView {
    let first = {
        let (owner, path) = (owner.clone(), path.clone());
        LocalResource::new(move || api::get_artifact_range(owner.clone(), path.clone(), 0, PAGE))
    };
    view! {
        <Suspense fallback=|| view! { <Loading label="Loading file…" /> }>
            {move || {
                let (owner, path) = (owner.clone(), path.clone());
                Suspend::new(async move {
                    let pretty = first.await.ok().and_then(|r| {
                        let whole = r.total.is_some_and(|t| t <= r.bytes.len() as u64);
                        whole.then(|| pretty_lines(&decode_page(&r.bytes, true).0)).flatten()
                    });
                    match pretty {
                        Some(lines) => view! { <JsonLines lines=lines /> }.into_any(),
                        None => view! { <TextPreview owner=owner path=path /> }.into_any(),
                    }
                })
            }}
        </Suspense>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|l| l.iter().map(|(_, t)| t.as_str()).collect())
            .collect()
    }

    #[test]
    fn objects_are_laid_out_keeping_order_and_numbers() {
        let lines = pretty_lines(r#"{"b":1.50,"a":[true,null,"x"],"e":{},"f":[]}"#).unwrap();
        assert_eq!(
            text(&lines),
            vec![
                "{",
                r#"  "b": 1.50,"#,
                r#"  "a": ["#,
                "    true,",
                "    null,",
                r#"    "x""#,
                "  ],",
                r#"  "e": {},"#,
                r#"  "f": []"#,
                "}",
            ]
        );
        assert_eq!(lines[1][1], (Tok::Key, r#""b""#.to_owned()));
        assert_eq!(lines[1][3], (Tok::Num, "1.50".to_owned()));
        assert_eq!(lines[5][1], (Tok::Str, r#""x""#.to_owned()));
    }

    #[test]
    fn escaped_quotes_stay_inside_strings() {
        let t = tokens(r#"{"k\"ey": "v\\"}"#).unwrap();
        assert_eq!(t[1], (Tok::Key, r#""k\"ey""#));
        assert_eq!(t[3], (Tok::Str, r#""v\\""#));
    }

    #[test]
    fn non_json_is_refused() {
        for bad in ["", "{", "[}", "{\"a\": tru}", "\"open", "<svg/>", "{]"] {
            assert!(pretty_lines(bad).is_none(), "{bad}");
        }
        assert_eq!(text(&pretty_lines(" 42 ").unwrap()), vec!["42"]);
    }
}
