//! Compact URL encoding of a chosen set of column keys (`?params=`, `?metrics=`, `?tags=`),
//! so a link stays short even with hundreds of params selected. Names, never indices, so a
//! link keeps meaning the same columns after new keys are logged:
//!
//! - `*`: every key; `*!a,b`: every key except `a` and `b`;
//! - otherwise the chosen keys, sorted and front-coded: an entry `12~xyz` means "the first
//!   12 characters of the previous key, then `xyz`" (`layer_001.dropout,14~2.dropout`).
//!
//! - when even those are long (an arbitrary half of 300 keys), `~` + a 4-character
//!   fingerprint of the experiment's key list + a base64url bitset over that list (300 keys:
//!   55 characters). If keys were logged since, the fingerprint no longer matches and the
//!   link falls back to the default columns rather than show the wrong ones.
//!
//! The encoder picks the names forms while they fit [`NAMES_BUDGET`], else the bitset. A
//! plain comma list (older links) decodes as is. MLflow keys never contain `,` or `~` (the
//! server rejects them), so both are free to use.

/// Longest names form used before switching to the bitset.
pub const NAMES_BUDGET: usize = 240;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// 24-bit FNV-1a of the key list as 4 base64url characters.
fn fingerprint(all: &[String]) -> String {
    let mut h: u32 = 0x811c_9dc5;
    for k in all {
        for b in k.bytes().chain([b'\n']) {
            h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
        }
    }
    (0..4)
        .map(|i| B64[(h >> (6 * i) & 63) as usize] as char)
        .collect()
}

/// `all`'s chosen keys as a bitset, six keys per base64url character.
fn bitset(chosen: &[&str], all: &[String]) -> String {
    all.chunks(6)
        .map(|chunk| {
            let bits = chunk.iter().enumerate().fold(0usize, |acc, (i, k)| {
                acc | usize::from(chosen.contains(&k.as_str())) << i
            });
            B64[bits] as char
        })
        .collect()
}

/// Inverse of [`bitset`]; `None` when the text is not a bitset of `all`.
fn from_bitset(s: &str, all: &[String]) -> Option<Vec<String>> {
    if s.len() != all.len().div_ceil(6) {
        return None;
    }
    let mut out = Vec::new();
    for (chunk, c) in all.chunks(6).zip(s.bytes()) {
        let bits = B64.iter().position(|&b| b == c)?;
        out.extend(
            chunk
                .iter()
                .enumerate()
                .filter(|(i, _)| bits >> i & 1 == 1)
                .map(|(_, k)| k.clone()),
        );
    }
    Some(out)
}

/// Prefixes shorter than this are written out (`3~` costs as much as it saves).
const MIN_SHARED: usize = 4;

/// Front-codes `keys` (sorted first): each key as `n~suffix` when it shares `n` leading
/// characters with the previous one.
fn front_code(keys: &[&str]) -> String {
    let mut sorted = keys.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut out = String::new();
    let mut prev = "";
    for k in sorted {
        if !out.is_empty() {
            out.push(',');
        }
        let shared = common_prefix(prev, k);
        if shared >= MIN_SHARED {
            out.push_str(&format!("{shared}~{}", &k[shared..]));
        } else {
            out.push_str(k);
        }
        prev = k;
    }
    out
}

/// Bytes of the longest common prefix of `a` and `b`, on a character boundary.
fn common_prefix(a: &str, b: &str) -> usize {
    a.char_indices()
        .zip(b.chars())
        .find(|((_, x), y)| x != y)
        .map(|((i, _), _)| i)
        .unwrap_or_else(|| a.len().min(b.len()))
}

/// Inverse of [`front_code`]; also reads plain comma lists.
fn front_decode(s: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for entry in s.split(',').map(str::trim).filter(|e| !e.is_empty()) {
        let key = match entry.split_once('~') {
            Some((n, rest)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
                let prev = out.last().map(String::as_str).unwrap_or("");
                let n = n.parse::<usize>().unwrap_or(0).min(prev.len());
                match prev.get(..n) {
                    Some(p) => format!("{p}{rest}"),
                    None => rest.to_owned(),
                }
            }
            _ => entry.to_owned(),
        };
        if !out.contains(&key) {
            out.push(key);
        }
    }
    out
}

/// Encodes `selected` keys (a subset of `all`, the experiment's keys) in the shortest form.
pub fn encode(selected: &[String], all: &[String]) -> String {
    let chosen: Vec<&str> = selected.iter().map(String::as_str).collect();
    let explicit = front_code(&chosen);
    if !all.iter().all(|k| !k.is_empty()) || !chosen.iter().all(|k| all.iter().any(|a| a == k)) {
        return explicit;
    }
    let rest: Vec<&str> = all
        .iter()
        .map(String::as_str)
        .filter(|k| !chosen.contains(k))
        .collect();
    let complement = if rest.is_empty() {
        "*".to_owned()
    } else {
        format!("*!{}", front_code(&rest))
    };
    let names = if complement.len() < explicit.len() && !all.is_empty() {
        complement
    } else {
        explicit
    };
    if names.len() <= NAMES_BUDGET {
        return names;
    }
    format!("~{}{}", fingerprint(all), bitset(&chosen, all))
}

