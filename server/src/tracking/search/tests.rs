//! Runs search against a real (temporary) database.

use super::search_run_ids;
use crate::tracking::log_batch::{log_batch, Batch};
use crate::tracking::model::{Metric, Point};
use crate::tracking::runs::{self, NewRun};
use crate::tracking::{experiments, write, ViewType};
use crate::{Error, Store};

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    exp: i64,
    ids: Vec<String>,
}

fn metric(key: &str, value: f64) -> Metric {
    Metric {
        key: key.into(),
        point: Point {
            step: 0,
            timestamp: 1,
            value,
        },
    }
}

/// Runs r0..r4 with start times 100..104: loss = 5,4,NaN,2,(missing); model cnn/rnn;
/// r1 tagged `team=vision`, r3 finished.
fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let (exp, ids) = store
        .blocking(|c| {
            write(c, |c| {
                let exp = experiments::create(c, "s", None, &[])?;
                let mut ids = Vec::new();
                for (i, loss) in [Some(5.0), Some(4.0), Some(f64::NAN), Some(2.0), None]
                    .into_iter()
                    .enumerate()
                {
                    let id = runs::create(
                        c,
                        NewRun {
                            experiment_id: exp,
                            user_id: "u".into(),
                            run_name: Some(format!("r{i}")),
                            start_time: Some(100 + i as i64),
                            tags: vec![],
                        },
                    )?;
                    let mut b = Batch {
                        params: vec![(
                            "model".into(),
                            if i % 2 == 0 { "cnn" } else { "rnn" }.into(),
                        )],
                        ..Batch::default()
                    };
                    b.metrics.extend(loss.map(|l| metric("loss", l)));
                    if i == 1 {
                        b.tags.push(("team".into(), "vision".into()));
                    }
                    log_batch(c, &id, b, false)?;
                    ids.push(id);
                }
                runs::update(c, &ids[3], runs_status("FINISHED"), Some(200), None)?;
                Ok((exp, ids))
            })
        })
        .unwrap();
    Fixture {
        _dir: dir,
        store,
        exp,
        ids,
    }
}

fn runs_status(s: &str) -> Option<crate::tracking::model::RunStatus> {
    crate::tracking::model::RunStatus::parse(s)
}

impl Fixture {
    fn search(&self, filter: &str, order: &[&str]) -> Result<Vec<usize>, Error> {
        let order: Vec<String> = order.iter().map(|s| s.to_string()).collect();
        let found = self.store.blocking(|c| {
            search_run_ids(c, &[self.exp], filter, &order, ViewType::ActiveOnly, 0, 100)
        })?;
        Ok(found
            .iter()
            .map(|id| self.ids.iter().position(|x| x == id).unwrap())
            .collect())
    }
}

#[test]
fn default_order_is_newest_first() {
    let f = fixture();
    assert_eq!(f.search("", &[]).unwrap(), vec![4, 3, 2, 1, 0]);
}

#[test]
fn filters_by_metric_param_tag_and_attribute() {
    let f = fixture();
    assert_eq!(f.search("metrics.loss < 4.5", &[]).unwrap(), vec![3, 1]);
    assert_eq!(
        f.search("metrics.loss >= 2 AND params.model = 'cnn'", &[])
            .unwrap(),
        vec![0]
    );
    assert_eq!(f.search("tags.team = 'vision'", &[]).unwrap(), vec![1]);
    assert_eq!(
        f.search("tags.team != 'vision'", &[]).unwrap(),
        Vec::<usize>::new()
    );
    assert_eq!(
        f.search("attributes.status = 'FINISHED'", &[]).unwrap(),
        vec![3]
    );
    assert_eq!(f.search("run_name LIKE 'r%'", &[]).unwrap().len(), 5);
    assert_eq!(f.search("run_name LIKE 'R%'", &[]).unwrap().len(), 0);
    assert_eq!(f.search("run_name ILIKE 'R_'", &[]).unwrap().len(), 5);
    assert_eq!(f.search("`Run name` = 'r2'", &[]).unwrap(), vec![2]);
    assert_eq!(f.search("created >= 103", &[]).unwrap(), vec![4, 3]);
    assert_eq!(f.search("end_time = 200", &[]).unwrap(), vec![3]);
    assert_eq!(
        f.search("params.model LIKE '%n_'", &[]).unwrap(),
        vec![4, 3, 2, 1, 0]
    );
    assert_eq!(
        f.search("tags.mlflow.runName = 'r0'", &[]).unwrap(),
        vec![0]
    );
    assert_eq!(
        f.search("dataset.name = 'train'", &[]).unwrap(),
        Vec::<usize>::new()
    );
    let id1 = f.ids[1].clone();
    let id3 = f.ids[3].clone();
    assert_eq!(
        f.search(&format!("run_id IN ('{id1}', '{id3}')"), &[])
            .unwrap(),
        vec![3, 1]
    );
    assert_eq!(
        f.search(&format!("run_id NOT IN ('{id1}')"), &[])
            .unwrap()
            .len(),
        4
    );
}

