//! The panel's polling: a fetch every `poll` seconds (leptos-use `use_interval_fn`), at
//! once on Refresh, paused after `idle` seconds without input (`use_idle`) or while the tab
//! is hidden (`use_document_visibility`); every fetch asks for the samples after the newest
//! held, so resuming back-fills the pause.

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;
use leptos_use_document_visibility::use_document_visibility;
use leptos_use_idle::{use_idle, UseIdleReturn};
use leptos_use_interval_fn::{use_interval_fn, Pausable};
use web_sys::VisibilityState;

use super::pause::Activity;
use super::state::PanelData;
use crate::api::{self, ApiError, ErrorCode};

/// Where the panel reads the nodes' GPUs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GpuSource {
    /// `GET /api/v1/nodes/gpus` as the signed-in user.
    Session {
        /// The node names.
        nodes: Vec<String>,
    },
    /// `GET /api/v1/embed/gpus` with a signed link's `nodes`, `exp` and `sig`.
    Embed(json::nodes::EmbedGpusQuery),
}

impl GpuSource {
    /// The node names.
    pub fn nodes(&self) -> Vec<String> {
        match self {
            GpuSource::Session { nodes } => nodes.clone(),
            GpuSource::Embed(q) => q.nodes.split(',').map(str::to_owned).collect(),
        }
    }

    async fn fetch(self, since: i64) -> Result<json::nodes::NodeGpus, ApiError> {
        match self {
            GpuSource::Session { nodes } => api::get_node_gpus(nodes.join(","), Some(since)).await,
            GpuSource::Embed(q) => {
                api::get_embed_gpus(json::nodes::EmbedGpusQuery {
                    since: Some(since),
                    ..q
                })
                .await
            }
        }
    }
}

/// Whether an error stops polling until Refresh: asking again cannot help (unknown node,
/// invalid or expired link, signed out).
pub fn stops_polling(e: &ApiError) -> bool {
    matches!(
        e.code,
        ErrorCode::NotFound | ErrorCode::PermissionDenied | ErrorCode::Unauthenticated
    )
}

/// What [`use_gpu_polling`] returns; `Copy`.
#[derive(Clone, Copy)]
pub struct GpuPolling {
    /// Everything fetched so far.
    pub data: RwSignal<PanelData>,
    /// The last fetch's error, if it failed.
    pub error: RwSignal<Option<ApiError>>,
    /// A fetch is under way.
    pub in_flight: RwSignal<bool>,
    /// Polling or paused.
    pub activity: RwSignal<Activity>,
    /// Fetches now (Refresh).
    pub refresh: Callback<()>,
    /// Ends a pause and fetches what it missed (Resume).
    pub resume: Callback<()>,
}

/// Polls `source` every `poll_secs`, pausing after `idle_secs` without input.
pub fn use_gpu_polling(source: GpuSource, poll_secs: u64, idle_secs: u64) -> GpuPolling {
    let data = RwSignal::new(PanelData::default());
    let error = RwSignal::new(None::<ApiError>);
    let in_flight = RwSignal::new(false);
    let activity = RwSignal::new(Activity::Live);
    let source = StoredValue::new(source);
    let fetch = move || {
        if in_flight.get_untracked() {
            return;
        }
        in_flight.set(true);
        let since = data.with_untracked(PanelData::since);
        let source = source.get_value();
        spawn_local(async move {
            let answer = source.fetch(since).await;
            // The panel may have closed meanwhile: `try_` writes ignore disposed signals.
            match answer {
                Ok(a) => {
                    data.try_update(|d| d.merge(a));
                    error.try_set(None);
                }
                Err(e) => {
                    error.try_set(Some(e));
                }
            }
            in_flight.try_set(false);
        });
    };
    let Pausable { pause, resume, .. } = use_interval_fn(fetch, poll_secs.max(1) * 1000);
    let UseIdleReturn { idle, reset, .. } = use_idle(idle_secs.max(1) * 1000);
    let visibility = use_document_visibility();
    Effect::new(move |_| {
        let hidden = visibility.get() == VisibilityState::Hidden;
        let before = activity.get_untracked();
        let after = before.next(idle.get(), hidden);
        if after != before {
            activity.set(after);
            if after == Activity::Live {
                fetch();
            }
        }
    });
    // A memo, so each fetch's `error.set(None)` does not restart the interval.
    let stopped = Memo::new(move |_| error.with(|e| e.as_ref().is_some_and(stops_polling)));
    Effect::new(move |_| {
        if activity.get() == Activity::Live && !stopped.get() {
            resume();
        } else {
            pause();
        }
    });
    fetch();
    GpuPolling {
        data,
        error,
        in_flight,
        activity,
        refresh: Callback::new(move |_| fetch()),
        resume: Callback::new(move |_| {
            reset();
            activity.set(Activity::Live);
            fetch();
        }),
    }
}
