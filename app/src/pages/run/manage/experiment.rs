//! The experiment page's title block: the name (renamable) and the Markdown description
//! (the experiment tag `mlflow.note.content`, editable) for those who may edit.

use api_types as json;
use leptos::prelude::*;

use super::description::Description;
use super::title::EditableTitle;
use crate::api::{self, ApiError, NOTE_TAG};

/// Name, run count and description of an experiment.
#[component]
pub fn ExperimentTitle(
    /// The experiment.
    experiment: json::ExperimentSummary,
    /// Whether the caller may edit it.
    can_edit: bool,
) -> impl IntoView {
    let id = StoredValue::new(experiment.id.clone());
    let name = RwSignal::new(experiment.name.clone());
    let text = RwSignal::new(experiment.description.clone().unwrap_or_default());
    let rename: Action<String, Result<(), ApiError>> = Action::new_local(move |new: &String| {
        let new = new.trim().to_owned();
        async move {
            api::rename_experiment(id.get_value(), new.clone()).await?;
            name.set(new);
            Ok(())
        }
    });
    let describe: Action<String, Result<(), ApiError>> = Action::new_local(move |t: &String| {
        let t = t.clone();
        async move {
            api::set_experiment_tag(id.get_value(), NOTE_TAG.to_owned(), t.clone()).await?;
            text.set(t);
            Ok(())
        }
    });
    view! {
        <div class="title-block">
            <div class="title-row">
                <EditableTitle name=name can_edit=can_edit noun="experiment" save=rename />
            </div>
            <p class="subtitle">{format!("Experiment {} · {} runs", experiment.id, crate::format::count(experiment.run_count))}</p>
            <Description text=text.into() can_edit=can_edit save=describe />
        </div>
    }
}