#[test]
fn user_values_are_bound_not_spliced() {
    let f = fixture();
    assert!(f
        .search("params.model = 'x'' OR 1=1 --'", &[])
        .unwrap()
        .is_empty());
    assert!(f
        .search("tags.`a'; DROP TABLE runs; --` = 'x'", &[])
        .unwrap()
        .is_empty());
    assert_eq!(f.search("", &[]).unwrap().len(), 5);
}

#[test]
fn rejects_invalid_filters() {
    let f = fixture();
    for bad in [
        "metrics.loss = 'a'",
        "params.model = 1",
        "params.model < 'a'",
        "metrics.loss LIKE '1'",
        "start_time = 'x'",
        "foo.bar = 'x'",
        "attributes.nope = 'x'",
        "status IN 1",
        "dataset.nope = 'x'",
        "metrics.loss > 1 OR metrics.loss < 0",
    ] {
        assert!(
            matches!(f.search(bad, &[]), Err(Error::InvalidParameter(_))),
            "{bad}"
        );
    }
}

#[test]
fn order_by_metric_puts_nan_then_missing_last() {
    let f = fixture();
    assert_eq!(
        f.search("", &["metrics.loss ASC"]).unwrap(),
        vec![3, 1, 0, 2, 4]
    );
    assert_eq!(
        f.search("", &["metrics.loss DESC"]).unwrap(),
        vec![0, 1, 3, 2, 4]
    );
}

#[test]
fn order_by_params_attributes_and_tie_breakers() {
    let f = fixture();
    assert_eq!(
        f.search("", &["params.model"]).unwrap(),
        vec![4, 2, 0, 3, 1]
    );
    assert_eq!(
        f.search("", &["params.model DESC", "start_time ASC"])
            .unwrap(),
        vec![1, 3, 0, 2, 4]
    );
    assert_eq!(
        f.search("", &["end_time DESC"]).unwrap(),
        vec![3, 4, 2, 1, 0]
    );
    assert_eq!(
        f.search("", &["attributes.run_name DESC"]).unwrap(),
        vec![4, 3, 2, 1, 0]
    );
    assert_eq!(f.search("", &["tags.team"]).unwrap(), vec![1, 4, 3, 2, 0]);
    for bad in [
        vec!["metrics.loss", "metrics.loss DESC"],
        vec!["nope"],
        vec!["dataset.name"],
    ] {
        assert!(f.search("", &bad).is_err(), "{bad:?}");
    }
}

#[test]
fn paging_and_view_types() {
    let f = fixture();
    let page = f
        .store
        .blocking(|c| search_run_ids(c, &[f.exp], "", &[], ViewType::ActiveOnly, 1, 2))
        .unwrap();
    assert_eq!(page, vec![f.ids[3].clone(), f.ids[2].clone()]);
    f.store
        .blocking(|c| runs::set_deleted(c, &f.ids[0], true))
        .unwrap();
    let count = |view| {
        f.store
            .blocking(|c| search_run_ids(c, &[f.exp], "", &[], view, 0, 100))
            .unwrap()
            .len()
    };
    assert_eq!(count(ViewType::ActiveOnly), 4);
    assert_eq!(count(ViewType::DeletedOnly), 1);
    assert_eq!(count(ViewType::All), 5);
}

