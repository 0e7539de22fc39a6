//! "Copy embed link": asks the server for a signed, read-only, expiring link to these
//! nodes' panel and copies its absolute URL (also shown, with the Jupyter line, to select
//! by hand where the browser blocks the clipboard).

use api_types as json;
use leptos::prelude::*;
use leptos_use_clipboard::{use_clipboard, UseClipboardReturn};

use crate::api::{self, ApiError};
use crate::format;

/// The Jupyter cell that shows the panel, for `url`.
pub fn jupyter_line(url: &str) -> String {
    format!("from IPython.display import IFrame; IFrame(\"{url}\", width=\"100%\", height=640)")
}

/// Who may show the link in a frame; when nobody may, how to turn embedding on.
fn frame_note(origin: Option<&str>) -> impl IntoView {
    match origin {
        Some(o) => view! {
            <span class="small muted embed-frame" data-testid="embed-frame">{format!("Notebooks served from {o} can show it in a frame.")}</span>
        }
        .into_any(),
        None => view! {
            <div class="log-note log-note-gap small embed-frame" role="note" data-testid="embed-frame">
                <strong>"Embedding is off on this server: "</strong>
                "a notebook cannot show this panel in a frame yet (the link still opens in a tab of its own). "
                "To allow it, start runlens with "<code>"--embed-origin http://localhost:8888"</code>
                " (your notebook server's origin)."
            </div>
        }
        .into_any(),
    }
}

/// The button, and once made, the link.
#[component]
pub fn EmbedLinkButton(
    /// The nodes the link shows.
    nodes: Vec<String>,
) -> impl IntoView {
    let UseClipboardReturn { copied, copy, .. } = use_clipboard();
    let link = RwSignal::new(None::<(String, json::nodes::EmbedLink)>);
    let error = RwSignal::new(None::<ApiError>);
    let make = Action::new_local(move |nodes: &Vec<String>| {
        let req = json::nodes::EmbedLinkRequest {
            nodes: nodes.clone(),
            ttl_secs: None,
        };
        async move { api::create_embed_link(req).await }
    });
    Effect::new(move |_| match make.value().get() {
        Some(Ok(l)) => {
            let origin = window().location().origin().unwrap_or_default();
            let url = format!("{origin}{}", l.path);
            copy(&url);
            error.set(None);
            link.set(Some((url, l)));
        }
        Some(Err(e)) => error.set(Some(e)),
        None => {}
    });
    let shown = move || {
        link.get().map(|(url, l)| {
            let said = if copied.get() { "Embed link copied" } else { "Embed link" };
            view! {
                <div class="embed-link">
                    <span class="small" role="status">{format!("{said} — read-only, expires {}", format::datetime(l.expires_at_ms))}</span>
                    {frame_note(l.frame_origin.as_deref())}
                    <input class="text-input mono small link-input" readonly aria-label="Embed link" prop:value=url.clone()
                        on:focus=|ev| { if let Some(i) = ev.target().and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlInputElement>(t).ok()) { i.select(); } } />
                    <code class="small muted embed-jupyter">{jupyter_line(&url)}</code>
                </div>
            }
        })
    };
    view! {
        <button class="button" type="button" disabled=move || make.pending().get()
            on:click=move |_| { make.dispatch_local(nodes.clone()); }>
            "Copy embed link"
        </button>
        {move || error.get().map(|e| view! { <span class="inline-error small" role="alert">{e.message}</span> })}
        {shown}
    }
}

#[cfg(test)]
mod tests {
    use super::jupyter_line;

    #[test]
    fn jupyter_line_frames_the_url() {
        assert_eq!(
            jupyter_line("http://h/embed/gpus?nodes=a"),
            "from IPython.display import IFrame; IFrame(\"http://h/embed/gpus?nodes=a\", width=\"100%\", height=640)"
        );
    }
}
