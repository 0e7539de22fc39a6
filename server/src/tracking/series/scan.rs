//! A scan of a series' stored points in an index's order, for the charts the block path
//! cannot serve (a time axis over timestamps that go back, another metric as x, narrow
//! ranges). It reads [`PAGE`] points a statement, each page starting after the last point
//! of the one before (keyset): a PostgreSQL answer is held whole before it is walked, so
//! one statement over a series of 10M points would hold them all, where SQLite streams.
//! Pure reading: the reducers that consume it live in `query`.

use crate::db::{params_from_iter, Conn, Value};
use crate::Error;

/// Points a statement reads.
pub(super) const PAGE: usize = 65_536;

/// A stored point: `(step, timestamp, is_nan, value)`, NaN stored as `(true, 0.0)`.
pub(super) type Stored = (i64, i64, bool, f64);

/// The index order a scan follows, and the x its range bounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Order {
    /// `(step, timestamp, is_nan, value)`: the primary key's.
    Step,
    /// `(timestamp, step, is_nan, value)`: `metric_points_by_time`'s.
    Time,
}

impl Order {
    /// The x column and the key columns, in order.
    fn columns(self) -> (&'static str, &'static str) {
        match self {
            Order::Step => ("step", "step, timestamp, is_nan, value"),
            Order::Time => ("timestamp", "timestamp, step, is_nan, value"),
        }
    }

    /// `p`'s key values, in [`Order::columns`]' order.
    fn key(self, p: &Stored) -> [Value; 4] {
        let (first, second) = match self {
            Order::Step => (p.0, p.1),
            Order::Time => (p.1, p.0),
        };
        [
            Value::Integer(first),
            Value::Integer(second),
            Value::Integer(i64::from(p.2)),
            Value::Real(p.3),
        ]
    }
}

/// The points of series `sid` whose x (per `order`) is in `lo..=hi`, finite ones only if
/// `finite_only` (NaN left out; infinities kept), in `order`, `page` points a statement.
pub(super) struct Scan<'c> {
    c: &'c Conn,
    sid: i64,
    order: Order,
    range: (i64, i64),
    finite_only: bool,
    page: usize,
    read: std::vec::IntoIter<Stored>,
    last: Option<Stored>,
    done: bool,
}

impl<'c> Scan<'c> {
    /// A scan of [`PAGE`] points a statement.
    pub(crate) fn new(
        c: &'c Conn,
        sid: i64,
        order: Order,
        range: (i64, i64),
        finite_only: bool,
    ) -> Self {
        Self::paged(c, sid, order, range, finite_only, PAGE)
    }

    /// A scan of `page` (at least 1) points a statement.
    pub(crate) fn paged(
        c: &'c Conn,
        sid: i64,
        order: Order,
        range: (i64, i64),
        finite_only: bool,
        page: usize,
    ) -> Self {
        Scan {
            c,
            sid,
            order,
            range,
            finite_only,
            page: page.max(1),
            read: Vec::new().into_iter(),
            last: None,
            done: false,
        }
    }

    /// Reads the next page; false when there was none.
    fn read_page(&mut self) -> Result<bool, Error> {
        let (x, keys) = self.order.columns();
        let nan = if self.finite_only {
            " AND is_nan = 0"
        } else {
            ""
        };
        let after = if self.last.is_some() {
            format!(" AND ({keys}) > (?4, ?5, ?6, ?7)")
        } else {
            String::new()
        };
        let sql = format!(
            "SELECT step, timestamp, is_nan, value FROM metric_points
              WHERE series_id = ?1 AND {x} BETWEEN ?2 AND ?3{nan}{after}
              ORDER BY {keys} LIMIT {}",
            self.page
        );
        let mut args = vec![
            Value::Integer(self.sid),
            Value::Integer(self.range.0),
            Value::Integer(self.range.1),
        ];
        if let Some(last) = &self.last {
            args.extend(self.order.key(last));
        }
        let mut stmt = self.c.prepare_cached(&sql)?;
        let mut rows = stmt.query(params_from_iter(args))?;
        let mut page = Vec::with_capacity(self.page.min(PAGE));
        while let Some(r) = rows.next()? {
            page.push((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?));
        }
        self.done = page.len() < self.page;
        self.last = page.last().copied().or(self.last);
        let any = !page.is_empty();
        self.read = page.into_iter();
        Ok(any)
    }
}

impl Iterator for Scan<'_> {
    type Item = Result<Stored, Error>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(p) = self.read.next() {
            return Some(Ok(p));
        }
        if self.done {
            return None;
        }
        match self.read_page() {
            Ok(true) => self.read.next().map(Ok),
            Ok(false) => None,
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}
