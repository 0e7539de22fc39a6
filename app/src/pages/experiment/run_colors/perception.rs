//! How far apart two colours look (test support): sRGB to CIELAB (D65), the CIEDE2000
//! colour difference (Sharma, Wu and Dalal 2005), colour-blind vision simulated with
//! Machado, Oliveira and Fernandes' 2009 matrices at full severity, and WCAG 2 contrast.

use plotters::style::RGBColor;

/// A colour in CIELAB: lightness and the two opponent axes.
#[derive(Debug, Clone, Copy)]
pub struct Lab {
    l: f64,
    a: f64,
    b: f64,
}

/// Who looks at the colour.
#[derive(Debug, Clone, Copy)]
pub enum Vision {
    /// Trichromatic vision.
    Normal,
    /// No green cones (the most common colour blindness).
    Deuteranopia,
    /// No red cones.
    Protanopia,
    /// No blue cones.
    Tritanopia,
}

impl Vision {
    /// Machado et al.'s matrix over linear RGB (severity 1.0); `None` for normal vision.
    fn matrix(self) -> Option<[[f64; 3]; 3]> {
        match self {
            Vision::Normal => None,
            Vision::Deuteranopia => Some([
                [0.367_322, 0.860_646, -0.227_968],
                [0.280_085, 0.672_501, 0.047_413],
                [-0.011_820, 0.042_940, 0.968_881],
            ]),
            Vision::Protanopia => Some([
                [0.152_286, 1.052_583, -0.204_868],
                [0.114_503, 0.786_281, 0.099_216],
                [-0.003_882, -0.048_116, 1.051_998],
            ]),
            Vision::Tritanopia => Some([
                [1.255_528, -0.076_749, -0.178_779],
                [-0.078_411, 0.930_809, 0.147_602],
                [0.004_733, 0.691_367, 0.303_900],
            ]),
        }
    }

    /// The colour `c` as seen with this vision, in CIELAB.
    pub fn sees(self, c: RGBColor) -> Lab {
        let rgb = linear(c);
        let rgb = match self.matrix() {
            None => rgb,
            Some(m) => {
                m.map(|row| (row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2]).clamp(0.0, 1.0))
            }
        };
        lab(rgb)
    }
}

/// Linear-light sRGB components in [0, 1].
fn linear(c: RGBColor) -> [f64; 3] {
    [c.0, c.1, c.2].map(|v| {
        let v = f64::from(v) / 255.0;
        if v <= 0.040_45 {
            v / 12.92
        } else {
            ((v + 0.055) / 1.055).powf(2.4)
        }
    })
}

/// CIELAB of linear sRGB, white point D65.
fn lab(rgb: [f64; 3]) -> Lab {
    const M: [[f64; 3]; 3] = [
        [0.412_456_4, 0.357_576_1, 0.180_437_5],
        [0.212_672_9, 0.715_152_2, 0.072_175_0],
        [0.019_333_9, 0.119_192_0, 0.950_304_1],
    ];
    let white = M.map(|row| row.iter().sum::<f64>());
    let f = |i: usize| {
        let t = (M[i][0] * rgb[0] + M[i][1] * rgb[1] + M[i][2] * rgb[2]) / white[i];
        let d = 6.0 / 29.0;
        if t > d * d * d {
            t.cbrt()
        } else {
            t / (3.0 * d * d) + 4.0 / 29.0
        }
    };
    let (fx, fy, fz) = (f(0), f(1), f(2));
    Lab {
        l: 116.0 * fy - 16.0,
        a: 500.0 * (fx - fy),
        b: 200.0 * (fy - fz),
    }
}

