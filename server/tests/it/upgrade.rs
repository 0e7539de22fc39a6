//! Upgrading a store whose chart summaries were written before schema 9 (23 columns a
//! summary, `metric_blocks`): migration 9's data step re-encodes every summary into
//! `metric_summaries`, byte for byte what ingest writes today, on SQLite and on PostgreSQL
//! (the suite's backend). Series without chunks (their points predate migration 11) chart
//! from their points, with the same answer as a series ingested today. Migration 16 then
//! keeps each series' summaries up to its top level only, as ingest writes them.

use server::db::migrate::apply;
use server::db::pg::{create_database, with_database, PgPool};
use server::db::{params, Conn};
use server::store::MIGRATIONS;
use server::tracking::model::{to_stored, Point};
use server::tracking::series::{insert_points, query, SeriesRequest};

use crate::helpers::store::pg_url;

const RUN: &str = "0000000000000000000000000000000a";

/// Points in every shape the summaries keep apart: in order, re-logged steps, NaN and
/// ±inf, out of order, negative and sparse steps.
fn points() -> Vec<Point> {
    let mut s = 11u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e6];
    let mut out: Vec<Point> = (0..4_000)
        .map(|i| Point {
            step: i,
            timestamp: 1_000 + i,
            value: (i as f64 * 0.01).sin(),
        })
        .collect();
    out.extend((0..2_000).map(|_| {
        let r = next();
        Point {
            step: (r >> 20) as i64 % 5_000 - 300,
            timestamp: (r >> 40) as i64 % 100,
            value: if r % 40 == 0 {
                specials[(r / 40 % 4) as usize]
            } else {
                (r % 1000) as f64 / 3.0
            },
        }
    }));
    out
}

/// Each summary of series `sid`: `(level, block, bytes)`, in key order.
fn summaries(c: &Conn, sid: i64) -> Vec<(i64, i64, Vec<u8>)> {
    c.prepare(
        "SELECT level, block, summary FROM metric_summaries WHERE series_id = ?1
          ORDER BY level, block",
    )
    .unwrap()
    .query_map([sid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

#[test]
fn summaries_written_before_schema_9_are_re_encoded_as_ingest_writes_them() {
    // A database of its own: at schema 5 it must not have later migrations' tables.
    let dir = tempfile::tempdir().unwrap();
    let pg = pg_url().map(|admin| {
        let name = format!("upgrade_{}", std::process::id());
        create_database(&admin, &name, None).expect("create the database");
        let pool = PgPool::connect(&with_database(&admin, &name), 1).expect("connect");
        (admin, name, pool)
    });
    let c = match &pg {
        Some((_, _, pool)) => pool.get().unwrap(),
        None => Conn::open_sqlite(dir.path().join("old.db")).unwrap(),
    };
    let six = MIGRATIONS.iter().position(|m| m.version == 6).unwrap();
    for m in &MIGRATIONS[..six] {
        apply(&c, m).unwrap();
    }
    // No experiment or run rows: the series stands alone.
    c.execute_batch(if pg.is_some() {
        "SET session_replication_role = replica"
    } else {
        "PRAGMA foreign_keys = OFF"
    })
    .unwrap();
    c.execute(
        "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
           lifecycle_stage, artifact_uri)
         VALUES (?1, 0, 'r', 'u', 'RUNNING', 0, 'active', '')",
        [RUN],
    )
    .unwrap();
    // Series 1 has every level (its steps lie on both sides of zero); series 3, the
    // in-order part alone (steps 0..3,999), has summaries up to level 12 only since
    // migration 16.
    let points = points();
    let short = &points[..4_000];
    c.execute_batch("BEGIN").unwrap();
    for (sid, key, series) in [(1, "old", &points[..]), (3, "old-short", short)] {
        c.execute(
            "INSERT INTO metric_series (series_id, run_uuid, key) VALUES (?1, ?2, ?3)",
            params![sid, RUN, key],
        )
        .unwrap();
        for p in series {
            let (is_nan, value) = to_stored(p.value);
            c.execute(
                "INSERT INTO metric_points (series_id, step, timestamp, is_nan, value)
                 VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                params![sid, p.step, p.timestamp, is_nan, value],
            )
            .unwrap();
        }
    }
    c.execute_batch("COMMIT").unwrap();
    // Migration 6 summarises the points in columns; 9 re-encodes them, 10 drops the old
    // table, 11 adds chunks (none for these points), 16 drops the levels above a series'
    // top.
    for m in &MIGRATIONS[six..] {
        apply(&c, m).unwrap();
    }
    for (sid, key, series) in [(2, "new", &points[..]), (4, "new-short", short)] {
        c.execute(
            "INSERT INTO metric_series (series_id, run_uuid, key) VALUES (?1, ?2, ?3)",
            params![sid, RUN, key],
        )
        .unwrap();
        for batch in series.chunks(700) {
            insert_points(&c, sid, batch).unwrap();
        }
    }
    let (old, new) = (summaries(&c, 1), summaries(&c, 2));
    assert!(old.len() > 100, "{} summaries", old.len());
    assert_eq!(old, new);
    let (old, new) = (summaries(&c, 3), summaries(&c, 4));
    assert_eq!(old.iter().map(|s| s.0).max(), Some(12));
    assert_eq!(old, new);
    let chunks = |sid: i64| -> i64 {
        c.query_row(
            "SELECT count(*) FROM metric_chunks WHERE series_id = ?1",
            [sid],
            |r| r.get(0),
        )
        .unwrap()
    };
    assert_eq!(chunks(1), 0);
    assert!(chunks(2) > 50, "{} chunks", chunks(2));
    // Both chart the same, through the block path (width 40: over 64 steps a column).
    for (x_min, x_max) in [(None, None), (Some(-250.0), Some(3_333.0))] {
        let chart = |key: &str| {
            let out = query(
                &c,
                SeriesRequest {
                    run_id: RUN.into(),
                    key: key.into(),
                    axis: api_types::XAxis::Step,
                    width: 40,
                    x_min,
                    x_max,
                },
            )
            .unwrap();
            // Debug, not ==: NaN is not equal to itself.
            format!(
                "{:?} {:?} {}",
                out.points, out.non_finite, out.points_in_range
            )
        };
        assert_eq!(chart("old"), chart("new"));
    }
    drop(c);
    if let Some((admin, name, pool)) = pg {
        drop(pool);
        let admin = PgPool::connect(&admin, 1).unwrap();
        admin
            .get()
            .unwrap()
            .execute_batch(&format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)"))
            .unwrap();
    }
}
