//! Work the editor runs off the UI thread: one task per key, its stale results dropped
//! (`keyed`), the current clip's quality report and the export.

pub(crate) mod export;
pub mod keyed;
pub mod quality;
pub(crate) mod validate;
