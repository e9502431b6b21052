//! Ctrl+C in the CLI. The first press sets a flag that the long loops check between steps:
//! the command then stops with exit code 130, having written nothing (outputs are written
//! atomically at the end, so the old file stays or none appears). A second press, for work
//! that does not reach a check soon, stops at once.

use std::sync::atomic::{AtomicBool, Ordering};

/// The shell's code for a process stopped by SIGINT (128 + 2).
pub const EXIT_INTERRUPTED: i32 = 130;

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// What a command returns when Ctrl+C stopped it; `main` turns it into exit code 130.
#[derive(Debug, thiserror::Error)]
#[error("interrupted: stopped before writing anything")]
pub struct Interrupted;

/// Takes over Ctrl+C for this process (the CLI commands only: the editor keeps the default).
pub fn install() {
    // Fails only when a handler is already set, which then does the same job.
    let _ = ctrlc::set_handler(|| {
        if INTERRUPTED.swap(true, Ordering::SeqCst) {
            eprintln!("interrupted");
            std::process::exit(EXIT_INTERRUPTED);
        }
    });
}

pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}

/// `Err(Interrupted)` once Ctrl+C was pressed: long work calls it between steps.
pub fn check() -> Result<(), Interrupted> {
    if interrupted() {
        Err(Interrupted)
    } else {
        Ok(())
    }
}

/// Whether `e` (or an error it wraps) says the command was interrupted.
pub fn is_interrupted(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| cause.is::<Interrupted>())
}
