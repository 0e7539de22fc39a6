//! The PostgreSQL side of the seam: a deadpool pool of tokio-postgres clients behind the
//! same synchronous calls as SQLite. The pool and every connection task run on a small
//! runtime of the store's own; a call blocks its thread on the client's answer (a
//! channel), never on that runtime, so it is safe from `spawn_blocking` threads and from
//! inside a `#[tokio::test]` alike. One SQL text serves both engines: `?N` and bare `?`
//! become `$N` (`translate`), and values are coerced to the parameter types PostgreSQL
//! inferred (`bind`) and read back from the column types (`value_at`).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::NoTls;

use super::{DbError, Result, ValueRef};

pub(crate) mod notify;

/// Waits for `f` on the calling thread. tokio-postgres's client futures only talk to the
/// connection task over channels, so they need no runtime of their own.
///
/// `f` is polled `unconstrained`, outside tokio's cooperative budget: the calling thread
/// may be inside another runtime's task (a `#[tokio::test]`, the demo's ticks) whose
/// budget is spent. Tokio resources polled then (a join handle, the semaphore of
/// deadpool's statement cache on a cache miss) answer `Pending` and defer their wake-up
/// to that runtime, which this blocked thread never lets run: the call would hang.
pub(super) fn wait<F: Future>(f: F) -> F::Output {
    futures_executor::block_on(tokio::task::unconstrained(f))
}

/// A runtime that shuts down in the background when dropped (dropping a runtime inside
/// another one's task would panic), then runs the pool's close hook, if any.
struct OwnedRuntime {
    rt: Option<tokio::runtime::Runtime>,
    on_close: std::sync::Mutex<Option<CloseHook>>,
}

/// What runs once the last clone of a pool is gone (see [`PgPool::on_close`]).
type CloseHook = Box<dyn FnOnce() + Send>;

impl Drop for OwnedRuntime {
    fn drop(&mut self) {
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
        let hook = self
            .on_close
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        if let Some(hook) = hook {
            hook();
        }
    }
}

/// A pool of PostgreSQL connections.
#[derive(Clone)]
pub struct PgPool {
    pool: Pool,
    rt: Arc<OwnedRuntime>,
    /// Where the pool connects (for the `LISTEN` session of [`notify`]).
    config: Arc<tokio_postgres::Config>,
    /// The pool's one `LISTEN` session, shared by its clones ([`PgPool::listen`]).
    listening: Arc<notify::Listening>,
}

impl std::fmt::Debug for PgPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgPool")
            .field("size", &self.pool.status().max_size)
            .finish()
    }
}

impl PgPool {
    /// A pool of at most `size` connections to `url` (`postgres://user:pass@host:port/db`).
    /// Connects once to check the URL.
    pub fn connect(url: &str, size: usize) -> Result<Self> {
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e: tokio_postgres::Error| DbError::Pool(format!("database URL: {e}")))?;
        // No JIT compilation: the store's statements are short, but a generic plan's row
        // estimates can pass `jit_above_cost`, and then compiling costs more than running
        // (measured: 260 ms of JIT for a 22 ms chart read). Options the URL gives come first.
        let options = format!("{} -c jit=off", config.get_options().unwrap_or_default());
        config.options(options.trim_start());
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("runlens-pg")
            .enable_all()
            .build()
            .map_err(|e| DbError::Pool(format!("database runtime: {e}")))?;
        let manager = {
            let _in_rt = rt.enter();
            Manager::from_config(
                config.clone(),
                NoTls,
                ManagerConfig {
                    recycling_method: RecyclingMethod::Fast,
                },
            )
        };
        let pool = Pool::builder(manager)
            .max_size(size)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(Duration::from_secs(30)))
            .create_timeout(Some(Duration::from_secs(30)))
            .build()
            .map_err(|e| pool_error(&e))?;
        let pool = PgPool {
            pool,
            rt: Arc::new(OwnedRuntime {
                rt: Some(rt),
                on_close: std::sync::Mutex::new(None),
            }),
            config: Arc::new(config),
            listening: Arc::default(),
        };
        drop(pool.get()?);
        Ok(pool)
    }

    /// A connection from the pool (back to it when dropped).
    pub fn get(&self) -> Result<super::Conn> {
        let pool = self.pool.clone();
        let rt = self.runtime();
        let client = wait(rt.spawn(async move { pool.get().await }))
            .map_err(|e| pool_error(&e))?
            .map_err(|e| pool_error(&e))?;
        Ok(super::Conn::from_pg(PgConn {
            client,
            rt: rt.handle().clone(),
        }))
    }

    /// A connection of its own outside the pool, with its task on the pool's runtime
    /// (for `LISTEN`, which must stay on one session).
    pub(crate) fn runtime(&self) -> &tokio::runtime::Runtime {
        self.rt
            .rt
            .as_ref()
            .expect("runtime lives as long as the pool")
    }

    /// Runs `hook` once every clone of this pool has been dropped and its runtime, with
    /// the connections' tasks, shut down (tests drop their database there). A second call
    /// replaces the first hook.
    pub(crate) fn on_close(&self, hook: impl FnOnce() + Send + 'static) {
        *self
            .rt
            .on_close
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Some(Box::new(hook));
    }
}

