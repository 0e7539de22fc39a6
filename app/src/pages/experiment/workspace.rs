//! The experiment workspace's view state, all in the URL so a copied link reproduces it.
//! Pure functions over [`Query`] plus a `Copy` handle over the page's [`QueryState`].
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
//! A run's default colour is the palette colour of its place in the selection
//! ([`default_color`]): selected runs never share one until the palette is used up, and a
//! copied link, which keeps the order, shows every teammate the same colours.

use super::run_colors::palette_color;
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

/// Most runs kept selected (charts overlay at most this many).
pub const MAX_SELECTED: usize = 100;

/// The default colour of `run_id`: the palette colour of its place in the selection (hidden
/// runs keep theirs, so hiding one recolours none). A run not selected gets the colour it
/// would get if selected now.
pub fn default_color(q: &Query, run_id: &str) -> &'static str {
    let sel = selected(q);
    palette_color(sel.iter().position(|s| s == run_id).unwrap_or(sel.len()))
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
        .unwrap_or_else(|| default_color(q, run_id).to_owned())
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
    if is_hex_color(&color) && color != default_color(q, run_id) {
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
    use super::super::run_colors::RUN_COLORS;
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

    /// `n` run ids shaped like real ones (32 hex digits, spread out).
    fn run_ids(n: usize) -> Vec<String> {
        (0..n as u128)
            .map(|i| {
                format!(
                    "{:032x}",
                    (i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835)
                )
            })
            .collect()
    }

    fn selection(ids: &[String]) -> Query {
        let mut q = Query::new();
        set_selected(&mut q, ids);
        q
    }

    fn colours(q: &Query) -> Vec<String> {
        selected(q).iter().map(|id| color_of(q, id)).collect()
    }

    #[test]
    fn selected_runs_get_distinct_colours_until_the_palette_is_used_up() {
        for n in [9, 20] {
            let q = selection(&run_ids(n));
            let mut c = colours(&q);
            c.sort();
            c.dedup();
            assert_eq!(c.len(), n, "{n} runs: {:?}", colours(&q));
        }
        // More runs than colours: every colour is used once before any is used twice.
        let n = RUN_COLORS.len();
        let q = selection(&run_ids(2 * n + 5));
        let c = colours(&q);
        for (i, color) in c.iter().enumerate() {
            assert_eq!(color, RUN_COLORS[i % n]);
        }
    }

    #[test]
    fn default_colour_follows_the_selection_order() {
        let ids = run_ids(5);
        let q = selection(&ids);
        assert_eq!(colours(&q), RUN_COLORS[..5]);
        // The same runs in the opposite order: the colours go with the places, not the ids.
        let reversed: Vec<String> = ids.iter().rev().cloned().collect();
        let r = selection(&reversed);
        assert_eq!(color_of(&r, &ids[4]), RUN_COLORS[0]);
        assert_eq!(colours(&r), RUN_COLORS[..5]);
        // A copied link carries the order, so it shows the same colours.
        assert_eq!(colours(&Query::parse(&q.encode())), colours(&q));
        // Hiding a run recolours none.
        let mut h = q.clone();
        toggle_hidden(&mut h, &ids[0]);
        assert_eq!(colours(&h), colours(&q));
        // A newly ticked run takes the next colour; one not selected shows that colour too.
        let extra = run_ids(6).pop().unwrap();
        assert_eq!(color_of(&q, &extra), RUN_COLORS[5]);
        let mut t = q.clone();
        toggle_selected(&mut t, &extra);
        assert_eq!(color_of(&t, &extra), RUN_COLORS[5]);
    }

    #[test]
    fn a_colour_picked_by_hand_wins_and_the_default_clears_it() {
        let ids = run_ids(3);
        let (a, b, c) = (&ids[0], &ids[1], &ids[2]);
        let mut q = selection(&ids);
        set_color(&mut q, b, "#ABCDEF");
        assert_eq!(color_of(&q, b), "#abcdef");
        assert_eq!(q.get_all("color"), vec![format!("{b}:abcdef")]);
        // The others keep their places' colours.
        assert_eq!(color_of(&q, a), RUN_COLORS[0]);
        assert_eq!(color_of(&q, c), RUN_COLORS[2]);
        // Even another run's colour may be picked.
        set_color(&mut q, c, RUN_COLORS[0]);
        assert_eq!(color_of(&q, c), RUN_COLORS[0]);
        // Picking the run's own default colour removes the override; junk is ignored.
        set_color(&mut q, b, RUN_COLORS[1]);
        assert_eq!(color_of(&q, b), RUN_COLORS[1]);
        assert_eq!(
            q.get_all("color"),
            vec![format!("{c}:{}", &RUN_COLORS[0][1..])]
        );
        set_color(&mut q, b, "red");
        assert_eq!(color_of(&q, b), RUN_COLORS[1]);
        // Unselecting drops the run's colour and hidden flag.
        toggle_hidden(&mut q, c);
        toggle_selected(&mut q, c);
        assert!(q.get_all("color").is_empty());
        assert!(hidden(&q).is_empty());
    }

    #[test]
    fn bad_colour_in_url_falls_back() {
        let q = Query::parse(&format!("?sel={B},{A}&color={A}:zzzzzz"));
        assert_eq!(color_of(&q, A), RUN_COLORS[1]);
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
