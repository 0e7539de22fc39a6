//! The run's `system/...` metric keys, grouped for the System metrics tab. MLflow's
//! monitor logs `system/<metric>`, or `system/<node_id>/<metric>` with
//! `MLFLOW_SYSTEM_METRICS_NODE_ID` (and `runlens-agent run` does the same per node), where
//! `<metric>` is e.g. `cpu_utilization_percentage` or `gpu_0_utilization_percentage`.

/// The group of a metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    /// `gpu_<i>_...`: one section per GPU per node.
    Gpu(u32),
    /// `cpu_...`.
    Cpu,
    /// `system_memory_...`.
    Memory,
    /// `disk_...`.
    Disk,
    /// `network_...`.
    Network,
    /// Anything else under `system/`.
    Other,
}

impl Group {
    fn of(metric: &str) -> Group {
        if let Some(rest) = metric.strip_prefix("gpu_") {
            if let Some((i, field)) = rest.split_once('_') {
                if let (Ok(i), false) = (i.parse(), field.is_empty()) {
                    return Group::Gpu(i);
                }
            }
        }
        match metric {
            m if m.starts_with("cpu_") => Group::Cpu,
            m if m.starts_with("system_memory_") || m.starts_with("memory_") => Group::Memory,
            m if m.starts_with("disk_") => Group::Disk,
            m if m.starts_with("network_") => Group::Network,
            _ => Group::Other,
        }
    }

    /// Sections are shown in this order.
    fn rank(self) -> u8 {
        match self {
            Group::Gpu(_) => 0,
            Group::Cpu => 1,
            Group::Memory => 2,
            Group::Disk => 3,
            Group::Network => 4,
            Group::Other => 5,
        }
    }

    fn title(self) -> &'static str {
        match self {
            Group::Gpu(_) => "GPU",
            Group::Cpu => "CPU",
            Group::Memory => "Memory",
            Group::Disk => "Disk",
            Group::Network => "Network",
            Group::Other => "Other",
        }
    }
}

/// A parsed system metric key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SystemKey {
    /// The whole key, e.g. `system/node-1/gpu_0_utilization_percentage`.
    pub key: String,
    /// The node id, when the key names one.
    pub node: Option<String>,
    /// The metric, e.g. `gpu_0_utilization_percentage`.
    pub metric: String,
    /// Its group.
    pub group: Group,
}

/// Parses a key under `system/` (`None` for any other key or an empty metric).
pub fn parse_key(key: &str) -> Option<SystemKey> {
    let rest = key.strip_prefix("system/")?;
    let (node, metric) = match rest.rsplit_once('/') {
        Some((node, metric)) => (Some(node.to_owned()).filter(|n| !n.is_empty()), metric),
        None => (None, rest),
    };
    (!metric.is_empty()).then(|| SystemKey {
        key: key.to_owned(),
        node,
        metric: metric.to_owned(),
        group: Group::of(metric),
    })
}

/// Where a GPU field goes within its section (MLflow's fields first, in reading order).
fn field_rank(metric: &str) -> usize {
    const ORDER: [&str; 6] = [
        "utilization_percentage",
        "memory_usage_percentage",
        "memory_usage_megabytes",
        "temperature_celsius",
        "power_usage_watts",
        "power_usage_percentage",
    ];
    ORDER
        .iter()
        .position(|f| metric.ends_with(f))
        .unwrap_or(ORDER.len())
}

/// A chart's title: the metric, after its node when the run has several
/// (`node-1 · cpu_utilization_percentage`); the key itself when it is no system key.
pub fn chart_title(key: &str, multi_node: bool) -> String {
    match parse_key(key) {
        Some(SystemKey {
            node: Some(node),
            metric,
            ..
        }) if multi_node => format!("{node} · {metric}"),
        Some(k) => k.metric,
        None => key.to_owned(),
    }
}

/// A section of the tab: a title and its charts' keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Section {
    /// e.g. `CPU`, `Memory`.
    pub title: String,
    /// The keys, in chart order.
    pub keys: Vec<String>,
}

/// One chart of a node's GPUs: one field (`utilization_percentage`, …) with a line per GPU.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuChart {
    /// The field, e.g. `utilization_percentage` (the chart's title).
    pub field: String,
    /// What names the chart in the page and its zoom in the URL:
    /// `system/<node>/gpu_*_<field>` (`system/gpu_*_<field>` without a node).
    pub id: String,
    /// `(GPU index, key)` per line, by index.
    pub lines: Vec<(u32, String)>,
}

