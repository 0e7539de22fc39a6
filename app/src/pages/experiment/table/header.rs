//! The runs table's two header rows: the column groups (Metrics / Params / Tags) and the
//! column headers, which sort on click, resize by dragging their right edge, reorder by
//! dragging, and have a menu (pin, move left/right, hide). Layout changes go to the URL
//! through [`LayoutHandle`].

use api_types as json;
use leptos::prelude::*;
use web_sys::wasm_bindgen::JsCast;

use super::layout::{
    groups, minimal_order, moved_by, moved_to, ColId, Display, Kind, Layout, Shown, MIN_WIDTH,
};
use crate::components::columns_picker::{toggled, ColumnKind};
use crate::hooks::QueryState;
use crate::pages::experiment::columns::Column;

/// Number of fixed columns after the pinned ones: Status, Started, Duration, User.
pub const ATTR_COLUMNS: usize = 4;

/// `Copy` handle over the table's layout: reads it from the URL, writes changes back.
#[derive(Clone, Copy)]
pub struct LayoutHandle {
    qs: QueryState,
    columns: StoredValue<json::RunTableColumns>,
    on_columns: Callback<json::RunTableColumns>,
    /// A width being dragged (column id, px), not yet in the URL.
    live_width: RwSignal<Option<(String, u32)>>,
    /// The column being dragged to a new place.
    dragging: RwSignal<Option<ColId>>,
    /// The column a drag is over.
    drop_target: RwSignal<Option<ColId>>,
    /// The open column menu: the column and where to draw it (viewport px).
    menu: RwSignal<Option<(ColId, f64, f64)>>,
    /// The layout in the URL, with a dragged width applied.
    pub layout: Memo<Layout>,
    /// The value columns as displayed.
    pub display: Memo<Display>,
    /// [`Display::shape`]: changes only when columns are added, moved or pinned.
    pub shape: Memo<Display>,
}

impl LayoutHandle {
    /// The layout of a table showing `columns`; `on_columns` changes the column choice.
    pub fn new(
        qs: QueryState,
        columns: json::RunTableColumns,
        on_columns: Callback<json::RunTableColumns>,
    ) -> Self {
        let live_width = RwSignal::new(None::<(String, u32)>);
        let layout = Memo::new(move |_| {
            let mut l = qs.with(Layout::parse);
            if let Some((id, px)) = live_width.get() {
                l.set_width(&id, px);
            }
            l
        });
        let columns = StoredValue::new(columns);
        let display =
            Memo::new(move |_| layout.with(|l| columns.with_value(|c| Display::new(c, l))));
        LayoutHandle {
            qs,
            columns,
            on_columns,
            live_width,
            dragging: RwSignal::new(None),
            drop_target: RwSignal::new(None),
            menu: RwSignal::new(None),
            layout,
            display,
            shape: Memo::new(move |_| display.with(Display::shape)),
        }
    }

    fn edit(&self, f: impl FnOnce(&mut Layout, &json::RunTableColumns, &Display)) {
        let d = self.display.get_untracked();
        let cols = self.columns.get_value();
        self.qs.update(|q| {
            let mut l = Layout::parse(q);
            f(&mut l, &cols, &d);
            l.write(q);
        });
    }

    /// Sets the unpinned columns' order (`order=` as short as it can be).
    fn set_rest(l: &mut Layout, cols: &json::RunTableColumns, rest: &[ColId]) {
        l.order = minimal_order(cols, rest, &l.pinned);
    }

    /// Pins or unpins a column.
    pub fn toggle_pin(&self, c: &ColId) {
        self.edit(|l, _, d| {
            l.pinned = d.pinned_ids();
            l.toggle_pin(c);
        });
    }

    /// Moves a column one place left or right among the pinned or the other columns.
    pub fn move_by(&self, c: &ColId, delta: isize) {
        self.edit(|l, cols, d| {
            if d.is_pinned(c) {
                l.pinned = moved_by(&d.pinned_ids(), c, delta);
            } else {
                Self::set_rest(l, cols, &moved_by(&d.rest_ids(), c, delta));
            }
        });
    }

    /// Moves `c` to where `target` is (a drop); across the pinned edge it pins or unpins.
    pub fn move_to(&self, c: &ColId, target: &ColId) {
        if c == target {
            return;
        }
        self.edit(|l, cols, d| match (d.is_pinned(c), d.is_pinned(target)) {
            (true, true) => l.pinned = moved_to(&d.pinned_ids(), c, target),
            (false, false) => Self::set_rest(l, cols, &moved_to(&d.rest_ids(), c, target)),
            (false, true) => {
                let mut p = d.pinned_ids();
                let at = p.iter().position(|x| x == target).unwrap_or(p.len());
                p.insert(at, c.clone());
                l.pinned = p;
            }
            (true, false) => l.pinned = d.pinned_ids().into_iter().filter(|x| x != c).collect(),
        });
    }

