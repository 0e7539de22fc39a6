//! The runs table's column layout, kept in the URL (keys documented in `runs_table.rs`):
//! which value columns are pinned (`pin=`), the order the user gave them (`order=`) and
//! the widths changed by hand (`w=`). Pure functions over [`Query`], tested natively.
//!
//! A value column is named by a short id: `m.<key>` (metric), `p.<key>` (param),
//! `t.<key>` (tag). MLflow keys never contain `,`, so ids are comma-separated as is.

use api_types as json;

use crate::query::Query;

/// What a value column shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A metric's latest value.
    Metric,
    /// A param.
    Param,
    /// A tag.
    Tag,
}

impl Kind {
    /// Every kind, in the default display order (metrics before params).
    pub const ALL: [Kind; 3] = [Kind::Metric, Kind::Param, Kind::Tag];

    fn prefix(self) -> &'static str {
        match self {
            Kind::Metric => "m.",
            Kind::Param => "p.",
            Kind::Tag => "t.",
        }
    }

    /// The column group's label.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Metric => "Metrics",
            Kind::Param => "Params",
            Kind::Tag => "Tags",
        }
    }

    /// One column's kind in words ("metric").
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Metric => "metric",
            Kind::Param => "param",
            Kind::Tag => "tag",
        }
    }

    /// The keys of this kind in `cols`.
    pub fn keys(self, cols: &json::RunTableColumns) -> &[String] {
        match self {
            Kind::Metric => &cols.metrics,
            Kind::Param => &cols.params,
            Kind::Tag => &cols.tags,
        }
    }
}

/// A value column: a kind and a key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ColId {
    /// Metric, param or tag.
    pub kind: Kind,
    /// The key.
    pub key: String,
}

impl ColId {
    /// A column of `kind` for `key`.
    pub fn new(kind: Kind, key: impl Into<String>) -> Self {
        ColId {
            kind,
            key: key.into(),
        }
    }

    /// The URL id (`m.loss`).
    pub fn code(&self) -> String {
        format!("{}{}", self.kind.prefix(), self.key)
    }

    /// Parses [`ColId::code`].
    pub fn parse(s: &str) -> Option<ColId> {
        Kind::ALL.into_iter().find_map(|k| {
            s.strip_prefix(k.prefix())
                .filter(|key| !key.is_empty())
                .map(|key| ColId::new(k, key))
        })
    }
}

/// Fixed columns whose width can be changed: (id in `w=`, default width).
pub const FIXED_WIDTHS: [(&str, u32); 5] = [
    ("run", 280),
    ("status", 110),
    ("start", 130),
    ("dur", 100),
    ("user", 150),
];

/// Width of the checkbox column (not resizable).
pub const SELECT_WIDTH: u32 = 64;

/// Narrowest default width of a value column.
pub const VALUE_WIDTH: u32 = 130;
/// Widest default width of a value column: longer keys are cut, with the full key on hover.
pub const VALUE_WIDTH_FIT: u32 = 360;

/// The header's room besides its label: padding, sort arrow, column menu, gaps (px).
const HEAD_CHROME: u32 = 54;
/// A header character's advance at 12 px semibold in tenths of a px: measured 8.1 px
/// for DejaVu Sans (Debian's default sans, among the widest), rounded up.
const HEAD_CHAR_TENTHS: u32 = 85;

/// Default width of the fixed column `id` (`run`, …) or of a value column code: wide
/// enough for the key in its header, between [`VALUE_WIDTH`] and [`VALUE_WIDTH_FIT`].
pub fn default_width(id: &str) -> u32 {
    if let Some((_, w)) = FIXED_WIDTHS.iter().find(|(f, _)| *f == id) {
        return *w;
    }
    let key = ColId::parse(id).map_or(0, |c| c.key.chars().count());
    (HEAD_CHROME + (HEAD_CHAR_TENTHS * key as u32).div_ceil(10)).clamp(VALUE_WIDTH, VALUE_WIDTH_FIT)
}