/// Decodes a URL value into keys: in `all`'s order for `*` and bitset forms, else as
/// listed. `None` for a bitset made against a different key list (use the default).
pub fn decode(s: &str, all: &[String]) -> Option<Vec<String>> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix('~') {
        let (fp, bits) = (rest.get(..4)?, rest.get(4..)?);
        return (fp == fingerprint(all))
            .then(|| from_bitset(bits, all))
            .flatten();
    }
    Some(match s.strip_prefix('*') {
        Some(rest) => {
            let except = front_decode(rest.strip_prefix('!').unwrap_or(""));
            all.iter()
                .filter(|k| !except.contains(k))
                .cloned()
                .collect()
        }
        None => front_decode(s),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::Query;

    /// 300 realistic param keys: nested config paths of a training job, sorted.
    fn keys_300() -> Vec<String> {
        let groups = [
            "data",
            "model.decoder",
            "model.encoder",
            "optimizer",
            "trainer",
        ];
        let mut keys: Vec<String> = (0..300)
            .map(|i| {
                let g = groups[i % groups.len()];
                format!(
                    "{g}.layer_{:03}.{}",
                    i / 5,
                    ["dropout", "hidden_size", "lr_scale"][i % 3]
                )
            })
            .collect();
        keys.sort();
        keys
    }

    fn url_with(params: &str) -> String {
        Query::new()
            .with(
                "filter",
                "metrics.loss < 0.5 AND params.`optimizer.name` = 'adamw'",
            )
            .with("sort", "metrics.`val/loss` ASC")
            .with("params", params)
            .with("metrics", "loss,val/loss,accuracy")
            .with("sel", "0123456789abcdef0123456789abcdef")
            .url("/experiments/123456789")
    }

    fn round_trips(selected: &[String], all: &[String]) -> String {
        let code = encode(selected, all);
        let mut want = selected.to_vec();
        let mut got = decode(&code, all).expect("decodes");
        want.sort();
        got.sort();
        assert_eq!(got, want, "code {code}");
        // It survives the trip through the URL too.
        let url = url_with(&code);
        let parsed = Query::parse(url.split_once('?').expect("query").1);
        assert_eq!(parsed.get("params"), Some(code.as_str()));
        code
    }

    #[test]
    fn hundreds_of_columns_stay_short() {
        let all = keys_300();
        assert_eq!(round_trips(&all, &all), "*");
        let most: Vec<String> = all.iter().skip(3).cloned().collect();
        assert!(round_trips(&most, &all).len() < 80);
        // The worst case for a set: every other key (no runs to exploit).
        let half: Vec<String> = all.iter().step_by(2).cloned().collect();
        let code = round_trips(&half, &all);
        assert!(code.starts_with('~') && code.len() == 55, "{code}");
        let url = url_with(&code);
        assert!(url.len() < 400, "{} chars: {url}", url.len());
        let third: Vec<String> = all.iter().step_by(3).cloned().collect();
        assert!(url_with(&round_trips(&third, &all)).len() < 400);
        // Every subset size fits, whatever the keys look like.
        for n in [1, 10, 50, 100, 200, 299] {
            let some: Vec<String> = all.iter().rev().step_by(300 / n).take(n).cloned().collect();
            assert!(round_trips(&some, &all).len() <= NAMES_BUDGET.max(55));
        }
    }

    #[test]
    fn bitset_links_refuse_a_changed_key_list() {
        let all = keys_300();
        let half: Vec<String> = all.iter().step_by(2).cloned().collect();
        let code = encode(&half, &all);
        let mut grown = all.clone();
        grown.insert(7, "data.extra".into());
        assert_eq!(decode(&code, &grown), None);
        assert_eq!(decode("~AAAAzz", &all), None);
        assert_eq!(decode("~", &all), None);
        assert_eq!(
            decode(&format!("{}!{}", &code[..5], &code[6..]), &all),
            None
        );
    }

    #[test]
    fn small_sets_and_edge_cases() {
        let all: Vec<String> = ["batch_size", "lr", "lr_schedule", "optimizer"]
            .map(String::from)
            .to_vec();
        assert_eq!(round_trips(&[], &all), "");
        assert_eq!(round_trips(&all[1..2], &all), "lr");
        assert_eq!(encode(&all[..3], &all), "*!optimizer");
        // Keys the experiment no longer has (from an old link) stay explicit.
        let gone = vec!["lr".to_owned(), "momentum".to_owned()];
        assert_eq!(round_trips(&gone, &all), "lr,momentum");
        // Older links: plain lists, in their own order.
        assert_eq!(
            decode("optimizer, lr", &all),
            Some(vec!["optimizer".into(), "lr".into()])
        );
        assert_eq!(decode("*", &[]), Some(vec![]));
        // Corrupt prefixes never panic.
        assert_eq!(
            decode("99~x,é,1~y", &all),
            Some(vec!["x".into(), "é".into(), "y".into()])
        );
        assert_eq!(common_prefix("aé", "aè"), 1);
    }
}