    /// Hides a column (takes it out of the column choice).
    pub fn hide(&self, c: &ColId) {
        let kind = match c.kind {
            Kind::Metric => ColumnKind::Metric,
            Kind::Param => ColumnKind::Param,
            Kind::Tag => ColumnKind::Tag,
        };
        let next = self.columns.with_value(|cols| toggled(cols, kind, &c.key));
        self.on_columns.run(next);
    }

    /// The current width of a column (`run`, … or a value column code).
    pub fn width(&self, id: &str) -> u32 {
        self.layout.with_untracked(|l| l.width(id))
    }

    /// Shows a width while it is dragged.
    pub fn drag_width(&self, id: &str, px: u32) {
        self.live_width
            .set(Some((id.to_owned(), px.max(MIN_WIDTH))));
    }

    /// Writes the dragged width to the URL.
    pub fn commit_width(&self) {
        if let Some((id, px)) = self.live_width.get_untracked() {
            self.qs.update(|q| {
                let mut l = Layout::parse(q);
                l.set_width(&id, px);
                l.write(q);
            });
            self.live_width.set(None);
        }
    }
}

/// What one column header shows and does.
struct Head {
    label: String,
    title: String,
    class: String,
    style: Signal<String>,
    /// Sorts on click.
    sort: Option<Column>,
    /// Id in `w=` (resizable).
    width_id: String,
    /// A value column (draggable, with a menu).
    value: Option<ColId>,
}

/// The sort column of a value column.
fn sort_column(c: &ColId) -> Column {
    match c.kind {
        Kind::Metric => Column::Metric(c.key.clone()),
        Kind::Param => Column::Param(c.key.clone()),
        Kind::Tag => Column::Tag(c.key.clone()),
    }
}

fn head_cell(
    h: LayoutHandle,
    head: Head,
    sort: Signal<String>,
    on_sort: Callback<String>,
) -> impl IntoView {
    let Head {
        label,
        title,
        class,
        style,
        sort: col,
        width_id,
        value,
    } = head;
    let aria = {
        let col = col.clone();
        move || {
            col.as_ref().map(|c| match c.state(&sort.get()) {
                None => "none",
                Some(true) => "descending",
                Some(false) => "ascending",
            })
        }
    };
    let button = match col {
        Some(col) => {
            let (c1, c2) = (col.clone(), col.clone());
            view! {
                <button class="th-button" class:active=move || c1.state(&sort.get()).is_some()
                    on:click=move |_| on_sort.run(col.clicked(&sort.get_untracked()))>
                    <span class="th-label">{label.clone()}</span>
                    <span class="sort-arrow" aria-hidden="true">{move || match c2.state(&sort.get()) {
                        None => "↕",
                        Some(true) => "↓",
                        Some(false) => "↑",
                    }}</span>
                </button>
            }
            .into_any()
        }
        None => view! { <span class="th-label">{label.clone()}</span> }.into_any(),
    };
    let menu_button = value.clone().map(|c| {
        let aria = format!("Column options: {} {}", c.kind.noun(), c.key);
        view! {
            <button class="col-menu-button" type="button" aria-label=aria aria-haspopup="menu"
                on:click=move |ev| {
                    let rect = ev
                        .current_target()
                        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                        .map(|e| e.get_bounding_client_rect());
                    let (x, y) = rect.map_or((0.0, 0.0), |r| (r.right(), r.bottom()));
                    h.menu.set(Some((c.clone(), x, y)));
                }>"⋮"</button>
        }
    });
    let (v1, v2, v3, v4) = (value.clone(), value.clone(), value.clone(), value.clone());
    let is_target = move || v4.is_some() && h.drop_target.get() == v4;
    view! {
        <th class=class style=style aria-sort=aria title=title
            class:drop-target=is_target
            on:dragover=move |ev| {
                if v1.is_some() && h.dragging.with_untracked(Option::is_some) {
                    ev.prevent_default();
                    if h.drop_target.get_untracked() != v1 {
                        h.drop_target.set(v1.clone());
                    }
                }
            }
            on:drop=move |ev| {
                ev.prevent_default();
                if let (Some(from), Some(to)) = (h.dragging.get_untracked(), v2.clone()) {
                    h.move_to(&from, &to);
                }
                h.dragging.set(None);
                h.drop_target.set(None);
            }>
            <div class="th-inner" draggable=if v3.is_some() { "true" } else { "false" }
                on:dragstart=move |ev| {
                    match value.clone() {
                        Some(c) => {
                            if let Some(dt) = ev.data_transfer() {
                                let _ = dt.set_data("text/plain", &c.code());
                                dt.set_effect_allowed("move");
                            }
                            h.dragging.set(Some(c));
                        }
                        None => ev.prevent_default(),
                    }
                }
                on:dragend=move |_| {
                    h.dragging.set(None);
                    h.drop_target.set(None);
                }>
                {button}
                {menu_button}
            </div>
            {resizer(h, width_id)}
        </th>
    }
}

