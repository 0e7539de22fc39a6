//! Editing a registered model in the browser (for callers with CAN_EDIT or above): its tags
//! and aliases; the description reuses the run page's
//! [`crate::pages::run::manage::description::Description`].

pub mod aliases;
pub mod tags;

/// What a tag write acts on: a registered model, or one of its versions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The registered model of this name.
    Model(String),
    /// Version `.1` of the registered model `.0`.
    Version(String, String),
}
