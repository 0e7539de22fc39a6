//! The block path against the scan: a chart read from block summaries must be the chart
//! the M4 reducer makes of every point (the same points kept, the same counts), whatever
//! order the points were logged in, with re-logged steps, NaN and ±inf.

use crate::db::{Conn, OptionalExtension};
use api_types as json;
use proptest::prelude::*;

use super::axis::Axis;
use super::block::{level_for, LEVELS, MIN_LEVEL};
use super::downsample::{Reduced, Viewport};
use super::query::reduce_range;
use super::scan::{Order, Scan, Stored};
use super::{chunks, cover, insert_points, query, SeriesRequest};
use crate::tracking::model::Point;

const RUN: &str = "00000000000000000000000000000001";

/// An in-memory store at the latest schema with one run and one empty series; its id.
fn store() -> (Conn, i64) {
    let mut c = Conn::open_sqlite(":memory:").unwrap();
    crate::db::migrate::run(&mut c, &crate::store::SCHEMA).unwrap();
    // No experiment 0 in a bare store: the run stands alone.
    c.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    c.execute(
        "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
           lifecycle_stage, artifact_uri)
         VALUES (?1, 0, 'r', 'u', 'RUNNING', 0, 'active', '')",
        [RUN],
    )
    .unwrap();
    let sid = c
        .query_row(
            "INSERT INTO metric_series (run_uuid, key) VALUES (?1, 'm') RETURNING series_id",
            [RUN],
            |r| r.get(0),
        )
        .unwrap();
    (c, sid)
}

fn p(step: i64, timestamp: i64, value: f64) -> Point {
    Point {
        step,
        timestamp,
        value,
    }
}

/// NaN is not equal to itself: compare reductions by their Debug text.
fn same(a: &Reduced, b: &Reduced) -> bool {
    format!("{a:?}") == format!("{b:?}")
}

/// The block path from `top` against the scan, on the step axis over `view`.
fn check_steps(c: &Conn, sid: i64, view: Viewport, top: u32) -> (Reduced, Reduced) {
    let steps = (view.x_min().ceil() as i64, view.x_max().floor() as i64);
    let blocks = cover::reduce(c, sid, Axis::Step, view, steps, top)
        .unwrap()
        .0;
    let scan = reduce_range(c, sid, Axis::Step, view).unwrap();
    (blocks, scan)
}

#[test]
fn a_one_point_spike_inside_a_block_survives_the_block_path() {
    let (c, sid) = store();
    let spike = 123_457; // inside block 1929 of level 6 (steps 123,456..123,519)
    let points: Vec<Point> = (0..200_000)
        .map(|i| {
            let v = if i == spike {
                1e6
            } else {
                (i as f64 * 1e-3).sin()
            };
            p(i, 1_000 + i, v)
        })
        .collect();
    for chunk in points.chunks(1000) {
        insert_points(&c, sid, chunk).unwrap();
    }
    let req = |x_min, x_max| SeriesRequest {
        run_id: RUN.into(),
        key: "m".into(),
        axis: json::XAxis::Step,
        width: 1000,
        x_min,
        x_max,
    };
    let out = query(&c, req(None, None)).unwrap();
    assert_eq!(out.total_points, 200_000);
    assert_eq!(out.points_in_range, 200_000);
    assert!(out
        .points
        .iter()
        .any(|p| p.step == spike && p.value.0 == 1e6));
    let zoom = query(&c, req(Some(100_000.0), Some(150_000.0))).unwrap();
    assert_eq!(zoom.total_points, 200_000);
    assert_eq!(zoom.points_in_range, 50_001);
    assert!(zoom.points.iter().any(|p| p.step == spike));
    for top in LEVELS {
        let view = Viewport::new(1000, 0.0, 199_999.0).unwrap();
        let (blocks, scan) = check_steps(&c, sid, view, top);
        assert!(same(&blocks, &scan), "level {top}");
    }
}

