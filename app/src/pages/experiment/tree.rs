//! Groups runs under their parents (tag `mlflow.parentRunId`) for the runs table: the
//! visible rows in display order, with depth and child counts.

use std::collections::{HashMap, HashSet};

use api_types as json;

/// One visible row of the grouped table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TreeRow {
    /// Index into the table's rows.
    pub index: usize,
    /// Nesting depth (0 for top-level runs).
    pub depth: usize,
    /// Number of direct children present in the table.
    pub children: usize,
    /// Whether its children are shown.
    pub expanded: bool,
}

/// Children of each row (by index), in server order; rows whose parent is absent are roots.
/// Runs caught in a parent cycle (bad data) have no root: the first of each becomes one.
fn children_of(rows: &[json::RunRow]) -> (Vec<usize>, HashMap<usize, Vec<usize>>) {
    let pos: HashMap<&str, usize> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| (r.run_id.as_str(), i))
        .collect();
    let mut roots = Vec::new();
    let mut kids: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        match r.parent_run_id.as_deref().and_then(|p| pos.get(p)) {
            Some(&p) if p != i => kids.entry(p).or_default().push(i),
            _ => roots.push(i),
        }
    }
    let mut reached = vec![false; rows.len()];
    let mark = |start: usize, reached: &mut Vec<bool>| {
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            if !std::mem::replace(&mut reached[i], true) {
                stack.extend(kids.get(&i).into_iter().flatten().copied());
            }
        }
    };
    for &r in &roots {
        mark(r, &mut reached);
    }
    for i in 0..rows.len() {
        if !reached[i] {
            roots.push(i);
            mark(i, &mut reached);
        }
    }
    (roots, kids)
}

/// The rows to show: roots in order, each followed by its children when expanded.
pub fn flatten(rows: &[json::RunRow], expanded: &HashSet<String>) -> Vec<TreeRow> {
    let (roots, kids) = children_of(rows);
    let mut out = Vec::with_capacity(rows.len());
    let mut seen = HashSet::new();
    let mut stack: Vec<(usize, usize)> = roots.into_iter().rev().map(|i| (i, 0)).collect();
    while let Some((i, depth)) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        let children = kids.get(&i).map_or(&[][..], Vec::as_slice);
        let open = expanded.contains(&rows[i].run_id);
        out.push(TreeRow {
            index: i,
            depth,
            children: children.len(),
            expanded: open,
        });
        if open {
            stack.extend(children.iter().rev().map(|&c| (c, depth + 1)));
        }
    }
    out
}

/// Ids of every run that has children (for "Expand all").
pub fn parents(rows: &[json::RunRow]) -> HashSet<String> {
    let (_, kids) = children_of(rows);
    kids.keys().map(|&i| rows[i].run_id.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, parent: Option<&str>) -> json::RunRow {
        json::RunRow {
            run_id: id.into(),
            run_name: id.into(),
            status: "FINISHED".into(),
            start_time: 0,
            end_time: None,
            user_id: "u".into(),
            parent_run_id: parent.map(Into::into),
            params: vec![],
            metrics: vec![],
            tags: vec![],
        }
    }

    #[test]
    fn groups_children_under_parents() {
        let rows = vec![
            row("c1", Some("p")),
            row("p", None),
            row("x", None),
            row("c2", Some("p")),
            row("o", Some("gone")),
        ];
        let collapsed = flatten(&rows, &HashSet::new());
        let ids: Vec<_> = collapsed
            .iter()
            .map(|t| rows[t.index].run_id.as_str())
            .collect();
        assert_eq!(ids, vec!["p", "x", "o"]);
        assert_eq!(collapsed[0].children, 2);
        let open = flatten(&rows, &parents(&rows));
        let ids: Vec<_> = open
            .iter()
            .map(|t| (rows[t.index].run_id.as_str(), t.depth))
            .collect();
        assert_eq!(
            ids,
            vec![("p", 0), ("c1", 1), ("c2", 1), ("x", 0), ("o", 0)]
        );
    }

    #[test]
    fn survives_cycles() {
        let rows = vec![
            row("a", Some("b")),
            row("b", Some("a")),
            row("s", Some("s")),
        ];
        let all: HashSet<String> = ["a", "b"].iter().map(|s| s.to_string()).collect();
        let out = flatten(&rows, &all);
        let mut ids: Vec<_> = out.iter().map(|t| rows[t.index].run_id.as_str()).collect();
        ids.sort();
        assert_eq!(ids, vec!["a", "b", "s"], "every run is shown exactly once");
    }
}
