//! The experiment workspace's view state, all in the URL so a copied link reproduces it
//! (issue 9). Pure functions over [`Query`] plus a `Copy` handle over the page's
//! [`QueryState`].
//!
//! | key       | meaning                                                            |
//! |-----------|--------------------------------------------------------------------|
//! | `view`    | `runs` (default), `charts` or `compare`                            |
//! | `sel`     | selected run ids, comma-separated, in selection order              |
//! | `color`   | `<run id>:<rrggbb>`, repeatable: colours picked by hand            |
//! | `hide`    | selected runs hidden from charts and compare, comma-separated      |
//! | `group`   | `params.<key>` or `tags.<key>`: chart groups (mean, min–max band)  |
//! | `deleted` | `1`: the table also shows deleted runs                             |
//!
//! A run's default colour comes from a hash of its id, so it is the same on every page and
//! for every teammate ([`default_color`]).

use crate::hooks::QueryState;
use crate::query::Query;

/// The workspace's views (tabs of the experiment page).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum View {
    /// The runs table.
    Runs,
    /// One chart per metric, selected runs overlaid.
    Charts,
    /// Diff table, parallel coordinates and scatter of the selected runs.
    Compare,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 3] = [View::Runs, View::Charts, View::Compare];

    /// The `view=` value (`None` for the default, the runs table).
    pub fn query_value(self) -> Option<&'static str> {
        match self {
            View::Runs => None,
            View::Charts => Some("charts"),
            View::Compare => Some("compare"),
        }
    }

    /// Parses `view=`; anything unknown is the runs table.
    pub fn parse(s: Option<&str>) -> View {
        match s {
            Some("charts") => View::Charts,
            Some("compare") => View::Compare,
            _ => View::Runs,
        }
    }

    /// The tab's label.
    pub fn label(self) -> &'static str {
        match self {
            View::Runs => "Runs",
            View::Charts => "Charts",
            View::Compare => "Compare",
        }
    }
}

/// Colours given to runs by default (Tableau 10, readable on light and dark backgrounds).
pub const RUN_COLORS: [&str; 10] = [
    "#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#bab0ac",
];

/// Most runs kept selected (charts overlay at most this many).
pub const MAX_SELECTED: usize = 100;

/// The default colour of a run: from an FNV-1a hash of its id, so every page and every
/// teammate sees the same colour.
pub fn default_color(run_id: &str) -> &'static str {
    let h = run_id.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    RUN_COLORS[h as usize % RUN_COLORS.len()]
}

/// Whether `s` is a `#rrggbb` colour.
pub fn is_hex_color(s: &str) -> bool {
    s.len() == 7 && s.starts_with('#') && s[1..].bytes().all(|b| b.is_ascii_hexdigit())
}

fn id_list(q: &Query, key: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for id in q.get(key).unwrap_or_default().split(',') {
        let id = id.trim();
        if !id.is_empty() && !out.iter().any(|x| x == id) && out.len() < MAX_SELECTED {
            out.push(id.to_owned());
        }
    }
    out
}

fn set_id_list(q: &mut Query, key: &str, ids: &[String]) {
    q.set(key, (!ids.is_empty()).then(|| ids.join(",")));
}

/// Selected run ids, in order (`sel=`).
pub fn selected(q: &Query) -> Vec<String> {
    id_list(q, "sel")
}

/// Replaces the selection; colours and hidden flags of runs no longer selected are dropped.
pub fn set_selected(q: &mut Query, ids: &[String]) {
    let ids: Vec<String> = ids.iter().take(MAX_SELECTED).cloned().collect();
    set_id_list(q, "sel", &ids);
    let hidden: Vec<String> = hidden(q).into_iter().filter(|h| ids.contains(h)).collect();
    set_id_list(q, "hide", &hidden);
    let colors: Vec<String> = q
        .get_all("color")
        .into_iter()
        .filter(|c| {
            c.split_once(':')
                .is_some_and(|(id, _)| ids.iter().any(|s| s == id))
        })
        .map(str::to_owned)
        .collect();
    q.set_all("color", &colors);
}

