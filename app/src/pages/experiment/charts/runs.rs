//! The selected runs as the chart view shows them: names, statuses and the value they are
//! grouped by (one `list_runs` request filtered by `attributes.run_id IN (...)`), and the
//! lines drawn: one per shown run, or one per group (mean, min–max band).

use api_types as json;

use super::super::run_colors::palette_color;
use super::super::workspace::GroupBy;
use crate::api::{self, ApiError};

/// A selected run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// Run id.
    pub run_id: String,
    /// Run name.
    pub name: String,
    /// RUNNING, FINISHED, …
    pub status: String,
    /// Its value of the grouping param or tag, if it has one.
    pub group_value: Option<String>,
}

/// Label of the group of runs without the grouping param or tag.
pub const NO_VALUE: &str = "(none)";

/// The filter naming `ids` (ids that are not plain identifiers are left out: a run id is
/// 32 hex digits).
pub fn ids_filter(ids: &[String]) -> Option<String> {
    let ids: Vec<String> = ids
        .iter()
        .filter(|id| {
            !id.is_empty()
                && id
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        })
        .map(|id| format!("'{id}'"))
        .collect();
    (!ids.is_empty()).then(|| format!("attributes.run_id IN ({})", ids.join(", ")))
}

/// Names, statuses and group values of the runs `ids` (deleted ones included; ids of no
/// run of the experiment are simply absent).
pub async fn fetch_runs(
    experiment_id: String,
    ids: Vec<String>,
    group: Option<GroupBy>,
) -> Result<Vec<RunInfo>, ApiError> {
    let Some(filter) = ids_filter(&ids) else {
        return Ok(Vec::new());
    };
    let mut columns = json::RunTableColumns::default();
    match &group {
        Some(GroupBy::Param(k)) => columns.params.push(k.clone()),
        Some(GroupBy::Tag(k)) => columns.tags.push(k.clone()),
        None => {}
    }
    let q = json::RunTableQuery {
        filter: Some(filter),
        order_by: Vec::new(),
        view: json::RunView::All,
        columns,
        ..Default::default()
    };
    let table = api::list_all_runs(experiment_id, q).await?;
    Ok(table
        .rows
        .into_iter()
        .map(|r| RunInfo {
            group_value: match &group {
                Some(GroupBy::Param(_)) => r.params.first().cloned().flatten(),
                Some(GroupBy::Tag(_)) => r.tags.first().cloned().flatten(),
                None => None,
            },
            run_id: r.run_id,
            name: r.run_name,
            status: r.status,
        })
        .collect())
}

/// One line of every panel.
#[derive(Debug, Clone, PartialEq)]
pub struct LineSpec {
    /// What the legend says: the run's name, or the group's value.
    pub label: String,
    /// `#rrggbb`.
    pub color: String,
    /// The runs it stands for (one for a run's line).
    pub runs: Vec<String>,
    /// Whether it is a group (drawn as mean and band).
    pub group: bool,
}

/// The lines for the `shown` runs (in order): one per run in its colour, or, when
/// `grouped`, one per distinct group value in order of first appearance, coloured from
/// the run palette by that order (so a shared link draws the same colours).
pub fn line_specs(
    shown: &[String],
    infos: &[RunInfo],
    grouped: bool,
    color_of: impl Fn(&str) -> String,
) -> Vec<LineSpec> {
    let info = |id: &str| infos.iter().find(|i| i.run_id == id);
    if !grouped {
        return shown
            .iter()
            .map(|id| LineSpec {
                label: info(id).map_or_else(|| short_id(id), |i| i.name.clone()),
                color: color_of(id),
                runs: vec![id.clone()],
                group: false,
            })
            .collect();
    }
    let mut out: Vec<LineSpec> = Vec::new();
    for id in shown {
        let value = info(id)
            .and_then(|i| i.group_value.clone())
            .unwrap_or_else(|| NO_VALUE.to_owned());
        match out.iter_mut().find(|l| l.label == value) {
            Some(l) => l.runs.push(id.clone()),
            None => {
                let color = palette_color(out.len()).to_owned();
                out.push(LineSpec {
                    label: value,
                    color,
                    runs: vec![id.clone()],
                    group: true,
                });
            }
        }
    }
    out
}

/// The first 8 characters of a run id (a name for runs not loaded yet).
pub fn short_id(id: &str) -> String {
    id.chars().take(8).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(id: &str, name: &str, g: Option<&str>) -> RunInfo {
        RunInfo {
            run_id: id.into(),
            name: name.into(),
            status: "FINISHED".into(),
            group_value: g.map(String::from),
        }
    }

    #[test]
    fn filter_names_plain_ids_only() {
        let ids = vec!["abc123".to_string(), "x') OR 1=1".into(), String::new()];
        assert_eq!(
            ids_filter(&ids).as_deref(),
            Some("attributes.run_id IN ('abc123')")
        );
        assert_eq!(ids_filter(&["a' OR '".into()]), None);
    }

    #[test]
    fn runs_and_groups_become_lines() {
        let infos = vec![
            info("a", "run-a", Some("adam")),
            info("b", "run-b", Some("sgd")),
            info("c", "run-c", Some("adam")),
            info("d", "run-d", None),
        ];
        let shown: Vec<String> = ["a", "b", "c", "d", "zzzzzzzzzz"]
            .map(String::from)
            .to_vec();
        let color = |id: &str| format!("#{id}");
        let runs = line_specs(&shown, &infos, false, color);
        assert_eq!(runs.len(), 5);
        assert_eq!(
            (runs[0].label.as_str(), runs[0].color.as_str()),
            ("run-a", "#a")
        );
        assert_eq!(runs[4].label, "zzzzzzzz");
        let groups = line_specs(&shown, &infos, true, color);
        let summary: Vec<(&str, Vec<&str>)> = groups
            .iter()
            .map(|g| {
                (
                    g.label.as_str(),
                    g.runs.iter().map(String::as_str).collect(),
                )
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                ("adam", vec!["a", "c"]),
                ("sgd", vec!["b"]),
                (NO_VALUE, vec!["d", "zzzzzzzzzz"])
            ]
        );
        assert_eq!(groups[1].color, palette_color(1));
        assert!(groups.iter().all(|g| g.group));
    }
}