/// Narrowest and widest a column may be made.
pub const MIN_WIDTH: u32 = 56;
/// See [`MIN_WIDTH`].
pub const MAX_WIDTH: u32 = 900;

/// The layout the URL asks for.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Layout {
    /// Pinned value columns, in pin order.
    pub pinned: Vec<ColId>,
    /// Columns the user placed, in display order (the rest follow in default order).
    pub order: Vec<ColId>,
    /// Widths set by hand: (`run`/`status`/… or a column code, px).
    pub widths: Vec<(String, u32)>,
}

fn col_list(q: &Query, key: &str) -> Vec<ColId> {
    let mut out: Vec<ColId> = Vec::new();
    for c in q
        .get(key)
        .unwrap_or_default()
        .split(',')
        .filter_map(ColId::parse)
    {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

fn set_col_list(q: &mut Query, key: &str, cols: &[ColId]) {
    let v = cols.iter().map(ColId::code).collect::<Vec<_>>().join(",");
    q.set(key, (!v.is_empty()).then_some(v));
}

impl Layout {
    /// Reads `pin=`, `order=` and `w=`; unreadable entries are skipped.
    pub fn parse(q: &Query) -> Layout {
        let widths = q
            .get("w")
            .unwrap_or_default()
            .split(',')
            .filter_map(|e| {
                let (id, px) = e.rsplit_once(':')?;
                let px: u32 = px.parse().ok()?;
                let known =
                    FIXED_WIDTHS.iter().any(|(f, _)| *f == id) || ColId::parse(id).is_some();
                known.then(|| (id.to_owned(), px.clamp(MIN_WIDTH, MAX_WIDTH)))
            })
            .fold(Vec::<(String, u32)>::new(), |mut acc, (id, px)| {
                if !acc.iter().any(|(i, _)| *i == id) {
                    acc.push((id, px));
                }
                acc
            });
        Layout {
            pinned: col_list(q, "pin"),
            order: col_list(q, "order"),
            widths,
        }
    }

    /// Writes the layout back (empty parts remove their key).
    pub fn write(&self, q: &mut Query) {
        set_col_list(q, "pin", &self.pinned);
        set_col_list(q, "order", &self.order);
        let w = self
            .widths
            .iter()
            .map(|(id, px)| format!("{id}:{px}"))
            .collect::<Vec<_>>()
            .join(",");
        q.set("w", (!w.is_empty()).then_some(w));
    }

    /// The width of a fixed column (`run`, …) or a value column code.
    pub fn width(&self, id: &str) -> u32 {
        self.widths
            .iter()
            .find(|(i, _)| i == id)
            .map_or_else(|| default_width(id), |(_, px)| *px)
    }

    /// Sets a width by hand; the default width removes the entry.
    pub fn set_width(&mut self, id: &str, px: u32) {
        let px = px.clamp(MIN_WIDTH, MAX_WIDTH);
        self.widths.retain(|(i, _)| i != id);
        if px != default_width(id) {
            self.widths.push((id.to_owned(), px));
        }
    }

    /// Pins `c` (at the end of the pinned ones) or unpins it.
    pub fn toggle_pin(&mut self, c: &ColId) {
        match self.pinned.iter().position(|p| p == c) {
            Some(i) => {
                self.pinned.remove(i);
            }
            None => self.pinned.push(c.clone()),
        }
    }
}

/// Every shown value column in the default order: metrics, then params, then tags.
pub fn default_order(cols: &json::RunTableColumns) -> Vec<ColId> {
    Kind::ALL
        .into_iter()
        .flat_map(|k| {
            k.keys(cols)
                .iter()
                .map(move |key| ColId::new(k, key.clone()))
        })
        .collect()
}

/// The shown value columns in display order: those `order` names (and `cols` shows),
/// then the rest in [`default_order`].
pub fn arrange(cols: &json::RunTableColumns, order: &[ColId]) -> Vec<ColId> {
    let all = default_order(cols);
    let mut out: Vec<ColId> = order.iter().filter(|c| all.contains(c)).cloned().collect();
    out.extend(all.into_iter().filter(|c| !order.contains(c)));
    out
}

/// The shortest `order=` list that [`arrange`]s `cols` as `wanted` once the `pinned`
/// columns (shown apart) are left out.
pub fn minimal_order(
    cols: &json::RunTableColumns,
    wanted: &[ColId],
    pinned: &[ColId],
) -> Vec<ColId> {
    let unpinned = |list: Vec<ColId>| -> Vec<ColId> {
        list.into_iter().filter(|c| !pinned.contains(c)).collect()
    };
    (0..=wanted.len())
        .map(|n| wanted[..n].to_vec())
        .find(|prefix| unpinned(arrange(cols, prefix)) == wanted)
        .unwrap_or_else(|| wanted.to_vec())
}

/// One shown value column.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shown {
    /// The column.
    pub id: ColId,
    /// Index of its values in the rows' `metrics`/`params`/`tags`.
    pub index: usize,
    /// Width, px.
    pub width: u32,
    /// For a pinned column: px between the Run column's right edge and its left edge.
    pub left: Option<u32>,
}

/// The value columns as displayed: pinned ones (after Run), then the others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Display {
    /// Pinned columns, in pin order.
    pub pinned: Vec<Shown>,
    /// The other columns, in display order.
    pub rest: Vec<Shown>,
}