/// The drag handle on a header's right edge.
fn resizer(h: LayoutHandle, id: String) -> impl IntoView {
    let start = StoredValue::new(None::<(i32, u32)>);
    let id_move = id.clone();
    view! {
        <span class="col-resizer" aria-hidden="true" data-col=id.clone()
            on:click=|ev| ev.stop_propagation()
            on:pointerdown=move |ev| {
                ev.prevent_default();
                ev.stop_propagation();
                if let Some(el) = ev.target().and_then(|t| t.dyn_into::<web_sys::Element>().ok()) {
                    let _ = el.set_pointer_capture(ev.pointer_id());
                }
                start.set_value(Some((ev.client_x(), h.width(&id))));
            }
            on:pointermove=move |ev| {
                if let Some((x0, w0)) = start.get_value() {
                    let w = (i64::from(w0) + i64::from(ev.client_x() - x0)).max(0);
                    h.drag_width(&id_move, u32::try_from(w).unwrap_or(0));
                }
            }
            on:pointerup=move |_| {
                if start.get_value().is_some() {
                    start.set_value(None);
                    h.commit_width();
                }
            }
            on:pointercancel=move |_| {
                start.set_value(None);
                h.commit_width();
            }
        ></span>
    }
}

/// CSS `left` of a pinned column (after the checkbox and Run columns), following width
/// changes.
pub fn pinned_style(h: LayoutHandle, c: ColId) -> Signal<String> {
    Signal::derive(move || {
        h.display
            .with(|d| d.left_of(&c))
            .map(|left| format!("left: calc(var(--sel-w) + var(--run-w) + {left}px)"))
            .unwrap_or_default()
    })
}

fn value_head(h: LayoutHandle, s: &Shown) -> Head {
    let code = s.id.code();
    let kind = s.id.kind.noun();
    let (class, style) = match s.left {
        Some(_) => (
            format!("sortable col-value kind-{kind} sticky pinned"),
            pinned_style(h, s.id.clone()),
        ),
        None => (format!("sortable col-value kind-{kind}"), Signal::default()),
    };
    Head {
        label: s.id.key.clone(),
        title: s.id.key.clone(),
        class: if s.id.kind == Kind::Metric {
            format!("{class} num")
        } else {
            class
        },
        style,
        sort: Some(sort_column(&s.id)),
        width_id: code,
        value: Some(s.id.clone()),
    }
}

/// The group row: one cell per run of adjacent same-kind columns, labelled.
fn group_row(h: LayoutHandle, d: &Display) -> impl IntoView {
    let cells = |cols: &[Shown], pinned: bool| {
        let ids: Vec<ColId> = cols.iter().map(|s| s.id.clone()).collect();
        let mut at = 0;
        groups(&ids)
            .into_iter()
            .map(|g| {
                let style = if pinned {
                    pinned_style(h, cols[at].id.clone())
                } else {
                    Signal::default()
                };
                at += g.span;
                let class = format!(
                    "group-cell kind-{}{}",
                    g.kind.noun(),
                    if pinned { " sticky pinned" } else { "" }
                );
                let title = if pinned {
                    format!("Pinned {}", g.kind.label().to_lowercase())
                } else {
                    g.kind.label().to_owned()
                };
                view! {
                    <th class=class colspan=g.span style=style scope="colgroup" title=title>
                        <span class="group-label">{g.kind.label()}</span>
                    </th>
                }
            })
            .collect_view()
    };
    view! {
        <tr class="group-row">
            <th class="group-cell sticky group-fixed" colspan="2" style="left: 0"></th>
            {cells(&d.pinned, true)}
            <th class="group-cell group-fixed" colspan=ATTR_COLUMNS></th>
            {cells(&d.rest, false)}
            <th class="filler"></th>
        </tr>
    }
}

