//! What the panel shows of a GPU, signal-free: the four charted quantities, their lines
//! over the history, the hot / saturated cues and the gauge texts.

use api_types as json;
use plotters::style::RGBColor;

use crate::charts::Line;

/// At or above this temperature (°C) a GPU is marked hot.
pub const HOT_CELSIUS: u32 = 85;
/// At or above this utilisation or memory use (%) a GPU is marked saturated.
pub const SATURATED_PERCENT: f64 = 95.0;

/// A quantity charted per GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GpuMetric {
    /// Utilisation, %.
    Utilization,
    /// Memory in use, % of the total.
    Memory,
    /// Temperature, °C.
    Temperature,
    /// Power draw, W.
    Power,
}

impl GpuMetric {
    /// The charts of a node, in order.
    pub const ALL: [GpuMetric; 4] = [
        GpuMetric::Utilization,
        GpuMetric::Memory,
        GpuMetric::Temperature,
        GpuMetric::Power,
    ];

    /// Chart title.
    pub fn title(self) -> &'static str {
        match self {
            GpuMetric::Utilization => "Utilization (%)",
            GpuMetric::Memory => "Memory used (%)",
            GpuMetric::Temperature => "Temperature (°C)",
            GpuMetric::Power => "Power (W)",
        }
    }

    /// Short name for test ids (`util`, `memory`, `temperature`, `power`).
    pub fn id(self) -> &'static str {
        match self {
            GpuMetric::Utilization => "util",
            GpuMetric::Memory => "memory",
            GpuMetric::Temperature => "temperature",
            GpuMetric::Power => "power",
        }
    }

    /// The value of a GPU sample, when the agent could read it.
    pub fn of(self, g: &json::agent::GpuSample) -> Option<f64> {
        match self {
            GpuMetric::Utilization => g.utilization_percent.map(f64::from),
            GpuMetric::Memory => memory_percent(g),
            GpuMetric::Temperature => g.temperature_celsius.map(f64::from),
            GpuMetric::Power => g.power_draw_watts,
        }
    }

    /// The top of the chart's y axis: 100 for percentages and temperatures (more when a
    /// value exceeds it), the largest power limit (or draw) for power.
    pub fn y_max(self, history: &[json::agent::NodeSample]) -> f64 {
        let gpus = || history.iter().flat_map(|s| &s.gpus);
        let most = gpus().filter_map(|g| self.of(g)).fold(0.0, f64::max);
        match self {
            GpuMetric::Power => gpus()
                .filter_map(|g| g.power_limit_watts)
                .fold(most, f64::max)
                .max(1.0),
            _ => most.max(100.0),
        }
    }
}

/// Memory in use as a percentage of the total.
pub fn memory_percent(g: &json::agent::GpuSample) -> Option<f64> {
    match (g.memory_used_bytes, g.memory_total_bytes) {
        (Some(used), Some(total)) if total > 0 => Some(used as f64 * 100.0 / total as f64),
        _ => None,
    }
}

/// One line per GPU index seen in `history` (in index order), points at the samples
/// where `metric` was read; line `i` in `colors[i % len]` (`fallback` when there are none).
pub fn gpu_lines(
    history: &[json::agent::NodeSample],
    metric: GpuMetric,
    colors: &[RGBColor],
    fallback: RGBColor,
) -> Vec<Line> {
    let mut indexes: Vec<u32> = history
        .iter()
        .flat_map(|s| s.gpus.iter().map(|g| g.index))
        .collect();
    indexes.sort_unstable();
    indexes.dedup();
    indexes
        .into_iter()
        .enumerate()
        .map(|(i, index)| {
            let points = history
                .iter()
                .filter_map(|s| {
                    let g = s.gpus.iter().find(|g| g.index == index)?;
                    Some((s.at_ms as f64, metric.of(g)?))
                })
                .collect();
            let color = colors
                .get(i % colors.len().max(1))
                .copied()
                .unwrap_or(fallback);
            Line::new(format!("GPU {index}"), color, points)
        })
        .collect()
}

/// Colour cues of a GPU.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cues {
    /// Temperature at or above [`HOT_CELSIUS`].
    pub hot: bool,
    /// Utilisation or memory at or above [`SATURATED_PERCENT`].
    pub saturated: bool,
}

