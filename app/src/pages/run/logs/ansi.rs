//! A log line's text as styled segments: ANSI SGR colour codes (30–37, 90–97, bold,
//! reset) become classes, every other escape sequence is dropped (never shown raw), and
//! the search matches (byte ranges of the raw text) are marked.

/// Colour and weight of a run of text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Style {
    /// Foreground colour 0–15 (8–15: the bright ones), `None` for the default.
    pub fg: Option<u8>,
    /// Bold.
    pub bold: bool,
}

impl Style {
    /// The CSS classes of this style (empty for the default).
    pub fn class(self) -> String {
        let mut c = String::new();
        if let Some(n) = self.fg {
            c.push_str(&format!("ansi-fg-{n}"));
        }
        if self.bold {
            if !c.is_empty() {
                c.push(' ');
            }
            c.push_str("ansi-bold");
        }
        c
    }

    /// Applies one SGR sequence's parameters (`1;31`, empty means reset).
    fn apply(&mut self, params: &str) {
        let mut it = params.split(';').map(|p| p.parse::<u16>().unwrap_or(0));
        while let Some(p) = it.next() {
            match p {
                0 => *self = Style::default(),
                1 => self.bold = true,
                22 => self.bold = false,
                30..=37 => self.fg = Some((p - 30) as u8),
                90..=97 => self.fg = Some((p - 90 + 8) as u8),
                39 => self.fg = None,
                // 256-colour and true-colour forms: skip their arguments.
                38 | 48 => match it.next() {
                    Some(5) => {
                        it.next();
                    }
                    Some(2) => {
                        it.nth(2);
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
}

/// A run of visible text with one style, marked when inside a search match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The text (no escape codes).
    pub text: String,
    /// Its style.
    pub style: Style,
    /// Inside a search match.
    pub mark: bool,
}

/// Visible runs of `text`: (byte start, byte end, style), escape codes skipped.
fn visible_runs(text: &str) -> Vec<(usize, usize, Style)> {
    let b = text.as_bytes();
    let (mut runs, mut style, mut start, mut i) = (Vec::new(), Style::default(), 0, 0);
    while i < b.len() {
        if b[i] != 0x1b {
            i += 1;
            continue;
        }
        if start < i {
            runs.push((start, i, style));
        }
        i = match b.get(i + 1) {
            Some(b'[') => {
                let params = i + 2;
                let mut j = params;
                while j < b.len() && !(0x40..=0x7e).contains(&b[j]) {
                    j += 1;
                }
                if b.get(j) == Some(&b'm') {
                    style.apply(&text[params..j]);
                }
                j + 1
            }
            Some(b']') => {
                let mut j = i + 2;
                while j < b.len() && b[j] != 0x07 && !(b[j] == 0x1b && b.get(j + 1) == Some(&b'\\'))
                {
                    j += 1;
                }
                if b.get(j) == Some(&0x07) {
                    j + 1
                } else {
                    j + 2
                }
            }
            Some(_) => i + 2,
            None => i + 1,
        }
        .min(b.len());
        start = i;
    }
    if start < b.len() {
        runs.push((start, b.len(), style));
    }
    runs
}

/// `at` moved forward to a char boundary of `text` (and at most its length).
fn boundary(text: &str, at: u32) -> usize {
    let mut at = (at as usize).min(text.len());
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// The segments of `text`, with `matches` (byte ranges `[start, end)` of the raw text)
/// marked.
pub fn segments(text: &str, matches: &[[u32; 2]]) -> Vec<Segment> {
    let mut cuts: Vec<(usize, usize)> = matches
        .iter()
        .map(|[s, e]| (boundary(text, *s), boundary(text, *e)))
        .filter(|(s, e)| s < e)
        .collect();
    cuts.sort_unstable();
    let mut out: Vec<Segment> = Vec::new();
    let mut push = |s: usize, e: usize, style: Style, mark: bool| {
        if s >= e {
            return;
        }
        match out.last_mut() {
            Some(last) if last.style == style && last.mark == mark => {
                last.text.push_str(&text[s..e])
            }
            _ => out.push(Segment {
                text: text[s..e].to_owned(),
                style,
                mark,
            }),
        }
    };
    for (start, end, style) in visible_runs(text) {
        let mut pos = start;
        for &(ms, me) in cuts.iter().filter(|(ms, me)| *me > start && *ms < end) {
            push(pos, ms.max(pos), style, false);
            pos = pos.max(ms);
            push(pos, me.min(end), style, true);
            pos = me.min(end).max(pos);
        }
        push(pos, end, style, false);
    }
    out
}

/// `text` without its escape codes (what a person copies).
pub fn plain(text: &str) -> String {
    visible_runs(text)
        .into_iter()
        .map(|(s, e, _)| &text[s..e])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(text: &str, fg: Option<u8>, bold: bool, mark: bool) -> Segment {
        Segment {
            text: text.into(),
            style: Style { fg, bold },
            mark,
        }
    }

    #[test]
    fn colours_become_styles_and_codes_vanish() {
        let t = "\x1b[1;31mERROR\x1b[0m done \x1b[92mok\x1b[39m!";
        assert_eq!(
            segments(t, &[]),
            vec![
                seg("ERROR", Some(1), true, false),
                seg(" done ", None, false, false),
                seg("ok", Some(10), false, false),
                seg("!", None, false, false),
            ]
        );
        assert_eq!(plain(t), "ERROR done ok!");
        assert_eq!(
            Style {
                fg: Some(1),
                bold: true
            }
            .class(),
            "ansi-fg-1 ansi-bold"
        );
        assert_eq!(Style::default().class(), "");
    }

    #[test]
    fn other_escapes_are_dropped_never_shown() {
        for t in [
            "a\x1b[2Kb",
            "a\x1b]0;title\x07b",
            "a\x1b]8;;http://x\x1b\\b",
            "a\x1b[38;5;196mb",
            "a\x1b(b",
        ] {
            assert_eq!(plain(t), "ab", "{t:?}");
            assert!(segments(t, &[]).iter().all(|s| !s.text.contains('\x1b')));
        }
        assert_eq!(plain("trailing\x1b"), "trailing");
        assert_eq!(plain("cut\x1b[31"), "cut");
    }

    #[test]
    fn matches_are_marked_across_colours() {
        // "loss" spans a colour change: the raw bytes 2..12 cover "lo", the code, "ss".
        let t = "a lo\x1b[32mss b";
        assert_eq!(
            segments(t, &[[2, 11]]),
            vec![
                seg("a ", None, false, false),
                seg("lo", None, false, true),
                seg("ss", Some(2), false, true),
                seg(" b", Some(2), false, false),
            ]
        );
        let t = "epoch 1 epoch 2";
        let s = segments(t, &[[0, 5], [8, 13]]);
        assert_eq!(s.iter().filter(|s| s.mark).count(), 2);
        assert_eq!(s.iter().map(|s| s.text.as_str()).collect::<String>(), t);
        // Out-of-range and mid-character ranges are clamped, never panic.
        assert_eq!(
            segments("é", &[[1, 99]]),
            vec![seg("é", None, false, false)]
        );
        assert_eq!(segments("ab", &[[1, 99]])[1], seg("b", None, false, true));
    }
}
