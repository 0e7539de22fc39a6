//! The "Share job" dialog: the job's owner and grants (`GET /jobs/{id}/access`), grant or
//! change a level (`PUT`), revoke (`DELETE`). Shown to CAN_MANAGE and the owner only.
//! Job levels differ from experiment levels, so this is its own small dialog in the
//! experiment Share dialog's style (its CSS classes).

use api_types as json;
use json::jobs::{JobAccess, JobGrant};
use json::{JobLevel, Principal, PrincipalKind};
use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};
use crate::components::states::Loading;

/// The levels a grant may have, lowest first.
const LEVELS: [JobLevel; 3] = [
    JobLevel::CanView,
    JobLevel::CanManageRun,
    JobLevel::CanManage,
];

/// The principal named exactly `name` among `found`, users before groups.
fn exact(found: &[Principal], name: &str) -> Option<Principal> {
    let pick = |k| {
        found
            .iter()
            .find(|p| p.kind == k && p.name == name)
            .cloned()
    };
    pick(PrincipalKind::User).or_else(|| pick(PrincipalKind::Group))
}

/// A level `<select>`.
fn level_select(
    label: String,
    value: JobLevel,
    on_change: impl Fn(JobLevel) + 'static,
) -> impl IntoView {
    let options = LEVELS
        .map(|l| view! { <option value=l.as_str() selected=l == value>{l.label()}</option> })
        .collect_view();
    view! {
        <select class="select" aria-label=label on:change=move |ev| {
            let v = event_target_value(&ev);
            if let Some(l) = LEVELS.into_iter().find(|l| l.as_str() == v) {
                on_change(l);
            }
        }>{options}</select>
    }
}

/// "Share job" button and its dialog.
#[component]
pub fn ShareJobButton(
    /// The job.
    job_id: i64,
    /// Its name.
    job_name: String,
) -> impl IntoView {
    let open = RwSignal::new(false);
    view! {
        <button class="button" type="button" aria-haspopup="dialog" on:click=move |_| open.set(true)>"Share job"</button>
        <Show when=move || open.get()>
            <ShareJobDialog job_id=job_id job_name=job_name.clone() on_close=Callback::new(move |_| open.set(false)) />
        </Show>
    }
}

/// The access list.
fn access_rows(
    a: JobAccess,
    on_grant: Callback<JobGrant>,
    on_revoke: Callback<Principal>,
) -> impl IntoView {
    let grants = a
        .grants
        .into_iter()
        .map(|g| {
            let (p1, p2, name) = (g.principal.clone(), g.principal.clone(), g.principal.name.clone());
            let group = (g.principal.kind == PrincipalKind::Group).then(|| view! { <span class="tag">"group"</span> });
            view! {
                <li class="access-row">
                    <span class="principal"><span class="principal-name">{name.clone()}</span>{group}</span>
                    {level_select(format!("Permission for {name}"), g.level,
                        move |level| on_grant.run(JobGrant { principal: p1.clone(), level }))}
                    <button class="button button-small" type="button" aria-label=format!("Revoke {name}")
                        on:click=move |_| on_revoke.run(p2.clone())>"Revoke"</button>
                </li>
            }
        })
        .collect_view();
    view! {
        <h3 class="dialog-section">"Who has access"</h3>
        <ul class="access-list">
            <li class="access-row">
                <span class="principal"><span class="principal-name">{a.owner}</span></span>
                <span class="muted small">"Owner"</span>
            </li>
            {grants}
        </ul>
    }
}

