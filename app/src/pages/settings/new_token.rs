//! Creating an API token: a name, then the secret shown once with copy-paste setup lines.

use api_types as json;
use leptos::prelude::*;

use crate::api;
use crate::components::copy_button::CopyButton;

/// The shell lines that point the mlflow client at this server with `token`.
pub fn setup_lines(origin: &str, token: &str) -> String {
    format!("export MLFLOW_TRACKING_URI={origin}\nexport MLFLOW_TRACKING_TOKEN={token}")
}

/// The new secret, shown once.
#[component]
fn CreatedBox(
    /// The created token.
    created: json::CreatedToken,
    /// Hides the box.
    on_dismiss: Callback<()>,
) -> impl IntoView {
    let origin = window().location().origin().unwrap_or_default();
    let lines = setup_lines(&origin, &created.token);
    let secret = created.token.clone();
    view! {
        <div class="token-created" role="region" aria-label="New token">
            <p><strong>{format!("Token “{}” created.", created.info.name)}</strong>
                " Copy it now: it is not shown again."</p>
            <div class="secret-row">
                <input class="mono secret" readonly aria-label="New token secret" prop:value=secret.clone()
                    on:focus=move |ev| select_all(&ev) />
                <CopyButton text=Signal::derive(move || secret.clone()) label="Copy token" done_label="Token copied" />
            </div>
            <p class="muted small">"To log from a shell or a notebook on another machine:"</p>
            <pre class="mono setup">{lines.clone()}</pre>
            <div class="row">
                <CopyButton text=Signal::derive(move || lines.clone()) label="Copy setup lines" done_label="Copied" />
                <button class="button" type="button" on:click=move |_| on_dismiss.run(())>"Done"</button>
            </div>
        </div>
    }
}

fn select_all(ev: &leptos::ev::FocusEvent) {
    use wasm_bindgen::JsCast;
    if let Some(input) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
    {
        input.select();
    }
}

/// Name input and "Create token" button; shows the secret after creation.
#[component]
pub fn NewTokenForm(
    /// Called after a token was created (to refresh the list).
    on_created: Callback<()>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let create = Action::new_local(|name: &String| api::create_token(name.clone()));
    let shown = RwSignal::new(None::<json::CreatedToken>);
    Effect::new(move |_| {
        if let Some(Ok(created)) = create.value().get() {
            shown.set(Some(created));
            name.set(String::new());
            on_created.run(());
        }
    });
    let error = move || match create.value().get() {
        Some(Err(e)) => Some(e.message),
        _ => None,
    };
    let on_submit = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        let n = name.get_untracked().trim().to_owned();
        if !n.is_empty() {
            create.dispatch(n);
        }
    };
    view! {
        <form class="token-form" on:submit=on_submit>
            <label class="field field-inline">
                <span>"New token"</span>
                <input type="text" aria-label="Token name" placeholder="Name, e.g. laptop or ci" maxlength="100"
                    prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            </label>
            <button class="button button-primary" type="submit"
                disabled=move || create.pending().get() || name.with(|n| n.trim().is_empty())>
                "Create token"
            </button>
            {move || error().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
        </form>
        {move || shown.get().map(|c| view! {
            <CreatedBox created=c on_dismiss=Callback::new(move |_| shown.set(None)) />
        })}
    }
}

#[cfg(test)]
mod tests {
    use super::setup_lines;

    #[test]
    fn setup_lines_point_mlflow_here() {
        assert_eq!(
            setup_lines("http://127.0.0.1:8080", "rl_abc"),
            "export MLFLOW_TRACKING_URI=http://127.0.0.1:8080\nexport MLFLOW_TRACKING_TOKEN=rl_abc"
        );
    }
}
