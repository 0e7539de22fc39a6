//! Runs search over MLflow's order_by and filter grammar, on a populated experiment (ties,
//! NaN and infinite metrics, missing keys, finished and running runs, a deleted one):
//! `runs/search` and the app's runs table (`GET /api/v1/experiments/{id}/runs`) answer 200
//! or a 4xx, never a 5xx; a search read page by page gives the runs of the one-page read,
//! in the same order; both endpoints agree. Runs on PostgreSQL too when
//! `RUNLENS_TEST_DATABASE_URL` is set.

use axum::http::Method;
use proptest::prelude::*;
use serde_json::{json, Value};

use crate::helpers::TestApp;

/// Attribute names, MLflow's with its aliases and quoting, and some it refuses.
const ATTRS: &[&str] = &[
    "run_id",
    "run_name",
    "user_id",
    "status",
    "artifact_uri",
    "start_time",
    "end_time",
    "created",
    "Created",
    "`run name`",
    "\"Run name\"",
    "`Run Name`",
    "run_uuid",
    "experiment_id",
    "lifecycle_stage",
    "nope",
];
const ATTR_PREFIXES: &[&str] = &["", "attributes.", "attribute.", "attr.", "run."];
const KINDS: &[&str] = &[
    "metrics.",
    "metric.",
    "params.",
    "param.",
    "parameters.",
    "tags.",
    "tag.",
    "dataset.",
    "datasets.",
    "bogus.",
];
/// Keys of the fixture's metrics, params and tags (plain, quoted), and missing ones.
const KEYS: &[&str] = &[
    "loss",
    "acc",
    "model",
    "lr",
    "team",
    "`my key`",
    "\"my key\"",
    "`odd.key-1`",
    "missing",
    "name",
    "digest",
    "context",
];
const DIRECTIONS: &[&str] = &["", " ASC", " DESC", " asc", " Desc", "  DESC  ", " UP"];
const OPS: &[&str] = &[
    "=", "!=", "<", "<=", ">", ">=", "LIKE", "ILIKE", "like", "IN", "NOT IN", "==",
];
/// Values; `RUN` becomes a fixture run's id.
const VALUES: &[&str] = &[
    "0.5",
    "1",
    "-1",
    "1e3",
    "1000",
    "NaN",
    "'cnn'",
    "\"rnn\"",
    "'%n%'",
    "'vision'",
    "'FINISHED'",
    "('a', 'b')",
    "('RUN')",
    "'RUN'",
    "''",
];
const VIEWS: &[(&str, &str)] = &[
    ("ACTIVE_ONLY", "active"),
    ("DELETED_ONLY", "deleted"),
    ("ALL", "all"),
];

struct Fixture {
    rt: tokio::runtime::Runtime,
    app: TestApp,
    exp: String,
    runs: Vec<String>,
}