/// Creates the database `name` on the server at `admin_url` (any database there the user
/// may connect to), as a copy of `template` when given. For tests and `migrate-store`.
pub fn create_database(admin_url: &str, name: &str, template: Option<&str>) -> Result<()> {
    let quoted = |n: &str| format!("\"{}\"", n.replace('"', "\"\""));
    let sql = match template {
        Some(t) => format!(
            "CREATE DATABASE {} TEMPLATE {} STRATEGY WAL_LOG",
            quoted(name),
            quoted(t)
        ),
        None => format!("CREATE DATABASE {}", quoted(name)),
    };
    let pool = PgPool::connect(admin_url, 1)?;
    let conn = pool.get()?;
    conn.execute_batch(&sql)
}

/// `url` with its database name replaced by `name`.
pub fn with_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let cut = base
        .find("://")
        .map(|scheme| scheme + 3)
        .and_then(|host| base[host..].find('/').map(|slash| host + slash))
        .unwrap_or(base.len());
    format!("{}/{name}{query}", &base[..cut])
}

/// A pooled PostgreSQL connection.
pub(crate) struct PgConn {
    client: deadpool_postgres::Object,
    /// The pool's runtime, where [`PgConn::sibling`] waits for its connection.
    rt: tokio::runtime::Handle,
}

impl PgConn {
    /// Another connection of this one's pool when the pool can give one without waiting
    /// (an idle one, or a new one while it is under its size); `None` otherwise.
    pub(super) fn sibling(&self) -> Option<PgConn> {
        let pool = deadpool_postgres::Object::pool(&self.client)?;
        // A zero wait: take a free slot or none, never queue behind other requests.
        let timeouts = deadpool_postgres::Timeouts {
            wait: Some(Duration::ZERO),
            create: Some(Duration::from_secs(5)),
            recycle: Some(Duration::from_secs(5)),
        };
        let got = wait(
            self.rt
                .spawn(async move { pool.timeout_get(&timeouts).await }),
        );
        match got {
            Ok(Ok(client)) => Some(PgConn {
                client,
                rt: self.rt.clone(),
            }),
            _ => None,
        }
    }

    /// Prepares `sql` (translated), through the connection's statement cache or not.
    pub(super) fn prepare(&self, sql: &str, cached: bool) -> Result<tokio_postgres::Statement> {
        let text = translate(sql);
        Ok(if cached {
            wait(self.client.prepare_cached(&text))?
        } else {
            wait(self.client.prepare(&text))?
        })
    }

    /// Runs a prepared statement, returns the rows it changed.
    pub(super) fn execute(
        &self,
        stmt: &tokio_postgres::Statement,
        values: &[ValueRef<'_>],
    ) -> Result<usize> {
        let bound = bind(stmt.params(), values)?;
        let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| b.as_ref() as _).collect();
        let n = wait(self.client.execute(stmt, &refs))?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }

