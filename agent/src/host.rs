//! The host sampler: CPU, memory, disk and network through `sysinfo`.

use std::collections::HashSet;
use std::time::Instant;

use api_types::agent::HostSample;
use sysinfo::{Disks, Networks, System};

/// Keeps the `sysinfo` state between samples (CPU % and network rates are deltas).
pub struct HostSampler {
    system: System,
    disks: Disks,
    networks: Networks,
    last: Instant,
}

impl Default for HostSampler {
    fn default() -> Self {
        Self::new()
    }
}

impl HostSampler {
    /// Takes the first readings, so the first sample has a period to measure over.
    pub fn new() -> Self {
        let mut system = System::new();
        system.refresh_cpu_usage();
        Self {
            system,
            disks: Disks::new_with_refreshed_list(),
            networks: Networks::new_with_refreshed_list(),
            last: Instant::now(),
        }
    }

    /// The host now; CPU and network are averaged since the previous call.
    pub fn sample(&mut self) -> HostSample {
        self.system.refresh_cpu_usage();
        self.system.refresh_memory();
        self.disks.refresh(true);
        self.networks.refresh(true);
        let elapsed = self.last.elapsed().as_secs_f64().max(1e-3);
        self.last = Instant::now();
        let (disk_used_bytes, disk_total_bytes) = self.disk_space();
        let (rx, tx) = self
            .networks
            .list()
            .values()
            .fold((0u64, 0u64), |(rx, tx), data| {
                (rx + data.received(), tx + data.transmitted())
            });
        HostSample {
            // One decimal: sysinfo's f32 would otherwise print as 97.98995208740234.
            cpu_percent: (f64::from(self.system.global_cpu_usage()) * 10.0).round() / 10.0,
            memory_used_bytes: self.system.used_memory(),
            memory_total_bytes: self.system.total_memory(),
            disk_used_bytes,
            disk_total_bytes,
            net_rx_bytes_per_sec: rx as f64 / elapsed,
            net_tx_bytes_per_sec: tx as f64 / elapsed,
        }
    }

    /// Used and total space, counting each device once (bind mounts list it again).
    fn disk_space(&self) -> (u64, u64) {
        let mut seen = HashSet::new();
        self.disks
            .list()
            .iter()
            .filter(|disk| seen.insert(disk.name().to_owned()))
            .fold((0, 0), |(used, total), disk| {
                let free = disk.available_space().min(disk.total_space());
                (used + disk.total_space() - free, total + disk.total_space())
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_this_host() {
        let mut sampler = HostSampler::new();
        let host = sampler.sample();
        assert!(host.memory_total_bytes > 0);
        assert!(host.memory_used_bytes <= host.memory_total_bytes);
        assert!(host.disk_used_bytes <= host.disk_total_bytes);
        assert!((0.0..=100.0).contains(&host.cpu_percent), "{host:?}");
        assert!(host.net_rx_bytes_per_sec >= 0.0 && host.net_tx_bytes_per_sec >= 0.0);
    }
}
