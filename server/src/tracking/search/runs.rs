//! Runs search: MLflow filter strings and order_by clauses compiled to parameterised SQL
//! over `runs` (user values are always bound, never spliced into the SQL text).

use crate::db::{Conn, Engine, OptionalExtension, Value};

use super::fields::Field;
use super::order::{after, terms, Order, Ranked};
use super::{cursor, order, Sql};
use crate::db::sql::{ilike, integer_column_vs, like, like_pattern};
use crate::tracking::filter::{parse_filter, Clause, Literal, Op};
use crate::tracking::ViewType;
use crate::Error;

/// Run ids of the experiments' runs matching an MLflow filter string ("" = all), ordered by
/// MLflow order_by clauses (e.g. ["metrics.loss ASC", "start_time DESC"]) with MLflow's
/// tie-breakers, skipping `offset`, at most `limit`. Bad filter/order_by → Error::InvalidParameter.
pub(crate) fn search_run_ids(
    conn: &Conn,
    experiment_ids: &[i64],
    filter: &str,
    order_by: &[String],
    view: ViewType,
    offset: usize,
    limit: usize,
) -> Result<Vec<String>, Error> {
    let wheres = matching_on(conn, experiment_ids, filter, view)?;
    let order = order::compile(order_by)?;
    if experiment_ids.is_empty() || limit == 0 {
        return Ok(Vec::new());
    }
    let mut sql = Sql::default();
    sql.text.push_str("SELECT r.run_uuid FROM runs r");
    let terms = order.terms();
    sql.append(order.joins);
    sql.text.push_str(" WHERE ");
    sql.append(wheres);
    sql.text.push_str(" ORDER BY ");
    sql.text.push_str(&terms);
    sql.text.push_str(" LIMIT ? OFFSET ?");
    sql.params
        .push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
    sql.params
        .push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
    let mut stmt = conn.prepare_cached(&sql.text)?;
    let ids = stmt
        .query_map(crate::db::params_from_iter(sql.params), |r| r.get(0))?
        .collect::<Result<Vec<String>, _>>()?;
    Ok(ids)
}

/// What a runs search reads: the experiments' runs in `view` that match `filter` (MLflow's
/// grammar, "" = all), in the order of `order_by` (MLflow clauses) and its tie-breakers.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunQuery<'a> {
    /// The experiments searched.
    pub experiment_ids: &'a [i64],
    /// The filter string.
    pub filter: &'a str,
    /// The order_by clauses.
    pub order_by: &'a [String],
    /// Active, deleted or all runs.
    pub view: ViewType,
}

/// One page of a keyset-paged runs search.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RunPage {
    /// The page's run ids, in order.
    pub ids: Vec<String>,
    /// The token of the next page; `None` on the last page.
    pub next_page_token: Option<String>,
    /// How many runs the search matches (as counted with the first page).
    pub total: u64,
}

