//! Work the editor runs off the UI thread: one task per key, its stale results dropped
//! (`keyed`), the current clip's quality report and its causes (`check`), and the export.

pub mod check;
pub(crate) mod export;
pub mod keyed;
pub(crate) mod validate;