/// A node's GPUs: their indexes and one overlaid chart per field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GpuSection {
    /// `GPUs`, or `GPUs · <node>` when the run has several nodes.
    pub title: String,
    /// The node, when the keys name one.
    pub node: Option<String>,
    /// The GPU indexes, ascending (a GPU's colour is its place here).
    pub gpus: Vec<u32>,
    /// The charts, MLflow's fields first in reading order.
    pub charts: Vec<GpuChart>,
}

/// The distinct node ids of `keys`, sorted.
pub fn nodes(keys: &[String]) -> Vec<String> {
    let mut n: Vec<String> = keys.iter().filter_map(|k| parse_key(k)?.node).collect();
    n.sort();
    n.dedup();
    n
}

fn parsed(keys: &[String], node: Option<&str>) -> Vec<SystemKey> {
    keys.iter()
        .filter_map(|k| parse_key(k))
        .filter(|k| node.is_none_or(|n| k.node.as_deref() == Some(n)))
        .collect()
}

/// The GPU keys of `keys` as one section per node (with `node`, only that node's), each
/// with a chart per field overlaying the node's GPUs.
pub fn gpu_sections(keys: &[String], node: Option<&str>) -> Vec<GpuSection> {
    let multi = nodes(keys).len() > 1;
    let mut out: Vec<GpuSection> = Vec::new();
    for k in parsed(keys, node) {
        let Group::Gpu(i) = k.group else { continue };
        // `gpu_<i>_<field>`: Group::of checked the shape.
        let field = k
            .metric
            .splitn(3, '_')
            .nth(2)
            .unwrap_or_default()
            .to_owned();
        let at = match out.iter().position(|s| s.node == k.node) {
            Some(at) => at,
            None => {
                out.push(GpuSection {
                    title: match (&k.node, multi) {
                        (Some(n), true) => format!("GPUs · {n}"),
                        _ => "GPUs".to_owned(),
                    },
                    node: k.node.clone(),
                    gpus: Vec::new(),
                    charts: Vec::new(),
                });
                out.len() - 1
            }
        };
        let s = &mut out[at];
        if !s.gpus.contains(&i) {
            s.gpus.push(i);
        }
        match s.charts.iter_mut().find(|c| c.field == field) {
            Some(c) => c.lines.push((i, k.key)),
            None => {
                let id = match &k.node {
                    Some(n) => format!("system/{n}/gpu_*_{field}"),
                    None => format!("system/gpu_*_{field}"),
                };
                s.charts.push(GpuChart {
                    field,
                    id,
                    lines: vec![(i, k.key)],
                });
            }
        }
    }
    out.sort_by(|a, b| a.node.cmp(&b.node));
    for s in &mut out {
        s.gpus.sort_unstable();
        s.charts.sort_by(|a, b| {
            field_rank(&a.field)
                .cmp(&field_rank(&b.field))
                .then(a.field.cmp(&b.field))
        });
        for c in &mut s.charts {
            c.lines.sort();
        }
    }
    out
}