/// A page of at most `limit` run ids of the search `q`, starting
/// after the row `page_token` (a previous page's `next_page_token`) points at, or at the
/// first row. The token holds that row's sort-key values, so the query reads from that
/// position on instead of counting rows off (OFFSET): each run comes exactly once across
/// the pages even while runs are added, and a page costs the same wherever it is.
///
/// With `count`, `total` is counted with the first page and carried in the tokens (else it
/// is 0): without a filter by
/// one COUNT over the experiment index; with one, in the page query itself
/// (`count(*) OVER ()`), because the filter's lookups then run once for both instead of
/// twice (at 100,000 runs a filtered COUNT alone costs 0.4-0.6 s here).
pub(crate) fn search_run_page(
    conn: &Conn,
    q: &RunQuery<'_>,
    page_token: Option<&str>,
    limit: usize,
    count: bool,
) -> Result<RunPage, Error> {
    let RunQuery {
        experiment_ids,
        filter,
        order_by,
        view,
    } = *q;
    let filtered = !parse_filter(filter)?.is_empty();
    let wheres = matching_on(conn, experiment_ids, filter, view)?;
    let order = order::compile(order_by)?;
    let ids_text: Vec<String> = experiment_ids.iter().map(i64::to_string).collect();
    let query = cursor::fingerprint(&[
        filter,
        &order_by.join("\u{1}"),
        &view.sql_condition(""),
        &ids_text.join(","),
    ]);
    let mut total = None;
    let mut at: Option<Vec<Value>> = None;
    if let Some(token) = page_token.filter(|t| !t.trim().is_empty()) {
        let cursor = cursor::decode(token, query)?;
        if cursor.last.len() != order.keys.len() {
            return Err(Error::InvalidParameter(
                "Invalid page token, it does not fit this order.".into(),
            ));
        }
        total = cursor.total;
        at = Some(cursor.last);
    }
    if experiment_ids.is_empty() || limit == 0 {
        return Ok(RunPage {
            ids: Vec::new(),
            next_page_token: None,
            total: 0,
        });
    }
    if !count {
        total = Some(0);
    }
    // Count in the page query only on a filtered first page (see above).
    let window = total.is_none() && filtered;
    if total.is_none() && !filtered {
        total = Some(count_runs(conn, experiment_ids, filter, view)?);
    }
    // One row more than the page says whether another page follows.
    let want = limit.saturating_add(1);
    let ranked = match &order.ranked {
        Some(r) if !window => {
            let per_run =
                matching_as(conn.engine(), experiment_ids, filter, view, Lookups::PerRun)?;
            ranked_rows(conn, &order, r, &per_run, at.as_deref(), want)?
        }
        _ => None,
    };
    let rows = match ranked {
        Some(rows) => rows,
        None => {
            let (rows, counted) = general_rows(conn, &order, wheres, at.as_deref(), want, window)?;
            total = total.or(counted);
            rows
        }
    };
    let more = rows.len() > limit;
    let page = &rows[..rows.len().min(limit)];
    // The run id is the last key.
    let ids = page
        .iter()
        .map(|keys| match keys.last() {
            Some(Value::Text(id)) => Ok(id.clone()),
            _ => Err(Error::Internal("a run id that is not text".into())),
        })
        .collect::<Result<Vec<String>, Error>>()?;
    let total = total.unwrap_or(0);
    Ok(RunPage {
        next_page_token: more
            .then(|| page.last().map(|last| cursor::encode(query, last, total)))
            .flatten(),
        ids,
        total,
    })
}

/// The sort-key values of the first `want` runs matching `wheres` in `order`, after the
/// row whose keys are `at`, with one statement that looks up every matching run's sort
/// keys and sorts them; with `window`, also how many runs match (`count(*) OVER ()`).
fn general_rows(
    conn: &Conn,
    order: &Order,
    mut wheres: Sql,
    at: Option<&[Value]>,
    want: usize,
    window: bool,
) -> Result<(Vec<Vec<Value>>, Option<u64>), Error> {
    if let Some(last) = at {
        wheres.text.push_str(" AND ");
        wheres.append(order.after(last));
    }
    let n_keys = order.keys.len();
    let mut sql = Sql::default();
    sql.text.push_str(&format!(
        "SELECT {}{} FROM runs r",
        order.select(),
        if window { ", count(*) OVER ()" } else { "" }
    ));
    sql.append(order.joins.clone());
    sql.text.push_str(" WHERE ");
    sql.append(wheres);
    sql.text.push_str(" ORDER BY ");
    sql.text.push_str(&order.terms());
    sql.text.push_str(" LIMIT ?");
    sql.params.push(limit_value(want));
    read_rows(conn, sql, n_keys, window)
}

/// The first window of a rank's walk, in index entries per row the page wants; each
/// further window is twice the one before.
const WINDOW_PER_ROW: usize = 2;

/// Index entries a walk may read, per row the page wants, before it hands the page to
/// [`general_rows`] (a filter or deleted runs rejecting most of what it meets): the walk
/// so costs at most a few times the page.
const WALK_PER_ROW: usize = 16;

