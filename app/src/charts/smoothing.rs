//! Exponential moving average with TensorBoard's debiasing: the first points are not
//! pulled towards zero, non-finite values pass through, and a constant series stays put.

/// Smooths `ys` with weight `w` in `[0, 1)`; `w <= 0` returns the input unchanged.
pub fn ema_debiased(ys: &[f64], w: f64) -> Vec<f64> {
    if w <= 0.0 || ys.is_empty() {
        return ys.to_vec();
    }
    let w = w.min(0.999);
    let constant = ys.iter().all(|y| *y == ys[0]);
    let mut last = 0.0;
    let mut n = 0;
    ys.iter()
        .map(|&y| {
            if constant || !y.is_finite() {
                return y;
            }
            last = last * w + (1.0 - w) * y;
            n += 1;
            last / (1.0 - w.powi(n))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::ema_debiased;

    #[test]
    fn first_point_is_not_biased_to_zero() {
        let s = ema_debiased(&[10.0, 10.0, 20.0], 0.6);
        assert_eq!(s[0], 10.0);
        assert!((s[1] - 10.0).abs() < 1e-12);
        // third: last = (0.4*10*0.6 + 0.4*10)*0.6 + 0.4*20 = ... debiased by 1 - 0.6^3
        let last = ((0.4 * 10.0) * 0.6 + 0.4 * 10.0) * 0.6 + 0.4 * 20.0;
        assert!((s[2] - last / (1.0 - 0.216)).abs() < 1e-12);
        assert!(s[2] > 10.0 && s[2] < 20.0);
    }

    #[test]
    fn zero_weight_constant_and_non_finite() {
        assert_eq!(ema_debiased(&[1.0, 5.0], 0.0), vec![1.0, 5.0]);
        assert_eq!(ema_debiased(&[3.0, 3.0, 3.0], 0.9), vec![3.0; 3]);
        let s = ema_debiased(&[1.0, f64::INFINITY, 3.0], 0.5);
        assert_eq!(s[1], f64::INFINITY);
        assert!(s[2].is_finite() && s[2] > 1.0 && s[2] < 3.0);
    }
}