impl Display {
    /// Lays out `cols` (the columns the rows carry) as `l` says.
    pub fn new(cols: &json::RunTableColumns, l: &Layout) -> Display {
        let arranged = arrange(cols, &l.order);
        let shown = |id: &ColId, left: Option<u32>| Shown {
            index: id
                .kind
                .keys(cols)
                .iter()
                .position(|k| *k == id.key)
                .unwrap_or(0),
            width: l.width(&id.code()),
            left,
            id: id.clone(),
        };
        let mut left = 0;
        let pinned = l
            .pinned
            .iter()
            .filter(|p| arranged.contains(p))
            .map(|p| {
                let s = shown(p, Some(left));
                left += s.width;
                s
            })
            .collect();
        let rest = arranged
            .iter()
            .filter(|c| !l.pinned.contains(c))
            .map(|c| shown(c, None))
            .collect();
        Display { pinned, rest }
    }

    /// The same columns without widths and offsets: what the header and rows are built
    /// from, so dragging a width does not rebuild them.
    pub fn shape(&self) -> Display {
        let bare = |s: &Shown| Shown {
            width: 0,
            left: s.left.map(|_| 0),
            ..s.clone()
        };
        Display {
            pinned: self.pinned.iter().map(bare).collect(),
            rest: self.rest.iter().map(bare).collect(),
        }
    }

    /// The offset of a pinned column (see [`Shown::left`]).
    pub fn left_of(&self, c: &ColId) -> Option<u32> {
        self.pinned.iter().find(|s| s.id == *c).and_then(|s| s.left)
    }

    /// Ids of the pinned columns.
    pub fn pinned_ids(&self) -> Vec<ColId> {
        self.pinned.iter().map(|s| s.id.clone()).collect()
    }

    /// Ids of the other columns.
    pub fn rest_ids(&self) -> Vec<ColId> {
        self.rest.iter().map(|s| s.id.clone()).collect()
    }

    /// Whether `c` is pinned.
    pub fn is_pinned(&self, c: &ColId) -> bool {
        self.pinned.iter().any(|s| s.id == *c)
    }

    /// Total width of every value column, px.
    pub fn width(&self) -> u32 {
        self.pinned.iter().chain(&self.rest).map(|s| s.width).sum()
    }
}

