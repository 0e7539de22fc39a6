//! Completions for the runs filter, in MLflow's search grammar: while a term's key is
//! typed, the experiment's `metrics.`, `params.` and `tags.` keys and the run attributes
//! (matched on the whole name or on the key alone); after a key, the operators MLflow
//! accepts for it (`IN` / `NOT IN` only for `attributes.run_id`); after `attributes.status
//! =`, the statuses; after a whole comparison, `AND`.

/// The run attributes a filter may name, and whether each compares as a number.
const ATTRIBUTES: [(&str, bool); 6] = [
    ("attributes.run_name", false),
    ("attributes.status", false),
    ("attributes.run_id", false),
    ("attributes.start_time", true),
    ("attributes.end_time", true),
    ("attributes.user_id", false),
];

/// The statuses `attributes.status` takes.
const STATUSES: [&str; 5] = ["RUNNING", "FINISHED", "FAILED", "KILLED", "SCHEDULED"];

/// At most this many completions are offered.
pub const MAX_SUGGESTIONS: usize = 8;

/// The experiment's keys the filter can name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FilterKeys {
    /// Metric keys.
    pub metrics: Vec<String>,
    /// Param keys.
    pub params: Vec<String>,
    /// Tag keys.
    pub tags: Vec<String>,
}

/// One completion: what replaces the text from `start` to the end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Suggestion {
    /// Byte offset in the filter where the replaced part starts.
    pub start: usize,
    /// The text put there (a trailing space included).
    pub insert: String,
    /// What the list shows.
    pub label: String,
}

impl Suggestion {
    /// The filter with this completion applied.
    pub fn apply(&self, text: &str) -> String {
        format!("{}{}", &text[..self.start.min(text.len())], self.insert)
    }
}

/// A key as the grammar writes it: backquoted unless it is a plain identifier.
fn quoted(prefix: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-' | '/'));
    if plain {
        format!("{prefix}.{key}")
    } else {
        format!("{prefix}.`{}`", key.replace('`', ""))
    }
}

/// The words of `text` outside quotes (a quoted value is one word), with their byte
/// offsets, and whether `text` ends inside a quoted value.
fn words(text: &str) -> (Vec<(usize, &str)>, bool) {
    let mut out = Vec::new();
    let mut start: Option<usize> = None;
    let mut quote: Option<char> = None;
    for (i, c) in text.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if c == '\'' || c == '"' || c == '`' => {
                quote = Some(c);
                start.get_or_insert(i);
            }
            None if c.is_whitespace() || c == '(' || c == ')' || c == ',' => {
                if let Some(s) = start.take() {
                    out.push((s, &text[s..i]));
                }
            }
            None => {
                start.get_or_insert(i);
            }
        }
    }
    if let Some(s) = start {
        out.push((s, &text[s..]));
    }
    (out, quote.is_some())
}

/// The operators MLflow accepts after `key`.
fn operators(key: &str) -> &'static [&'static str] {
    let lower = key.to_ascii_lowercase();
    let attribute = |a: &str| lower == a || a.strip_prefix("attributes.") == Some(lower.as_str());
    let numeric =
        lower.starts_with("metrics.") || ATTRIBUTES.iter().any(|(a, n)| *n && attribute(a));
    if numeric {
        &["<", "<=", ">", ">=", "=", "!="]
    } else if attribute("attributes.run_id") {
        &["=", "!=", "IN", "NOT IN", "LIKE", "ILIKE"]
    } else {
        &["=", "!=", "LIKE", "ILIKE"]
    }
}

/// Every key the filter can name, as written in it.
fn all_keys(keys: &FilterKeys) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    out.extend(keys.metrics.iter().map(|k| quoted("metrics", k)));
    out.extend(keys.params.iter().map(|k| quoted("params", k)));
    out.extend(keys.tags.iter().map(|k| quoted("tags", k)));
    out.extend(ATTRIBUTES.iter().map(|(a, _)| (*a).to_owned()));
    out
}

/// Whether `w` names the run status.
fn is_status(w: &str) -> bool {
    w.eq_ignore_ascii_case("attributes.status") || w.eq_ignore_ascii_case("status")
}

