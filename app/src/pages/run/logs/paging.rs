//! Loading pages of lines: the first page (newest, or from the jump-to time), then older
//! pages above and newer pages below as the reader scrolls. One request at a time.

use api_types as json;
use json::logs::{LogPage, LogQuery, NodeGaps};
use leptos::prelude::*;
use leptos::task::spawn_local;

use super::store::Loaded;
use crate::api::{self, ApiError};

/// Lines asked for per page.
const PAGE: u32 = 500;

/// Where the first page stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Phase {
    /// Loading the first page.
    Loading,
    /// Lines (maybe none) are loaded.
    Ready,
    /// The first page could not be loaded.
    Failed(ApiError),
}

/// The Logs tab's lines and what the server said about them; `Copy`.
#[derive(Clone, Copy)]
pub struct LogState {
    run_id: StoredValue<String>,
    query: StoredValue<LogQuery>,
    /// The loaded lines.
    pub loaded: RwSignal<Loaded>,
    /// The first page's state.
    pub phase: RwSignal<Phase>,
    /// The job run's status (follow while active).
    pub status: RwSignal<json::JobRunStatus>,
    /// Lines before this time were purged by retention.
    pub expired: RwSignal<Option<i64>>,
    /// Missing lines per node.
    pub gaps: RwSignal<Vec<NodeGaps>>,
    /// The job run's nodes (the node filter's choices).
    pub nodes: RwSignal<Vec<String>>,
    /// Where following resumes (set when the newest line is loaded).
    pub cursor: RwSignal<Option<String>>,
    /// A page request is in flight.
    busy: RwSignal<bool>,
    /// Why the last older/newer page failed.
    pub page_error: RwSignal<Option<String>>,
}

impl LogState {
    /// New state for `run_id` and the filters of `query`.
    pub fn new(run_id: String, query: LogQuery, nodes: RwSignal<Vec<String>>) -> Self {
        Self {
            run_id: StoredValue::new(run_id),
            query: StoredValue::new(query),
            loaded: RwSignal::new(Loaded::default()),
            phase: RwSignal::new(Phase::Loading),
            status: RwSignal::new(json::JobRunStatus::Running),
            expired: RwSignal::new(None),
            gaps: RwSignal::new(Vec::new()),
            nodes,
            cursor: RwSignal::new(None),
            busy: RwSignal::new(false),
            page_error: RwSignal::new(None),
        }
    }

    /// The filters.
    pub fn query(&self) -> LogQuery {
        self.query.get_value()
    }

    /// Takes in what a page says about the job run; the follow cursor when it is the newest.
    fn note(&self, p: &LogPage) {
        self.status.try_set(p.status);
        self.expired.try_set(p.expired_through);
        self.gaps.try_set(p.gaps.clone());
        if !p.nodes.is_empty() && self.nodes.try_get_untracked().as_ref() != Some(&p.nodes) {
            self.nodes.try_set(p.nodes.clone());
        }
        if p.newer.is_none() {
            self.cursor.try_set(Some(p.follow_from.clone()));
        }
    }

    /// Fetches one page of `q` (filters added) unless one is in flight.
    fn fetch(self, q: LogQuery, done: impl FnOnce(Result<LogPage, ApiError>) + 'static) {
        if self.busy.get_untracked() {
            return;
        }
        self.busy.set(true);
        let q = LogQuery {
            limit: Some(PAGE),
            ..q
        };
        let id = self.run_id.get_value();
        spawn_local(async move {
            let r = api::get_run_logs(id, q).await;
            if self.busy.try_set(false).is_none() {
                if let Ok(p) = &r {
                    self.note(p);
                }
                done(r);
            }
        });
    }

    /// Loads the first page: the newest lines, or those from `at`; then calls `then`.
    pub fn load_first(self, at: Option<i64>, then: impl FnOnce() + 'static) {
        let q = LogQuery { at, ..self.query() };
        self.fetch(q, move |r| match r {
            Ok(p) => {
                self.loaded.set(Loaded::new(p));
                self.phase.set(Phase::Ready);
                then();
            }
            Err(e) => self.phase.set(Phase::Failed(e)),
        });
    }

    /// Replaces the loaded lines by the newest page, keeping live lines newer than it (the
    /// way to drop old lines while following, where no cursor leads back to them).
    pub fn reload_newest(self) {
        self.fetch(self.query(), move |r| {
            if let Ok(p) = r {
                self.loaded.update(|l| l.restart(p));
            }
        });
    }

    fn page_done(&self, r: Result<LogPage, ApiError>) -> Option<LogPage> {
        match r {
            Ok(p) => {
                self.page_error.set(None);
                Some(p)
            }
            Err(e) => {
                self.page_error.set(Some(e.message));
                None
            }
        }
    }

    /// Loads the page before the first line; `added` gets the height added above.
    pub fn load_older(self, added: impl FnOnce(f64) + 'static) {
        let Some(before) = self.loaded.with_untracked(Loaded::older) else {
            return;
        };
        let q = LogQuery {
            before: Some(before),
            ..self.query()
        };
        self.fetch(q, move |r| {
            if let Some(p) = self.page_done(r) {
                let mut h = 0.0;
                self.loaded.update(|l| {
                    h = l.prepend(p);
                    l.trim_back();
                });
                added(h);
            }
        });
    }

    /// Loads the page after the last line; `removed` gets the height dropped above.
    pub fn load_newer(self, removed: impl FnOnce(f64) + 'static) {
        let Some(after) = self.loaded.with_untracked(Loaded::newer) else {
            return;
        };
        let q = LogQuery {
            after: Some(after),
            ..self.query()
        };
        self.fetch(q, move |r| {
            if let Some(p) = self.page_done(r) {
                let mut h = 0.0;
                self.loaded.update(|l| {
                    l.append(p);
                    h = l.trim_front();
                });
                removed(h);
            }
        });
    }
}
