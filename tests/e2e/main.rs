//! End-to-end tests on the real rigs and clips in `assets/`, built as one test binary: each
//! integration test file would otherwise link the whole GUI stack again, which costs minutes and
//! gigabytes on a 2-core CI machine. Grouped by what they prove.

mod common;

/// The headless commands: exit codes, output, progress, interruption.
mod cli;
/// The editor driven through its UI, its screenshots, and the safety of the work in it.
mod editor;
/// Every bundled asset through every metric, judged as an animator would.
mod quality_matrix;
/// Each reader on real files, their conventions, and bad input.
mod reading;
/// Retargets on real rigs and clips: right where it matters to an animator.
mod retarget;
/// The embeddable runtime: crowds and their poses against the offline solve.
mod runtime;
/// Each writer, read back by us and by independent readers.
mod writing;