/// Entries sharing a window's last value that a walk reads whole (so that runs tied on the
/// value are never split), per row the page wants; more hand the page to [`general_rows`].
const TIES_PER_ROW: usize = 64;

/// The sort-key values of the first `want` runs matching `wheres`, after the row `at`,
/// for an order whose first clause is a metric, param or tag (`ranked`): rank by rank
/// (values, then NaN values, then runs without the key), each rank's runs in value order
/// from the `(key, [is_nan,] value)` index, stopping as soon as the page is full. A page
/// so reads about as many rows as it shows, however many runs the experiment has, where
/// [`general_rows`] looks up and sorts the sort key of every matching run (~0.3 s at
/// 100,000).
///
/// A rank is read in windows of its index: the value of the entry a window's length
/// ahead (the cut) bounds the window, inclusive, so runs tied on it are read together;
/// windows double until the page is full or the rank ends. `None` when the walk has read
/// [`WALK_PER_ROW`] entries a wanted row without filling the page, or a cut value is
/// shared by more than [`TIES_PER_ROW`] entries a wanted row: the caller then reads the
/// page with [`general_rows`], so a walk never costs much more than that would.
pub(super) fn ranked_rows(
    conn: &Conn,
    order: &Order,
    ranked: &Ranked,
    wheres: &Sql,
    at: Option<&[Value]>,
    want: usize,
) -> Result<Option<Vec<Vec<Value>>>, Error> {
    let at_rank = match at.and_then(|last| last.first()) {
        None => 0,
        Some(Value::Integer(rank)) => *rank,
        Some(_) => return Ok(None),
    };
    let n_keys = order.keys.len();
    let mut found: Vec<Vec<Value>> = Vec::new();
    for (rank, is_nan) in ranked.present.iter().enumerate() {
        let rank = rank as i64;
        if at_rank > rank || found.len() >= want {
            continue;
        }
        let resume = at.filter(|_| at_rank == rank);
        let walk = Walk {
            conn,
            ranked,
            nan: is_nan.map_or(String::new(), |n| format!(" AND o0.is_nan = {n}")),
        };
        // Where the window starts: the cursor's value (inclusive: `after` then places the
        // exact row), then just past the previous window's cut.
        let mut lower: Option<(Value, bool)> = resume.map(|last| (last[1].clone(), true));
        let mut window = want.saturating_mul(WINDOW_PER_ROW);
        let mut walked = 0usize;
        loop {
            let need = want - found.len();
            let cut = walk.cut(lower.as_ref(), window)?;
            if let Some(v) = &cut {
                if walk.ties(v)? > need.saturating_mul(TIES_PER_ROW) {
                    return Ok(None);
                }
            }
            let mut sql = Sql::default();
            sql.text.push_str(&format!(
                "SELECT {} FROM {} o0 CROSS JOIN runs r",
                order.select(),
                ranked.table
            ));
            sql.append(ranked.rest_joins.clone());
            sql.text.push_str(&format!(
                " WHERE o0.key = ?{} AND r.run_uuid = o0.run_uuid AND ",
                walk.nan
            ));
            sql.params.push(Value::Text(ranked.key.clone()));
            sql.append(wheres.clone());
            if let Some((v, inclusive)) = &lower {
                let cmp = from(ranked.desc, *inclusive);
                sql.text.push_str(&format!(" AND o0.value {cmp} ?"));
                sql.params.push(v.clone());
            }
            if let Some(v) = &cut {
                let cmp = if ranked.desc { ">=" } else { "<=" };
                sql.text.push_str(&format!(" AND o0.value {cmp} ?"));
                sql.params.push(v.clone());
            }
            if let Some(last) = resume {
                sql.text.push_str(" AND ");
                sql.append(after(&order.keys[1..], &last[1..]));
            }
            sql.text.push_str(" ORDER BY ");
            sql.text.push_str(&terms(&order.keys[1..]));
            sql.text.push_str(" LIMIT ?");
            sql.params.push(limit_value(need));
            found.extend(key_rows(conn, sql, n_keys)?);
            let Some(v) = cut else {
                break; // the rank is read to its end
            };
            if found.len() >= want {
                break;
            }
            walked = walked.saturating_add(window);
            if walked >= want.saturating_mul(WALK_PER_ROW) {
                return Ok(None);
            }
            lower = Some((v, false));
            window = window.saturating_mul(2);
        }
    }
    let missing = ranked.present.len() as i64;
    if found.len() < want && at_rank <= missing {
        let mut sql = Sql::default();
        sql.text.push_str(&format!(
            "SELECT {} FROM runs r LEFT JOIN {} o0 ON o0.run_uuid = r.run_uuid AND o0.key = ?",
            order.select(),
            ranked.table
        ));
        sql.params.push(Value::Text(ranked.key.clone()));
        sql.append(ranked.rest_joins.clone());
        sql.text.push_str(" WHERE o0.run_uuid IS NULL AND ");
        sql.append(wheres.clone());
        if let Some(last) = at.filter(|_| at_rank == missing) {
            sql.text.push_str(" AND ");
            sql.append(after(&order.keys[2..], &last[2..]));
        }
        sql.text.push_str(" ORDER BY ");
        sql.text.push_str(&terms(&order.keys[2..]));
        sql.text.push_str(" LIMIT ?");
        sql.params.push(limit_value(want - found.len()));
        found.extend(key_rows(conn, sql, n_keys)?);
    }
    Ok(Some(found))
}

