use super::*;

fn conn() -> Conn {
    let c = Conn::from_sqlite(rusqlite::Connection::open_in_memory().unwrap());
    c.execute_batch("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, x REAL, b BLOB)")
        .unwrap();
    c
}

#[test]
fn values_round_trip_through_parameters_and_columns() {
    let c = conn();
    let blob = vec![0u8, 1, 2];
    c.execute(
        "INSERT INTO t (id, name, x, b) VALUES (?1, ?2, ?3, ?4)",
        params![7_i64, "seven", 7.5, blob],
    )
    .unwrap();
    c.execute(
        "INSERT INTO t (id, name) VALUES (?1, ?2)",
        params![8_u32, None::<String>],
    )
    .unwrap();
    let (name, x, b): (String, f64, Vec<u8>) = c
        .query_row("SELECT name, x, b FROM t WHERE id = ?1", [7], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?))
        })
        .unwrap();
    assert_eq!((name.as_str(), x, b), ("seven", 7.5, vec![0, 1, 2]));
    let missing: Option<String> = c
        .query_row("SELECT name FROM t WHERE id = 8", [], |r| r.get(0))
        .unwrap();
    assert_eq!(missing, None);
    // An integer column reads as f64 and bool too; text does not read as a number.
    let as_f64: f64 = c
        .query_row("SELECT id FROM t WHERE id = 7", [], |r| r.get(0))
        .unwrap();
    assert_eq!(as_f64, 7.0);
    let as_bool: bool = c
        .query_row("SELECT id = 7 FROM t WHERE id = 7", [], |r| r.get(0))
        .unwrap();
    assert!(as_bool);
    let bad = c.query_row("SELECT name FROM t WHERE id = 7", [], |r| {
        r.get::<_, i64>(0)
    });
    assert!(
        matches!(bad, Err(DbError::Column { index: 0, .. })),
        "{bad:?}"
    );
    // A u64 beyond i64 is refused as a parameter, not wrapped.
    let big = c.execute("INSERT INTO t (id) VALUES (?1)", [u64::MAX]);
    assert!(matches!(big, Err(DbError::Parameter(_))), "{big:?}");
}

#[test]
fn optional_maps_only_the_no_rows_error() {
    let c = conn();
    let none = c
        .query_row("SELECT id FROM t WHERE id = 1", [], |r| r.get::<_, i64>(0))
        .optional()
        .unwrap();
    assert_eq!(none, None);
    let err = c
        .query_row("SELECT nope FROM t", [], |r| r.get::<_, i64>(0))
        .optional();
    assert!(err.is_err());
}

#[test]
fn query_map_and_rows_read_every_row_in_order() {
    let c = conn();
    let mut ins = c
        .prepare_cached("INSERT INTO t (id, name) VALUES (?, ?)")
        .unwrap();
    for i in 1..=3_i64 {
        ins.execute(params_from_iter([
            Value::Integer(i),
            Value::from(format!("n{i}")),
        ]))
        .unwrap();
    }
    drop(ins);
    let mut s = c.prepare("SELECT id, name FROM t ORDER BY id").unwrap();
    let got: Vec<(i64, String)> = s
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .collect::<Result<_>>()
        .unwrap();
    assert_eq!(
        got,
        vec![(1, "n1".into()), (2, "n2".into()), (3, "n3".into())]
    );
    let mut rows = s.query([]).unwrap();
    let mut n = 0;
    while let Some(r) = rows.next().unwrap() {
        n += r.get::<_, i64>(0).unwrap();
    }
    assert_eq!(n, 6);
    assert!(c
        .prepare("SELECT 1 FROM t WHERE id = ?1")
        .unwrap()
        .exists([2])
        .unwrap());
}

#[test]
fn a_dropped_transaction_rolls_back_and_a_committed_one_stays() {
    let c = conn();
    {
        let tx = c.transaction(Behavior::Immediate).unwrap();
        tx.execute("INSERT INTO t (id) VALUES (1)", []).unwrap();
    }
    let n: i64 = c
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
    let tx = c.transaction(Behavior::Deferred).unwrap();
    tx.execute("INSERT INTO t (id) VALUES (2)", []).unwrap();
    tx.commit().unwrap();
    let n: i64 = c
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 1);
    // A unique violation is recognisable.
    let dup = c.execute("INSERT INTO t (id) VALUES (2)", []).unwrap_err();
    assert!(dup.is_constraint_violation());
}