/// The CIEDE2000 difference of two colours (about 1 is just noticeable).
pub fn delta_e(x: Lab, y: Lab) -> f64 {
    let c_bar = (x.a.hypot(x.b) + y.a.hypot(y.b)) / 2.0;
    let g = 0.5 * (1.0 - (c_bar.powi(7) / (c_bar.powi(7) + 25f64.powi(7))).sqrt());
    let prime = |p: Lab| {
        let a = (1.0 + g) * p.a;
        let c = a.hypot(p.b);
        let h = if c == 0.0 {
            0.0
        } else {
            p.b.atan2(a).to_degrees().rem_euclid(360.0)
        };
        (c, h)
    };
    let ((c1, h1), (c2, h2)) = (prime(x), prime(y));
    let dl = y.l - x.l;
    let dc = c2 - c1;
    let dh = if c1 * c2 == 0.0 {
        0.0
    } else if (h2 - h1).abs() <= 180.0 {
        h2 - h1
    } else if h2 - h1 > 180.0 {
        h2 - h1 - 360.0
    } else {
        h2 - h1 + 360.0
    };
    let dh = 2.0 * (c1 * c2).sqrt() * (dh / 2.0).to_radians().sin();
    let l_bar = (x.l + y.l) / 2.0;
    let c_bar = (c1 + c2) / 2.0;
    let h_bar = if c1 * c2 == 0.0 {
        h1 + h2
    } else if (h1 - h2).abs() <= 180.0 {
        (h1 + h2) / 2.0
    } else if h1 + h2 < 360.0 {
        (h1 + h2 + 360.0) / 2.0
    } else {
        (h1 + h2 - 360.0) / 2.0
    };
    let cos = |deg: f64| deg.to_radians().cos();
    let t =
        1.0 - 0.17 * cos(h_bar - 30.0) + 0.24 * cos(2.0 * h_bar) + 0.32 * cos(3.0 * h_bar + 6.0)
            - 0.20 * cos(4.0 * h_bar - 63.0);
    let d_theta = 30.0 * (-((h_bar - 275.0) / 25.0).powi(2)).exp();
    let r_c = 2.0 * (c_bar.powi(7) / (c_bar.powi(7) + 25f64.powi(7))).sqrt();
    let s_l = 1.0 + 0.015 * (l_bar - 50.0).powi(2) / (20.0 + (l_bar - 50.0).powi(2)).sqrt();
    let s_c = 1.0 + 0.045 * c_bar;
    let s_h = 1.0 + 0.015 * c_bar * t;
    let r_t = -(2.0 * d_theta).to_radians().sin() * r_c;
    let (l, c, h) = (dl / s_l, dc / s_c, dh / s_h);
    (l * l + c * c + h * h + r_t * c * h).sqrt()
}

/// The WCAG 2 contrast ratio of two colours (1 to 21).
pub fn contrast(x: RGBColor, y: RGBColor) -> f64 {
    let lum = |c: RGBColor| {
        let [r, g, b] = linear(c);
        0.2126 * r + 0.7152 * g + 0.0722 * b
    };
    let (a, b) = (lum(x), lum(y));
    (a.max(b) + 0.05) / (a.min(b) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ciede2000_matches_sharmas_test_data() {
        // Pairs from the test data published with Sharma, Wu and Dalal (2005).
        let pairs = [
            ((50.0, 2.6772, -79.7751), (50.0, 0.0, -82.7485), 2.0425),
            ((50.0, 0.0, 0.0), (50.0, -1.0, 2.0), 2.3669),
            ((50.0, 2.49, -0.001), (50.0, -2.49, 0.0009), 7.1792),
            ((50.0, 2.5, 0.0), (73.0, 25.0, -18.0), 27.1492),
            ((50.0, 2.5, 0.0), (50.0, 3.1736, 0.5854), 1.0),
            (
                (60.2574, -34.0099, 36.2677),
                (60.4626, -34.1751, 39.4387),
                1.2644,
            ),
            (
                (22.7233, 20.0904, -46.694),
                (23.0331, 14.973, -42.5619),
                2.0373,
            ),
            ((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514), 0.9082),
        ];
        for ((l1, a1, b1), (l2, a2, b2), want) in pairs {
            let x = Lab {
                l: l1,
                a: a1,
                b: b1,
            };
            let y = Lab {
                l: l2,
                a: a2,
                b: b2,
            };
            assert!(
                (delta_e(x, y) - want).abs() < 1e-4,
                "{x:?} {y:?}: {}",
                delta_e(x, y)
            );
            assert!((delta_e(y, x) - want).abs() < 1e-4);
        }
    }

    #[test]
    fn lab_contrast_and_simulation_fixed_points() {
        let white = Vision::Normal.sees(RGBColor(255, 255, 255));
        assert!((white.l - 100.0).abs() < 1e-6 && white.a.abs() < 1e-6 && white.b.abs() < 1e-6);
        assert!((contrast(RGBColor(0, 0, 0), RGBColor(255, 255, 255)) - 21.0).abs() < 1e-9);
        // Red and green that differ plainly look alike to a deuteranope.
        let (red, green) = (RGBColor(225, 87, 89), RGBColor(89, 161, 79));
        assert!(delta_e(Vision::Normal.sees(red), Vision::Normal.sees(green)) > 50.0);
        assert!(
            delta_e(
                Vision::Deuteranopia.sees(red),
                Vision::Deuteranopia.sees(green)
            ) < 2.0
        );
    }
}
