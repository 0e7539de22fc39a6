//! Run and experiment management for callers who may edit (`can_edit`; the controls are
//! not shown to others): rename in place ([`title`]), a Markdown description stored as the
//! tag `mlflow.note.content` ([`description`]), user tags edited apart from the read-only
//! `mlflow.*` system tags ([`tags`]), delete and restore with a confirmation and a banner
//! on a deleted run ([`lifecycle`]), and the experiment page's header ([`experiment`]).
//! Every write goes to MLflow's endpoints (`crate::api::manage`); a failure shows MLflow's
//! message next to the control, and a success updates the page in place.

pub mod description;
pub mod experiment;
pub mod lifecycle;
pub mod tags;
pub mod title;

use api_types as json;
use leptos::prelude::*;

use crate::api::{self, ApiError, NOTE_TAG};
use crate::hooks::LiveFeed;

/// The system tag MLflow keeps equal to a run's name.
const RUN_NAME_TAG: &str = "mlflow.runName";

/// The run page's editable state, updated in place after each successful write.
#[derive(Clone, Copy)]
pub struct RunEdit {
    /// The run's id.
    pub run_id: StoredValue<String>,
    /// Whether the caller may edit the run.
    pub can_edit: bool,
    /// The run's name.
    pub name: RwSignal<String>,
    /// Every tag, sorted by key (system tags included).
    pub tags: RwSignal<Vec<json::KeyValue>>,
    /// Whether the run is deleted.
    pub deleted: RwSignal<bool>,
}

impl RunEdit {
    /// The editable state of `run`.
    pub fn new(run: &json::RunDetail) -> RunEdit {
        RunEdit {
            run_id: StoredValue::new(run.run_id.clone()),
            can_edit: run.can_edit,
            name: RwSignal::new(run.run_name.clone()),
            tags: RwSignal::new(run.tags.clone()),
            deleted: RwSignal::new(run.lifecycle_stage == "deleted"),
        }
    }

    /// Follows the run's renames, deletion and restoring made elsewhere (the page's live feed).
    pub fn follow(&self, feed: LiveFeed) {
        let edit = *self;
        feed.on_update(move |u| {
            let Some(id) = edit.run_id.try_get_value() else {
                return;
            };
            for change in u.runs.iter().filter(|c| c.run_id == id) {
                if edit.name.try_with_untracked(|n| *n != change.run_name) == Some(true) {
                    edit.name.try_set(change.run_name.clone());
                }
                edit.deleted.try_set(change.lifecycle_stage == "deleted");
            }
        });
    }

    /// The description (tag `mlflow.note.content`), empty if none.
    pub fn description(&self) -> Signal<String> {
        let tags = self.tags;
        Signal::derive(move || tag_value(&tags.get(), NOTE_TAG).unwrap_or_default())
    }

    /// Records a tag set on the server (`mlflow.runName` renames the run there too).
    pub fn tag_set(&self, key: &str, value: &str) {
        self.tags.update(|t| upsert(t, key, value));
        if key == RUN_NAME_TAG {
            self.name.set(value.to_owned());
        }
    }

    /// Records a tag deleted on the server.
    pub fn tag_deleted(&self, key: &str) {
        self.tags.update(|t| t.retain(|kv| kv.key != key));
    }

    /// An action renaming the run.
    pub fn rename_action(&self) -> Action<String, Result<(), ApiError>> {
        let edit = *self;
        Action::new_local(move |new: &String| {
            let new = new.trim().to_owned();
            async move {
                api::rename_run(edit.run_id.get_value(), new.clone()).await?;
                // The server keeps the `mlflow.runName` tag equal to the name.
                if tag_value(&edit.tags.get_untracked(), RUN_NAME_TAG).is_some() {
                    edit.tag_set(RUN_NAME_TAG, &new);
                }
                edit.name.set(new);
                Ok(())
            }
        })
    }

    /// An action saving the description.
    pub fn describe_action(&self) -> Action<String, Result<(), ApiError>> {
        let edit = *self;
        Action::new_local(move |text: &String| {
            let text = text.clone();
            async move {
                api::set_run_tag(edit.run_id.get_value(), NOTE_TAG.to_owned(), text.clone())
                    .await?;
                edit.tag_set(NOTE_TAG, &text);
                Ok(())
            }
        })
    }
}

/// The value of tag `key`.
pub fn tag_value(tags: &[json::KeyValue], key: &str) -> Option<String> {
    tags.iter()
        .find(|kv| kv.key == key)
        .map(|kv| kv.value.clone())
}

/// Sets `key` to `value` in a key-sorted tag list.
pub fn upsert(tags: &mut Vec<json::KeyValue>, key: &str, value: &str) {
    match tags.binary_search_by(|kv| kv.key.as_str().cmp(key)) {
        Ok(i) => tags[i].value = value.to_owned(),
        Err(i) => tags.insert(
            i,
            json::KeyValue {
                key: key.to_owned(),
                value: value.to_owned(),
            },
        ),
    }
}

/// Whether `key` is an MLflow system tag (`mlflow.*`), shown read-only.
pub fn is_system_tag(key: &str) -> bool {
    key.starts_with("mlflow.")
}

/// A write's failure, shown next to its control.
pub fn error_view(e: Signal<Option<String>>) -> impl IntoView {
    move || {
        e.get()
            .map(|m| view! { <div class="form-error" role="alert">{m}</div> })
    }
}

/// The message of the last run of `action` if it failed.
pub fn action_error(action: Action<String, Result<(), ApiError>>) -> Signal<Option<String>> {
    let value = action.value();
    Signal::derive(move || value.get().and_then(|r| r.err()).map(|e| e.message))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kv(k: &str, v: &str) -> json::KeyValue {
        json::KeyValue {
            key: k.into(),
            value: v.into(),
        }
    }

    #[test]
    fn tags_stay_sorted() {
        let mut t = vec![kv("a", "1"), kv("c", "3")];
        upsert(&mut t, "b", "2");
        upsert(&mut t, "c", "4");
        assert_eq!(t, [kv("a", "1"), kv("b", "2"), kv("c", "4")]);
        assert_eq!(tag_value(&t, "b").as_deref(), Some("2"));
        assert_eq!(tag_value(&t, "z"), None);
    }

    #[test]
    fn system_tags() {
        assert!(is_system_tag("mlflow.user"));
        assert!(is_system_tag(NOTE_TAG));
        assert!(!is_system_tag("team"));
        assert!(!is_system_tag("mlflowish"));
    }
}
