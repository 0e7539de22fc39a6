//! A series' points in a step range as the step-sampled history needs them, from the block
//! summaries instead of every point: exact points around chosen positions in reading
//! order, and summaries (count, lowest and highest point) for the stretches between.
//!
//! The walk first covers the range with the blocks of the series' top level, refining the
//! blocks that cut its ends (a block's summary knows its smallest and largest step) down
//! to their points; the covered blocks' counts then give the number of points in range and
//! each block's place in reading order. Then every block holding one of the wanted positions is refined, level
//! by level (the children of all such blocks of a level read with one statement), and at
//! the lowest level read as points (its chunk, one row, when it holds as many points as the
//! summary counts; else its step range of `metric_points`). What is left between the exact
//! points are whole blocks, each inside the range and holding no wanted position. Rows read
//! grow with the wanted positions and the levels, not with the points.

use std::collections::HashMap;

use crate::db::{Conn, Engine};

use super::block::{Block, LEVEL_STEP, MIN_LEVEL};
use super::blocks;
use super::cover::{read_children, read_chunks, read_ranges};
use crate::Error;
use api_types as json;

/// A stretch of a series in reading order.
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// These points, exactly.
    Points(Vec<json::SeriesPoint>),
    /// `n` points known only by their lowest and highest non-NaN point (an infinity
    /// included; the earliest of equal ones), as a block summary has them.
    Span {
        /// Points in the stretch.
        n: u64,
        /// The earliest of its lowest non-NaN points.
        low: Option<json::SeriesPoint>,
        /// The earliest of its highest non-NaN points.
        high: Option<json::SeriesPoint>,
    },
}

/// What the walk holds: a block still summarised (boxed: a summary is ten times the size
/// of the other variant), or points read.
enum Node {
    Block {
        level: u32,
        block: i64,
        summary: Box<Block>,
    },
    Points(Vec<json::SeriesPoint>),
}

impl Node {
    fn count(&self) -> u64 {
        match self {
            Node::Block { summary, .. } => summary.n,
            Node::Points(p) => p.len() as u64,
        }
    }
}

/// The points of series `sid` with steps in `steps` (inclusive), counted, and cut into
/// pieces in reading order such that each position `wanted(total)` names (positions in
/// reading order, counted from 0) lies in a [`Piece::Points`].
pub(crate) fn pieces(
    c: &Conn,
    sid: i64,
    steps: (i64, i64),
    wanted: impl Fn(u64) -> Vec<u64>,
) -> Result<(u64, Vec<Piece>), Error> {
    let (lo, hi) = steps;
    let top = blocks::stored_top(c, sid)?;
    let mut nodes: Vec<Node> = blocks::Reader::new(c)?
        .read(sid, top, lo >> top, hi >> top)?
        .into_iter()
        .map(|(block, summary)| Node::Block {
            level: top,
            block,
            summary: Box::new(summary),
        })
        .collect();
    // Cover the range: drop the blocks outside, refine the ones cut by an end.
    loop {
        nodes.retain(|n| match n {
            Node::Block { summary, .. } => summary.steps.1 >= lo && summary.steps.0 <= hi,
            Node::Points(p) => !p.is_empty(),
        });
        let cut = |n: &Node| match n {
            Node::Block { summary, .. } => summary.steps.0 < lo || summary.steps.1 > hi,
            Node::Points(_) => false,
        };
        if !nodes.iter().any(cut) {
            break;
        }
        let marks: Vec<bool> = nodes.iter().map(cut).collect();
        nodes = refine(c, sid, nodes, &marks, (lo, hi))?;
    }
    let total: u64 = nodes.iter().map(Node::count).sum();
    let mut targets = wanted(total);
    targets.sort_unstable();
    targets.dedup();
    // Refine every block that holds a wanted position until none does.
    loop {
        let mut marks = Vec::with_capacity(nodes.len());
        let mut base = 0u64;
        let mut t = 0usize;
        for n in &nodes {
            let end = base + n.count();
            while t < targets.len() && targets[t] < base {
                t += 1;
            }
            let holds = t < targets.len() && targets[t] < end;
            marks.push(holds && matches!(n, Node::Block { .. }));
            base = end;
        }
        if !marks.iter().any(|m| *m) {
            break;
        }
        nodes = refine(c, sid, nodes, &marks, (lo, hi))?;
    }
    let pieces = nodes
        .into_iter()
        .map(|n| match n {
            Node::Points(p) => Piece::Points(p),
            Node::Block { summary: s, .. } => Piece::Span {
                n: s.n,
                low: s.ninf.or(s.min),
                high: s.pinf.or(s.max),
            },
        })
        .collect();
    Ok((total, pieces))
}

/// `nodes` with each marked block replaced by its children (one statement a level) or,
/// at the lowest level, by its points with steps in `steps`.
fn refine(
    c: &Conn,
    sid: i64,
    nodes: Vec<Node>,
    marks: &[bool],
    steps: (i64, i64),
) -> Result<Vec<Node>, Error> {
    let mut parents: HashMap<u32, Vec<i64>> = HashMap::new();
    let mut lowest: Vec<i64> = Vec::new();
    for (n, marked) in nodes.iter().zip(marks) {
        if let (Node::Block { level, block, .. }, true) = (n, marked) {
            if *level == MIN_LEVEL {
                lowest.push(*block);
            } else {
                parents.entry(*level).or_default().push(*block);
            }
        }
    }
    let mut children: HashMap<(u32, i64), Vec<(i64, Block)>> = HashMap::new();
    for (level, mut ps) in parents {
        ps.sort_unstable();
        for (child, summary) in read_children(c, sid, level - LEVEL_STEP, &ps)? {
            children
                .entry((level, child >> LEVEL_STEP))
                .or_default()
                .push((child, summary));
        }
    }
    let chunks = read_chunks(c, sid, lowest)?;
    let per = match c.engine() {
        Engine::Sqlite => 1,
        Engine::Postgres => 1024,
    };
    let mut out = Vec::with_capacity(nodes.len() + 4 * children.len());
    for (n, marked) in nodes.into_iter().zip(marks) {
        match n {
            Node::Block {
                level,
                block,
                summary,
            } if *marked => {
                if level == MIN_LEVEL {
                    let points = match chunks.get(&block) {
                        Some(p) if p.len() as u64 == summary.n => p.clone(),
                        _ => {
                            let first = block << MIN_LEVEL;
                            read_ranges(c, sid, &[(first, first + (1 << MIN_LEVEL) - 1)], per)?
                        }
                    };
                    let inside: Vec<json::SeriesPoint> = points
                        .into_iter()
                        .filter(|p| (steps.0..=steps.1).contains(&p.step))
                        .collect();
                    if !inside.is_empty() {
                        out.push(Node::Points(inside));
                    }
                } else {
                    let kids = children.remove(&(level, block)).unwrap_or_default();
                    out.extend(kids.into_iter().map(|(block, summary)| Node::Block {
                        level: level - LEVEL_STEP,
                        block,
                        summary: Box::new(summary),
                    }));
                }
            }
            other => out.push(other),
        }
    }
    Ok(out)
}
