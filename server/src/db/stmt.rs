//! Prepared statements and the rows they answer.

use rusqlite::types::{ToSqlOutput, ValueRef as SqliteRef};

use super::pg::PgConn;
use super::{DbError, FromValue, Params, Result, ValueRef};

impl rusqlite::ToSql for ValueRef<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match *self {
            ValueRef::Null => SqliteRef::Null,
            ValueRef::Integer(i) => SqliteRef::Integer(i),
            ValueRef::Real(f) => SqliteRef::Real(f),
            ValueRef::Text(s) => SqliteRef::Text(s.as_bytes()),
            ValueRef::Blob(b) => SqliteRef::Blob(b),
        }))
    }
}

/// The values of `params`, ready for rusqlite.
fn bind<P: Params>(params: &P) -> Result<rusqlite::ParamsFromIter<Vec<ValueRef<'_>>>> {
    Ok(rusqlite::params_from_iter(params.values()?))
}

enum Inner<'c> {
    Cached(rusqlite::CachedStatement<'c>),
    Plain(rusqlite::Statement<'c>),
    Pg(&'c PgConn, tokio_postgres::Statement),
}

/// A prepared statement of a [`super::Conn`].
pub struct Stmt<'c> {
    inner: Inner<'c>,
}

impl<'c> Stmt<'c> {
    pub(super) fn cached(s: rusqlite::CachedStatement<'c>) -> Self {
        Stmt {
            inner: Inner::Cached(s),
        }
    }

    pub(super) fn plain(s: rusqlite::Statement<'c>) -> Self {
        Stmt {
            inner: Inner::Plain(s),
        }
    }

    pub(super) fn pg(conn: &'c PgConn, s: tokio_postgres::Statement) -> Self {
        Stmt {
            inner: Inner::Pg(conn, s),
        }
    }

    /// How many columns the statement's rows have.
    pub fn column_count(&self) -> usize {
        match &self.inner {
            Inner::Cached(s) => s.column_count(),
            Inner::Plain(s) => s.column_count(),
            Inner::Pg(_, s) => s.columns().len(),
        }
    }

    /// Runs the statement and returns how many rows it changed.
    pub fn execute<P: Params>(&mut self, params: P) -> Result<usize> {
        match &mut self.inner {
            Inner::Cached(s) => Ok(s.execute(bind(&params)?)?),
            Inner::Plain(s) => Ok(s.execute(bind(&params)?)?),
            Inner::Pg(c, s) => c.execute(s, &params.values()?),
        }
    }

    /// Runs the query; its rows come from [`Rows::next`].
    pub(crate) fn query<P: Params>(&mut self, params: P) -> Result<Rows<'_>> {
        let inner = match &mut self.inner {
            Inner::Cached(s) => RowsInner::Sqlite(s.query(bind(&params)?)?),
            Inner::Plain(s) => RowsInner::Sqlite(s.query(bind(&params)?)?),
            Inner::Pg(c, s) => RowsInner::Pg(c.query(s, &params.values()?)?, 0),
        };
        Ok(Rows { inner })
    }

    /// The first row, decoded by `f`; the no-rows error when there is none.
    pub(crate) fn query_row<T, P, F>(&mut self, params: P, f: F) -> Result<T>
    where
        P: Params,
        F: FnOnce(&Row<'_>) -> Result<T>,
    {
        let mut rows = self.query(params)?;
        match rows.next()? {
            Some(row) => f(&row),
            None => Err(DbError::NoRows),
        }
    }

    /// Every row, each decoded by `f`, as an iterator.
    pub fn query_map<T, P, F>(&mut self, params: P, f: F) -> Result<MappedRows<'_, F>>
    where
        P: Params,
        F: FnMut(&Row<'_>) -> Result<T>,
    {
        Ok(MappedRows {
            rows: self.query(params)?,
            f,
        })
    }

    /// Whether the query answers at least one row.
    pub fn exists<P: Params>(&mut self, params: P) -> Result<bool> {
        Ok(self.query(params)?.next()?.is_some())
    }
}

/// The rows of a query, read one at a time.
pub(crate) struct Rows<'s> {
    inner: RowsInner<'s>,
}

enum RowsInner<'s> {
    Sqlite(rusqlite::Rows<'s>),
    /// PostgreSQL's answer, read whole (one connection can then run the next query while
    /// the caller walks these rows), and the index of the next row.
    Pg(Vec<tokio_postgres::Row>, usize),
}

impl Rows<'_> {
    /// The next row, `None` after the last.
    #[allow(clippy::should_implement_trait)]
    pub(crate) fn next(&mut self) -> Result<Option<Row<'_>>> {
        match &mut self.inner {
            RowsInner::Sqlite(rows) => Ok(rows.next()?.map(|r| Row {
                inner: RowInner::Sqlite(r),
            })),
            RowsInner::Pg(rows, at) => {
                let row = rows.get(*at);
                *at += 1;
                Ok(row.map(|r| Row {
                    inner: RowInner::Pg(r),
                }))
            }
        }
    }
}

/// An iterator over a query's rows, each decoded by a closure.
pub struct MappedRows<'s, F> {
    rows: Rows<'s>,
    f: F,
}

impl<T, F> Iterator for MappedRows<'_, F>
where
    F: FnMut(&Row<'_>) -> Result<T>,
{
    type Item = Result<T>;

    fn next(&mut self) -> Option<Result<T>> {
        match self.rows.next() {
            Ok(Some(row)) => Some((self.f)(&row)),
            Ok(None) => None,
            Err(e) => Some(Err(e)),
        }
    }
}

/// One row of a query's answer.
pub struct Row<'r> {
    inner: RowInner<'r>,
}

enum RowInner<'r> {
    Sqlite(&'r rusqlite::Row<'r>),
    Pg(&'r tokio_postgres::Row),
}

impl Row<'_> {
    /// Column `index` (from 0) decoded as `T`.
    pub fn get<I: ColumnIndex, T: FromValue>(&self, index: I) -> Result<T> {
        let index = index.index();
        T::from_value(self.get_ref(index)?, index)
    }

    /// Column `index` (from 0) as it is stored, borrowed from the row (a large blob
    /// without a copy).
    pub(crate) fn get_ref<I: ColumnIndex>(&self, index: I) -> Result<ValueRef<'_>> {
        let index = index.index();
        let r = match self.inner {
            RowInner::Sqlite(r) => r,
            RowInner::Pg(r) => return super::pg::value_at(r, index),
        };
        Ok(match r.get_ref(index)? {
            SqliteRef::Null => ValueRef::Null,
            SqliteRef::Integer(i) => ValueRef::Integer(i),
            SqliteRef::Real(f) => ValueRef::Real(f),
            SqliteRef::Text(t) => {
                ValueRef::Text(std::str::from_utf8(t).map_err(|e| DbError::column(index, e))?)
            }
            SqliteRef::Blob(b) => ValueRef::Blob(b),
        })
    }
}

/// What names a column of a [`Row`]: its position from 0.
pub trait ColumnIndex {
    /// The position.
    fn index(self) -> usize;
}

impl ColumnIndex for usize {
    fn index(self) -> usize {
        self
    }
}
