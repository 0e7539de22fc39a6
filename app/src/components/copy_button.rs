//! A button that copies text to the clipboard (leptos-use's `use_clipboard`) and says so.

use leptos::prelude::*;
use leptos_use_clipboard::{use_clipboard_with_options, UseClipboardOptions, UseClipboardReturn};

/// How long the "copied" message stays, in milliseconds.
const DONE_MS: f64 = 2500.0;

/// What the button's status line says.
fn status_text(copied: bool, blocked: bool, done_label: &str) -> String {
    if copied {
        done_label.to_owned()
    } else if blocked {
        "Copy blocked by the browser: select the text and press Ctrl+C".to_owned()
    } else {
        String::new()
    }
}

/// A button copying `text`; shows `done_label` for a moment after copying, or a hint to
/// copy by hand when the browser has no clipboard (outside secure contexts).
#[component]
pub fn CopyButton(
    /// What to copy (read when clicked).
    #[prop(into)]
    text: Signal<String>,
    /// Button label, e.g. "Copy link".
    #[prop(into)]
    label: String,
    /// Message after copying, e.g. "Link copied".
    #[prop(into)]
    done_label: String,
) -> impl IntoView {
    let UseClipboardReturn {
        is_supported,
        copied,
        copy,
        ..
    } = use_clipboard_with_options(UseClipboardOptions::default().copied_reset_delay(DONE_MS));
    let blocked = RwSignal::new(false);
    let on_click = move |_| {
        blocked.set(!is_supported.get_untracked());
        copy(&text.get_untracked());
    };
    view! {
        <span class="copy">
            <button class="button" type="button" on:click=on_click>{label}</button>
            <span class="copy-status" role="status" aria-live="polite">
                {move || status_text(copied.get(), blocked.get(), &done_label)}
            </span>
        </span>
    }
}

#[cfg(test)]
mod tests {
    use super::status_text;

    #[test]
    fn status_says_copied_or_how_to_copy_by_hand() {
        assert_eq!(status_text(true, false, "Link copied"), "Link copied");
        assert!(status_text(false, true, "Link copied").contains("Ctrl+C"));
        assert_eq!(status_text(false, false, "Link copied"), "");
    }
}
