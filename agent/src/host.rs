//! The host sampler: CPU, memory and disk through `sysinfo`, network from `/proc/net/dev`.
//!
//! Cheap by design (it runs every second on a training node): one sample reads
//! `/proc/stat`, `/proc/meminfo` and `/proc/net/dev` and calls `statvfs` once per disk.
//! The disk list (`/proc/mounts`) is re-read only every [`DISK_LIST_EVERY`] samples, and
//! the network counters come from one file instead of sysinfo's netlink query plus seven
//! `/sys/class/net` files per interface.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use api_types::agent::HostSample;
use sysinfo::{DiskRefreshKind, Disks, System};

/// Samples between two readings of the disk list (new mounts show up this late).
pub const DISK_LIST_EVERY: u32 = 60;

/// Keeps the `sysinfo` state between samples (CPU % and network rates are deltas).
pub struct HostSampler {
    system: System,
    disks: Disks,
    samples: u32,
    /// Each interface's (received, transmitted) byte counters at the last sample.
    interfaces: HashMap<String, (u64, u64)>,
    last: Instant,
    network_totals: NetworkTotals,
}

/// Bytes moved over all interfaces since the sampler was made (MLflow's network metrics
/// count from the start of the run, not since boot).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NetworkTotals {
    /// Received.
    pub received_bytes: u64,
    /// Transmitted.
    pub transmitted_bytes: u64,
}

impl Default for HostSampler {
    fn default() -> Self {
        Self::new()
    }
}

/// Each interface's (received, transmitted) byte counters in `/proc/net/dev` text.
pub fn parse_net_dev(text: &str) -> HashMap<String, (u64, u64)> {
    text.lines()
        .skip(2)
        .filter_map(|line| {
            let (name, counters) = line.split_once(':')?;
            let fields: Vec<&str> = counters.split_whitespace().collect();
            let rx = fields.first()?.parse().ok()?;
            let tx = fields.get(8)?.parse().ok()?;
            Some((name.trim().to_owned(), (rx, tx)))
        })
        .collect()
}

fn read_net_dev() -> HashMap<String, (u64, u64)> {
    std::fs::read_to_string("/proc/net/dev")
        .map(|text| parse_net_dev(&text))
        .unwrap_or_default()
}

/// Bytes moved between two readings, summed over interfaces. An interface seen for the
/// first time counts from now; a counter that went back (interface re-created) counts
/// from zero.
pub fn moved(
    before: &HashMap<String, (u64, u64)>,
    now: &HashMap<String, (u64, u64)>,
) -> (u64, u64) {
    now.iter().fold((0, 0), |(rx, tx), (name, &(r, t))| {
        let (r0, t0) = before.get(name).copied().unwrap_or((r, t));
        let delta = |now: u64, then: u64| now.checked_sub(then).unwrap_or(now);
        (rx + delta(r, r0), tx + delta(t, t0))
    })
}

impl HostSampler {
    /// Takes the first readings, so the first sample has a period to measure over.
    pub fn new() -> Self {
        let mut system = System::new();
        system.refresh_cpu_usage();
        Self {
            system,
            disks: Disks::new_with_refreshed_list_specifics(
                DiskRefreshKind::nothing().with_storage(),
            ),
            samples: 0,
            interfaces: read_net_dev(),
            last: Instant::now(),
            network_totals: NetworkTotals::default(),
        }
    }

    /// Bytes received and sent since this sampler was made, as of the last sample.
    pub fn network_totals(&self) -> NetworkTotals {
        self.network_totals
    }

    /// The host now; CPU and network are averaged since the previous call.
    pub fn sample(&mut self) -> HostSample {
        self.system.refresh_cpu_usage();
        self.system.refresh_memory();
        self.samples = self.samples.wrapping_add(1);
        let storage = DiskRefreshKind::nothing().with_storage();
        if self.samples.is_multiple_of(DISK_LIST_EVERY) {
            self.disks.refresh_specifics(true, storage);
        } else {
            for disk in self.disks.list_mut() {
                disk.refresh_specifics(storage);
            }
        }
        let interfaces = read_net_dev();
        let (rx, tx) = moved(&self.interfaces, &interfaces);
        self.interfaces = interfaces;
        let elapsed = self.last.elapsed().as_secs_f64().max(1e-3);
        self.last = Instant::now();
        let (disk_used_bytes, disk_total_bytes) = self.disk_space();
        self.network_totals.received_bytes += rx;
        self.network_totals.transmitted_bytes += tx;
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

    #[test]
    fn proc_net_dev_is_parsed_and_deltas_survive_resets() {
        let text = "Inter-|   Receive                            |  Transmit
 face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed
    lo:  1000      10    0    0    0     0          0         0     1000      10    0    0    0     0       0          0
  eth0: 52345678  40000    0    0    0     0          0         0 12345678   30000    0    0    0     0       0          0
";
        let now = parse_net_dev(text);
        assert_eq!(now["lo"], (1000, 1000));
        assert_eq!(now["eth0"], (52_345_678, 12_345_678));
        let before = HashMap::from([
            ("lo".to_owned(), (400, 100)),
            // Re-created: its counters restarted below the old reading.
            ("eth0".to_owned(), (99_999_999_999, 12_345_000)),
        ]);
        assert_eq!(moved(&before, &now), (600 + 52_345_678, 900 + 678));
        // A new interface counts from its first reading.
        assert_eq!(moved(&HashMap::new(), &now), (0, 0));
    }

    #[test]
    fn network_totals_only_grow() {
        let mut sampler = HostSampler::new();
        assert_eq!(sampler.network_totals(), NetworkTotals::default());
        let mut previous = NetworkTotals::default();
        for _ in 0..3 {
            // Some traffic on loopback, so there is something to count.
            let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            let _ = std::net::TcpStream::connect(listener.local_addr().unwrap());
            sampler.sample();
            let now = sampler.network_totals();
            assert!(now.received_bytes >= previous.received_bytes);
            assert!(now.transmitted_bytes >= previous.transmitted_bytes);
            previous = now;
        }
    }
}
