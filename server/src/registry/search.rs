//! Searching registered models and model versions: MLflow's filter grammar (`name`,
//! `tags.<key>`; for versions also `run_id`, `source_path`, `version_number`) and order_by,
//! compiled to parameterised SQL, restricted to what the caller may read.

use crate::db::{Conn, Engine, Value};

use super::model::{ModelVersion, RegisteredModel};
use super::{models, versions};
use crate::db::sql::{ilike, like, like_pattern};
use crate::permissions::ReadableSql;
use crate::tracking::filter::{
    check_order_by_len, parse_filter, parse_order_by, Clause, Ident, Literal, Op,
};
use crate::Error;

/// Default page size of `registered-models/search`.
pub(crate) const MODELS_DEFAULT: usize = 100;
/// Largest page of `registered-models/search`.
pub(crate) const MODELS_MAX: usize = 1000;
/// Default page size of `model-versions/search`.
pub(crate) const VERSIONS_DEFAULT: usize = 10_000;
/// Largest page of `model-versions/search`.
pub(crate) const VERSIONS_MAX: usize = 200_000;

/// The tag that marks a registered model as a prompt; prompts stay out of model searches
/// unless the filter asks for them, as in MLflow.
const PROMPT_TAG: &str = "mlflow.prompt.is_prompt";

/// What an identifier of a filter refers to.
enum Field {
    /// A column (SQL expression) and whether it is numeric.
    Column(&'static str, bool),
    /// A tag of the row.
    Tag(String),
}

/// Which search: registered models (columns of `r`) or versions (`v` joined to `r`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Target {
    Models,
    Versions,
}

fn invalid(msg: String) -> Error {
    Error::InvalidParameter(msg)
}

fn resolve(target: Target, ident: &Ident) -> Result<Field, Error> {
    let key = ident.key.as_str();
    match ident.kind.as_deref() {
        Some("tag" | "tags") => return Ok(Field::Tag(ident.key.clone())),
        None | Some("attribute" | "attributes" | "attr") => {}
        Some(other) => {
            return Err(invalid(format!(
                "Invalid entity type '{other}'. Valid values are ['tag', 'attribute']"
            )))
        }
    }
    match (target, key) {
        (_, "name") => Ok(Field::Column("r.name", false)),
        (Target::Versions, "run_id") => Ok(Field::Column("v.run_id", false)),
        (Target::Versions, "source_path") => Ok(Field::Column("v.source", false)),
        (Target::Versions, "version_number") => Ok(Field::Column("v.version", true)),
        (Target::Models, _) => Err(invalid(format!(
            "Invalid attribute key '{key}' specified. Valid keys are '{{'name'}}'"
        ))),
        (Target::Versions, _) => Err(invalid(format!(
            "Invalid attribute key '{key}' specified. Valid keys are '{{'version_number', \
             'source_path', 'run_id', 'name'}}'"
        ))),
    }
}

fn compare(d: Engine, op: Op) -> String {
    match op {
        Op::Like => like(d).to_string(),
        Op::ILike => ilike(d).to_string(),
        Op::Ne => "<> ?".to_string(),
        op => format!("{} ?", op.as_str()),
    }
}

fn text_value(d: Engine, c: &Clause) -> Result<Value, Error> {
    match &c.value {
        Literal::Str(s) if c.op == Op::Like => Ok(Value::Text(like_pattern(d, s))),
        Literal::Str(s) => Ok(Value::Text(s.clone())),
        _ => Err(invalid(format!(
            "Invalid value for '{}': expected a quoted string",
            c.ident.key
        ))),
    }
}