/// The grant form: a user or group name and a level.
#[component]
fn AddJobGrant(
    /// Called with the grant to make.
    on_grant: Callback<JobGrant>,
    /// Where errors go.
    error: RwSignal<Option<String>>,
) -> impl IntoView {
    let name = RwSignal::new(String::new());
    let level = RwSignal::new(JobLevel::CanView);
    let submit = move |ev: ev::SubmitEvent| {
        ev.prevent_default();
        let n = name.get_untracked().trim().to_owned();
        if n.is_empty() {
            return;
        }
        spawn_local(async move {
            match api::list_principals(n.clone()).await.map(|f| exact(&f, &n)) {
                Ok(Some(principal)) => {
                    on_grant.run(JobGrant {
                        principal,
                        level: level.get_untracked(),
                    });
                    name.set(String::new());
                }
                Ok(None) => error.set(Some(format!("No user or group is named “{n}”."))),
                Err(e) => error.set(Some(e.message)),
            }
        });
    };
    view! {
        <form class="add-grant" on:submit=submit>
            <input type="text" class="text-input" aria-label="Add people or groups" placeholder="User or group name"
                autocomplete="off" prop:value=move || name.get() on:input=move |ev| name.set(event_target_value(&ev)) />
            {level_select("Level".into(), JobLevel::CanView, move |l| level.set(l))}
            <button class="button button-primary" type="submit" disabled=move || name.with(|n| n.trim().is_empty())>"Grant"</button>
        </form>
    }
}

/// The modal dialog.
#[component]
fn ShareJobDialog(
    /// The job.
    job_id: i64,
    /// Its name.
    job_name: String,
    /// Closes the dialog.
    on_close: Callback<()>,
) -> impl IntoView {
    let access = RwSignal::new(None::<Result<JobAccess, ApiError>>);
    let error = RwSignal::new(None::<String>);
    let load = move || {
        spawn_local(async move {
            access.try_set(Some(api::get_job_access(job_id).await));
        })
    };
    load();
    let done = move |r: Result<(), ApiError>| match r {
        Ok(()) => {
            error.set(None);
            load();
        }
        Err(e) => error.set(Some(e.message)),
    };
    let on_grant = Callback::new(move |g: JobGrant| {
        spawn_local(async move { done(api::put_job_grant(job_id, g).await) })
    });
    let on_revoke = Callback::new(move |p: Principal| {
        spawn_local(async move { done(api::delete_job_grant(job_id, p).await) })
    });
    let key = window_event_listener(ev::keydown, move |e| {
        if e.key() == "Escape" {
            on_close.run(());
        }
    });
    on_cleanup(move || key.remove());
    view! {
        <div class="modal-backdrop" on:click=move |_| on_close.run(())>
            <div class="modal" role="dialog" aria-modal="true" aria-label="Share job" on:click=|ev| ev.stop_propagation()>
                <div class="modal-header">
                    <h2>"Share job " <span class="mono">{job_name}</span></h2>
                    <button class="icon-button" aria-label="Close" on:click=move |_| on_close.run(())>"✕"</button>
                </div>
                <div class="modal-body">
                    <p class="muted small">"Can view: see the job's runs and logs. Can manage run: also submit runs and ship logs. Can manage: also change who has access."</p>
                    <AddJobGrant on_grant=on_grant error=error />
                    {move || error.get().map(|m| view! { <div class="form-error" role="alert">{m}</div> })}
                    {move || match access.get() {
                        None => view! { <Loading label="Loading who has access…" /> }.into_any(),
                        Some(Err(e)) => view! { <div class="form-error" role="alert">{e.message}</div> }.into_any(),
                        Some(Ok(a)) => access_rows(a, on_grant, on_revoke).into_any(),
                    }}
                </div>
            </div>
        </div>
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_resolve_to_users_first() {
        let p = |kind, name: &str| Principal {
            kind,
            name: name.into(),
        };
        let found = vec![
            p(PrincipalKind::Group, "ml"),
            p(PrincipalKind::User, "ml"),
            p(PrincipalKind::User, "mla"),
        ];
        assert_eq!(exact(&found, "ml"), Some(p(PrincipalKind::User, "ml")));
        assert_eq!(
            exact(&found[..1], "ml"),
            Some(p(PrincipalKind::Group, "ml"))
        );
        assert_eq!(exact(&found, "m"), None);
        assert!(LEVELS.windows(2).all(|w| w[0] < w[1]));
    }
}