/// The cues of a GPU's latest sample.
pub fn cues(g: &json::agent::GpuSample) -> Cues {
    Cues {
        hot: g.temperature_celsius.is_some_and(|t| t >= HOT_CELSIUS),
        saturated: g
            .utilization_percent
            .is_some_and(|u| f64::from(u) >= SATURATED_PERCENT)
            || memory_percent(g).is_some_and(|m| m >= SATURATED_PERCENT),
    }
}

/// `12.3 GiB`.
pub fn gib(bytes: u64) -> String {
    format!("{:.1} GiB", bytes as f64 / (1u64 << 30) as f64)
}

/// `12.3 / 80.0 GiB`, or what is known of it.
pub fn memory_text(g: &json::agent::GpuSample) -> String {
    match (g.memory_used_bytes, g.memory_total_bytes) {
        (Some(u), Some(t)) => format!("{} / {}", gib(u).trim_end_matches(" GiB"), gib(t)),
        (Some(u), None) => gib(u),
        _ => "—".to_owned(),
    }
}

/// `250 / 700 W`, or what is known of it.
pub fn power_text(g: &json::agent::GpuSample) -> String {
    match (g.power_draw_watts, g.power_limit_watts) {
        (Some(d), Some(l)) => format!("{d:.0} / {l:.0} W"),
        (Some(d), None) => format!("{d:.0} W"),
        _ => "—".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gpu(index: u32, util: Option<u32>, temp: Option<u32>) -> json::agent::GpuSample {
        json::agent::GpuSample {
            index,
            utilization_percent: util,
            temperature_celsius: temp,
            memory_used_bytes: Some(20 << 30),
            memory_total_bytes: Some(80 << 30),
            ..json::agent::GpuSample::default()
        }
    }

    fn sample(at_ms: i64, gpus: Vec<json::agent::GpuSample>) -> json::agent::NodeSample {
        json::agent::NodeSample {
            at_ms,
            gpus,
            host: json::agent::HostSample::default(),
        }
    }

    #[test]
    fn one_line_per_gpu_skipping_unread_fields() {
        let h = vec![
            sample(1000, vec![gpu(0, Some(10), None), gpu(1, Some(90), None)]),
            sample(2000, vec![gpu(0, None, None), gpu(1, Some(80), None)]),
        ];
        let black = RGBColor(0, 0, 0);
        let lines = gpu_lines(&h, GpuMetric::Utilization, &[], black);
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0].label, "GPU 0");
        assert_eq!(lines[0].points, vec![(1000.0, 10.0)]);
        assert_eq!(lines[1].points, vec![(1000.0, 90.0), (2000.0, 80.0)]);
        let mem = gpu_lines(&h, GpuMetric::Memory, &[], black);
        assert_eq!(mem[0].points[0].1, 25.0);
        assert_eq!(GpuMetric::Utilization.y_max(&h), 100.0);
    }

    #[test]
    fn power_axis_reaches_the_limit() {
        let mut g = gpu(0, None, None);
        g.power_draw_watts = Some(250.0);
        g.power_limit_watts = Some(700.0);
        assert_eq!(GpuMetric::Power.y_max(&[sample(0, vec![g.clone()])]), 700.0);
        assert_eq!(power_text(&g), "250 / 700 W");
        assert_eq!(memory_text(&g), "20.0 / 80.0 GiB");
        assert_eq!(power_text(&json::agent::GpuSample::default()), "—");
    }

    #[test]
    fn hot_and_saturated_cues() {
        assert_eq!(cues(&gpu(0, Some(50), Some(70))), Cues::default());
        assert!(cues(&gpu(0, Some(50), Some(85))).hot);
        assert!(!cues(&gpu(0, Some(50), Some(84))).hot);
        assert!(cues(&gpu(0, Some(95), None)).saturated);
        let mut full = gpu(0, Some(10), None);
        full.memory_used_bytes = Some(79 << 30);
        assert!(cues(&full).saturated);
        assert_eq!(cues(&json::agent::GpuSample::default()), Cues::default());
    }
}
