//! Reusable view pieces shared by the pages.

pub mod chart_panel;
pub mod columns_picker;
pub mod header;
pub mod pager;
pub mod search_box;
pub mod states;
pub mod status_badge;
pub mod table;
pub mod theme_toggle;
pub mod virtual_list;
