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
    /// e.g. `GPU 0 · node-1`, `CPU`.
    pub title: String,
    /// The keys, in chart order.
    pub keys: Vec<String>,
}

/// The distinct node ids of `keys`, sorted.
pub fn nodes(keys: &[String]) -> Vec<String> {
    let mut n: Vec<String> = keys.iter().filter_map(|k| parse_key(k)?.node).collect();
    n.sort();
    n.dedup();
    n
}

/// Groups the system keys of `keys` (others are ignored) into sections: one per GPU per
/// node, then CPU, memory, disk, network and other. With `node`, only that node's keys.
pub fn sections(keys: &[String], node: Option<&str>) -> Vec<Section> {
    let multi = nodes(keys).len() > 1;
    let mut parsed: Vec<SystemKey> = keys
        .iter()
        .filter_map(|k| parse_key(k))
        .filter(|k| node.is_none_or(|n| k.node.as_deref() == Some(n)))
        .collect();
    // GPU sections by node then index; the others by group, each by metric then node.
    parsed.sort_by(|a, b| {
        let section = |k: &SystemKey| match k.group {
            Group::Gpu(i) => (0, k.node.clone(), i),
            g => (g.rank(), None, 0),
        };
        section(a)
            .cmp(&section(b))
            .then(field_rank(&a.metric).cmp(&field_rank(&b.metric)))
            .then(a.metric.cmp(&b.metric))
            .then(a.node.cmp(&b.node))
    });
    let mut out: Vec<Section> = Vec::new();
    for k in parsed {
        let title = match (k.group, &k.node) {
            (Group::Gpu(i), Some(n)) if multi => format!("GPU {i} · {n}"),
            (Group::Gpu(i), _) => format!("GPU {i}"),
            (g, _) => g.title().to_owned(),
        };
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
        assert_eq!(
            titles(&s),
            ["GPU 0", "GPU 1", "CPU", "Memory", "Disk", "Network"]
        );
        assert_eq!(
            s[0].keys,
            keys(&[
                "system/gpu_0_utilization_percentage",
                "system/gpu_0_memory_usage_megabytes",
                "system/gpu_0_power_usage_watts",
            ])
        );
        assert_eq!(s[5].keys.len(), 2);
        assert!(nodes(&k).is_empty());
    }

    #[test]
    fn multi_node_keys_get_a_section_per_gpu_per_node_and_a_filter() {
        let k = keys(&[
            "system/b/gpu_0_utilization_percentage",
            "system/a/gpu_1_utilization_percentage",
            "system/a/gpu_0_temperature_celsius",
            "system/a/cpu_utilization_percentage",
            "system/b/cpu_utilization_percentage",
        ]);
        assert_eq!(nodes(&k), ["a", "b"]);
        let s = sections(&k, None);
        assert_eq!(titles(&s), ["GPU 0 · a", "GPU 1 · a", "GPU 0 · b", "CPU"]);
        assert_eq!(
            s[3].keys,
            keys(&[
                "system/a/cpu_utilization_percentage",
                "system/b/cpu_utilization_percentage"
            ])
        );
        let only_b = sections(&k, Some("b"));
        assert_eq!(titles(&only_b), ["GPU 0 · b", "CPU"]);
        assert_eq!(
            only_b[1].keys,
            keys(&["system/b/cpu_utilization_percentage"])
        );
    }
}