/// Selects `id` if it is not, else unselects it.
pub fn toggle_selected(q: &mut Query, id: &str) {
    let mut ids = selected(q);
    match ids.iter().position(|x| x == id) {
        Some(i) => {
            ids.remove(i);
        }
        None => ids.push(id.to_owned()),
    }
    set_selected(q, &ids);
}

/// Hidden runs (`hide=`).
pub fn hidden(q: &Query) -> Vec<String> {
    id_list(q, "hide")
}

/// Hides `id` if it is shown, else shows it.
pub fn toggle_hidden(q: &mut Query, id: &str) {
    let mut ids = hidden(q);
    match ids.iter().position(|x| x == id) {
        Some(i) => {
            ids.remove(i);
        }
        None => ids.push(id.to_owned()),
    }
    set_id_list(q, "hide", &ids);
}

/// The colour of `run_id`: picked by hand (`color=id:rrggbb`), else [`default_color`].
pub fn color_of(q: &Query, run_id: &str) -> String {
    q.get_all("color")
        .into_iter()
        .filter_map(|c| c.split_once(':'))
        .find(|(id, _)| *id == run_id)
        .map(|(_, hex)| format!("#{hex}"))
        .filter(|c| is_hex_color(c))
        .unwrap_or_else(|| default_color(run_id).to_owned())
}

/// Sets the colour of `run_id` (`#rrggbb`); its default colour removes the override.
pub fn set_color(q: &mut Query, run_id: &str, color: &str) {
    let mut colors: Vec<String> = q
        .get_all("color")
        .into_iter()
        .filter(|c| c.split_once(':').is_none_or(|(id, _)| id != run_id))
        .map(str::to_owned)
        .collect();
    let color = color.to_ascii_lowercase();
    if is_hex_color(&color) && color != default_color(run_id) {
        colors.push(format!("{run_id}:{}", &color[1..]));
    }
    q.set_all("color", &colors);
}

/// What runs are grouped by in charts: `params.<key>` or `tags.<key>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GroupBy {
    /// A param's value.
    Param(String),
    /// A tag's value.
    Tag(String),
}

impl GroupBy {
    /// Parses `group=`.
    pub fn parse(s: &str) -> Option<GroupBy> {
        if let Some(k) = s.strip_prefix("params.").filter(|k| !k.is_empty()) {
            Some(GroupBy::Param(k.to_owned()))
        } else {
            s.strip_prefix("tags.")
                .filter(|k| !k.is_empty())
                .map(|k| GroupBy::Tag(k.to_owned()))
        }
    }

    /// The `group=` value.
    pub fn query_value(&self) -> String {
        match self {
            GroupBy::Param(k) => format!("params.{k}"),
            GroupBy::Tag(k) => format!("tags.{k}"),
        }
    }
}

/// `Copy` handle over the workspace state of the page's URL (tracked reads; writes push a
/// history entry, so Back undoes them).
#[derive(Clone, Copy)]
pub struct Workspace {
    /// The page's URL state.
    pub qs: QueryState,
}

impl Workspace {
    /// The workspace of the current page.
    pub fn new(qs: QueryState) -> Self {
        Workspace { qs }
    }

    fn read<T>(&self, f: impl FnOnce(&Query) -> T) -> T {
        self.qs.with(f)
    }

    /// The current view.
    pub fn view(&self) -> View {
        View::parse(self.qs.get("view").as_deref())
    }

    /// Switches view.
    pub fn set_view(&self, v: View) {
        self.qs.set("view", v.query_value().map(str::to_owned));
    }

    /// Selected run ids, in order.
    pub fn selected(&self) -> Vec<String> {
        self.read(selected)
    }

    /// Selected and not hidden, in order (what charts and compare draw).
    pub fn shown(&self) -> Vec<String> {
        self.read(|q| {
            let h = hidden(q);
            selected(q)
                .into_iter()
                .filter(|id| !h.contains(id))
                .collect()
        })
    }

    /// Whether `id` is selected.
    pub fn is_selected(&self, id: &str) -> bool {
        self.read(|q| selected(q).iter().any(|s| s == id))
    }