fn compile_clause(d: Engine, target: Target, c: &Clause) -> Result<(String, Vec<Value>), Error> {
    let bad_op = || {
        invalid(format!(
            "Invalid comparator '{}' for '{}'",
            c.op.as_str(),
            c.ident.key
        ))
    };
    match resolve(target, &c.ident)? {
        Field::Column(col, true) => {
            if !c.op.is_numeric() {
                return Err(bad_op());
            }
            let n = match &c.value {
                Literal::Number(n) if n.fract() == 0.0 => *n as i64,
                Literal::Str(s) => s.trim().parse::<i64>().map_err(|_| {
                    invalid(format!(
                        "Invalid value for numeric attribute '{}': '{s}'",
                        c.ident.key
                    ))
                })?,
                other => {
                    return Err(invalid(format!(
                        "Invalid value for numeric attribute '{}': {other:?}",
                        c.ident.key
                    )))
                }
            };
            Ok((
                format!("{col} {}", compare(d, c.op)),
                vec![Value::Integer(n)],
            ))
        }
        Field::Column(col, false) => match (c.op, &c.value) {
            (Op::In | Op::NotIn, Literal::List(items)) => {
                let list_ok = col == "r.name" || col == "v.run_id";
                if !list_ok {
                    return Err(bad_op());
                }
                let not = if c.op == Op::NotIn { "NOT " } else { "" };
                let json = serde_json::to_string(items)
                    .map_err(|e| Error::Internal(format!("encoding a list: {e}")))?;
                Ok((
                    format!(
                        "coalesce({col}, '') {not}IN {}",
                        crate::db::sql::json_list(d, "?")
                    ),
                    vec![Value::Text(json)],
                ))
            }
            (Op::Eq | Op::Ne | Op::Like | Op::ILike, _) => Ok((
                format!("coalesce({col}, '') {}", compare(d, c.op)),
                vec![text_value(d, c)?],
            )),
            _ => Err(bad_op()),
        },
        Field::Tag(key) => {
            if !matches!(c.op, Op::Eq | Op::Ne | Op::Like | Op::ILike) {
                return Err(invalid(format!(
                    "Invalid comparator for tag: {}",
                    c.op.as_str()
                )));
            }
            let sql = match target {
                Target::Models => format!(
                    "EXISTS (SELECT 1 FROM registered_model_tags t \
                      WHERE t.registered_model_id = r.registered_model_id \
                        AND t.key = ? AND t.value {})",
                    compare(d, c.op)
                ),
                Target::Versions => format!(
                    "EXISTS (SELECT 1 FROM model_version_tags t \
                      WHERE t.registered_model_id = v.registered_model_id \
                        AND t.version = v.version AND t.key = ? AND t.value {})",
                    compare(d, c.op)
                ),
            };
            Ok((sql, vec![Value::Text(key), text_value(d, c)?]))
        }
    }
}

/// Whether the filter asks for prompts (`tags.mlflow.prompt.is_prompt = 'true'`).
fn asks_for_prompts(clauses: &[Clause]) -> bool {
    clauses.iter().any(|c| {
        matches!(c.ident.kind.as_deref(), Some("tag" | "tags"))
            && c.ident.key == PROMPT_TAG
            && match (&c.value, c.op) {
                (Literal::Str(v), Op::Eq) => v.eq_ignore_ascii_case("true"),
                (Literal::Str(v), Op::Ne) => v.eq_ignore_ascii_case("false"),
                _ => false,
            }
    })
}

fn models_order(order_by: &[String]) -> Result<String, Error> {
    check_order_by_len(order_by)?;
    let mut terms: Vec<String> = Vec::new();
    let mut cols: Vec<&str> = Vec::new();
    for clause in order_by {
        let (ident, asc) = parse_order_by(clause)?;
        let col = match (ident.kind.as_deref(), ident.key.as_str()) {
            (None | Some("attribute"), "name") => "r.name",
            (None | Some("attribute"), "timestamp" | "last_updated_timestamp") => {
                "r.last_updated_time"
            }
            (_, key) => {
                return Err(invalid(format!(
                    "Invalid order by key '{key}' specified.Valid keys are \
                     '{{'timestamp', 'name'}}'"
                )))
            }
        };
        if cols.contains(&col) {
            return Err(invalid(format!(
                "`order_by` contains duplicate fields: {order_by:?}"
            )));
        }
        cols.push(col);
        terms.push(format!("{col} {}", if asc { "ASC" } else { "DESC" }));
    }
    if !cols.contains(&"r.name") {
        terms.push("r.name ASC".into());
    }
    Ok(terms.join(", "))
}

fn versions_order(order_by: &[String]) -> Result<String, Error> {
    check_order_by_len(order_by)?;
    let default = [
        "last_updated_timestamp DESC".to_string(),
        "name ASC".to_string(),
        "version_number DESC".to_string(),
    ];
    let order_by = if order_by.is_empty() {
        &default[..]
    } else {
        order_by
    };
    let mut terms: Vec<String> = Vec::new();
    let mut cols: Vec<&str> = Vec::new();
    for clause in order_by {
        let (ident, asc) = parse_order_by(clause)?;
        let col = match (ident.kind.as_deref(), ident.key.as_str()) {
            (None | Some("attribute"), "name") => "r.name",
            (None | Some("attribute"), "version_number") => "v.version",
            (None | Some("attribute"), "creation_timestamp") => "v.creation_time",
            (None | Some("attribute"), "last_updated_timestamp") => "v.last_updated_time",
            (_, key) => {
                return Err(invalid(format!(
                    "Invalid order by key '{key}' specified. Valid keys are {{'name', \
                     'version_number', 'creation_timestamp', 'last_updated_timestamp'}}"
                )))
            }
        };
        if cols.contains(&col) {
            return Err(invalid(format!(
                "`order_by` contains duplicate fields: {order_by:?}"
            )));
        }
        cols.push(col);
        terms.push(format!("{col} {}", if asc { "ASC" } else { "DESC" }));
    }
    if !cols.contains(&"r.name") {
        terms.push("r.name ASC".into());
    }
    if !cols.contains(&"v.version") {
        terms.push("v.version DESC".into());
    }
    Ok(terms.join(", "))
}