/// `list` with `c` moved to where `target` is (before it when moving left, after it when
/// moving right); unchanged when either is missing.
pub fn moved_to(list: &[ColId], c: &ColId, target: &ColId) -> Vec<ColId> {
    let (Some(from), Some(to)) = (
        list.iter().position(|x| x == c),
        list.iter().position(|x| x == target),
    ) else {
        return list.to_vec();
    };
    let mut out = list.to_vec();
    let item = out.remove(from);
    out.insert(to, item);
    out
}

/// `list` with `c` moved one place left (`-1`) or right (`+1`).
pub fn moved_by(list: &[ColId], c: &ColId, delta: isize) -> Vec<ColId> {
    let Some(from) = list.iter().position(|x| x == c) else {
        return list.to_vec();
    };
    let to = from
        .saturating_add_signed(delta)
        .min(list.len().saturating_sub(1));
    moved_to(list, c, &list[to])
}

/// A run of adjacent columns of one kind: the header group row's cells.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The kind of every column in the run.
    pub kind: Kind,
    /// How many columns.
    pub span: usize,
}

/// The groups of adjacent same-kind columns of `cols`, in order.
pub fn groups(cols: &[ColId]) -> Vec<Group> {
    let mut out: Vec<Group> = Vec::new();
    for c in cols {
        match out.last_mut() {
            Some(g) if g.kind == c.kind => g.span += 1,
            _ => out.push(Group {
                kind: c.kind,
                span: 1,
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cols() -> json::RunTableColumns {
        json::RunTableColumns {
            params: vec!["lr".into(), "opt".into()],
            metrics: vec!["loss".into(), "lr".into()],
            tags: vec!["team".into()],
        }
    }

    fn ids(s: &str) -> Vec<ColId> {
        s.split(',').filter_map(ColId::parse).collect()
    }

    #[test]
    fn ids_round_trip() {
        let c = ColId::new(Kind::Metric, "system/gpu:0.util");
        assert_eq!(c.code(), "m.system/gpu:0.util");
        assert_eq!(ColId::parse(&c.code()), Some(c));
        assert_eq!(ColId::parse("x.lr"), None);
        assert_eq!(ColId::parse("p."), None);
    }

    #[test]
    fn metrics_come_before_params_by_default() {
        assert_eq!(default_order(&cols()), ids("m.loss,m.lr,p.lr,p.opt,t.team"));
        let g = groups(&default_order(&cols()));
        assert_eq!(
            g.iter()
                .map(|g| (g.kind.label(), g.span))
                .collect::<Vec<_>>(),
            vec![("Metrics", 2), ("Params", 2), ("Tags", 1)]
        );
    }

    #[test]
    fn order_keeps_links_short() {
        let c = cols();
        let moved = moved_to(
            &default_order(&c),
            &ColId::new(Kind::Param, "opt"),
            &ColId::new(Kind::Metric, "loss"),
        );
        assert_eq!(moved, ids("p.opt,m.loss,m.lr,p.lr,t.team"));
        let order = minimal_order(&c, &moved, &[]);
        assert_eq!(order, ids("p.opt"));
        assert_eq!(arrange(&c, &order), moved);
        // Pinned columns are left out of the comparison.
        let rest = ids("p.opt,m.lr,p.lr,t.team");
        assert_eq!(minimal_order(&c, &rest, &ids("m.loss")), ids("p.opt"));
        // Moving right past the end stays in place; the default order needs no key.
        let back = moved_by(&moved, &ColId::new(Kind::Param, "opt"), 1);
        assert_eq!(back, ids("m.loss,p.opt,m.lr,p.lr,t.team"));
        assert_eq!(moved_by(&back, &ColId::new(Kind::Tag, "team"), 1), back);
        assert!(minimal_order(&c, &default_order(&c), &[]).is_empty());
        // Columns no longer shown are ignored.
        assert_eq!(
            arrange(&c, &ids("p.gone,t.team")),
            ids("t.team,m.loss,m.lr,p.lr,p.opt")
        );
        // A move left over a run of kinds splits the group row.
        assert_eq!(groups(&moved).len(), 4);
    }

    #[test]
    fn pinned_columns_come_first_with_their_offsets() {
        let mut l = Layout::default();
        l.toggle_pin(&ColId::new(Kind::Param, "opt"));
        l.toggle_pin(&ColId::new(Kind::Tag, "gone"));
        l.toggle_pin(&ColId::new(Kind::Metric, "lr"));
        l.set_width("p.opt", 200);
        let d = Display::new(&cols(), &l);
        assert_eq!(d.pinned_ids(), ids("p.opt,m.lr"));
        assert_eq!(
            d.pinned
                .iter()
                .map(|s| (s.index, s.left))
                .collect::<Vec<_>>(),
            vec![(1, Some(0)), (1, Some(200))]
        );
        assert_eq!(d.rest_ids(), ids("m.loss,p.lr,t.team"));
        assert_eq!(d.width(), 200 + 4 * VALUE_WIDTH);
        assert!(d.is_pinned(&ColId::new(Kind::Metric, "lr")));
        assert_eq!(d.left_of(&ColId::new(Kind::Metric, "lr")), Some(200));
        // Widths change the layout, not its shape.
        l.set_width("p.opt", 300);
        let wider = Display::new(&cols(), &l);
        assert_ne!(wider, d);
        assert_eq!(wider.shape(), d.shape());
        assert!(!d.is_pinned(&ColId::new(Kind::Param, "lr")));
    }

    #[test]
    fn value_columns_default_to_the_width_their_key_needs() {
        assert_eq!(default_width("run"), 280);
        assert_eq!(default_width("m.loss"), VALUE_WIDTH);
        // A key no wider than the narrowest column needs keeps it; longer keys widen it.
        let long = "m.validation_accuracy_epoch";
        assert!(default_width(long) > VALUE_WIDTH);
        assert!(default_width(long) >= HEAD_CHROME + 8 * 25);
        assert!(default_width("t.mlflow.source.git.commit") > default_width("t.team"));
        assert_eq!(
            default_width(&format!("p.{}", "k".repeat(500))),
            VALUE_WIDTH_FIT
        );
        // Only a width other than the key's own is kept in the link.
        let mut l = Layout::default();
        l.set_width(long, default_width(long));
        assert!(l.widths.is_empty());
        assert_eq!(l.width(long), default_width(long));
    }

    #[test]
    fn layout_round_trips_through_the_url() {
        let mut l = Layout::default();
        l.toggle_pin(&ColId::new(Kind::Metric, "loss"));
        l.toggle_pin(&ColId::new(Kind::Param, "lr"));
        l.set_width("run", 320);
        l.set_width("m.loss", 200);
        l.set_width("p.lr", VALUE_WIDTH);
        l.order = ids("p.opt");
        let mut q = Query::parse("?sel=a");
        l.write(&mut q);
        assert_eq!(
            q.encode(),
            "sel=a&pin=m.loss,p.lr&order=p.opt&w=run:320,m.loss:200"
        );
        let back = Layout::parse(&q);
        assert_eq!(back, l);
        assert_eq!(back.width("run"), 320);
        assert_eq!(back.width("status"), 110);
        assert_eq!(back.width("p.opt"), VALUE_WIDTH);
        l.toggle_pin(&ColId::new(Kind::Metric, "loss"));
        assert_eq!(l.pinned, ids("p.lr"));
        l.set_width("run", 280);
        l.write(&mut q);
        assert_eq!(q.encode(), "sel=a&pin=p.lr&order=p.opt&w=m.loss:200");
    }

    #[test]
    fn bad_url_values_are_skipped() {
        let q = Query::parse("?w=run:abc,x:100,m.a:5,m.a:300,m.b:99999&pin=zz,m.a,m.a");
        let l = Layout::parse(&q);
        assert_eq!(
            l.widths,
            vec![("m.a".to_owned(), MIN_WIDTH), ("m.b".to_owned(), MAX_WIDTH)]
        );
        assert_eq!(l.pinned, ids("m.a"));
    }
}
