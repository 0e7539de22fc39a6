//! Copying text to the clipboard, and a button that does it and says so.

use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;

use leptos::prelude::*;
use wasm_bindgen::prelude::*;

/// Writes `text` to the clipboard, then calls `done(true)` on success or `done(false)` when
/// the browser refused (no clipboard outside secure contexts, or permission denied).
pub fn copy_text(text: &str, done: impl FnOnce(bool) + 'static) {
    let navigator = window().navigator();
    let has_clipboard = js_sys::Reflect::get(&navigator, &JsValue::from_str("clipboard"))
        .is_ok_and(|c| !c.is_undefined() && !c.is_null());
    if !has_clipboard {
        done(false);
        return;
    }
    let promise = navigator.clipboard().write_text(text);
    let done = Rc::new(Cell::new(Some(done)));
    let finish = move |ok: bool| {
        let done = done.clone();
        Closure::once(move |_: JsValue| {
            if let Some(f) = done.take() {
                f(ok)
            }
        })
    };
    let (ok, failed) = (finish(true), finish(false));
    let _ = promise.then2(&ok, &failed);
    // The promise calls one of them later; they are a few bytes per click, so leaked
    // rather than tracked.
    ok.forget();
    failed.forget();
}

/// A button copying `text`; shows `done_label` for two seconds after copying, or a hint to
/// copy by hand when the browser refuses.
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
    // None: idle; Some(true): copied; Some(false): the browser refused.
    let state = RwSignal::new(None::<bool>);
    let on_click = move |_| {
        copy_text(&text.get_untracked(), move |ok| {
            state.set(Some(ok));
            set_timeout(move || state.set(None), Duration::from_millis(2500));
        });
    };
    view! {
        <span class="copy">
            <button class="button" type="button" on:click=on_click>{label}</button>
            <span class="copy-status" role="status" aria-live="polite">
                {move || match state.get() {
                    Some(true) => done_label.clone(),
                    Some(false) => "Copy blocked by the browser: select the text and press Ctrl+C".to_owned(),
                    None => String::new(),
                }}
            </span>
        </span>
    }
}
