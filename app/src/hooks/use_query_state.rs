//! The URL's query string as view state: read keys reactively, write them by navigating,
//! so reloads and shared links show the same view. A change is a new history entry
//! ([`QueryState::update`]), so Back undoes it; [`QueryState::update_replace`] rewrites the
//! current entry instead (for canonical forms and for values that change continuously).

use leptos::prelude::*;
use leptos_router::hooks::use_location;
use leptos_router::NavigateOptions;

use super::use_safe_navigate;
use crate::query::Query;

/// The router's navigate function, boxed so the handle can be `Copy`.
type Navigate = Box<dyn Fn(&str, NavigateOptions)>;

/// Handle returned by [`use_query_state`]; `Copy`, so closures can capture it freely.
#[derive(Clone, Copy)]
pub struct QueryState {
    query: Memo<Query>,
    path: Memo<String>,
    navigate: StoredValue<Navigate, LocalStorage>,
}

impl QueryState {
    /// The value of `key` (tracked).
    pub fn get(&self, key: &str) -> Option<String> {
        self.query.with(|q| q.get(key).map(str::to_owned))
    }

    /// Every value of `key` (tracked).
    pub fn get_all(&self, key: &str) -> Vec<String> {
        self.query
            .with(|q| q.get_all(key).into_iter().map(str::to_owned).collect())
    }

    /// The whole query (tracked).
    pub fn with<T>(&self, f: impl FnOnce(&Query) -> T) -> T {
        self.query.with(f)
    }

    /// Applies `edit` to the current query and navigates to the result as a new history
    /// entry (nothing happens when `edit` changes nothing).
    pub fn update(&self, edit: impl FnOnce(&mut Query)) {
        self.navigate_with(edit, false);
    }

    /// Like [`QueryState::update`], replacing the current history entry.
    pub fn update_replace(&self, edit: impl FnOnce(&mut Query)) {
        self.navigate_with(edit, true);
    }

    fn navigate_with(&self, edit: impl FnOnce(&mut Query), replace: bool) {
        let before = self.query.get_untracked();
        let mut q = before.clone();
        edit(&mut q);
        if q == before {
            return;
        }
        let url = q.url(&self.path.get_untracked());
        self.navigate.with_value(|nav| {
            nav(
                &url,
                NavigateOptions {
                    replace,
                    scroll: false,
                    ..Default::default()
                },
            )
        });
    }

    /// Sets one key (`None` removes it).
    pub fn set(&self, key: &'static str, value: Option<String>) {
        self.update(|q| q.set(key, value));
    }
}

/// The current route's query string as reactive view state.
pub fn use_query_state() -> QueryState {
    let location = use_location();
    let search = location.search;
    let pathname = location.pathname;
    let query = Memo::new(move |_| Query::parse(&search.get()));
    let path = Memo::new(move |_| pathname.get());
    let navigate = use_safe_navigate();
    QueryState {
        query,
        path,
        navigate: StoredValue::new_local(Box::new(navigate)),
    }
}