/// Runs with tied start times, tied and NaN/infinite metrics, missing keys, three statuses
/// and one deleted run.
fn fixture() -> Fixture {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
    let app = TestApp::new();
    let (exp, runs) = rt.block_on(async {
        let exp = app.experiment("grammar").await;
        let specs: [(&str, i64, Value, Value, Value); 7] = [
            (
                "a",
                1000,
                json!([["loss", 0.5], ["acc", 0.9]]),
                json!([["model", "cnn"], ["lr", "0.1"]]),
                json!([["team", "vision"], ["my key", "x"], ["odd.key-1", "1"]]),
            ),
            (
                "b",
                1000,
                json!([["loss", "NaN"]]),
                json!([["model", "rnn"]]),
                json!([["team", "nlp"]]),
            ),
            (
                "c",
                1001,
                json!([["loss", 2.0], ["acc", "-Infinity"]]),
                json!([["lr", "0.01"]]),
                json!([]),
            ),
            ("d", 999, json!([]), json!([]), json!([["team", "vision"]])),
            (
                "e",
                1002,
                json!([["loss", 0.5], ["acc", "Infinity"]]),
                json!([["model", "cnn"]]),
                json!([["my key", "y"]]),
            ),
            ("a", 1003, json!([["loss", 1.0]]), json!([]), json!([])),
            ("gone", 1004, json!([["loss", 0.1]]), json!([]), json!([])),
        ];
        let mut runs = Vec::new();
        for (name, start, metrics, params, tags) in specs {
            let body = json!({"experiment_id": exp, "run_name": name, "start_time": start,
                              "user_id": format!("user-{}", start % 3)});
            let id = app.ok("/runs/create", body).await["run"]["info"]["run_id"]
                .as_str()
                .expect("run id")
                .to_owned();
            let pairs = |v: &Value| -> Vec<(Value, Value)> {
                let list = v.as_array().expect("pairs");
                list.iter().map(|p| (p[0].clone(), p[1].clone())).collect()
            };
            let metrics: Vec<Value> = pairs(&metrics)
                .into_iter()
                .map(|(k, v)| json!({"key": k, "value": v, "timestamp": start, "step": 0}))
                .collect();
            let params: Vec<Value> = pairs(&params)
                .into_iter()
                .map(|(k, v)| json!({"key": k, "value": v}))
                .collect();
            let tags: Vec<Value> = pairs(&tags)
                .into_iter()
                .map(|(k, v)| json!({"key": k, "value": v}))
                .collect();
            let batch = json!({"run_id": id, "metrics": metrics, "params": params, "tags": tags});
            app.ok("/runs/log-batch", batch).await;
            runs.push(id);
        }
        let end = |run: &str, status: &str, end: i64| {
            json!({"run_id": run, "status": status, "end_time": end})
        };
        app.ok("/runs/update", end(&runs[0], "FINISHED", 2000))
            .await;
        app.ok("/runs/update", end(&runs[2], "FAILED", 1500)).await;
        app.ok("/runs/update", end(&runs[4], "KILLED", 3000)).await;
        app.ok("/runs/delete", json!({"run_id": runs[6]})).await;
        (exp, runs)
    });
    Fixture { rt, app, exp, runs }
}

/// One fixture per test thread, shared by all cases of that thread.
fn fixture_once() -> &'static Fixture {
    thread_local! {
        static FIXTURE: &'static Fixture = Box::leak(Box::new(fixture()));
    }
    FIXTURE.with(|f| *f)
}

/// A search: filter, order_by clauses, view (index into [`VIEWS`]), page size.
#[derive(Debug, Clone)]
struct Search {
    filter: String,
    order_by: Vec<String>,
    view: usize,
    page: usize,
}

fn identifier() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => (prop::sample::select(ATTR_PREFIXES), prop::sample::select(ATTRS))
            .prop_map(|(p, a)| format!("{p}{a}")),
        5 => (prop::sample::select(KINDS), prop::sample::select(KEYS))
            .prop_map(|(k, key)| format!("{k}{key}")),
        1 => "\\PC{0,10}",
    ]
}

fn order_clause() -> impl Strategy<Value = String> {
    (identifier(), prop::sample::select(DIRECTIONS)).prop_map(|(i, d)| format!("{i}{d}"))
}

fn filter_clause() -> impl Strategy<Value = String> {
    (
        identifier(),
        prop::sample::select(OPS),
        prop::sample::select(VALUES),
    )
        .prop_map(|(i, op, v)| format!("{i} {op} {v}"))
}

fn search() -> impl Strategy<Value = Search> {
    (
        prop::collection::vec(filter_clause(), 0..3),
        prop::sample::select(&[" AND ", " and "][..]),
        prop::collection::vec(order_clause(), 0..4),
        0..VIEWS.len(),
        1usize..4,
    )
        .prop_map(|(clauses, and, order_by, view, page)| Search {
            filter: clauses.join(and),
            order_by,
            view,
            page,
        })
}

/// One endpoint's answer to a whole search: the run ids in order, or a 4xx status.
type Outcome = Result<Vec<String>, u16>;

impl Fixture {
    /// `filter` with `RUN` replaced by the first run's id.
    fn filter(&self, s: &Search) -> String {
        s.filter.replace("RUN", &self.runs[0])
    }

