//! Light and dark themes: follows `prefers-color-scheme` until the user picks one with the
//! toggle; the pick is kept in localStorage and shown as `<html data-theme="...">`.

use leptos::prelude::*;
use plotters::style::RGBColor;

use crate::charts::Palette;

const STORAGE_KEY: &str = "runlens.theme";

/// A colour theme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    /// Dark text on light surfaces.
    Light,
    /// Light text on dark surfaces.
    Dark,
}

impl Theme {
    /// The `data-theme` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// Parses a stored value.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "light" => Some(Theme::Light),
            "dark" => Some(Theme::Dark),
            _ => None,
        }
    }

    /// The other theme.
    pub fn toggled(self) -> Self {
        match self {
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::Light,
        }
    }

    /// Chart colours for this theme (match `style/main.css`).
    pub fn palette(self) -> Palette {
        match self {
            Theme::Light => Palette {
                background: RGBColor(255, 255, 255),
                grid: RGBColor(236, 238, 242),
                axis: RGBColor(203, 208, 216),
                text: RGBColor(100, 108, 122),
                line: RGBColor(37, 99, 235),
                nan: RGBColor(217, 119, 6),
                inf: RGBColor(220, 38, 38),
            },
            Theme::Dark => Palette {
                background: RGBColor(23, 26, 33),
                grid: RGBColor(41, 45, 55),
                axis: RGBColor(70, 76, 90),
                text: RGBColor(160, 168, 184),
                line: RGBColor(96, 165, 250),
                nan: RGBColor(251, 191, 36),
                inf: RGBColor(248, 113, 113),
            },
        }
    }

    /// Colours of the lines of a multi-line chart (one per GPU), distinct and readable on
    /// this theme's chart background.
    pub fn series_colors(self) -> [RGBColor; 8] {
        match self {
            Theme::Light => [
                RGBColor(37, 99, 235),
                RGBColor(217, 119, 6),
                RGBColor(22, 163, 74),
                RGBColor(219, 39, 119),
                RGBColor(124, 58, 237),
                RGBColor(8, 145, 178),
                RGBColor(101, 163, 13),
                RGBColor(220, 38, 38),
            ],
            Theme::Dark => [
                RGBColor(96, 165, 250),
                RGBColor(251, 191, 36),
                RGBColor(74, 222, 128),
                RGBColor(244, 114, 182),
                RGBColor(167, 139, 250),
                RGBColor(34, 211, 238),
                RGBColor(163, 230, 53),
                RGBColor(248, 113, 113),
            ],
        }
    }
}

fn stored() -> Option<Theme> {
    let storage = window().local_storage().ok()??;
    Theme::parse(&storage.get_item(STORAGE_KEY).ok()??)
}

fn os_prefers_dark() -> bool {
    window()
        .match_media("(prefers-color-scheme: dark)")
        .ok()
        .flatten()
        .is_some_and(|m| m.matches())
}

/// The theme shared by the whole app.
#[derive(Debug, Clone, Copy)]
pub struct ThemeContext(pub RwSignal<Theme>);

/// Creates the theme signal, provides it as context and keeps `<html data-theme>` and
/// localStorage in sync with it. Call once, in the root component.
pub fn provide_theme() -> RwSignal<Theme> {
    let initial = stored().unwrap_or(if os_prefers_dark() {
        Theme::Dark
    } else {
        Theme::Light
    });
    let theme = RwSignal::new(initial);
    provide_context(ThemeContext(theme));
    Effect::new(move |prev: Option<Theme>| {
        let t = theme.get();
        if let Some(root) = document().document_element() {
            // Ignoring the error: setting an attribute on <html> cannot fail in practice.
            let _ = root.set_attribute("data-theme", t.as_str());
        }
        // Only a user's choice is stored; the initial OS-derived theme is not.
        if prev.is_some() {
            if let Some(storage) = window().local_storage().ok().flatten() {
                let _ = storage.set_item(STORAGE_KEY, t.as_str());
            }
        }
        t
    });
    theme
}

/// The app's theme signal.
pub fn use_theme() -> RwSignal<Theme> {
    use_context::<ThemeContext>()
        .map(|c| c.0)
        .unwrap_or_else(|| RwSignal::new(Theme::Light))
}

#[cfg(test)]
mod tests {
    use super::Theme;

    #[test]
    fn parses_and_toggles() {
        assert_eq!(Theme::parse("dark"), Some(Theme::Dark));
        assert_eq!(Theme::parse("blue"), None);
        assert_eq!(Theme::Light.toggled().as_str(), "dark");
    }
}