/// 60 runs logging the same keys, four of them (42, 47, 52, 57) in another experiment: `loss` with
/// ties (i % 7), NaN on every 9th, +inf on every 11th, -inf once and missing on every
/// 5th; param `p` with ties (i % 13) and missing on every 6th; tag `t` on every 4th; two
/// deleted. Returns the store, the first experiment and its runs.
fn many() -> (tempfile::TempDir, Store, i64) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path()).unwrap();
    let exp = store
        .blocking(|c| {
            write(c, |c| {
                let exp = experiments::create(c, "many", None, &[])?;
                let other = experiments::create(c, "other", None, &[])?;
                for i in 0..60i64 {
                    let experiment_id = if i % 5 == 2 && i >= 40 { other } else { exp };
                    let id = runs::create(
                        c,
                        NewRun {
                            experiment_id,
                            user_id: "u".into(),
                            run_name: Some(format!("m{i}")),
                            // Start times tie in threes, so the run id breaks ties too.
                            start_time: Some(1000 + i / 3),
                            tags: vec![],
                        },
                    )?;
                    let loss = match i {
                        _ if i % 5 == 0 => None,
                        _ if i % 9 == 0 => Some(f64::NAN),
                        _ if i % 11 == 0 => Some(f64::INFINITY),
                        17 => Some(f64::NEG_INFINITY),
                        _ => Some((i % 7) as f64 * 0.5),
                    };
                    let mut b = Batch::default();
                    b.metrics.extend(loss.map(|l| metric("loss", l)));
                    if i % 6 != 0 {
                        b.params.push(("p".into(), format!("{:02}", i % 13)));
                    }
                    if i % 4 == 0 {
                        b.tags.push(("t".into(), format!("v{}", i % 3)));
                    }
                    log_batch(c, &id, b, false)?;
                    if i == 8 || i == 21 {
                        runs::set_deleted(c, &id, true)?;
                    }
                }
                Ok(exp)
            })
        })
        .unwrap();
    (dir, store, exp)
}

/// Keyset pages ordered by a metric, param or tag (read rank by rank from the value
/// indexes, `runs::ranked_rows`) give every run once, in the order of the one-statement
/// search, at any page size: ties, NaN, infinities and missing values across page
/// boundaries, runs of another experiment and deleted runs in the walk, filters that
/// reject most of it (the walk's cut then hands the page to the general query).
#[test]
fn ranked_pages_equal_the_one_statement_order() {
    use super::{order, runs, search_run_page, RunQuery};
    use crate::db::Engine;
    let (_dir, store, exp) = many();
    let orders: [&[&str]; 8] = [
        &["metrics.loss ASC"],
        &["metrics.loss DESC"],
        &["params.p ASC"],
        &["params.p DESC"],
        &["tags.t ASC"],
        &["tags.t DESC", "metrics.loss ASC"],
        &["metrics.loss ASC", "params.p DESC"],
        &["params.p", "start_time ASC"],
    ];
    let exps = [exp];
    store
        .blocking(|c| {
            for order_by in orders {
                let order_by: Vec<String> = order_by.iter().map(|s| s.to_string()).collect();
                for filter in [
                    "",
                    "params.p != '03'",
                    "metrics.loss > 1",
                    "tags.t = 'v1'",
                    "params.p = 'zz'",
                ] {
                    let all =
                        search_run_ids(c, &exps, filter, &order_by, ViewType::ActiveOnly, 0, 1000)?;
                    assert!(
                        !filter.is_empty() || all.len() == 54,
                        "{order_by:?}: {}",
                        all.len()
                    );
                    let q = RunQuery {
                        experiment_ids: &exps,
                        filter,
                        order_by: &order_by,
                        view: ViewType::ActiveOnly,
                    };
                    for limit in [1, 2, 3, 7, 1000] {
                        for count in [false, true] {
                            let mut ids = Vec::new();
                            let mut token: Option<String> = None;
                            loop {
                                let page = search_run_page(c, &q, token.as_deref(), limit, count)?;
                                assert!(page.ids.len() <= limit);
                                ids.extend(page.ids);
                                match page.next_page_token {
                                    Some(t) => token = Some(t),
                                    None => break,
                                }
                                assert!(ids.len() <= all.len(), "{order_by:?} {filter:?}");
                            }
                            assert_eq!(ids, all, "{order_by:?} {filter:?} at {limit} a page");
                        }
                    }
                }
                // The walk itself answers a first page (no cut, no fallback) ...
                let o = order::compile(&order_by)?;
                let wheres = runs::matching(Engine::Sqlite, &exps, "", ViewType::ActiveOnly)?;
                let ranked = o.ranked.as_ref().expect("a ranked order");
                let rows = runs::ranked_rows(c, &o, ranked, &wheres, None, 5)?;
                assert_eq!(rows.map(|r| r.len()), Some(5), "{order_by:?}");
            }
            // ... and hands a page to the general query when its filter rejects all it reads
            // (30 entries, over the 16 allowed for a page of one).
            let order_by = vec!["metrics.loss ASC".to_string()];
            let o = order::compile(&order_by)?;
            let wheres = runs::matching(
                Engine::Sqlite,
                &exps,
                "params.p = 'zz'",
                ViewType::ActiveOnly,
            )?;
            let ranked = o.ranked.as_ref().expect("a ranked order");
            assert!(runs::ranked_rows(c, &o, ranked, &wheres, None, 1)?.is_none());
            Ok(())
        })
        .unwrap();
}