    /// The run ids `runs/search` returns, `limit` a page, every page followed.
    fn mlflow(&self, s: &Search, limit: usize) -> Result<Outcome, TestCaseError> {
        let mut ids = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..=self.runs.len() + 1 {
            let mut body = json!({"experiment_ids": [self.exp], "filter": self.filter(s),
                                  "order_by": s.order_by, "run_view_type": VIEWS[s.view].0,
                                  "max_results": limit});
            if let Some(t) = &token {
                body["page_token"] = json!(t);
            }
            let (status, v) = self.rt.block_on(self.app.post("/runs/search", body));
            if !status.is_success() {
                prop_assert!(status.is_client_error(), "runs/search {s:?}: {status} {v}");
                prop_assert!(v["error_code"].is_string(), "{s:?}: {v}");
                prop_assert!(ids.is_empty(), "{s:?}: a later page failed: {v}");
                return Ok(Err(status.as_u16()));
            }
            for run in v["runs"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                ids.push(run["info"]["run_id"].as_str().unwrap_or("").to_owned());
            }
            match v["next_page_token"].as_str() {
                Some(t) => token = Some(t.to_owned()),
                None => return Ok(Ok(ids)),
            }
        }
        Err(TestCaseError::fail(format!("{s:?}: pages never end")))
    }

    /// The run ids of the app's runs table, `limit` a page, every page followed.
    fn app_table(&self, s: &Search, limit: usize) -> Result<Outcome, TestCaseError> {
        let mut ids = Vec::new();
        let mut token: Option<String> = None;
        for _ in 0..=self.runs.len() + 1 {
            let mut q = form_urlencoded::Serializer::new(String::new());
            q.append_pair("filter", &self.filter(s));
            for clause in &s.order_by {
                q.append_pair("order_by", clause);
            }
            q.append_pair("view", VIEWS[s.view].1);
            q.append_pair("limit", &limit.to_string());
            if let Some(t) = &token {
                q.append_pair("page_token", t);
            }
            let uri = format!("/api/v1/experiments/{}/runs?{}", self.exp, q.finish());
            let auth = self.app.admin_auth.clone();
            let r = self.rt.block_on(self.app.call(
                Method::GET,
                &uri,
                &[("authorization", &auth)],
                None,
            ));
            if !r.status.is_success() {
                prop_assert!(r.status.is_client_error(), "{uri}: {} {}", r.status, r.text);
                prop_assert!(ids.is_empty(), "{s:?}: a later page failed: {}", r.text);
                return Ok(Err(r.status.as_u16()));
            }
            for row in r.body["rows"].as_array().map(Vec::as_slice).unwrap_or(&[]) {
                ids.push(row["run_id"].as_str().unwrap_or("").to_owned());
            }
            match r.body["next_page_token"].as_str() {
                Some(t) => token = Some(t.to_owned()),
                None => return Ok(Ok(ids)),
            }
        }
        Err(TestCaseError::fail(format!("{s:?}: pages never end")))
    }

    /// Every property of one search.
    fn check(&self, s: &Search) -> Result<(), TestCaseError> {
        let whole = self.mlflow(s, 1000)?;
        prop_assert_eq!(
            &self.mlflow(s, s.page)?,
            &whole,
            "paged runs/search {:?}",
            s
        );
        // The table trims its order_by clauses and drops blank ones (runs/search refuses
        // a blank one, as MLflow does): it answers as runs/search does to those.
        let order_by: Vec<String> = s
            .order_by
            .iter()
            .map(|c| c.trim())
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect();
        let table = match order_by == s.order_by {
            true => whole.clone(),
            false => self.mlflow(
                &Search {
                    order_by,
                    ..s.clone()
                },
                1000,
            )?,
        };
        prop_assert_eq!(&self.app_table(s, 1000)?, &table, "runs table {:?}", s);
        prop_assert_eq!(
            &self.app_table(s, s.page)?,
            &table,
            "paged runs table {:?}",
            s
        );
        if let Ok(ids) = &whole {
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            prop_assert_eq!(unique.len(), ids.len(), "a run twice: {:?}", s);
        }
        Ok(())
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(100))]

    #[test]
    fn order_by_and_filters_never_5xx_and_pages_agree(s in search()) {
        let f = fixture_once();
        f.check(&s)?;
        // Most random filters are refused or match nothing: the order alone too.
        if !s.filter.is_empty() {
            f.check(&Search { filter: String::new(), ..s })?;
        }
    }
}