/// The comparison "at or past (`inclusive`), else past, a value" in a walk's direction.
fn from(desc: bool, inclusive: bool) -> &'static str {
    match (desc, inclusive) {
        (false, true) => ">=",
        (false, false) => ">",
        (true, true) => "<=",
        (true, false) => "<",
    }
}

/// The index reads of one rank of a [`ranked_rows`] walk.
struct Walk<'a> {
    conn: &'a Conn,
    ranked: &'a Ranked,
    /// The rank's `is_nan` condition (metrics), or nothing.
    nan: String,
}

impl Walk<'_> {
    /// The value of the entry `window` entries into the rank from `lower` (a value and
    /// whether it is included), in the walk's direction; `None` when fewer are left.
    fn cut(&self, lower: Option<&(Value, bool)>, window: usize) -> Result<Option<Value>, Error> {
        let r = self.ranked;
        let mut sql = format!(
            "SELECT o0.value FROM {} o0 WHERE o0.key = ?{}",
            r.table, self.nan
        );
        let mut params = vec![Value::Text(r.key.clone())];
        if let Some((v, inclusive)) = lower {
            let cmp = from(r.desc, *inclusive);
            sql.push_str(&format!(" AND o0.value {cmp} ?"));
            params.push(v.clone());
        }
        let dir = if r.desc { "DESC" } else { "ASC" };
        sql.push_str(&format!(" ORDER BY o0.value {dir} LIMIT 1 OFFSET ?"));
        params.push(limit_value(window.saturating_sub(1)));
        Ok(self
            .conn
            .prepare_cached(&sql)?
            .query_row(crate::db::params_from_iter(params), |row| row.get(0))
            .optional()?)
    }

    /// How many entries of the rank have the value `v` (every experiment's).
    fn ties(&self, v: &Value) -> Result<usize, Error> {
        let r = self.ranked;
        let sql = format!(
            "SELECT count(*) FROM {} o0 WHERE o0.key = ?{} AND o0.value = ?",
            r.table, self.nan
        );
        let n: i64 = self.conn.prepare_cached(&sql)?.query_row(
            crate::db::params_from_iter([Value::Text(r.key.clone()), v.clone()]),
            |row| row.get(0),
        )?;
        Ok(usize::try_from(n).unwrap_or(usize::MAX))
    }
}

