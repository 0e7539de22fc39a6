//! "Who has access": path-based (implicit) access in words, then each explicit grant with
//! a level picker and a revoke button (enabled only for CAN_MANAGE).

use api_types as json;
use leptos::prelude::*;

use super::level_select::LevelSelect;

/// A grant's principal as shown: name plus a "group" badge for groups.
fn principal_view(p: &json::Principal) -> impl IntoView {
    let group = p.kind == json::PrincipalKind::Group;
    view! {
        <span class="principal">
            <span class="avatar avatar-small" class:avatar-group=group aria-hidden="true">
                {p.name.chars().next().map(|c| c.to_uppercase().to_string()).unwrap_or_default()}
            </span>
            <span class="principal-name">{p.name.clone()}</span>
            {group.then(|| view! { <span class="tag">"group"</span> })}
        </span>
    }
}

/// The access list of one experiment.
#[component]
pub fn AccessList(
    /// What the server says about the experiment's access.
    access: json::ExperimentAccess,
    /// Whether the caller may change grants.
    #[prop(into)]
    can_manage: Signal<bool>,
    /// Called to change a grant's level.
    on_change: Callback<json::GrantRequest>,
    /// Called to revoke a grant.
    on_revoke: Callback<json::Principal>,
) -> impl IntoView {
    let implicit = access
        .implicit
        .iter()
        .map(|line| view! { <li class="access-row implicit">{line.clone()}</li> })
        .collect_view();
    let no_grants = access.grants.is_empty();
    let owner = access.owner.clone();
    let grants = access
        .grants
        .into_iter()
        .map(|g| {
            let name = g.principal.name.clone();
            let (p1, p2) = (g.principal.clone(), g.principal.clone());
            let level = g.level;
            // The owner's access cannot be taken away (the server refuses it too).
            let is_owner = g.principal.kind == json::PrincipalKind::User
                && owner.as_deref() == Some(name.as_str());
            let action = if is_owner {
                view! { <span class="tag" title=format!("{name} owns this experiment: their access cannot be removed")>"owner"</span> }.into_any()
            } else {
                view! {
                    <button class="button button-small" aria-label=format!("Revoke {name}") disabled=move || !can_manage.get()
                        on:click=move |_| on_revoke.run(p2.clone())>"Revoke"</button>
                }.into_any()
            };
            view! {
                <li class="access-row">
                    {principal_view(&g.principal)}
                    <LevelSelect label=format!("Permission for {name}") value=Signal::derive(move || level)
                        disabled=Signal::derive(move || is_owner || !can_manage.get())
                        on_change=Callback::new(move |l| on_change.run(json::GrantRequest { principal: p1.clone(), level: l })) />
                    {action}
                </li>
            }
        })
        .collect_view();
    view! {
        <h3 class="dialog-section">"Who has access"</h3>
        <ul class="access-list">
            {implicit}
            {grants}
            {no_grants.then(|| view! { <li class="access-row muted">"No one has been granted access explicitly."</li> })}
        </ul>
    }
}
