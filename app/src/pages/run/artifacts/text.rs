//! Text previews, paged: [`PAGE`] bytes at a time with `Range` requests and a "Load more"
//! button, so a multi-gigabyte log never loads whole. A page may end inside a UTF-8
//! character: its last bytes are read again with the next page ([`decode_page`]).

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError, ArtifactOwner, ByteRange};
use crate::components::states::Loading;
use crate::format;

/// Bytes fetched per page.
pub const PAGE: u64 = 256 * 1024;

/// Decodes a page of bytes as UTF-8: invalid sequences become U+FFFD; an incomplete
/// character at the end (unless `at_end`) is left for the next page. Returns the text and
/// how many bytes it used.
pub fn decode_page(bytes: &[u8], at_end: bool) -> (String, usize) {
    let mut out = String::with_capacity(bytes.len());
    let mut rest = bytes;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                out.push_str(s);
                return (out, bytes.len());
            }
            Err(e) => {
                let (good, bad) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(good).unwrap_or_default());
                match e.error_len() {
                    Some(n) => {
                        out.push('\u{FFFD}');
                        rest = &bad[n..];
                    }
                    None if at_end => {
                        out.push('\u{FFFD}');
                        return (out, bytes.len());
                    }
                    None => return (out, bytes.len() - bad.len()),
                }
            }
        }
    }
}

/// Whether the first page looks like a binary file (a NUL byte in its first 8 KiB).
pub fn looks_binary(bytes: &[u8]) -> bool {
    bytes.iter().take(8192).any(|&b| b == 0)
}

/// Where a text preview stands.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    Loading,
    Ready,
    Binary,
    Failed(ApiError),
}

/// The loaded pages and where the next one starts; `Copy`.
#[derive(Clone, Copy)]
struct TextState {
    owner: StoredValue<ArtifactOwner>,
    path: StoredValue<String>,
    pages: RwSignal<Vec<String>>,
    next: RwSignal<u64>,
    total: RwSignal<Option<u64>>,
    phase: RwSignal<Phase>,
    busy: RwSignal<bool>,
}

impl TextState {
    fn new(owner: ArtifactOwner, path: String) -> Self {
        Self {
            owner: StoredValue::new(owner),
            path: StoredValue::new(path),
            pages: RwSignal::new(Vec::new()),
            next: RwSignal::new(0),
            total: RwSignal::new(None),
            phase: RwSignal::new(Phase::Loading),
            busy: RwSignal::new(false),
        }
    }

    fn more(&self) -> bool {
        self.total.get().is_none_or(|t| self.next.get() < t)
    }

    fn take(&self, r: ByteRange) {
        let total = r.total.unwrap_or(r.start + r.bytes.len() as u64);
        if r.start == 0 && looks_binary(&r.bytes) {
            self.phase.set(Phase::Binary);
            return;
        }
        let at_end = r.start + r.bytes.len() as u64 >= total;
        let (text, used) = decode_page(&r.bytes, at_end);
        // A page of only a partial character (never in practice) still moves on.
        let used = if used == 0 { r.bytes.len() } else { used };
        self.pages.update(|p| p.push(text));
        self.next.set(r.start + used as u64);
        self.total.set(Some(total));
        self.phase.set(Phase::Ready);
    }

    fn load_next(self) {
        if self.busy.get_untracked() {
            return;
        }
        self.busy.set(true);
        let (owner, path, start) = (
            self.owner.get_value(),
            self.path.get_value(),
            self.next.get_untracked(),
        );
        spawn_local(async move {
            let r = api::get_artifact_range(owner, path, start, PAGE).await;
            if self.busy.try_set(false).is_none() {
                match r {
                    Ok(r) => self.take(r),
                    Err(e) => self.phase.set(Phase::Failed(e)),
                }
            }
        });
    }
}

/// A text file, paged.
#[component]
pub fn TextPreview(
    /// Whose artifact.
    owner: ArtifactOwner,
    /// Its path.
    path: String,
) -> impl IntoView {
    let state = TextState::new(owner, path);
    state.load_next();
    let count = move || state.pages.with(Vec::len);
    let status = move || {
        let shown = format::bytes(state.next.get());
        let total = state.total.get().map(format::bytes).unwrap_or_default();
        format!("{shown} of {total} shown")
    };
    view! {
        {move || match state.phase.get() {
            Phase::Loading => view! { <Loading label="Loading file…" /> }.into_any(),
            Phase::Binary => view! { <p class="preview-note">"This looks like a binary file: download it to open it."</p> }.into_any(),
            Phase::Failed(e) => view! { <p class="preview-note preview-error" role="alert">{super::error_text(&e)}</p> }.into_any(),
            Phase::Ready => ().into_any(),
        }}
        <Show when=move || state.phase.get() == Phase::Ready>
            <pre class="artifact-text" data-testid="artifact-text">
                <For each=move || 0..count() key=|i| *i let:i>
                    {move || state.pages.with(|p| p.get(i).cloned().unwrap_or_default())}
                </For>
            </pre>
            <Show when=move || state.more()>
                <div class="preview-more">
                    <span class="muted small">{status}</span>
                    <button class="button button-small" type="button" disabled=move || state.busy.get()
                        on:click=move |_| state.load_next()>"Load more"</button>
                </div>
            </Show>
        </Show>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_split_inside_a_character_resume_there() {
        let text = "héllo wörld";
        let bytes = text.as_bytes();
        // Cut inside "é" (2 bytes at offset 1).
        let (a, used) = decode_page(&bytes[..2], false);
        assert_eq!((a.as_str(), used), ("h", 1));
        let (b, used2) = decode_page(&bytes[used..], true);
        assert_eq!(format!("{a}{b}"), text);
        assert_eq!(used + used2, bytes.len());
    }

    #[test]
    fn invalid_bytes_become_replacement_characters() {
        assert_eq!(decode_page(b"a\xffb", false), ("a\u{FFFD}b".to_owned(), 3));
        // An incomplete character at the real end is replaced, not left over.
        assert_eq!(decode_page(b"a\xc3", true), ("a\u{FFFD}".to_owned(), 2));
        assert_eq!(decode_page(b"a\xc3", false), ("a".to_owned(), 1));
    }

    #[test]
    fn nul_bytes_mean_binary() {
        assert!(looks_binary(b"PK\x03\x04\x00"));
        assert!(!looks_binary("plain text ü".as_bytes()));
    }
}
