//! Simulated GPUs for demos and tests (`--simulate-gpus N`): smooth, plausible and
//! deterministic for a seed; every sample is marked `simulated`.

use std::f64::consts::TAU;

use api_types::agent::{DriverStatus, GpuProcess};

use super::{GpuError, GpuSource, Memory};

const MEMORY_TOTAL: u64 = 80 * 1024 * 1024 * 1024;
const POWER_LIMIT_WATTS: f64 = 700.0;

/// `count` simulated H100-like GPUs whose load drifts along slow sine waves.
#[derive(Debug, Clone)]
pub struct SimulatedSource {
    gpus: Vec<Profile>,
    seconds: f64,
}

/// The fixed, seed-derived character of one simulated GPU.
#[derive(Debug, Clone)]
struct Profile {
    uuid: String,
    base: f64,
    period_secs: f64,
    phase: f64,
}

/// SplitMix64: a tiny, well-known generator; enough for reproducible demo data.
fn splitmix(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A number in [0, 1) from the generator.
fn unit(state: &mut u64) -> f64 {
    (splitmix(state) >> 11) as f64 / (1u64 << 53) as f64
}

impl Profile {
    fn new(seed: u64, index: u32) -> Self {
        let mut state = seed ^ (u64::from(index) << 32);
        let (a, b) = (splitmix(&mut state), splitmix(&mut state));
        Self {
            uuid: format!(
                "GPU-{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
                a >> 32,
                (a >> 16) & 0xffff,
                a & 0xffff,
                b >> 48,
                b & 0xffff_ffff_ffff
            ),
            base: 45.0 + 40.0 * unit(&mut state),
            period_secs: 120.0 + 480.0 * unit(&mut state),
            phase: TAU * unit(&mut state),
        }
    }

    /// Utilisation in percent at `t` seconds: a slow wave plus a faster ripple.
    fn utilization(&self, t: f64) -> f64 {
        let slow = 20.0 * (TAU * t / self.period_secs + self.phase).sin();
        let ripple = 6.0 * (TAU * t / 23.0 + 2.0 * self.phase).sin();
        (self.base + slow + ripple).clamp(0.0, 100.0)
    }
}

impl SimulatedSource {
    /// `count` GPUs; the same `seed` gives the same GPUs and the same curves.
    pub fn new(count: u32, seed: u64) -> Self {
        Self {
            gpus: (0..count).map(|index| Profile::new(seed, index)).collect(),
            seconds: 0.0,
        }
    }

    fn profile(&self, index: u32) -> Result<&Profile, GpuError> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.gpus.get(i))
            .ok_or(GpuError::NoDriver)
    }

    fn load(&self, index: u32) -> Result<f64, GpuError> {
        Ok(self.profile(index)?.utilization(self.seconds) / 100.0)
    }
}

impl GpuSource for SimulatedSource {
    fn driver(&self) -> DriverStatus {
        DriverStatus::Available { version: None }
    }
    fn simulated(&self) -> bool {
        true
    }
    fn advance(&mut self, at_ms: i64) {
        self.seconds = at_ms as f64 / 1000.0;
    }
    fn count(&self) -> Result<u32, GpuError> {
        Ok(u32::try_from(self.gpus.len()).unwrap_or(u32::MAX))
    }
    fn name(&self, index: u32) -> Result<String, GpuError> {
        self.profile(index)?;
        Ok("NVIDIA H100 80GB HBM3".into())
    }
    fn uuid(&self, index: u32) -> Result<String, GpuError> {
        Ok(self.profile(index)?.uuid.clone())
    }
    fn utilization_percent(&self, index: u32) -> Result<u32, GpuError> {
        Ok((self.load(index)? * 100.0).round() as u32)
    }
    fn memory(&self, index: u32) -> Result<Memory, GpuError> {
        let used = (0.25 + 0.65 * self.load(index)?) * MEMORY_TOTAL as f64;
        Ok(Memory {
            used: used as u64,
            total: MEMORY_TOTAL,
        })
    }
    fn temperature_celsius(&self, index: u32) -> Result<u32, GpuError> {
        Ok((32.0 + 48.0 * self.load(index)?).round() as u32)
    }
    fn power_draw_watts(&self, index: u32) -> Result<f64, GpuError> {
        let watts = 75.0 + (POWER_LIMIT_WATTS - 100.0) * self.load(index)?;
        Ok((watts * 10.0).round() / 10.0)
    }
    fn power_limit_watts(&self, index: u32) -> Result<f64, GpuError> {
        self.profile(index)?;
        Ok(POWER_LIMIT_WATTS)
    }
    fn processes(&self, index: u32) -> Result<Vec<GpuProcess>, GpuError> {
        let memory = self.memory(index)?;
        Ok(vec![GpuProcess {
            pid: 4000 + index,
            name: Some("python".into()),
            memory_used_bytes: Some(memory.used),
        }])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::sample_gpus;

    fn at(seed: u64, at_ms: i64) -> Vec<api_types::agent::GpuSample> {
        let mut source = SimulatedSource::new(4, seed);
        source.advance(at_ms);
        sample_gpus(&source)
    }

    #[test]
    fn same_seed_same_samples_other_seed_other_samples() {
        assert_eq!(at(7, 1_000_000), at(7, 1_000_000));
        assert_ne!(at(7, 1_000_000), at(8, 1_000_000));
    }

    #[test]
    fn samples_are_complete_plausible_and_marked_simulated() {
        for gpu in at(1, 1_700_000_000_000) {
            assert!(gpu.simulated);
            assert!(
                gpu.uuid.as_deref().is_some_and(|u| u.len() == 40),
                "{gpu:?}"
            );
            assert!(gpu.utilization_percent.is_some_and(|u| u <= 100));
            let (used, total) = (
                gpu.memory_used_bytes.unwrap(),
                gpu.memory_total_bytes.unwrap(),
            );
            assert!(used > 0 && used < total);
            assert!((30..=85).contains(&gpu.temperature_celsius.unwrap()));
            assert!(gpu.power_draw_watts.unwrap() <= gpu.power_limit_watts.unwrap());
        }
    }

    #[test]
    fn utilisation_varies_smoothly() {
        let (mut max_step, mut min, mut max) = (0i64, u32::MAX, 0);
        let mut previous: Option<u32> = None;
        for second in 0..1200 {
            let util = at(3, second * 1000)[0].utilization_percent.unwrap();
            if let Some(p) = previous {
                max_step = max_step.max((i64::from(util) - i64::from(p)).abs());
            }
            (min, max, previous) = (min.min(util), max.max(util), Some(util));
        }
        assert!(max_step <= 3, "jumped by {max_step} in one second");
        assert!(max - min >= 20, "barely moved: {min}..{max}");
    }
}
