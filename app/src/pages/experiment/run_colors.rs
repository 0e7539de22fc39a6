//! The palette runs are coloured from by default: the `i`th selected run gets the `i`th
//! colour ([`palette_color`]), so up to [`RUN_COLORS`]`.len()` selected runs never share a
//! colour, and a copied link (whose `sel=` keeps the selection order) shows the same colours.

/// The default run colours, in the order they are given out.
///
/// Twenty colours, every one taken from a published colour-blind-safe qualitative scheme:
/// Paul Tol's (<https://personal.sron.nl/~pault/>: muted, vibrant, bright, light,
/// medium- and high-contrast), the IBM Design Library's, Petroff's ten-colour sequence
/// ("Accessible Color Sequences for Data Visualization", 2021, the one Matplotlib adopted)
/// and Okabe & Ito's colour-universal-design set. No single published palette has twenty
/// colours that suit this app: Okabe–Ito and Tol's sets have 7–10 each, and the larger
/// Glasbey and Kelly sets are not designed for colour blindness and include near-black,
/// near-white or pale colours that vanish on one of the two themes.
///
/// Of the pool of those schemes' colours (and Tableau's colour-blind ten), only the ones
/// readable on both chart backgrounds (WCAG contrast at least 2:1 on the light one, 2.5:1
/// on the dark one) and not grey (greys read as "hidden" next to the legend's dimmed
/// entries) were kept. The twenty chosen from those (by a local search) make the smallest
/// CIEDE2000 difference between any two of them as large as found, taking for each pair
/// the smallest of: half the difference seen with normal vision, and the differences seen
/// with deuteranopia, protanopia and tritanopia (Machado et al. 2009, full severity).
/// They are ordered Glasbey-style: the eight farthest apart come first (a typical
/// comparison), then each next colour is the one farthest from all before it. The unit
/// tests below hold the palette to these numbers: every pair at least 11 apart with normal
/// vision and 6 with each colour blindness, the first eight at least 9.5 under all four.
pub const RUN_COLORS: [&str; 20] = [
    "#117733", // Tol muted: green
    "#ee99aa", // Tol medium contrast: light red
    "#832db6", // Petroff: purple
    "#33bbee", // Tol vibrant: cyan
    "#999933", // Tol muted: olive
    "#dc267f", // IBM: magenta
    "#648fff", // IBM: ultramarine
    "#a96b59", // Petroff: brown
    "#009988", // Tol vibrant: teal
    "#cc3311", // Tol vibrant: red
    "#785ef0", // IBM: indigo
    "#994455", // Tol medium contrast: dark red
    "#ee8866", // Tol light: orange
    "#ddaa33", // Tol high contrast: yellow
    "#cc6677", // Tol muted: rose
    "#aa4499", // Tol muted: purple
    "#0077bb", // Tol vibrant: blue
    "#cc79a7", // Okabe–Ito: reddish purple
    "#fe6100", // IBM: orange
    "#44bb99", // Tol light: mint
];

/// The default colour of the run at place `i` (from 0) of the selection: the palette in
/// order, starting over once all of it is used.
pub fn palette_color(i: usize) -> &'static str {
    RUN_COLORS[i % RUN_COLORS.len()]
}

#[cfg(test)]
mod perception;

#[cfg(test)]
mod tests {
    use super::perception::{contrast, delta_e, Vision};
    use super::*;
    use crate::theme::Theme;
    use plotters::style::RGBColor;

    fn rgb(hex: &str) -> RGBColor {
        let c = |i: usize| u8::from_str_radix(&hex[i..i + 2], 16).unwrap();
        RGBColor(c(1), c(3), c(5))
    }

    /// The closest pair of `colors` seen with `vision`: (CIEDE2000, first, second).
    fn closest(colors: &[&'static str], vision: Vision) -> (f64, &'static str, &'static str) {
        let mut min = (f64::INFINITY, "", "");
        for (i, a) in colors.iter().enumerate() {
            for b in &colors[i + 1..] {
                let d = delta_e(vision.sees(rgb(a)), vision.sees(rgb(b)));
                if d < min.0 {
                    min = (d, a, b);
                }
            }
        }
        min
    }

    #[test]
    fn twenty_distinct_colours_in_order() {
        assert!(RUN_COLORS.len() >= 20);
        for (i, c) in RUN_COLORS.iter().enumerate() {
            assert!(super::super::workspace::is_hex_color(c), "{c}");
            assert_eq!(palette_color(i), *c);
            assert_eq!(
                *c,
                c.to_ascii_lowercase(),
                "the colour input reports lowercase"
            );
        }
        let mut unique = RUN_COLORS.to_vec();
        unique.sort_unstable();
        unique.dedup();
        assert_eq!(unique.len(), RUN_COLORS.len());
        // Past the palette's end it starts over.
        assert_eq!(palette_color(RUN_COLORS.len()), RUN_COLORS[0]);
        assert_eq!(palette_color(2 * RUN_COLORS.len() + 3), RUN_COLORS[3]);
    }

    #[test]
    fn every_pair_stays_apart_with_normal_vision_and_colour_blindness() {
        // CIEDE2000 of about 2 is a just-noticeable difference between patches side by side;
        // thin chart lines need far more.
        for (vision, all, first_eight) in [
            (Vision::Normal, 11.0, 19.0),
            (Vision::Deuteranopia, 6.0, 9.5),
            (Vision::Protanopia, 6.0, 9.5),
            (Vision::Tritanopia, 6.0, 9.5),
        ] {
            let (d, a, b) = closest(&RUN_COLORS, vision);
            assert!(d >= all, "{vision:?}: {a} and {b} are only {d:.1} apart");
            let (d, a, b) = closest(&RUN_COLORS[..8], vision);
            assert!(
                d >= first_eight,
                "{vision:?}: {a} and {b} are only {d:.1} apart"
            );
        }
    }

    #[test]
    fn every_colour_stands_out_on_both_themes() {
        for (theme, min_contrast) in [(Theme::Light, 2.0), (Theme::Dark, 2.5)] {
            let bg = theme.palette().background;
            for c in RUN_COLORS {
                let (k, d) = (
                    contrast(rgb(c), bg),
                    delta_e(Vision::Normal.sees(rgb(c)), Vision::Normal.sees(bg)),
                );
                assert!(k >= min_contrast, "{c} on {theme:?}: contrast {k:.2}");
                assert!(d >= 25.0, "{c} on {theme:?}: CIEDE2000 {d:.1}");
            }
        }
    }
}
