//! Shapes of training curves (learning-rate schedules, loss decay, plateaus) and a seeded
//! noise source, so the demo data looks like real training and is the same on every load.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Deterministic randomness for the demo.
pub(crate) struct Noise(StdRng);

impl Noise {
    /// A source seeded with `seed`.
    pub(crate) fn new(seed: u64) -> Self {
        Noise(StdRng::seed_from_u64(seed))
    }

    /// A standard normal sample (Box-Muller).
    pub(crate) fn gauss(&mut self) -> f64 {
        let u1: f64 = self.0.random_range(f64::EPSILON..1.0);
        let u2: f64 = self.0.random();
        (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
    }

    /// A uniform sample in `[lo, hi)`.
    pub(crate) fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        self.0.random_range(lo..hi)
    }

    /// `value` times a log-normal factor of relative spread `sigma`.
    pub(crate) fn jitter(&mut self, value: f64, sigma: f64) -> f64 {
        value * (sigma * self.gauss()).exp()
    }

    /// A run id: 32 lowercase hex characters, like MLflow's `uuid4().hex`.
    pub(crate) fn run_id(&mut self) -> String {
        let bytes: [u8; 16] = self.0.random();
        hex::encode(bytes)
    }
}

/// Linear warm-up to `peak` over `warmup` steps, then cosine decay to `floor` at `total`.
pub(crate) fn warmup_cosine(step: i64, warmup: i64, total: i64, peak: f64, floor: f64) -> f64 {
    if step < warmup {
        return peak * (step + 1) as f64 / warmup as f64;
    }
    let t = ((step - warmup) as f64 / (total - warmup).max(1) as f64).clamp(0.0, 1.0);
    floor + 0.5 * (peak - floor) * (1.0 + (std::f64::consts::PI * t).cos())
}

/// Piecewise-constant decay: `base * gamma^k` after the k-th milestone.
pub(crate) fn step_decay(step: i64, base: f64, milestones: &[i64], gamma: f64) -> f64 {
    let passed = milestones.iter().filter(|m| step >= **m).count();
    base * gamma.powi(passed as i32)
}

/// Exponential decay from `start` toward `floor` with time constant `tau` steps.
pub(crate) fn decay(step: i64, start: f64, floor: f64, tau: f64) -> f64 {
    floor + (start - floor) * (-(step as f64) / tau).exp()
}

/// The loss drop after each learning-rate milestone: a factor that eases from 1 to
/// `factor` over `ease` steps after each milestone (the plateau-then-drop of step decay).
pub(crate) fn milestone_drops(step: i64, milestones: &[i64], factor: f64, ease: f64) -> f64 {
    milestones
        .iter()
        .filter(|m| step >= **m)
        .map(|m| {
            let t = 1.0 - (-((step - m) as f64) / ease).exp();
            1.0 - (1.0 - factor) * t
        })
        .product()
}

/// A value rising from `start` toward `ceiling` with time constant `tau`.
pub(crate) fn saturate(step: i64, start: f64, ceiling: f64, tau: f64) -> f64 {
    ceiling - (ceiling - start) * (-(step as f64) / tau).exp()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedules_have_their_shape() {
        assert!((warmup_cosine(499, 500, 10_000, 1e-4, 0.0) - 1e-4).abs() < 1e-12);
        assert!(warmup_cosine(10_000, 500, 10_000, 1e-4, 1e-6) - 1e-6 < 1e-12);
        assert_eq!(
            step_decay(7_500, 0.1, &[5_000, 7_500], 0.1),
            0.1 * 0.1 * 0.1
        );
        assert!(decay(100_000, 2.0, 1.0, 1_000.0) - 1.0 < 1e-9);
        assert!((milestone_drops(100_000, &[10], 0.5, 10.0) - 0.5).abs() < 1e-9);
    }

    #[test]
    fn noise_is_seeded() {
        let (mut a, mut b) = (Noise::new(7), Noise::new(7));
        assert_eq!(a.run_id(), b.run_id());
        assert_eq!(a.gauss(), b.gauss());
        assert_eq!(a.run_id().len(), 32);
    }
}
