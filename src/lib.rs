//! Retarget Studio: transfers skeletal animation between characters.
//!
//! `core` is the GUI-free animation and retargeting core, `io` reads and writes files,
//! `cli` holds the headless commands and `app` (feature `gui`) the desktop editor.

pub mod cli;
/// The GUI-free core, its own crate (`retarget-core`) so that an engine embeds it alone.
pub use retarget_core as core;
/// The crowd runtime, on the core alone.
pub use retarget_core::runtime;
/// The readers and writers, their own crate (`retarget-io`) on the core.
pub use retarget_io as io;

#[cfg(feature = "gui")]
pub mod app;
pub mod session;
