//! The runs table's rows, loaded a page at a time as the table scrolls: the server's first
//! page comes with the table; [`RunPages::want`] asks for the next pages (keyset tokens, in
//! order) until the rows cover what the scrolled window shows plus a margin. A reload of the
//! table (new filter, sort or columns) makes a new `RunPages`; an answer for an old one is
//! dropped with it.

use api_types as json;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::api::{self, ApiError};

/// Rows fetched beyond the window's last row, so a slow scroll rarely waits.
pub const MARGIN: usize = 100;

/// The size of a page asked for to reach `need` rows when `have` are loaded: at least the
/// server's default, at most its maximum.
pub fn page_limit(have: usize, need: usize) -> u32 {
    let missing = need.saturating_sub(have) + MARGIN;
    u32::try_from(missing)
        .unwrap_or(u32::MAX)
        .clamp(json::RUN_PAGE_DEFAULT, json::RUN_PAGE_MAX)
}

/// The loaded rows of one table query and where the next page starts.
#[derive(Clone, Copy)]
pub struct RunPages {
    /// Rows loaded so far, in the table's order.
    pub rows: RwSignal<Vec<json::RunRow>>,
    /// Every run the query matches (the server's count).
    pub total: RwSignal<u64>,
    /// The next page's token; `None` once every row is loaded.
    next: RwSignal<Option<String>>,
    /// True while a page is on its way.
    pub loading: RwSignal<bool>,
    /// The last page that failed, if any (scrolling asks again).
    pub error: RwSignal<Option<ApiError>>,
    /// The rows the window last asked for.
    wanted: StoredValue<usize>,
    experiment_id: StoredValue<String>,
    query: StoredValue<json::RunTableQuery>,
}

impl RunPages {
    /// The table of `query` over experiment `experiment_id`, from its first page.
    pub fn new(experiment_id: String, query: json::RunTableQuery, first: json::RunTable) -> Self {
        Self {
            rows: RwSignal::new(first.rows),
            total: RwSignal::new(first.total),
            next: RwSignal::new(first.next_page_token),
            loading: RwSignal::new(false),
            error: RwSignal::new(None),
            wanted: StoredValue::new(0),
            experiment_id: StoredValue::new(experiment_id),
            query: StoredValue::new(query),
        }
    }

    /// Rows the server has that are not loaded yet.
    pub fn unloaded(&self) -> usize {
        let have = self.rows.with(Vec::len) as u64;
        if self.next.with(Option::is_none) {
            return 0;
        }
        usize::try_from(self.total.get().saturating_sub(have)).unwrap_or(usize::MAX)
    }

    /// Makes sure the first `need` rows (plus [`MARGIN`]) are loaded or on their way: one
    /// page at a time, each after the previous one's last row.
    pub fn want(self, need: usize) {
        self.wanted.set_value(need);
        let have = self.rows.with_untracked(Vec::len);
        if have >= need.saturating_add(MARGIN) || self.loading.get_untracked() {
            return;
        }
        let Some(token) = self.next.get_untracked() else {
            return;
        };
        self.loading.set(true);
        let q = json::RunTableQuery {
            limit: Some(page_limit(have, need)),
            page_token: Some(token),
            ..self.query.get_value()
        };
        let id = self.experiment_id.get_value();
        spawn_local(async move {
            // `try_`: the table may have been replaced meanwhile; then nothing is filled.
            match api::list_runs(id, q).await {
                Ok(p) => {
                    if self.rows.try_update(|r| r.extend(p.rows)).is_none() {
                        return;
                    }
                    self.total.try_set(p.total);
                    self.next.try_set(p.next_page_token);
                    self.error.try_set(None);
                    self.loading.try_set(false);
                    // The window may have moved on while this page travelled.
                    if let Some(need) = self.wanted.try_get_value() {
                        self.want(need);
                    }
                }
                Err(e) => {
                    self.error.try_set(Some(e));
                    self.loading.try_set(false);
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_cover_the_window_and_margin_within_the_servers_bounds() {
        assert_eq!(page_limit(200, 210), json::RUN_PAGE_DEFAULT);
        assert_eq!(page_limit(200, 600), 500);
        assert_eq!(page_limit(200, 90_000), json::RUN_PAGE_MAX);
        assert_eq!(page_limit(500, 10), json::RUN_PAGE_DEFAULT);
    }
}
