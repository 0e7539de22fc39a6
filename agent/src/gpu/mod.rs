//! GPU sampling: the [`GpuSource`] trait (one method per field) and [`sample_gpus`], which
//! reads every field on its own so that one failing call never hides the others.

pub mod nvml;
pub mod simulated;

use api_types::agent::{DriverStatus, GpuProcess, GpuSample};

/// The line logged (once, at start) and reported when libnvidia-ml cannot be loaded.
pub const NVML_NOT_FOUND: &str = "NVML not found: install the NVIDIA driver";

/// Why a GPU field could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GpuError {
    /// libnvidia-ml could not be loaded (no NVIDIA driver on this node).
    #[error("{NVML_NOT_FOUND} ({0})")]
    NotFound(String),
    /// There is no driver, so there is nothing to read.
    #[error("no NVIDIA driver")]
    NoDriver,
    /// An NVML call failed (e.g. the GPU does not support that field).
    #[error("NVML: {0}")]
    Nvml(#[from] nvml_wrapper::error::NvmlError),
}

/// Device memory of one GPU, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Memory {
    /// In use.
    pub used: u64,
    /// In all.
    pub total: u64,
}

/// Where GPU readings come from: NVML, a simulation, or nothing (no driver). Each field is
/// its own call, so a source can fail one and answer the rest.
pub trait GpuSource: Send {
    /// Whether a driver backs this source.
    fn driver(&self) -> DriverStatus;
    /// True for simulated GPUs.
    fn simulated(&self) -> bool {
        false
    }
    /// Called once before each sample with its time (Unix ms); a simulation moves on.
    fn advance(&mut self, _at_ms: i64) {}
    /// How many GPUs there are.
    fn count(&self) -> Result<u32, GpuError>;
    /// The product name.
    fn name(&self, index: u32) -> Result<String, GpuError>;
    /// The UUID.
    fn uuid(&self, index: u32) -> Result<String, GpuError>;
    /// Utilisation over the last sample period, percent.
    fn utilization_percent(&self, index: u32) -> Result<u32, GpuError>;
    /// Device memory used and total.
    fn memory(&self, index: u32) -> Result<Memory, GpuError>;
    /// Core temperature, °C.
    fn temperature_celsius(&self, index: u32) -> Result<u32, GpuError>;
    /// Power draw, watts.
    fn power_draw_watts(&self, index: u32) -> Result<f64, GpuError>;
    /// Enforced power limit, watts.
    fn power_limit_watts(&self, index: u32) -> Result<f64, GpuError>;
    /// The compute processes on the GPU.
    fn processes(&self, index: u32) -> Result<Vec<GpuProcess>, GpuError>;
}

/// The source of a node without a usable driver: no GPUs, and the reason.
#[derive(Debug, Clone)]
pub struct NoDriver {
    reason: String,
}

impl GpuSource for NoDriver {
    fn driver(&self) -> DriverStatus {
        DriverStatus::Missing {
            reason: self.reason.clone(),
        }
    }
    fn count(&self) -> Result<u32, GpuError> {
        Ok(0)
    }
    fn name(&self, _: u32) -> Result<String, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn uuid(&self, _: u32) -> Result<String, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn utilization_percent(&self, _: u32) -> Result<u32, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn memory(&self, _: u32) -> Result<Memory, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn temperature_celsius(&self, _: u32) -> Result<u32, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn power_draw_watts(&self, _: u32) -> Result<f64, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn power_limit_watts(&self, _: u32) -> Result<f64, GpuError> {
        Err(GpuError::NoDriver)
    }
    fn processes(&self, _: u32) -> Result<Vec<GpuProcess>, GpuError> {
        Err(GpuError::NoDriver)
    }
}

/// The started source, or — when it failed to start — a [`NoDriver`] source, after logging
/// one clear line (e.g. "NVML not found: install the NVIDIA driver").
pub fn or_no_driver<S: GpuSource + 'static>(init: Result<S, GpuError>) -> Box<dyn GpuSource> {
    match init {
        Ok(source) => Box::new(source),
        Err(err) => {
            let reason = match &err {
                GpuError::NotFound(_) => NVML_NOT_FOUND.to_owned(),
                other => format!("NVML could not start: {other}"),
            };
            tracing::warn!("{err}; serving host metrics only");
            Box::new(NoDriver { reason })
        }
    }
}

/// The GPU source the flags ask for: `count` simulated GPUs, or NVML (no driver → a
/// [`NoDriver`] source, host metrics only).
pub fn source(simulate: Option<u32>, seed: u64) -> Box<dyn GpuSource> {
    match simulate {
        Some(count) => Box::new(simulated::SimulatedSource::new(count, seed)),
        None => or_no_driver(nvml::NvmlSource::init()),
    }
}

