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
