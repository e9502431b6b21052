//! Progress of the CLI's long work on stderr (indicatif), shown only when stderr is a
//! terminal and `--quiet` was not given: piped output and logs stay clean. Each step also
//! checks for Ctrl+C (`interrupt`).

use super::interrupt::{self, Interrupted};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// `--quiet`, shared by the commands that report progress.
#[derive(clap::Args, Debug, Default, Clone, Copy)]
pub struct QuietArg {
    /// No progress on stderr (it is shown only on a terminal anyway).
    #[arg(long, short)]
    pub quiet: bool,
}

/// A test hook: milliseconds each counted step waits, so a test can interrupt a run that
/// would otherwise end before the signal arrives.
const SLOW_ENV: &str = "RETARGET_STUDIO_TEST_SLOW_MS";

pub struct Progress {
    bar: ProgressBar,
    slow: Option<Duration>,
}

impl Progress {
    pub fn new(quiet: QuietArg) -> Self {
        let bar = if quiet.quiet || !std::io::stderr().is_terminal() {
            ProgressBar::hidden()
        } else {
            let bar = ProgressBar::new_spinner();
            bar.enable_steady_tick(Duration::from_millis(120));
            bar
        };
        let slow = std::env::var(SLOW_ENV)
            .ok()
            .and_then(|v| v.parse().ok())
            .map(Duration::from_millis);
        Self { bar, slow }
    }

    /// Starts a step ("loading walk.bvh"), unless Ctrl+C was pressed.
    pub fn step(&self, message: impl Into<String>) -> Result<(), Interrupted> {
        interrupt::check()?;
        self.bar.set_message(message.into());
        Ok(())
    }

    /// Starts a counted step: a bar of `total` units.
    pub fn count(&self, message: impl Into<String>, total: usize) -> Result<(), Interrupted> {
        self.step(message)?;
        if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} {elapsed}") {
            self.bar.set_style(style.progress_chars("=> "));
        }
        self.bar.set_length(total as u64);
        self.bar.set_position(0);
        Ok(())
    }

    /// Marks `done` units of the counted step; false once Ctrl+C was pressed.
    pub fn advance(&self, done: usize) -> bool {
        if let Some(wait) = self.slow {
            eprintln!("test hook: step {done} waits {} ms", wait.as_millis());
            let until = std::time::Instant::now() + wait;
            while std::time::Instant::now() < until && !interrupt::interrupted() {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        self.bar.set_position(done as u64);
        !interrupt::interrupted()
    }
}

/// A file's name alone: the bar stays on one line of the terminal.
pub fn file_name(path: &std::path::Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

impl Drop for Progress {
    /// The bar leaves no trace: the command's own output follows on stdout.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}
