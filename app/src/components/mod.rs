//! Reusable view pieces shared by the pages.

pub mod chart_panel;
pub mod chart_style;
pub mod columns_picker;
pub mod copy_button;
pub mod gpu_panel;
pub mod header;
pub mod live_badge;
pub mod markdown;
pub mod pager;
pub mod require_session;
pub mod search_box;
pub mod share;
pub mod states;
pub mod status_badge;
pub mod table;
pub mod theme_toggle;
pub mod user_menu;
pub mod virtual_list;