    /// Whether `id` is hidden.
    pub fn is_hidden(&self, id: &str) -> bool {
        self.read(|q| hidden(q).iter().any(|s| s == id))
    }

    /// The colour of a run.
    pub fn color(&self, id: &str) -> String {
        self.read(|q| color_of(q, id))
    }

    /// Replaces the selection.
    pub fn select(&self, ids: &[String]) {
        self.qs.update(|q| set_selected(q, ids));
    }

    /// Toggles one run's selection.
    pub fn toggle(&self, id: &str) {
        self.qs.update(|q| toggle_selected(q, id));
    }

    /// Toggles one run's visibility.
    pub fn toggle_hidden(&self, id: &str) {
        self.qs.update(|q| toggle_hidden(q, id));
    }

    /// Sets one run's colour.
    pub fn set_color(&self, id: &str, color: &str) {
        self.qs.update(|q| set_color(q, id, color));
    }

    /// The chart grouping, if any.
    pub fn group(&self) -> Option<GroupBy> {
        self.qs.get("group").and_then(|g| GroupBy::parse(&g))
    }

    /// Sets or clears the chart grouping.
    pub fn set_group(&self, g: Option<GroupBy>) {
        self.qs.set("group", g.map(|g| g.query_value()));
    }

    /// Whether deleted runs are shown too.
    pub fn show_deleted(&self) -> bool {
        self.qs.get("deleted").is_some_and(|v| v == "1")
    }

    /// Shows or hides deleted runs.
    pub fn set_show_deleted(&self, on: bool) {
        self.qs.set("deleted", on.then(|| "1".to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: &str = "0123456789abcdef0123456789abcdef";
    const B: &str = "fedcba9876543210fedcba9876543210";

    #[test]
    fn selection_round_trips_and_drops_repeats() {
        let mut q = Query::parse("?sel=a,b,a,,c");
        assert_eq!(selected(&q), vec!["a", "b", "c"]);
        toggle_selected(&mut q, "b");
        assert_eq!(selected(&q), vec!["a", "c"]);
        toggle_selected(&mut q, "d");
        assert_eq!(q.get("sel"), Some("a,c,d"));
        set_selected(&mut q, &[]);
        assert_eq!(q.get("sel"), None);
    }

    #[test]
    fn colours_default_by_hash_and_override() {
        let q = Query::new();
        assert_eq!(color_of(&q, A), default_color(A));
        assert!(RUN_COLORS.contains(&default_color(B)));
        let mut q = Query::parse(&format!("?sel={A},{B}"));
        set_color(&mut q, A, "#ABCDEF");
        assert_eq!(color_of(&q, A), "#abcdef");
        assert_eq!(color_of(&q, B), default_color(B));
        set_color(&mut q, A, default_color(A));
        assert!(q.get_all("color").is_empty());
        set_color(&mut q, A, "red");
        assert_eq!(color_of(&q, A), default_color(A));
        // Unselecting drops the run's colour and hidden flag.
        set_color(&mut q, B, "#000000");
        toggle_hidden(&mut q, B);
        toggle_selected(&mut q, B);
        assert!(q.get_all("color").is_empty());
        assert!(hidden(&q).is_empty());
    }

    #[test]
    fn bad_colour_in_url_falls_back() {
        let q = Query::parse(&format!("?color={A}:zzzzzz"));
        assert_eq!(color_of(&q, A), default_color(A));
    }

    #[test]
    fn view_and_group_parse() {
        assert_eq!(View::parse(Some("charts")), View::Charts);
        assert_eq!(View::parse(Some("nope")), View::Runs);
        for v in View::ALL {
            assert_eq!(View::parse(v.query_value()), v);
        }
        assert_eq!(
            GroupBy::parse("params.opt"),
            Some(GroupBy::Param("opt".into()))
        );
        assert_eq!(GroupBy::parse("tags.a.b"), Some(GroupBy::Tag("a.b".into())));
        assert_eq!(GroupBy::parse("params."), None);
        assert_eq!(GroupBy::parse("metrics.loss"), None);
        let g = GroupBy::Param("lr".into());
        assert_eq!(GroupBy::parse(&g.query_value()), Some(g));
    }
}