/// One page of a search: the query so far and its values.
struct Query {
    sql: String,
    params: Vec<Value>,
}

impl Query {
    fn new(select: String, readable: &ReadableSql) -> Query {
        Query {
            sql: format!("{select} WHERE {}", readable.sql),
            params: readable.params.clone(),
        }
    }

    fn and(&mut self, (sql, values): (String, Vec<Value>)) {
        self.sql.push_str(" AND ");
        self.sql.push_str(&sql);
        self.params.extend(values);
    }

    fn page(mut self, order: &str, offset: usize, limit: usize) -> Query {
        self.sql
            .push_str(&format!(" ORDER BY {order} LIMIT ? OFFSET ?"));
        self.params
            .push(Value::Integer(i64::try_from(limit).unwrap_or(i64::MAX)));
        self.params
            .push(Value::Integer(i64::try_from(offset).unwrap_or(i64::MAX)));
        self
    }
}

/// Registered models that `readable` admits (over `r.registered_model_id`, see
/// `grants::readable_sql`) matching `filter`, ordered by `order_by` (default by name),
/// skipping `offset`, at most `limit`, each with its tags, aliases and latest versions.
pub(crate) fn search_models(
    conn: &Conn,
    readable: &ReadableSql,
    filter: &str,
    order_by: &[String],
    offset: usize,
    limit: usize,
) -> Result<Vec<RegisteredModel>, Error> {
    let clauses = parse_filter(filter)?;
    let mut q = Query::new(
        format!("SELECT {} FROM registered_models r", models::COLUMNS),
        readable,
    );
    for c in &clauses {
        if matches!(c.ident.kind.as_deref(), Some("tag" | "tags")) && c.ident.key == PROMPT_TAG {
            continue;
        }
        q.and(compile_clause(conn.engine(), Target::Models, c)?);
    }
    let prompt = format!(
        "EXISTS (SELECT 1 FROM registered_model_tags p \
          WHERE p.registered_model_id = r.registered_model_id AND p.key = '{PROMPT_TAG}' \
            AND lower(p.value) = 'true')"
    );
    match asks_for_prompts(&clauses) {
        true => q.and((prompt, Vec::new())),
        false => q.and((format!("NOT {prompt}"), Vec::new())),
    }
    let q = q.page(&models_order(order_by)?, offset, limit);
    let rows: Vec<RegisteredModel> = conn
        .prepare_cached(&q.sql)?
        .query_map(crate::db::params_from_iter(q.params), models::from_row)?
        .collect::<Result<_, _>>()?;
    rows.into_iter().map(|m| models::load(conn, m)).collect()
}

/// Model versions of registered models that `readable` admits (over
/// `v.registered_model_id`) matching `filter`, ordered by `order_by` (default: last
/// updated first, then name, then version descending), skipping `offset`, at most `limit`,
/// each with its tags but not its aliases (MLflow's `model-versions/search` has none).
pub(crate) fn search_versions(
    conn: &Conn,
    readable: &ReadableSql,
    filter: &str,
    order_by: &[String],
    offset: usize,
    limit: usize,
) -> Result<Vec<ModelVersion>, Error> {
    let mut q = Query::new(
        format!(
            "SELECT {} FROM model_versions v \
               JOIN registered_models r ON r.registered_model_id = v.registered_model_id",
            versions::COLUMNS
        ),
        readable,
    );
    for c in &parse_filter(filter)? {
        q.and(compile_clause(conn.engine(), Target::Versions, c)?);
    }
    let q = q.page(&versions_order(order_by)?, offset, limit);
    let rows: Vec<(i64, ModelVersion)> = conn
        .prepare_cached(&q.sql)?
        .query_map(crate::db::params_from_iter(q.params), versions::from_row)?
        .collect::<Result<_, _>>()?;
    rows.into_iter()
        .map(|(id, mv)| versions::load(conn, id, mv, false))
        .collect()
}
