//! Retarget Studio: transfers skeletal animation between characters.
//!
//! `core` is the GUI-free animation and retargeting core, `io` reads and writes files,
//! `cli` holds the headless commands and `app` (feature `gui`) the desktop editor.

pub mod cli;
pub mod core;
pub mod io;
pub mod runtime;

#[cfg(feature = "gui")]
pub mod app;
pub mod session;
