//! Matrix cases of the artifact routes (the MLflow artifact proxy, `artifacts/list`, and
//! the app API's artifact routes). Ids seeded by `fixture_artifacts` are `{name}`s.

use super::cases::Case;

/// The artifact routes' cases.
pub const CASES: &[Case] = &[];
