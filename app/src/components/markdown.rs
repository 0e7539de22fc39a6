//! Markdown (run and experiment descriptions, the `mlflow.note.content` tag) rendered to
//! HTML that is safe to put in the page: raw HTML in the source is shown as text, links
//! keep only `http:`, `https:`, `mailto:` and relative targets, and images become links to
//! the image (no request leaves the page while it renders).

use leptos::prelude::*;
use pulldown_cmark::{html, Event, Options, Parser, Tag, TagEnd};

/// Whether a link target may be kept: `http(s):`, `mailto:` or relative (no scheme).
/// Browsers ignore tabs and newlines inside a scheme (`java\tscript:`), so those and other
/// control characters are dropped before looking at it.
pub fn is_safe_url(url: &str) -> bool {
    let cleaned: String = url
        .chars()
        .filter(|c| !c.is_control() && !c.is_whitespace())
        .collect();
    let Some(colon) = cleaned.find(':') else {
        return true;
    };
    if cleaned[..colon].contains(['/', '?', '#']) {
        return true;
    }
    let scheme = cleaned[..colon].to_ascii_lowercase();
    matches!(scheme.as_str(), "http" | "https" | "mailto")
}

/// Renders `source` (CommonMark with tables, strikethrough and task lists) to safe HTML.
pub fn render(source: &str) -> String {
    let opts = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS;
    // For each open link or image: whether its tags were kept.
    let mut open: Vec<bool> = Vec::new();
    let events = Parser::new_ext(source, opts).filter_map(|ev| match ev {
        Event::Html(s) | Event::InlineHtml(s) => Some(Event::Text(s)),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        })
        | Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let keep = is_safe_url(&dest_url);
            open.push(keep);
            keep.then_some(Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }))
        }
        Event::End(TagEnd::Link) | Event::End(TagEnd::Image) => open
            .pop()
            .unwrap_or(false)
            .then_some(Event::End(TagEnd::Link)),
        Event::InlineMath(s) | Event::DisplayMath(s) => Some(Event::Code(s)),
        other => Some(other),
    });
    let mut out = String::with_capacity(source.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// A Markdown text rendered safely (see [`render`]).
#[component]
pub fn Markdown(
    /// The Markdown source.
    #[prop(into)]
    source: Signal<String>,
) -> impl IntoView {
    let html = Memo::new(move |_| source.with(|s| render(s)));
    view! { <div class="markdown" inner_html=move || html.get()></div> }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_markdown() {
        let h = render("**bold** and *it*\n\n- a\n- b\n\n| x | y |\n|---|---|\n| 1 | 2 |");
        assert!(h.contains("<strong>bold</strong>"), "{h}");
        assert!(h.contains("<em>it</em>"), "{h}");
        assert!(h.contains("<li>a</li>"), "{h}");
        assert!(h.contains("<table>"), "{h}");
    }

    #[test]
    fn raw_html_becomes_text() {
        for src in [
            "<script>alert(1)</script>",
            "hello <script>alert(1)</script> there",
            "<img src=x onerror=alert(1)>",
            "text <img src=x onerror=\"alert(1)\"> text",
            "<div onclick=alert(1)>x</div>",
            "<iframe src=javascript:alert(1)></iframe>",
            "<svg><script>alert(1)</script></svg>",
        ] {
            let h = render(src);
            for bad in ["<script", "<img", "<div", "<iframe", "<svg"] {
                assert!(!h.contains(bad), "{src:?} rendered {h:?}");
            }
            assert!(h.contains("&lt;"), "{src:?} rendered {h:?}");
        }
    }

    #[test]
    fn unsafe_links_are_dropped_and_safe_ones_kept() {
        for src in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x]( javascript:alert(1) )",
            "<javascript:alert(1)>",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x](vbscript:msgbox(1))",
            "![x](javascript:alert(1))",
            "[x][r]\n\n[r]: javascript:alert(1)",
            "[x](<java\tscript:alert(1)>)",
        ] {
            let h = render(src);
            // The link's text may stay, as text; no link or image tag does.
            assert!(!h.contains("href"), "{src:?} rendered {h:?}");
            assert!(
                !h.contains("<a") && !h.contains("<img"),
                "{src:?} rendered {h:?}"
            );
        }
        let h = render("[a](https://example.com/x?y=1) [b](mailto:a@b.c) [c](/runs/1) [d](#top)");
        for href in [
            "href=\"https://example.com/x?y=1\"",
            "href=\"mailto:a@b.c\"",
            "href=\"/runs/1\"",
            "href=\"#top\"",
        ] {
            assert!(h.contains(href), "{href} missing in {h}");
        }
    }

    #[test]
    fn images_become_links() {
        let h = render("![plot](https://example.com/p.png)");
        assert!(!h.contains("<img"), "{h}");
        assert!(
            h.contains("<a href=\"https://example.com/p.png\">plot</a>"),
            "{h}"
        );
    }

    #[test]
    fn attributes_cannot_be_broken_out_of() {
        let h = render("[x](https://a.b/\"onmouseover=\"alert(1))");
        assert!(!h.contains("\"onmouseover"), "{h}");
    }

    #[test]
    fn url_check() {
        assert!(is_safe_url("https://x"));
        assert!(is_safe_url("HTTP://x"));
        assert!(is_safe_url("relative/path:with-colon"));
        assert!(is_safe_url("?q=a:b"));
        assert!(!is_safe_url("javascript:x"));
        assert!(!is_safe_url("java\nscript:x"));
        assert!(!is_safe_url("file:///etc/passwd"));
    }
}