#[test]
fn every_orderable_key_in_both_directions_pages_in_order() {
    let f = fixture_once();
    let keys = [
        "run_id",
        "run_name",
        "user_id",
        "status",
        "artifact_uri",
        "start_time",
        "end_time",
        "created",
        "attributes.`Run name`",
        "metrics.loss",
        "metrics.acc",
        "params.model",
        "params.lr",
        "tags.team",
        "tags.`my key`",
        "tags.\"odd.key-1\"",
        "metrics.missing",
        // A run id first, a clause after it.
        "run_id, run_name",
        "metrics.loss, run_id, tags.team",
    ];
    for key in keys {
        for dir in [" ASC", " DESC"] {
            let order_by: Vec<String> = key.split(", ").map(|k| format!("{k}{dir}")).collect();
            let s = Search {
                filter: String::new(),
                order_by,
                view: 2,
                page: 1,
            };
            f.check(&s).expect("search");
            let got = f.mlflow(&s, 1000).expect("search");
            assert_eq!(got.map(|ids| ids.len()), Ok(f.runs.len()), "{s:?}");
        }
    }
    // By run id: exactly the ids' order.
    let s = Search {
        filter: String::new(),
        order_by: vec!["run_id ASC".into(), "run_name DESC".into()],
        view: 0,
        page: 2,
    };
    let mut want = f.runs[..6].to_vec();
    want.sort();
    assert_eq!(f.mlflow(&s, 2).expect("search"), Ok(want));
}

/// Times are integer columns: a fraction or a number past any integer compares with them
/// as a number on both databases (PostgreSQL binds neither to an integer parameter), in
/// every search.
#[test]
fn times_compare_with_fractions_and_huge_numbers() {
    let f = fixture_once();
    let s = |filter: &str| Search {
        filter: filter.into(),
        order_by: vec!["start_time ASC".into(), "run_id ASC".into()],
        view: 0,
        page: 2,
    };
    let runs = |ids: &[usize]| -> Vec<String> { ids.iter().map(|&i| f.runs[i].clone()).collect() };
    let mut tied = runs(&[0, 1]);
    tied.sort();
    let all = [runs(&[3]), tied.clone(), runs(&[2, 4, 5])].concat();
    let cases = [
        ("start_time < 1000.5", [runs(&[3]), tied].concat()),
        ("start_time > 1000.5", runs(&[2, 4, 5])),
        ("start_time = 1000.5", Vec::new()),
        ("start_time != 1000.5", all.clone()),
        ("start_time < 1e300", all),
        ("end_time <= 1500.0", runs(&[2])),
    ];
    for (filter, want) in cases {
        f.check(&s(filter)).expect(filter);
        assert_eq!(
            f.mlflow(&s(filter), 1000).expect(filter),
            Ok(want),
            "{filter}"
        );
    }
    for filter in ["creation_time > 0.5", "last_update_time < 1e300"] {
        let body = json!({"filter": filter, "max_results": 10});
        let (status, v) = f.rt.block_on(f.app.post("/experiments/search", body));
        assert_eq!(status, 200, "{filter}: {v}");
        assert!(!v["experiments"].as_array().expect("experiments").is_empty());
    }
    for filter in ["creation_time > 0.5", "last_updated_timestamp < 1e300"] {
        let body = json!({"experiment_ids": [f.exp], "filter": filter});
        let (status, v) = f.rt.block_on(f.app.post("/logged-models/search", body));
        assert_eq!(status, 200, "{filter}: {v}");
    }
}