/// The completions for `text` with the caret at its end (empty when there is nothing to
/// offer, e.g. inside a quoted value other than a status, or inside an `IN (...)` list).
pub fn suggest(text: &str, keys: &FilterKeys) -> Vec<Suggestion> {
    let open = text.matches('(').count() > text.matches(')').count();
    let (words, in_quote) = words(text);
    let ends_in_space = !in_quote && text.ends_with(char::is_whitespace);
    // The word being typed (none right after a space) and the words before it.
    let (typing, before) = match words.split_last() {
        Some((&(s, w), rest)) if !ends_in_space => (Some((s, w)), rest),
        _ => (None, &words[..]),
    };
    let start = typing.map_or(text.len(), |(s, _)| s);
    let typed = typing.map_or("", |(_, w)| w).to_ascii_lowercase();
    let make = |insert: String, label: String| Suggestion {
        start,
        insert,
        label,
    };
    // The current term: the words since the last AND.
    let from = before
        .iter()
        .rposition(|(_, w)| w.eq_ignore_ascii_case("AND"))
        .map_or(0, |i| i + 1);
    let term: Vec<&str> = before[from..].iter().map(|(_, w)| *w).collect();
    let mut out: Vec<Suggestion> = Vec::new();
    if open || (in_quote && !matches!(term[..], [key, "="] if is_status(key))) {
        return out;
    }
    match term[..] {
        // A key: matched on the whole name, or on the key after its prefix.
        [] => {
            for k in all_keys(keys) {
                let lower = k.to_ascii_lowercase();
                let bare = lower.split_once('.').map_or(lower.as_str(), |(_, b)| b);
                let bare = bare.trim_start_matches('`');
                if typed.is_empty() || lower.starts_with(&typed) || bare.starts_with(&typed) {
                    out.push(make(format!("{k} "), k));
                }
            }
        }
        // After a key: its operators.
        [key] => {
            for op in operators(key) {
                if op.to_ascii_lowercase().starts_with(&typed) {
                    out.push(make(format!("{op} "), (*op).to_owned()));
                }
            }
        }
        [key, "="] if is_status(key) => {
            let typed = typed.trim_start_matches('\'');
            for s in STATUSES {
                if s.to_ascii_lowercase().starts_with(typed) {
                    out.push(make(format!("'{s}' "), format!("'{s}'")));
                }
            }
        }
        [_, op] | [_, "NOT" | "not", op] if op.eq_ignore_ascii_case("IN") && typed.is_empty() => {
            out.push(make("('') ".to_owned(), "('…', '…')".to_owned()));
        }
        [_, op] if op.eq_ignore_ascii_case("NOT") && "in".starts_with(&typed) => {
            out.push(make("IN ".to_owned(), "IN".to_owned()));
        }
        // After a whole comparison: the next term.
        [_, _, _, ..] if "and".starts_with(&typed) => {
            out.push(make("AND ".to_owned(), "AND".to_owned()));
        }
        _ => {}
    }
    out.truncate(MAX_SUGGESTIONS);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> FilterKeys {
        FilterKeys {
            metrics: vec!["loss".into(), "val loss".into(), "acc".into()],
            params: vec!["lr".into(), "optimizer".into()],
            tags: vec!["team".into()],
        }
    }

    fn labels(text: &str) -> Vec<String> {
        suggest(text, &keys())
            .into_iter()
            .map(|s| s.label)
            .collect()
    }

    #[test]
    fn keys_match_on_the_whole_name_or_the_key_alone() {
        assert_eq!(labels("metrics.l"), ["metrics.loss"]);
        assert_eq!(labels("lo"), ["metrics.loss"]);
        assert_eq!(labels("opt"), ["params.optimizer"]);
        assert_eq!(labels("val"), ["metrics.`val loss`"]);
        assert_eq!(
            labels("attributes.st"),
            ["attributes.status", "attributes.start_time"]
        );
        assert_eq!(labels("").len(), MAX_SUGGESTIONS);
        // After AND, a new term.
        assert_eq!(labels("metrics.loss < 1 AND t"), ["tags.team"]);
        let s = &suggest("metrics.loss < 1 AND t", &keys())[0];
        assert_eq!(
            s.apply("metrics.loss < 1 AND t"),
            "metrics.loss < 1 AND tags.team "
        );
    }

    #[test]
    fn operators_follow_the_key_and_in_is_only_for_run_ids() {
        assert_eq!(labels("metrics.loss "), ["<", "<=", ">", ">=", "=", "!="]);
        assert_eq!(labels("params.lr "), ["=", "!=", "LIKE", "ILIKE"]);
        assert_eq!(labels("params.lr L"), ["LIKE"]);
        assert!(labels("attributes.run_id ").contains(&"IN".to_owned()));
        assert!(labels("attributes.run_id ").contains(&"NOT IN".to_owned()));
        assert!(!labels("params.lr ").contains(&"IN".to_owned()));
        assert_eq!(labels("attributes.start_time >"), [">", ">="]);
    }

    #[test]
    fn values_and_the_next_term() {
        assert_eq!(labels("attributes.status = ").len(), STATUSES.len());
        assert_eq!(labels("attributes.status = 'F"), ["'FINISHED'", "'FAILED'"]);
        assert_eq!(labels("params.lr = '0.1' "), ["AND"]);
        assert_eq!(labels("params.lr = '0.1' a"), ["AND"]);
        assert!(labels("params.lr = '0.1' x").is_empty());
        // Inside a quoted value (other than a status) there is nothing to complete.
        assert!(labels("params.lr = '0.").is_empty());
        let s = suggest("attributes.run_id IN ", &keys());
        assert_eq!(s[0].insert, "('') ");
        assert_eq!(labels("run_id NOT "), ["IN"]);
        assert_eq!(suggest("run_id NOT IN ", &keys())[0].label, "('…', '…')");
        // Inside an IN list, nothing; after it, AND.
        assert!(labels("run_id IN ('a', ").is_empty());
        assert_eq!(labels("run_id IN ('a', 'b') "), ["AND"]);
    }
}