/// Samples every GPU of `source`, each field on its own: a field that fails is `None`.
pub fn sample_gpus(source: &dyn GpuSource) -> Vec<GpuSample> {
    let count = field(0, "count", source.count()).unwrap_or(0);
    (0..count).map(|index| sample_gpu(source, index)).collect()
}

fn sample_gpu(source: &dyn GpuSource, index: u32) -> GpuSample {
    let memory = field(index, "memory", source.memory(index));
    GpuSample {
        index,
        name: field(index, "name", source.name(index)),
        uuid: field(index, "uuid", source.uuid(index)),
        utilization_percent: field(index, "utilization", source.utilization_percent(index)),
        memory_used_bytes: memory.map(|m| m.used),
        memory_total_bytes: memory.map(|m| m.total),
        temperature_celsius: field(index, "temperature", source.temperature_celsius(index)),
        power_draw_watts: field(index, "power_draw", source.power_draw_watts(index)),
        power_limit_watts: field(index, "power_limit", source.power_limit_watts(index)),
        processes: field(index, "processes", source.processes(index)),
        simulated: source.simulated(),
    }
}

/// The value, or `None` with a debug line: an unsupported field is normal, not an error.
fn field<T>(gpu: u32, name: &'static str, read: Result<T, GpuError>) -> Option<T> {
    read.map_err(|err| tracing::debug!(gpu, field = name, "unreadable: {err}"))
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use nvml_wrapper::error::NvmlError;

    /// Two GPUs whose temperature call always fails.
    struct NoTemperature;

    impl GpuSource for NoTemperature {
        fn driver(&self) -> DriverStatus {
            DriverStatus::Available { version: None }
        }
        fn count(&self) -> Result<u32, GpuError> {
            Ok(2)
        }
        fn name(&self, _: u32) -> Result<String, GpuError> {
            Ok("Fake GPU".into())
        }
        fn uuid(&self, index: u32) -> Result<String, GpuError> {
            Ok(format!("GPU-{index}"))
        }
        fn utilization_percent(&self, index: u32) -> Result<u32, GpuError> {
            Ok(10 + index)
        }
        fn memory(&self, _: u32) -> Result<Memory, GpuError> {
            Ok(Memory {
                used: 1 << 30,
                total: 1 << 34,
            })
        }
        fn temperature_celsius(&self, _: u32) -> Result<u32, GpuError> {
            Err(NvmlError::NotSupported.into())
        }
        fn power_draw_watts(&self, _: u32) -> Result<f64, GpuError> {
            Ok(250.5)
        }
        fn power_limit_watts(&self, _: u32) -> Result<f64, GpuError> {
            Err(NvmlError::NoPermission.into())
        }
        fn processes(&self, _: u32) -> Result<Vec<GpuProcess>, GpuError> {
            Ok(vec![])
        }
    }

    #[test]
    fn a_failing_field_is_absent_and_the_others_are_kept() {
        let gpus = sample_gpus(&NoTemperature);
        assert_eq!(gpus.len(), 2);
        let gpu = &gpus[1];
        assert_eq!(gpu.index, 1);
        assert_eq!(gpu.name.as_deref(), Some("Fake GPU"));
        assert_eq!(gpu.uuid.as_deref(), Some("GPU-1"));
        assert_eq!(gpu.utilization_percent, Some(11));
        assert_eq!(gpu.memory_used_bytes, Some(1 << 30));
        assert_eq!(gpu.memory_total_bytes, Some(1 << 34));
        assert_eq!(gpu.power_draw_watts, Some(250.5));
        assert_eq!(gpu.processes, Some(vec![]));
        assert_eq!(gpu.temperature_celsius, None);
        assert_eq!(gpu.power_limit_watts, None);
        assert!(!gpu.simulated);
    }

    #[test]
    fn a_source_that_fails_to_start_becomes_no_driver() {
        let init: Result<NoTemperature, _> =
            Err(GpuError::NotFound("libnvidia-ml.so: cannot open".into()));
        let source = or_no_driver(init);
        assert_eq!(
            source.driver(),
            DriverStatus::Missing {
                reason: NVML_NOT_FOUND.into()
            }
        );
        assert!(sample_gpus(source.as_ref()).is_empty());
    }

    #[test]
    fn another_start_failure_says_what_failed() {
        let init: Result<NoTemperature, _> = Err(NvmlError::DriverNotLoaded.into());
        let DriverStatus::Missing { reason } = or_no_driver(init).driver() else {
            panic!("driver reported available");
        };
        assert!(
            reason.starts_with("NVML could not start: NVML: "),
            "{reason}"
        );
    }
}