    /// Runs a prepared query, returns every row.
    pub(super) fn query(
        &self,
        stmt: &tokio_postgres::Statement,
        values: &[ValueRef<'_>],
    ) -> Result<Vec<tokio_postgres::Row>> {
        let bound = bind(stmt.params(), values)?;
        let refs: Vec<&(dyn ToSql + Sync)> = bound.iter().map(|b| b.as_ref() as _).collect();
        Ok(wait(self.client.query(stmt, &refs))?)
    }

    /// Runs statements without parameters (simple query protocol).
    pub(super) fn batch(&self, sql: &str) -> Result<()> {
        Ok(wait(self.client.batch_execute(sql))?)
    }
}

/// A pool's failure to lend a connection, with its causes: the driver says only `db error`
/// and keeps what the server said (`FATAL (53300): sorry, too many clients already`,
/// `FATAL (3D000): database "x" does not exist`) as its source.
fn pool_error(e: &dyn std::error::Error) -> DbError {
    let mut text = format!("database pool: {e}");
    let mut cause = e.source();
    while let Some(c) = cause {
        let said = match c.downcast_ref::<tokio_postgres::error::DbError>() {
            Some(d) => super::error::server_said(d),
            None => c.to_string(),
        };
        if !text.ends_with(&said) {
            text.push_str(": ");
            text.push_str(&said);
        }
        cause = c.source();
    }
    DbError::Pool(text)
}

/// SQLite's placeholders as PostgreSQL's: `?N` → `$N`, a bare `?` → the next number after
/// the largest used so far (SQLite's rule). Quoted strings, quoted names and comments are
/// copied as they are.
pub(crate) fn translate(sql: &str) -> String {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 8);
    let mut max = 0u32;
    let mut i = 0;
    let mut start = 0;
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    i += 1;
                }
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i + 1 < b.len() && !(b[i] == b'*' && b[i + 1] == b'/') {
                    i += 1;
                }
                i += 2;
            }
            b'?' => {
                out.push_str(&sql[start..i]);
                i += 1;
                let digits = i;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
                let n = if i > digits {
                    sql[digits..i].parse().unwrap_or(u32::MAX)
                } else {
                    max + 1
                };
                max = max.max(n);
                out.push('$');
                out.push_str(&n.to_string());
                start = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[start.min(sql.len())..]);
    out
}

type Bound<'a> = Box<dyn ToSql + Sync + Send + 'a>;

/// `values` as the types PostgreSQL inferred for the parameters: integers for integer
/// and real columns, bools as 0/1 integers and back, numbers as text where text is
/// wanted (what SQLite's column affinity does), text parsed where a number is wanted.
pub(crate) fn bind<'a>(types: &[Type], values: &'a [ValueRef<'a>]) -> Result<Vec<Bound<'a>>> {
    if types.len() != values.len() {
        return Err(DbError::Parameter(format!(
            "the statement takes {} parameters, {} given",
            types.len(),
            values.len()
        )));
    }
    types
        .iter()
        .zip(values)
        .enumerate()
        .map(|(i, (ty, v))| {
            coerce(ty, *v).map_err(|m| DbError::Parameter(format!("${}: {m}", i + 1)))
        })
        .collect()
}

/// The kinds of column and parameter types the seam handles.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Int8,
    Int4,
    Int2,
    Oid,
    Bool,
    Float8,
    Float4,
    Bytea,
    Text,
    Other,
}

fn kind(ty: &Type) -> Kind {
    const TEXTS: [Type; 5] = [
        Type::TEXT,
        Type::VARCHAR,
        Type::BPCHAR,
        Type::NAME,
        Type::UNKNOWN,
    ];
    if *ty == Type::INT8 {
        Kind::Int8
    } else if *ty == Type::INT4 {
        Kind::Int4
    } else if *ty == Type::INT2 {
        Kind::Int2
    } else if *ty == Type::OID {
        Kind::Oid
    } else if *ty == Type::BOOL {
        Kind::Bool
    } else if *ty == Type::FLOAT8 {
        Kind::Float8
    } else if *ty == Type::FLOAT4 {
        Kind::Float4
    } else if *ty == Type::BYTEA {
        Kind::Bytea
    } else if TEXTS.contains(ty) {
        Kind::Text
    } else {
        Kind::Other
    }
}

