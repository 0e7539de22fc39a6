//! Editing a registered model in the browser: its tags ([`tags`]) and aliases
//! ([`aliases`]); the description reuses the run page's
//! [`crate::pages::run::manage::description::Description`]. The controls follow the rights
//! the server reports (`can_edit`, `can_manage` of the model's detail), which are the
//! grants MLflow's routes enforce: CAN_EDIT sets and CAN_MANAGE deletes an alias or a
//! version's tag, a model's tag is deleted with CAN_EDIT.

pub(super) mod aliases;
pub(super) mod tags;

/// What a tag write acts on: a registered model, or one of its versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Target {
    /// The registered model of this name.
    Model(String),
    /// Version `.1` of the registered model `.0`.
    Version(String, String),
}