/// Groups the system keys of `keys` other than GPUs' (see [`gpu_sections`]; others are
/// ignored) into sections: CPU, memory, disk, network and other, each by metric then
/// node. With `node`, only that node's keys.
pub fn sections(keys: &[String], node: Option<&str>) -> Vec<Section> {
    let mut parsed: Vec<SystemKey> = parsed(keys, node)
        .into_iter()
        .filter(|k| !matches!(k.group, Group::Gpu(_)))
        .collect();
    parsed.sort_by(|a, b| {
        a.group
            .rank()
            .cmp(&b.group.rank())
            .then(a.metric.cmp(&b.metric))
            .then(a.node.cmp(&b.node))
    });
    let mut out: Vec<Section> = Vec::new();
    for k in parsed {
        let title = k.group.title().to_owned();
        match out.last_mut() {
            Some(s) if s.title == title => s.keys.push(k.key),
            _ => out.push(Section {
                title,
                keys: vec![k.key],
            }),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(list: &[&str]) -> Vec<String> {
        list.iter().map(|k| (*k).to_owned()).collect()
    }

    fn titles(s: &[Section]) -> Vec<&str> {
        s.iter().map(|s| s.title.as_str()).collect()
    }

    #[test]
    fn chart_titles_name_the_node_only_when_there_are_several() {
        let k = "system/n1/gpu_0_temperature_celsius";
        assert_eq!(chart_title(k, false), "gpu_0_temperature_celsius");
        assert_eq!(chart_title(k, true), "n1 · gpu_0_temperature_celsius");
        assert_eq!(
            chart_title("system/cpu_utilization_percentage", true),
            "cpu_utilization_percentage"
        );
        assert_eq!(chart_title("loss", false), "loss");
    }

    #[test]
    fn parses_both_key_formats() {
        let k = parse_key("system/gpu_1_temperature_celsius").unwrap();
        assert_eq!((k.node, k.group), (None, Group::Gpu(1)));
        let k = parse_key("system/node-a/gpu_12_utilization_percentage").unwrap();
        assert_eq!(
            (k.node.as_deref(), k.group),
            (Some("node-a"), Group::Gpu(12))
        );
        assert_eq!(
            parse_key("system/cpu_utilization_percentage")
                .unwrap()
                .group,
            Group::Cpu
        );
        assert_eq!(
            parse_key("system/n/system_memory_usage_megabytes")
                .unwrap()
                .group,
            Group::Memory
        );
        assert_eq!(
            parse_key("system/disk_available_megabytes").unwrap().group,
            Group::Disk
        );
        assert_eq!(
            parse_key("system/network_receive_megabytes").unwrap().group,
            Group::Network
        );
        assert_eq!(
            parse_key("system/gpu_x_utilization").unwrap().group,
            Group::Other
        );
        assert_eq!(parse_key("system/gpu_0_").unwrap().group, Group::Other);
        assert_eq!(parse_key("loss"), None);
        assert_eq!(parse_key("system/"), None);
        assert_eq!(parse_key("system/n/"), None);
    }

    #[test]
    fn mlflow_single_node_keys_group_into_sections() {
        let k = keys(&[
            "loss",
            "system/network_transmit_megabytes",
            "system/gpu_0_power_usage_watts",
            "system/cpu_utilization_percentage",
            "system/gpu_1_utilization_percentage",
            "system/gpu_0_utilization_percentage",
            "system/gpu_0_memory_usage_megabytes",
            "system/system_memory_usage_percentage",
            "system/disk_usage_percentage",
            "system/network_receive_megabytes",
        ]);
        let s = sections(&k, None);
        assert_eq!(titles(&s), ["CPU", "Memory", "Disk", "Network"]);
        assert_eq!(s[3].keys.len(), 2);
        assert!(nodes(&k).is_empty());
        let g = gpu_sections(&k, None);
        assert_eq!(g.len(), 1);
        assert_eq!((g[0].title.as_str(), g[0].node.as_deref()), ("GPUs", None));
        assert_eq!(g[0].gpus, [0, 1]);
        let fields: Vec<&str> = g[0].charts.iter().map(|c| c.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "utilization_percentage",
                "memory_usage_megabytes",
                "power_usage_watts"
            ]
        );
        assert_eq!(g[0].charts[0].id, "system/gpu_*_utilization_percentage");
        assert_eq!(
            g[0].charts[0].lines,
            [
                (0, "system/gpu_0_utilization_percentage".to_owned()),
                (1, "system/gpu_1_utilization_percentage".to_owned()),
            ]
        );
        assert_eq!(g[0].charts[2].lines.len(), 1);
    }

    #[test]
    fn multi_node_keys_get_a_gpu_section_per_node_and_a_filter() {
        let k = keys(&[
            "system/b/gpu_0_utilization_percentage",
            "system/a/gpu_1_utilization_percentage",
            "system/a/gpu_10_utilization_percentage",
            "system/a/gpu_0_temperature_celsius",
            "system/a/cpu_utilization_percentage",
            "system/b/cpu_utilization_percentage",
        ]);
        assert_eq!(nodes(&k), ["a", "b"]);
        let g = gpu_sections(&k, None);
        let gt: Vec<&str> = g.iter().map(|s| s.title.as_str()).collect();
        assert_eq!(gt, ["GPUs · a", "GPUs · b"]);
        assert_eq!(g[0].gpus, [0, 1, 10]);
        assert_eq!(g[0].charts[0].id, "system/a/gpu_*_utilization_percentage");
        let idx: Vec<u32> = g[0].charts[0].lines.iter().map(|l| l.0).collect();
        assert_eq!(idx, [1, 10]);
        assert_eq!(g[0].charts[1].field, "temperature_celsius");
        let s = sections(&k, None);
        assert_eq!(titles(&s), ["CPU"]);
        assert_eq!(
            s[0].keys,
            keys(&[
                "system/a/cpu_utilization_percentage",
                "system/b/cpu_utilization_percentage"
            ])
        );
        let only_b = gpu_sections(&k, Some("b"));
        assert_eq!(only_b.len(), 1);
        assert_eq!(only_b[0].gpus, [0]);
        assert_eq!(
            sections(&k, Some("b"))[0].keys,
            keys(&["system/b/cpu_utilization_percentage"])
        );
    }
}