fn coerce<'a>(ty: &Type, v: ValueRef<'a>) -> std::result::Result<Bound<'a>, String> {
    let wrong = || format!("cannot bind {v:?} as {ty}");
    let int = |v: ValueRef<'a>| -> std::result::Result<Option<i64>, String> {
        match v {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(i) => Ok(Some(i)),
            ValueRef::Real(f) if f.fract() == 0.0 && f.abs() < 9.2e18 => Ok(Some(f as i64)),
            ValueRef::Text(s) => s.trim().parse().map(Some).map_err(|_| wrong()),
            _ => Err(wrong()),
        }
    };
    let real = |v: ValueRef<'a>| -> std::result::Result<Option<f64>, String> {
        match v {
            ValueRef::Null => Ok(None),
            ValueRef::Integer(i) => Ok(Some(i as f64)),
            ValueRef::Real(f) => Ok(Some(f)),
            ValueRef::Text(s) => s.trim().parse().map(Some).map_err(|_| wrong()),
            _ => Err(wrong()),
        }
    };
    Ok(match kind(ty) {
        Kind::Int8 | Kind::Oid => Box::new(int(v)?),
        Kind::Int4 => Box::new(
            int(v)?
                .map(i32::try_from)
                .transpose()
                .map_err(|_| wrong())?,
        ),
        Kind::Int2 => Box::new(
            int(v)?
                .map(i16::try_from)
                .transpose()
                .map_err(|_| wrong())?,
        ),
        Kind::Bool => Box::new(int(v)?.map(|i| i != 0)),
        Kind::Float8 => Box::new(real(v)?),
        Kind::Float4 => Box::new(real(v)?.map(|f| f as f32)),
        Kind::Bytea => Box::new(match v {
            ValueRef::Null => None,
            ValueRef::Blob(b) => Some(b),
            ValueRef::Text(s) => Some(s.as_bytes()),
            _ => return Err(wrong()),
        }),
        Kind::Text => Box::new(match v {
            ValueRef::Null => None,
            ValueRef::Text(s) => Some(std::borrow::Cow::Borrowed(s)),
            ValueRef::Integer(i) => Some(std::borrow::Cow::Owned(i.to_string())),
            ValueRef::Real(f) => Some(std::borrow::Cow::Owned(f.to_string())),
            ValueRef::Blob(b) => Some(std::borrow::Cow::Owned(
                String::from_utf8(b.to_vec()).map_err(|_| wrong())?,
            )),
        }),
        Kind::Other => return Err(format!("parameters of type {ty} are not supported")),
    })
}

/// Column `i` of `row` as a [`ValueRef`], by its PostgreSQL type.
pub(crate) fn value_at(row: &tokio_postgres::Row, i: usize) -> Result<ValueRef<'_>> {
    let ty = row
        .columns()
        .get(i)
        .ok_or_else(|| DbError::column(i, "no such column"))?
        .type_();
    let v = match kind(ty) {
        Kind::Bool => row
            .try_get::<_, Option<bool>>(i)?
            .map(|b| ValueRef::Integer(i64::from(b))),
        Kind::Int2 => row
            .try_get::<_, Option<i16>>(i)?
            .map(|n| ValueRef::Integer(n.into())),
        Kind::Int4 => row
            .try_get::<_, Option<i32>>(i)?
            .map(|n| ValueRef::Integer(n.into())),
        Kind::Int8 => row.try_get::<_, Option<i64>>(i)?.map(ValueRef::Integer),
        Kind::Oid => row
            .try_get::<_, Option<u32>>(i)?
            .map(|n| ValueRef::Integer(n.into())),
        Kind::Float4 => row
            .try_get::<_, Option<f32>>(i)?
            .map(|f| ValueRef::Real(f.into())),
        Kind::Float8 => row.try_get::<_, Option<f64>>(i)?.map(ValueRef::Real),
        Kind::Text => row.try_get::<_, Option<&str>>(i)?.map(ValueRef::Text),
        Kind::Bytea => row.try_get::<_, Option<&[u8]>>(i)?.map(ValueRef::Blob),
        Kind::Other => {
            return Err(DbError::column(
                i,
                format!("columns of type {ty} are not supported: CAST it in the SQL"),
            ))
        }
    };
    Ok(v.unwrap_or(ValueRef::Null))
}

#[cfg(test)]
mod tests {
    use super::{translate, with_database};

    #[test]
    fn the_database_of_a_url_is_replaced() {
        assert_eq!(
            with_database("postgres://u@h:5/postgres", "t1"),
            "postgres://u@h:5/t1"
        );
        assert_eq!(
            with_database("postgres://u@h:5", "t1"),
            "postgres://u@h:5/t1"
        );
        assert_eq!(
            with_database("postgres://u:p@h/db?sslmode=disable", "t1"),
            "postgres://u:p@h/t1?sslmode=disable"
        );
    }

    #[test]
    fn placeholders_are_numbered_as_sqlite_numbers_them() {
        assert_eq!(
            translate("a = ?1 AND b = ?2 OR c = ?1"),
            "a = $1 AND b = $2 OR c = $1"
        );
        assert_eq!(translate("a IN (?, ?, ?)"), "a IN ($1, $2, $3)");
        assert_eq!(translate("a = ?2 AND b = ?"), "a = $2 AND b = $3");
        assert_eq!(
            translate("x = '?' AND \"q?\" = ? -- what?\n AND y = ? /* ? */"),
            "x = '?' AND \"q?\" = $1 -- what?\n AND y = $2 /* ? */"
        );
    }
}
