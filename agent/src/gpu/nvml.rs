//! The real GPU source: NVML through `nvml-wrapper`, which loads libnvidia-ml at run time
//! (so the agent builds and runs on a node without a driver).

use api_types::agent::{DriverStatus, GpuProcess};
use nvml_wrapper::enum_wrappers::device::TemperatureSensor;
use nvml_wrapper::enums::device::UsedGpuMemory;
use nvml_wrapper::error::NvmlError;
use nvml_wrapper::{Device, Nvml};

use super::{GpuError, GpuSource, Memory};

/// GPUs read through NVML; each method is one NVML call (plus the device handle).
pub struct NvmlSource {
    nvml: Nvml,
    driver_version: Option<String>,
}

impl NvmlSource {
    /// Loads libnvidia-ml and initialises NVML; [`GpuError::NotFound`] when the library
    /// is not there.
    pub fn init() -> Result<Self, GpuError> {
        let nvml = Nvml::init().map_err(|err| match err {
            NvmlError::LibloadingError(_) | NvmlError::LibraryNotFound => {
                GpuError::NotFound(err.to_string())
            }
            other => GpuError::Nvml(other),
        })?;
        let driver_version = nvml.sys_driver_version().ok();
        Ok(Self {
            nvml,
            driver_version,
        })
    }

    fn device(&self, index: u32) -> Result<Device<'_>, GpuError> {
        Ok(self.nvml.device_by_index(index)?)
    }
}

/// NVML reports power in milliwatts.
fn watts(milliwatts: u32) -> f64 {
    f64::from(milliwatts) / 1000.0
}

/// The process's name from `/proc/PID/comm` (Linux), when readable.
fn process_name(pid: u32) -> Option<String> {
    let comm = std::fs::read_to_string(format!("/proc/{pid}/comm")).ok()?;
    Some(comm.trim_end().to_owned())
}

impl GpuSource for NvmlSource {
    fn driver(&self) -> DriverStatus {
        DriverStatus::Available {
            version: self.driver_version.clone(),
        }
    }
    fn count(&self) -> Result<u32, GpuError> {
        Ok(self.nvml.device_count()?)
    }
    fn name(&self, index: u32) -> Result<String, GpuError> {
        Ok(self.device(index)?.name()?)
    }
    fn uuid(&self, index: u32) -> Result<String, GpuError> {
        Ok(self.device(index)?.uuid()?)
    }
    fn utilization_percent(&self, index: u32) -> Result<u32, GpuError> {
        Ok(self.device(index)?.utilization_rates()?.gpu)
    }
    fn memory(&self, index: u32) -> Result<Memory, GpuError> {
        let info = self.device(index)?.memory_info()?;
        Ok(Memory {
            used: info.used,
            total: info.total,
        })
    }
    fn temperature_celsius(&self, index: u32) -> Result<u32, GpuError> {
        Ok(self.device(index)?.temperature(TemperatureSensor::Gpu)?)
    }
    fn power_draw_watts(&self, index: u32) -> Result<f64, GpuError> {
        Ok(watts(self.device(index)?.power_usage()?))
    }
    fn power_limit_watts(&self, index: u32) -> Result<f64, GpuError> {
        Ok(watts(self.device(index)?.enforced_power_limit()?))
    }
    fn processes(&self, index: u32) -> Result<Vec<GpuProcess>, GpuError> {
        let running = self.device(index)?.running_compute_processes()?;
        Ok(running
            .into_iter()
            .map(|process| GpuProcess {
                pid: process.pid,
                name: process_name(process.pid),
                memory_used_bytes: match process.used_gpu_memory {
                    UsedGpuMemory::Used(bytes) => Some(bytes),
                    UsedGpuMemory::Unavailable => None,
                },
            })
            .collect())
    }
}
