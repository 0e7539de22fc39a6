//! Parts of the runs table: the column layout kept in the URL, the header rows,
//! the live rows and the toolbar extras. The table itself is `runs_table.rs`.

pub mod header;
pub mod layout;
pub mod live;
pub mod pages;
pub mod toolbar;