/// The header checkbox: whether every shown row is selected, some are, or none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AllState {
    /// No shown row is selected.
    None,
    /// Some are.
    Some,
    /// Every shown row is.
    All,
}

/// Both header rows.
#[component]
pub fn HeaderRows(
    /// The table's layout.
    h: LayoutHandle,
    /// The current order_by clause.
    sort: Signal<String>,
    /// Called with the new order_by clause when a header is clicked.
    on_sort: Callback<String>,
    /// Selection state of the shown rows.
    #[prop(into)]
    all: Signal<AllState>,
    /// Selects (true) or unselects every shown row.
    on_select_all: Callback<bool>,
) -> impl IntoView {
    let fixed = move |label: &str, id: &str, col: Option<Column>, class: &str, style: &str| Head {
        label: label.to_owned(),
        title: label.to_owned(),
        class: class.to_owned(),
        style: Signal::stored(style.to_owned()),
        sort: col,
        width_id: id.to_owned(),
        value: None,
    };
    let cell = move |head: Head| head_cell(h, head, sort, on_sort);
    let columns = move || {
        let d = h.shape.get();
        view! {
            <tr class="col-row">
                <th class="sel-cell sticky" style="left: 0">
                    <input type="checkbox" class="select-all" aria-label="Select all shown runs"
                        prop:checked=move || all.get() == AllState::All
                        prop:indeterminate=move || all.get() == AllState::Some
                        on:change=move |ev| on_select_all.run(event_target_checked(&ev)) />
                </th>
                {cell(fixed("Run", "run", Some(Column::Attr("run_name")), "sortable col-run sticky", "left: var(--sel-w)"))}
                {d.pinned.iter().map(|s| cell(value_head(h, s))).collect_view()}
                {cell(fixed("Status", "status", Some(Column::Attr("status")), "sortable col-status", ""))}
                {cell(fixed("Started", "start", Some(Column::Attr("start_time")), "sortable col-time", ""))}
                {cell(fixed("Duration", "dur", None, "num col-duration", ""))}
                {cell(fixed("User", "user", Some(Column::Attr("user_id")), "sortable col-user", ""))}
                {d.rest.iter().map(|s| cell(value_head(h, s))).collect_view()}
                <th class="filler"></th>
            </tr>
        }
    };
    view! {
        {move || h.shape.with(|d| group_row(h, d))}
        {columns}
    }
}

/// The open column menu (pin, move, hide), drawn over the page at its button.
#[component]
pub fn ColumnMenu(
    /// The table's layout.
    h: LayoutHandle,
) -> impl IntoView {
    let close = move || h.menu.set(None);
    // Keyboard users land in the menu when it opens.
    let first = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = first.get() {
            let _ = b.focus();
        }
    });
    move || {
        h.menu.get().map(|(c, x, y)| {
            let width = 200.0;
            let vw = window()
                .inner_width()
                .ok()
                .and_then(|v| v.as_f64())
                .unwrap_or(1024.0);
            let left = (x - width).clamp(8.0, (vw - width - 8.0).max(8.0));
            let pinned = h.display.with_untracked(|d| d.is_pinned(&c));
            let style = format!("top: {}px; left: {left}px; width: {width}px", y + 4.0);
            let item = |label: &'static str, f: Box<dyn Fn()>| {
                view! {
                    <button type="button" role="menuitem" class="menu-item"
                        on:click=move |_| { f(); close(); }>{label}</button>
                }
            };
            let pin_label = if pinned { "Unpin column" } else { "Pin column" };
            let c0 = c.clone();
            let (c2, c3, c4) = (c.clone(), c.clone(), c.clone());
            view! {
                <div class="col-menu-backdrop" on:click=move |_| close()></div>
                <div class="col-menu" role="menu" style=style
                    aria-label=format!("{} {}", c.kind.noun(), c.key)
                    on:keydown=move |ev| if ev.key() == "Escape" { close() }>
                    <div class="col-menu-title" title=c.key.clone()>
                        <span class="muted small">{c.kind.noun()}" "</span>{c.key.clone()}
                    </div>
                    <button type="button" role="menuitem" class="menu-item" node_ref=first
                        on:click=move |_| { h.toggle_pin(&c0); close(); }>{pin_label}</button>
                    {item("Move left", Box::new(move || h.move_by(&c2, -1)))}
                    {item("Move right", Box::new(move || h.move_by(&c3, 1)))}
                    {item("Hide column", Box::new(move || h.hide(&c4)))}
                </div>
            }
        })
    }
}
