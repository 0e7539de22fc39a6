//! Matrix cases of the logged-model, model-registry and dataset routes. Ids seeded by
//! `fixture_models` are `{name}`s.

use super::cases::Case;

/// The model routes' cases.
pub const CASES: &[Case] = &[];