/// A noisy series settles most straddling blocks at the top level from their summaries
/// and the chunks at the boundary, by step and by time; a smooth falling one, whose
/// extremes sit at every boundary, is refined down as before. All give what the scan gives.
#[test]
fn noisy_series_settle_straddling_blocks_early() {
    let by_step = Viewport::new(50, 0.0, 65_535.0).unwrap();
    // Timestamps 3 a step from 1,000: the same columns as by step.
    let by_time = Viewport::new(50, 1_000.0, 1_000.0 + 3.0 * 65_535.0).unwrap();
    let top = level_for(65_536.0 / 50.0).unwrap();
    assert_eq!(top, 10);
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut noise = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s % 1_000_003) as f64 / 1e6
    };
    let noisy: Vec<Point> = (0..65_536).map(|i| p(i, 1_000 + 3 * i, noise())).collect();
    let falling: Vec<Point> = (0..65_536)
        .map(|i| p(i, 1_000 + 3 * i, 1.0 / (1.0 + i as f64)))
        .collect();
    // The noisy series again with a pause of 5 s every 1,000 steps (an evaluation, a
    // checkpoint): a block's timestamps no longer grow evenly, so the guessed step at a
    // boundary often misses its chunk and is looked up by timestamp.
    let paused: Vec<Point> = noisy
        .iter()
        .map(|q| p(q.step, q.timestamp + 5_000 * (q.step / 1_000), q.value))
        .collect();
    let mut stats = Vec::new();
    for points in [noisy, falling] {
        let (c, sid) = store();
        for chunk in points.chunks(4096) {
            insert_points(&c, sid, chunk).unwrap();
        }
        for (axis, view) in [(Axis::Step, by_step), (Axis::Time { offset: 0 }, by_time)] {
            let (blocks, st) = cover::reduce(&c, sid, axis, view, (0, 65_535), top).unwrap();
            let scan = reduce_range(&c, sid, axis, view).unwrap();
            assert!(same(&blocks, &scan), "{st:?}");
            stats.push(st);
        }
    }
    // 49 boundaries, each inside a block of 1,024 steps (a column is 1.3 of them): the
    // falling series refines each one twice, down to the lowest level.
    let [noisy_step, noisy_time, falling_step, falling_time] = stats[..] else {
        unreachable!()
    };
    for (noisy, falling) in [(noisy_step, falling_step), (noisy_time, falling_time)] {
        assert_eq!(falling.settled, 0, "{falling:?}");
        assert!(falling.refined >= 2 * 45, "{falling:?}");
        assert!(noisy.settled >= 25, "{noisy:?}");
        assert!(
            noisy.refined * 3 < falling.refined * 2,
            "{noisy:?} {falling:?}"
        );
    }
    assert_eq!(noisy_step, noisy_time, "the same columns, the same walk");
    assert_eq!(noisy_time.located, 0, "an even pace: every guess right");

    let (c, sid) = store();
    for chunk in paused.chunks(4096) {
        insert_points(&c, sid, chunk).unwrap();
    }
    let last = paused.last().unwrap().timestamp as f64;
    let view = Viewport::new(50, 1_000.0, last).unwrap();
    let axis = Axis::Time { offset: 0 };
    let (blocks, st) = cover::reduce(&c, sid, axis, view, (0, 65_535), top).unwrap();
    assert!(same(&blocks, &reduce_range(&c, sid, axis, view).unwrap()));
    assert!(st.located >= 10 && st.settled >= 25, "{st:?}");
}

