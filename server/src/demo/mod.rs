//! Demo data for `runlens serve --demo`: users alice, bob and carol with grants (`people`),
//! four experiments under `/Users/...` and
//! `/Workspace/Shared/...` with realistic training curves of 10k+ steps, sweeps with nested
//! runs, FAILED, KILLED, resumed and RUNNING runs, params, tags and `system/...` metrics.
//! Values come from a fixed seed; times are relative to the moment of loading. While
//! `runlens serve --demo` serves, a live run keeps logging and the running fine-tuning run
//! keeps training ([`live_runs`]).
//!
//! Offers [`load`] (the data), [`load_artifacts`], [`register_nodes`] (the two simulated
//! agents), [`live_runs`] / [`LiveDemo`] (the runs that keep logging) and
//! [`sign_in_hint`]; the curves and people are its own.

mod artifacts;
mod curves;
mod job_logs;
mod jobs;
mod live;
mod live_sft;
mod llm;
mod nlp;
mod nodes;
mod people;
mod system;
mod vision;
mod writer;

pub use artifacts::load as load_artifacts;
pub use live::{live_runs, LiveDemo, LAST_STEP, LIVE_RUN_PREFIX, PAUSE_TICKS, STEPS_PER_TICK};
pub use nodes::register as register_nodes;
pub use people::sign_in_hint;

use crate::store::meta;
use crate::tracking::write;
use crate::{Error, Store};

/// One minute, ms.
const MINUTE: i64 = 60_000;
/// One hour, ms.
const HOUR: i64 = 60 * MINUTE;
/// Row in `meta` that marks the demo as loaded.
const MARKER: &str = "demo_loaded";
/// The nodes of the demo's two-node run, served by the simulated agents `make run` starts.
pub const DEMO_NODES: [&str; 2] = ["demo-node-1", "demo-node-2"];
/// GPUs per demo node: as many as each simulated agent reports (`make run` starts them with
/// `--simulate-gpus 4`), so the two-node run's system metrics name the GPUs its GPU panel
/// shows.
pub const DEMO_NODE_GPUS: u32 = 4;
/// Seed of every demo value.
const SEED: u64 = 20_240_611;

/// Loads the demo data once, in one transaction; a second call finds the marker and only
/// makes sure the demo users, group and grants exist. Fails (changing nothing) if one of the
/// demo experiment names is already taken.
pub fn load(store: &Store) -> Result<(), Error> {
    let pending = store.blocking(|c| {
        write(c, |tx| {
            if meta::get(tx, MARKER)?.is_some() {
                people::load(tx)?;
                return Ok(Vec::new());
            }
            let now = crate::util::now_ms();
            let mut w = writer::Writer::new(tx, SEED);
            let job_runs = llm::load(&mut w, now)?;
            vision::load_resnet(&mut w, now)?;
            vision::load_detection(&mut w, now)?;
            nlp::load(&mut w, now)?;
            people::load(tx)?;
            let pending = jobs::load(tx, &job_runs)?;
            meta::set(tx, MARKER, &now.to_string())?;
            Ok(pending)
        })
    })?;
    // The lines live in the log store's own database: stored after the commit (a crash
    // in between leaves jobs without lines, never lines without a job).
    jobs::store_logs(store, pending)
}