/// The first `n_keys` values of each row `sql` reads.
fn key_rows(conn: &Conn, sql: Sql, n_keys: usize) -> Result<Vec<Vec<Value>>, Error> {
    Ok(read_rows(conn, sql, n_keys, false)?.0)
}

/// The first `n_keys` values of each row `sql` reads and, with `counted`, the count in
/// column `n_keys` of the first row.
fn read_rows(
    conn: &Conn,
    sql: Sql,
    n_keys: usize,
    counted: bool,
) -> Result<(Vec<Vec<Value>>, Option<u64>), Error> {
    let mut stmt = conn.prepare_cached(&sql.text)?;
    let mut rows = stmt.query(crate::db::params_from_iter(sql.params))?;
    let mut found = Vec::new();
    let mut count = None;
    while let Some(r) = rows.next()? {
        if counted && count.is_none() {
            count = Some(u64::try_from(r.get::<_, i64>(n_keys)?).unwrap_or(0));
        }
        found.push(
            (0..n_keys)
                .map(|i| r.get::<_, Value>(i))
                .collect::<Result<Vec<_>, _>>()?,
        );
    }
    Ok((found, count))
}

/// A row count as a LIMIT or OFFSET value.
fn limit_value(n: usize) -> Value {
    Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

/// How many runs the search matches, without reading them (one COUNT over the filter).
pub(crate) fn count_runs(
    conn: &Conn,
    experiment_ids: &[i64],
    filter: &str,
    view: ViewType,
) -> Result<u64, Error> {
    let wheres = matching_on(conn, experiment_ids, filter, view)?;
    if experiment_ids.is_empty() {
        return Ok(0);
    }
    let mut sql = Sql::default();
    sql.text.push_str("SELECT count(*) FROM runs r WHERE ");
    sql.append(wheres);
    let n: i64 = conn
        .prepare_cached(&sql.text)?
        .query_row(crate::db::params_from_iter(sql.params), |r| r.get(0))?;
    Ok(u64::try_from(n).unwrap_or(0))
}

/// The WHERE conditions (without `WHERE`) of the experiments' runs in `view` that match
/// `filter`.
#[cfg(test)]
pub(super) fn matching(
    d: Engine,
    experiment_ids: &[i64],
    filter: &str,
    view: ViewType,
) -> Result<Sql, Error> {
    matching_as(d, experiment_ids, filter, view, Lookups::Planned)
}

/// `matching`, with a param or tag equal to a value that fewer than [`FEW_BY_VALUE`]
/// runs have (of any experiment; one probe of the `(key, value)` index, reading at most
/// that many entries) written as the set of those runs (see [`compile_clause`]).
pub(super) fn matching_on(
    conn: &Conn,
    experiment_ids: &[i64],
    filter: &str,
    view: ViewType,
) -> Result<Sql, Error> {
    build_matching(
        conn.engine(),
        experiment_ids,
        filter,
        view,
        Lookups::Planned,
        Some(conn),
    )
}

/// Below this many runs with a param's or tag's value, a filter on it reads them from the
/// `(key, value)` index: at most that many primary-key lookups of runs. More (a value a
/// third of the runs share, say) keep the lookup per run, which stops early with the page
/// where the set would be read whole (measured on SQLite: `params.p00 = 'adam'` in an
/// experiment of 1,000 runs, 9 ms per run, 72 ms as the set of 37,000 runs of every
/// experiment).
pub(super) const FEW_BY_VALUE: i64 = 1_000;

/// Whether fewer than [`FEW_BY_VALUE`] rows of `table` (params or tags) have `key` equal
/// to `value`.
fn few_by_value(conn: &Conn, table: &str, key: &str, value: &[Value]) -> Result<bool, Error> {
    let [value] = value else {
        return Ok(false);
    };
    let sql = format!(
        "SELECT count(*) FROM (SELECT 1 FROM {table} WHERE key = ? AND value = ? LIMIT ?) AS f"
    );
    let n: i64 = conn.prepare_cached(&sql)?.query_row(
        crate::db::params_from_iter([
            Value::Text(key.to_owned()),
            value.clone(),
            Value::Integer(FEW_BY_VALUE),
        ]),
        |r| r.get(0),
    )?;
    Ok(n < FEW_BY_VALUE)
}

/// How a filter's lookups (`EXISTS` over a run's metrics, params, tags or inputs) run.
#[derive(Clone, Copy, PartialEq)]
pub(super) enum Lookups {
    /// As the planner likes: over every run of an experiment, PostgreSQL joins them as
    /// hashes of every run's matching rows.
    Planned,
    /// One primary-key lookup per run met: for a walk that meets a few thousand runs, where
    /// PostgreSQL's hash of every run's rows cost 0.15 s a statement (measured at
    /// 100,000 runs). `OFFSET 0` keeps PostgreSQL from turning the subquery into a join.
    PerRun,
}

/// `matching`, its lookups run as `lookups` says.
pub(super) fn matching_as(
    d: Engine,
    experiment_ids: &[i64],
    filter: &str,
    view: ViewType,
    lookups: Lookups,
) -> Result<Sql, Error> {
    build_matching(d, experiment_ids, filter, view, lookups, None)
}

/// [`matching_as`], probing `probe` for the values few runs have ([`matching_on`]).
fn build_matching(
    d: Engine,
    experiment_ids: &[i64],
    filter: &str,
    view: ViewType,
    lookups: Lookups,
    probe: Option<&Conn>,
) -> Result<Sql, Error> {
    let clauses = parse_filter(filter)?;
    let mut sql = Sql::default();
    let marks = vec!["?"; experiment_ids.len().max(1)].join(",");
    sql.text.push_str(&format!(
        "r.experiment_id IN ({marks}) AND {}",
        view.sql_condition("r.lifecycle_stage")
    ));
    if experiment_ids.is_empty() {
        sql.params.push(Value::Null);
    }
    sql.params
        .extend(experiment_ids.iter().map(|id| Value::Integer(*id)));
    for clause in &clauses {
        sql.text.push_str(" AND ");
        let mut c = compile_clause(d, clause, lookups, probe)?;
        if lookups == Lookups::PerRun && d == Engine::Postgres && c.text.starts_with("EXISTS (") {
            c.text.pop();
            c.text.push_str(" OFFSET 0)");
        }
        sql.append(c);
    }
    Ok(sql)
}

/// Compiles one filter clause to a boolean SQL expression over the run `r`.
///
/// A param or tag equal to a value few runs have (`params.p = 'x'`, [`few_by_value`] on
/// `probe`), where the lookups are [`Lookups::Planned`], is the set of runs the
/// `(key, value)` index holds for it (`r.run_uuid IN (SELECT ...)`), read once: measured
/// on SQLite at 100,000 runs, the first page of `params.p03 = '7'` (101 runs) took 240 ms
/// as a lookup in every run's params and under 1 ms from the index. Other comparisons, a
/// value many runs share, and the per-run walks keep a lookup per run.
fn compile_clause(
    d: Engine,
    clause: &Clause,
    lookups: Lookups,
    probe: Option<&Conn>,
) -> Result<Sql, Error> {
    let field = Field::resolve(&clause.ident)?;
    field.check_op(clause.op)?;
    let literal = field.bind_value(clause)?;
    let (cmp, mut value) = comparison(d, clause.op, literal.clone());
    let table = match field {
        Field::Param(_) => "params",
        _ => "tags",
    };
    let by_value = match (&field, probe) {
        (Field::Param(k) | Field::Tag(k), Some(c))
            if lookups == Lookups::Planned && clause.op == Op::Eq =>
        {
            few_by_value(c, table, k, &value)?
        }
        _ => false,
    };
    if let (Field::Param(k) | Field::Tag(k), true) = (&field, by_value) {
        let mut params = vec![Value::Text(k.clone())];
        params.extend(value);
        return Ok(Sql {
            text: format!(
                "r.run_uuid IN (SELECT x.run_uuid FROM {table} x WHERE x.key = ? AND x.value {cmp})"
            ),
            params,
        });
    }
    // The run's row is found by its primary key (run, key). On SQLite the value is written
    // `+x.value`, which no index may serve: else the planner can pick the (key, value)
    // sort index instead and read every run's row that has the value, for each run
    // (measured: a filtered search of 100,000 runs, 0.36 s -> 3.6 s).
    let value_col = match d {
        Engine::Sqlite => "+x.value",
        Engine::Postgres => "x.value",
    };
    let sub = |table: &str, extra: &str| {
        format!(
            "EXISTS (SELECT 1 FROM {table} x WHERE x.run_uuid = r.run_uuid AND x.key = ?{extra} \
             AND {value_col} {cmp})"
        )
    };
    let (text, key) = match &field {
        Field::Metric(k) => (sub("latest_metrics", " AND x.is_nan = 0"), Some(k)),
        Field::Param(k) => (sub("params", ""), Some(k)),
        Field::Tag(k) => (sub("tags", ""), Some(k)),
        Field::Attr(a) => {
            let mut col = format!("r.{}", a.column());
            // A time: an integer column.
            if let Literal::Number(n) = literal {
                let bound;
                (col, bound) = integer_column_vs(&col, n);
                value = vec![bound];
            }
            (format!("{col} {cmp}"), None)
        }
        // Any of the run's dataset inputs (`dataset_inputs`, `datasets`, `input_tags`).
        Field::Dataset(k) => (dataset_exists(k, &cmp), None),
    };
    let mut params: Vec<Value> = key.map(|k| Value::Text(k.clone())).into_iter().collect();
    params.extend(value);
    Ok(Sql { text, params })
}

/// Whether one of the run `r`'s dataset inputs has `key` (`name`, `digest` or `context`,
/// the input's `mlflow.data.context` tag) satisfying `cmp`.
fn dataset_exists(key: &str, cmp: &str) -> String {
    let from = "dataset_inputs x JOIN datasets d ON d.dataset_id = x.dataset_id";
    match key {
        "context" => format!(
            "EXISTS (SELECT 1 FROM dataset_inputs x JOIN input_tags t ON t.input_id = x.input_id \
             WHERE x.run_uuid = r.run_uuid AND t.key = 'mlflow.data.context' AND t.value {cmp})"
        ),
        "digest" => format!(
            "EXISTS (SELECT 1 FROM {from} WHERE x.run_uuid = r.run_uuid AND d.digest {cmp})"
        ),
        _ => {
            format!("EXISTS (SELECT 1 FROM {from} WHERE x.run_uuid = r.run_uuid AND d.name {cmp})")
        }
    }
}

/// The SQL comparison for `op` (with its placeholders) and the values it binds.
/// LIKE is case-sensitive in MLflow but not in SQLite: see [`like`].
fn comparison(d: Engine, op: Op, value: Literal) -> (String, Vec<Value>) {
    let one = |v: Literal| match v {
        Literal::Number(n) => vec![Value::Real(n)],
        Literal::Str(s) => vec![Value::Text(s)],
        Literal::List(items) => items.into_iter().map(Value::Text).collect(),
    };
    match op {
        Op::Like => {
            let pattern = match value {
                Literal::Str(s) => like_pattern(d, &s),
                other => return ("= ?".to_string(), one(other)),
            };
            (like(d).to_string(), vec![Value::Text(pattern)])
        }
        Op::In | Op::NotIn => {
            let values = one(value);
            let marks = vec!["?"; values.len()].join(",");
            let not = if op == Op::NotIn { "NOT " } else { "" };
            (format!("{not}IN ({marks})"), values)
        }
        Op::ILike => (ilike(d).to_string(), one(value)),
        Op::Ne => ("<> ?".to_string(), one(value)),
        other => (format!("{} ?", other.as_str()), one(value)),
    }
}