#[test]
fn straddling_blocks_are_read_from_their_chunks_when_whole() {
    let (c, sid) = store();
    // 20,000 steps, then block 100 (steps 6,400..6,463) re-logged four more times: 320
    // points, over a chunk's 256.
    let mut points: Vec<Point> = (0..20_000)
        .map(|i| p(i, 1_000 + i, ((i * 7919) % 1000) as f64))
        .collect();
    for t in 1..5 {
        points.extend((6_400..6_464).map(|i| p(i, 1_000 + i + t * 100_000, -(t as f64))));
    }
    for chunk in points.chunks(1000) {
        insert_points(&c, sid, chunk).unwrap();
    }
    let chunk_len = |b: i64| -> Option<i64> {
        c.query_row(
            "SELECT length(points) FROM metric_chunks WHERE series_id = ?1 AND block = ?2",
            crate::db::params![sid, b],
            |r| r.get(0),
        )
        .optional()
        .unwrap()
    };
    // 1 format byte, 12 for the first point, 10 for each next (1 + 1 + 8).
    assert_eq!(chunk_len(3), Some(1 + 12 + 63 * 10));
    assert_eq!(chunk_len(100), None, "over the cap");
    let chunks: i64 = c
        .query_row("SELECT count(*) FROM metric_chunks", [], |r| r.get(0))
        .unwrap();
    assert_eq!(chunks, 312, "every block but the re-logged one");
    // About 20 steps a column from the lowest level: every block straddles a boundary.
    let view = Viewport::new(997, 0.0, 19_999.0).unwrap();
    let check = |c: &Conn| {
        let (blocks, scan) = check_steps(c, sid, view, MIN_LEVEL);
        same(&blocks, &scan)
    };
    assert!(check(&c));
    // The chunk is what is read: without block 3's rows in metric_points the block path
    // still has its points, the scan does not.
    let saved: Vec<(i64, i64, bool, f64)> = c
        .prepare("SELECT step, timestamp, is_nan, value FROM metric_points WHERE series_id = ?1 AND step BETWEEN 192 AND 255")
        .unwrap()
        .query_map([sid], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    c.execute(
        "DELETE FROM metric_points WHERE series_id = ?1 AND step BETWEEN 192 AND 255",
        [sid],
    )
    .unwrap();
    assert!(
        !check(&c),
        "the block path read metric_points, not the chunk"
    );
    for (step, ts, is_nan, value) in saved {
        c.execute(
            "INSERT INTO metric_points VALUES (?1, ?2, ?3, ?4, ?5)",
            crate::db::params![sid, step, ts, is_nan, value],
        )
        .unwrap();
    }
    assert!(check(&c));
    // A chunk short of the summary's count is not used.
    c.execute(
        "UPDATE metric_chunks SET points = substr(points, 1, 1 + 12 + 9 * 10)
          WHERE series_id = ?1 AND block = 3",
        [sid],
    )
    .unwrap();
    assert!(check(&c));
    // A block whose earlier points have no chunk (as after the migration) gets none when
    // points are added; a block with one gets them added to it.
    c.execute(
        "DELETE FROM metric_chunks WHERE series_id = ?1 AND block = 5",
        [sid],
    )
    .unwrap();
    insert_points(&c, sid, &[p(330, 5, 1e9), p(450, 6, -1e9)]).unwrap();
    assert_eq!(chunk_len(5), None);
    assert_eq!(chunks::read(&c, sid, &[7]).unwrap()[&7].len(), 65);
    assert!(check(&c));
    let whole = Viewport::new(200, 0.0, 19_999.0).unwrap();
    let out = cover::reduce(&c, sid, Axis::Step, whole, (0, 19_999), MIN_LEVEL)
        .unwrap()
        .0;
    assert!(same(
        &out,
        &reduce_range(&c, sid, Axis::Step, whole).unwrap()
    ));
    assert!(
        out.points.iter().any(|p| p.value.0 == 1e9) && out.points.iter().any(|p| p.value.0 == -1e9)
    );
}

#[test]
fn counts_and_time_order_are_kept_on_insert() {
    let (c, sid) = store();
    let info = |c: &Conn| -> (i64, bool) {
        c.query_row(
            "SELECT point_count, time_ordered FROM metric_series WHERE series_id = ?1",
            [sid],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(
        insert_points(&c, sid, &[p(1, 10, 1.0), p(2, 20, 2.0)]).unwrap(),
        2
    );
    // The same point again is not stored again; a re-logged step is.
    assert_eq!(
        insert_points(&c, sid, &[p(2, 20, 2.0), p(2, 21, 3.0)]).unwrap(),
        1
    );
    assert_eq!(info(&c), (3, true));
    // An older step logged later: no longer time-ordered.
    assert_eq!(insert_points(&c, sid, &[p(0, 30, 0.0)]).unwrap(), 1);
    assert_eq!(info(&c), (4, false));
    assert_eq!(insert_points(&c, sid, &[p(9, 90, 0.0)]).unwrap(), 1);
    assert_eq!(info(&c), (5, false));
}

/// A series as logged: `(step, timestamp, value)` in logging order, cut into batches.
#[derive(Debug, Clone)]
struct Logged {
    points: Vec<Point>,
    batch: usize,
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        20 => -10.0f64..10.0,
        2 => Just(1e6),
        2 => Just(-1e6),
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(f64::NEG_INFINITY),
        2 => Just(0.0),
    ]
}

/// Steps over `-300..span` (so negative steps and blocks, and every level stored) or
/// `0..span + 300` (a top level that rises as the series grows), some re-logged with other
/// timestamps and values; timestamps either growing with the step or anything; logged
/// in a shuffled order or in step order.
fn logged() -> impl Strategy<Value = Logged> {
    (
        1usize..2500,
        100i64..20_000,
        any::<bool>(),
        any::<bool>(),
        1usize..700,
        prop_oneof![Just(-300i64), Just(0i64)],
    )
        .prop_flat_map(|(n, span, ordered_time, shuffled, batch, from)| {
            (
                prop::collection::vec(
                    (from..span + 300 + from, 0i64..3, value(), 0i64..1_000_000),
                    n,
                ),
                Just((ordered_time, shuffled, batch)),
                any::<u64>(),
            )
        })
        .prop_map(|(raw, (ordered_time, shuffled, batch), seed)| {
            let mut points: Vec<Point> = raw
                .into_iter()
                .map(|(step, relog, v, t)| {
                    let ts = if ordered_time {
                        1_000_000 + step * 4 + relog
                    } else {
                        t
                    };
                    p(step, ts, v)
                })
                .collect();
            points.sort_by_key(|p| (p.step, p.timestamp));
            if shuffled {
                // A deterministic shuffle from the seed (proptest shrinks the seed).
                let mut s = seed | 1;
                for i in (1..points.len()).rev() {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    points.swap(i, (s % (i as u64 + 1)) as usize);
                }
            }
            Logged { points, batch }
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every level as the starting level, random ranges and widths, both axes: the block
    /// path gives exactly what the scan gives.
    #[test]
    fn the_block_path_is_the_scan(
        logged in logged(),
        ranges in prop::collection::vec((0.0f64..1.0, 0.0f64..1.0, 1u32..300), 4),
    ) {
        let (c, sid) = store();
        for chunk in logged.points.chunks(logged.batch) {
            insert_points(&c, sid, chunk).unwrap();
        }
        let stored: i64 = c
            .query_row("SELECT count(*) FROM metric_points", [], |r| r.get(0))
            .unwrap();
        let (count, ordered): (i64, bool) = c
            .query_row(
                "SELECT point_count, time_ordered FROM metric_series WHERE series_id = ?1",
                [sid],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .unwrap();
        prop_assert_eq!(count, stored);
        let (lo, hi): (i64, i64) = c
            .query_row("SELECT min(step), max(step) FROM metric_points", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        let (tlo, thi): (i64, i64) = c
            .query_row("SELECT min(timestamp), max(timestamp) FROM metric_points", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        for (a, b, width) in ranges {
            let (a, b) = (a.min(b), a.max(b));
            let span = (hi - lo) as f64;
            let view = Viewport::new(width, lo as f64 + a * span - 3.0, lo as f64 + b * span + 3.0)
                .unwrap();
            for top in LEVELS {
                let (blocks, scan) = check_steps(&c, sid, view, top);
                prop_assert!(same(&blocks, &scan), "step axis, level {}:\n{:?}\n{:?}", top, blocks, scan);
            }
            if ordered {
                let tspan = (thi - tlo) as f64;
                let view = Viewport::new(width, tlo as f64 + a * tspan, tlo as f64 + b * tspan)
                    .unwrap();
                let axis = Axis::Time { offset: 0 };
                let scan = reduce_range(&c, sid, axis, view).unwrap();
                let steps = time_steps(&c, view);
                let Some(steps) = steps else {
                    prop_assert_eq!(scan.in_range, 0);
                    continue;
                };
                let top = level_for((steps.1 - steps.0 + 1) as f64 / f64::from(width)).unwrap_or(6);
                let blocks = cover::reduce(&c, sid, axis, view, steps, top).unwrap().0;
                prop_assert!(same(&blocks, &scan), "time axis:\n{:?}\n{:?}", blocks, scan);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The stored summaries depend on the points only, not on how they were batched or in
    /// which order they came: a series logged batch by batch (its top level rising as it
    /// grows, in either direction) stores what the same points logged at once store.
    #[test]
    fn the_summaries_do_not_depend_on_the_batches(logged in logged()) {
        let (c, sid) = store();
        for chunk in logged.points.chunks(logged.batch) {
            insert_points(&c, sid, chunk).unwrap();
        }
        let (once, sid_once) = store();
        insert_points(&once, sid_once, &logged.points).unwrap();
        // The series' time-order flag may differ: it is conservative for shuffled batches.
        let blocks = |c: &Conn| -> Vec<String> {
            summaries(c).into_iter().filter(|r| !r.starts_with("series ")).collect()
        };
        prop_assert_eq!(blocks(&c), blocks(&once));
    }
}

/// A series keeps summaries up to its top level only, and a write that jumps far past its
/// steps (or before them) adds the levels it grows into, holding the old points too: what
/// it stores is what the same points logged at once store, and its charts are the scan's.
#[test]
fn a_write_far_from_the_stored_steps_adds_the_levels_above() {
    let levels = |c: &Conn, sid: i64| -> Vec<i64> {
        let mut stmt = c
            .prepare("SELECT DISTINCT level FROM metric_summaries WHERE series_id = ?1 ORDER BY 1")
            .unwrap();
        let rows = stmt.query_map([sid], |r| r.get(0)).unwrap();
        rows.map(Result::unwrap).collect()
    };
    let near: Vec<Point> = (0..10).map(|i| p(i, i, i as f64)).collect();
    let far = vec![p(100_000, 100_000, -5.0), p(100_001, 100_001, 7.0)];
    let between: Vec<Point> = (500..700).map(|i| p(i, i, 0.5)).collect();
    let orders: [Vec<&[Point]>; 3] = [
        vec![&near, &far, &between],
        vec![&far, &near, &between],
        vec![&between, &far, &near],
    ];
    let (once, sid_once) = store();
    let all: Vec<Point> = [&near[..], &far[..], &between[..]].concat();
    insert_points(&once, sid_once, &all).unwrap();
    for order in orders {
        let (c, sid) = store();
        insert_points(&c, sid, order[0]).unwrap();
        let first = levels(&c, sid);
        assert!(first.len() <= 3, "{first:?}");
        for batch in &order[1..] {
            insert_points(&c, sid, batch).unwrap();
        }
        // Steps 0..100,001: one block from 2^18 steps up.
        assert_eq!(levels(&c, sid), vec![6, 8, 10, 12, 14, 16, 18]);
        let blocks = |c: &Conn| -> Vec<String> {
            summaries(c)
                .into_iter()
                .filter(|r| !r.starts_with("series "))
                .collect()
        };
        assert_eq!(blocks(&c), blocks(&once));
        for top in LEVELS {
            let view = Viewport::new(300, 0.0, 100_001.0).unwrap();
            let (blocks, scan) = check_steps(&c, sid, view, top);
            assert!(same(&blocks, &scan), "level {top}");
        }
    }
}

/// The steps of the first and last point in the time range of `view` (wall axis).
fn time_steps(c: &Conn, view: Viewport) -> Option<(i64, i64)> {
    let lo = view.x_min().ceil() as i64;
    let hi = view.x_max().floor() as i64;
    let first: i64 = c
        .query_row(
            "SELECT step FROM metric_points WHERE timestamp >= ?1 ORDER BY timestamp, step LIMIT 1",
            [lo],
            |r| r.get(0),
        )
        .ok()?;
    let last: i64 = c
        .query_row(
            "SELECT step FROM metric_points WHERE timestamp <= ?1
              ORDER BY timestamp DESC, step DESC LIMIT 1",
            [hi],
            |r| r.get(0),
        )
        .ok()?;
    (first <= last).then_some((first, last))
}

/// Every row of `metric_summaries` and the series' count and flag, as text.
fn summaries(c: &Conn) -> Vec<String> {
    let mut stmt = c
        .prepare("SELECT * FROM metric_summaries ORDER BY series_id, level, block")
        .unwrap();
    let cols = stmt.column_count();
    let mut rows: Vec<String> = stmt
        .query_map([], |r| {
            (0..cols)
                .map(|i| Ok(format!("{:?}", r.get_ref(i)?)))
                .collect::<crate::db::Result<Vec<_>>>()
                .map(|v| v.join(" "))
        })
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let mut series = c
        .prepare("SELECT series_id, point_count, time_ordered FROM metric_series ORDER BY 1")
        .unwrap();
    let more = series
        .query_map([], |r| {
            Ok(format!(
                "series {} {} {}",
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, bool>(2)?
            ))
        })
        .unwrap();
    rows.extend(more.map(Result::unwrap));
    rows
}

#[test]
fn the_migrations_backfill_what_ingest_keeps() {
    // Three series: in order, re-logged and out of order with non-finite values, sparse
    // with negative and huge steps.
    let mut s = 7u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e6, -1e6];
    let series: Vec<Vec<Point>> = vec![
        (0..5000).map(|i| p(i, 10 * i, (i as f64).sin())).collect(),
        (0..6000)
            .map(|_| {
                let r = next();
                let v = if r % 50 == 0 {
                    specials[(r / 50 % 5) as usize]
                } else {
                    (r % 1000) as f64 / 7.0
                };
                p((r >> 20) as i64 % 3000, (r >> 40) as i64 % 50, v)
            })
            .collect(),
        (0..500)
            .map(|i| p((i - 250) * 1_000_003, i, (i % 7) as f64))
            .collect(),
    ];
    // Through ingest.
    let (c, sid) = store();
    let mut ids = vec![sid];
    for key in ["m2", "m3"] {
        ids.push(
            c.query_row(
                "INSERT INTO metric_series (run_uuid, key) VALUES (?1, ?2) RETURNING series_id",
                [RUN, key],
                |r| r.get(0),
            )
            .unwrap(),
        );
    }
    for (id, points) in ids.iter().zip(&series) {
        for chunk in points.chunks(777) {
            insert_points(&c, *id, chunk).unwrap();
        }
    }
    // Through the migrations: points written at schema 5, then migration 6 (summaries in
    // columns) and every later one (9 re-encodes them into one value, 10 drops the old).
    let old = Conn::open_sqlite(":memory:").unwrap();
    let migrations = crate::store::MIGRATIONS;
    let six = migrations.iter().position(|m| m.version == 6).unwrap();
    for m in &migrations[..six] {
        old.execute_batch(m.sql).unwrap();
    }
    old.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
    for (i, (id, points)) in ids.iter().zip(&series).enumerate() {
        old.execute(
            "INSERT INTO metric_series (series_id, run_uuid, key) VALUES (?1, ?2, ?3)",
            crate::db::params![id, RUN, format!("k{i}")],
        )
        .unwrap();
        for q in points {
            let (is_nan, v) = crate::tracking::model::to_stored(q.value);
            old.execute(
                "INSERT INTO metric_points VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT DO NOTHING",
                crate::db::params![id, q.step, q.timestamp, is_nan, v],
            )
            .unwrap();
        }
    }
    for m in &migrations[six..] {
        crate::db::migrate::apply(&old, m).unwrap();
    }
    let (want, got) = (summaries(&c), summaries(&old));
    assert!(want.len() > 500, "{}", want.len());
    assert!(want.iter().any(|r| r.ends_with("false")));
    for (w, g) in want.iter().zip(&got) {
        assert_eq!(w, g);
    }
    assert_eq!(want.len(), got.len());
}

/// PostgreSQL reads the point ranges of a chart many to a statement: the batches give the
/// points one range a statement gives, in the same order.
#[test]
fn batched_point_ranges_read_what_single_ranges_read() {
    let (c, sid) = store();
    let mut points: Vec<Point> = (0..200).map(|s| p(s, 1_000 + s, s as f64)).collect();
    points.extend([p(25, 5, f64::NAN), p(25, 6, 1.0), p(71, 2, f64::INFINITY)]);
    insert_points(&c, sid, &points).unwrap();
    let ranges = [(0, 9), (20, 29), (50, 50), (70, 99), (150, 160)];
    let text = |per| format!("{:?}", cover::read_ranges(&c, sid, &ranges, per).unwrap());
    let one = text(1);
    assert!(one.contains("NaN") && one.contains("inf"), "{one}");
    for per in [2, 3, 64] {
        assert_eq!(text(per), one, "{per} ranges a statement");
    }
}

#[test]
fn a_scan_reads_every_point_in_order_a_page_at_a_time() {
    let (c, sid) = store();
    // Re-logged steps (several timestamps and values a step, ties within a page and across
    // page boundaries), timestamps that go back and forth, NaN and ±inf.
    let mut points = Vec::new();
    for step in 0..40i64 {
        let ts = 1_000 - step * 7 % 50;
        points.push(p(step, ts, step as f64 * 0.5));
        if step % 3 == 0 {
            points.extend([p(step, ts, -1.0), p(step, ts + 1, f64::NAN)]);
        }
        if step % 5 == 0 {
            points.extend([
                p(step, ts - 3, f64::INFINITY),
                p(step, ts, f64::NEG_INFINITY),
            ]);
        }
    }
    insert_points(&c, sid, &points).unwrap();
    let one_statement = |order: Order, range: (i64, i64), finite_only: bool| -> Vec<Stored> {
        let (x, keys) = match order {
            Order::Step => ("step", "step, timestamp, is_nan, value"),
            Order::Time => ("timestamp", "timestamp, step, is_nan, value"),
        };
        let nan = if finite_only { "AND is_nan = 0" } else { "" };
        let sql = format!(
            "SELECT step, timestamp, is_nan, value FROM metric_points
              WHERE series_id = ?1 AND {x} BETWEEN ?2 AND ?3 {nan} ORDER BY {keys}"
        );
        let mut stmt = c.prepare(&sql).unwrap();
        let mut rows = stmt
            .query(crate::db::params![sid, range.0, range.1])
            .unwrap();
        let mut all = Vec::new();
        while let Some(r) = rows.next().unwrap() {
            all.push((
                r.get(0).unwrap(),
                r.get(1).unwrap(),
                r.get(2).unwrap(),
                r.get(3).unwrap(),
            ));
        }
        all
    };
    let ranges = [(i64::MIN, i64::MAX), (5, 30), (960, 990), (41, 60)];
    for order in [Order::Step, Order::Time] {
        for finite_only in [false, true] {
            for range in ranges {
                let want = one_statement(order, range, finite_only);
                if range == ranges[0] {
                    let expected = if finite_only {
                        40 + 14 + 16
                    } else {
                        40 + 28 + 16
                    };
                    assert_eq!(want.len(), expected);
                }
                for page in [1, 2, 3, 7, 1000] {
                    let got: Vec<Stored> = Scan::paged(&c, sid, order, range, finite_only, page)
                        .collect::<Result<_, _>>()
                        .unwrap();
                    assert_eq!(got, want, "{order:?} {range:?} {finite_only} page {page}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The step-sampled history read from the block summaries is the one streamed from
    /// every point: same points, same order, for any range and sample size.
    #[test]
    fn the_sampled_history_from_summaries_is_the_scan(
        logged in logged(),
        ranges in prop::collection::vec((0.0f64..1.0, 0.0f64..1.0, 1usize..400), 4),
    ) {
        use crate::tracking::history::{sample_points, sample_summaries};
        let (c, sid) = store();
        for chunk in logged.points.chunks(logged.batch) {
            insert_points(&c, sid, chunk).unwrap();
        }
        let (lo, hi): (i64, i64) = c
            .query_row("SELECT min(step), max(step) FROM metric_points", [], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .unwrap();
        let text = |p: Vec<Point>| format!("{p:?}");
        for (a, b, max) in ranges {
            let (a, b) = (a.min(b), a.max(b));
            let span = (hi - lo) as f64;
            let range = (lo + (a * span) as i64 - 2, lo + (b * span) as i64 + 2);
            for range in [None, Some(range)] {
                let scan = text(sample_points(&c, sid, range, max).unwrap());
                let blocks = text(sample_summaries(&c, sid, range, max).unwrap());
                prop_assert_eq!(blocks, scan, "range {:?}, max_results {}", range, max);
            }
        }
    }
}

/// Times `get-history-bulk-interval`'s sample of one series, streamed from every point
/// (the path before block summaries served it) and read from the summaries, in one run
/// on the same SQLite file; the answers must be the same. Sizes from `RUNLENS_BULK_BENCH`
/// (comma-separated point counts, default 1,000,000 and 10,000,000). Run in a release
/// build:
/// `cargo test --release -p server --lib -- --ignored --nocapture bulk_interval_bench`.
#[test]
#[ignore]
fn bulk_interval_bench() {
    use crate::tracking::history::{sample_points, sample_summaries};
    use std::time::Instant;
    let sizes: Vec<i64> = std::env::var("RUNLENS_BULK_BENCH")
        .unwrap_or_else(|_| "1000000,10000000".into())
        .split(',')
        .map(|s| s.trim().parse().unwrap())
        .collect();
    let median = |mut v: Vec<f64>| {
        v.sort_by(f64::total_cmp);
        v[v.len() / 2]
    };
    for n in sizes {
        let dir = tempfile::tempdir().unwrap();
        let mut c = Conn::open_sqlite(dir.path().join("bench.db").to_str().unwrap()).unwrap();
        c.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF")
            .unwrap();
        crate::db::migrate::run(&mut c, &crate::store::SCHEMA).unwrap();
        c.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        c.execute(
            "INSERT INTO runs (run_uuid, experiment_id, name, user_id, status, start_time,
               lifecycle_stage, artifact_uri)
             VALUES (?1, 0, 'r', 'u', 'RUNNING', 0, 'active', '')",
            [RUN],
        )
        .unwrap();
        let sid: i64 = c
            .query_row(
                "INSERT INTO metric_series (run_uuid, key) VALUES (?1, 'm') RETURNING series_id",
                [RUN],
                |r| r.get(0),
            )
            .unwrap();
        // A training loss: a distinct float at every step, one spike of 100.0.
        let seeded = Instant::now();
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for start in (0..n).step_by(100_000) {
            c.execute_batch("BEGIN").unwrap();
            let points: Vec<Point> = (start..(start + 100_000).min(n))
                .map(|s| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let noise = (x >> 11) as f64 / (1u64 << 53) as f64;
                    let v = if s == n / 3 + 17 {
                        100.0
                    } else {
                        1.0 / (1.0 + s as f64 / 1e4) + 0.05 * noise
                    };
                    p(s, 1_700_000_000_000 + s * 10, v)
                })
                .collect();
            for batch in points.chunks(1_000) {
                insert_points(&c, sid, batch).unwrap();
            }
            c.execute_batch("COMMIT").unwrap();
        }
        println!(
            "{n} points seeded in {:.1} s",
            seeded.elapsed().as_secs_f64()
        );
        for max in [320, 2500] {
            let time = |f: &dyn Fn() -> Vec<Point>| {
                let t = Instant::now();
                let out = f();
                (
                    t.elapsed().as_secs_f64() * 1e3,
                    format!("{out:?}"),
                    out.len(),
                )
            };
            let mut old = Vec::new();
            let mut new = Vec::new();
            let mut answers = Vec::new();
            for _ in 0..3 {
                let (ms, text, len) = time(&|| sample_points(&c, sid, None, max).unwrap());
                old.push(ms);
                answers.push((text, len));
            }
            for _ in 0..9 {
                let (ms, text, len) = time(&|| sample_summaries(&c, sid, None, max).unwrap());
                new.push(ms);
                assert_eq!(text, answers[0].0, "{n} points, max_results {max}");
                assert_eq!(len, answers[0].1);
            }
            println!(
                "{n} points, max_results {max} ({} points back): every point {:.1} ms, \
                 summaries {:.1} ms",
                answers[0].1,
                median(old),
                median(new)
            );
        }
    }
}
