//! The loop: mutants made from fixed seeds, each run under `catch_unwind` and a watchdog,
//! timed, and every broken rule kept with what replays it.

use crate::corpus;
use crate::mutate::Format;
use crate::mutate::Seed;
use crate::rng::Rng;
use crate::run::{Outcome, Plan, run};
use crate::supervise::Journal;
use std::cell::RefCell;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::Once;
use std::time::{Duration, Instant};

use crate::watchdog::Watchdog;
pub use crate::watchdog::{CASE_LIMIT, HANG_EXIT};

/// A broken rule, and what replays it.
#[derive(Debug)]
pub struct Failure {
    pub format: Format,
    pub seed: u64,
    pub index: u64,
    /// Whether the campaign mutated every bundled asset (the seed files differ).
    pub every: bool,
    pub problem: String,
    /// Where the mutant was kept (under the target directory).
    pub saved: PathBuf,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} seed {} case {}: {} (mutant kept at {}; replay with FUZZ_REPLAY={}:{}:{}{} \
             cargo test --test fuzz replay -- --nocapture)",
            self.format.name(),
            self.seed,
            self.index,
            self.problem,
            self.saved.display(),
            self.format.name(),
            self.seed,
            self.index,
            if self.every { ":every" } else { "" }
        )
    }
}

#[derive(Debug, Default)]
pub struct Report {
    pub cases: u64,
    pub rejected: u64,
    pub accepted: u64,
    pub failures: Vec<Failure>,
    pub elapsed: Duration,
    /// The slowest case and its index.
    pub slowest: (Duration, u64),
}

impl Report {
    /// Counts one case that took `took`.
    pub fn add(&mut self, index: u64, took: Duration, result: Result<Outcome, Failure>) {
        self.cases += 1;
        if took > self.slowest.0 {
            self.slowest = (took, index);
        }
        match result {
            Ok(Outcome::Rejected) => self.rejected += 1,
            Ok(Outcome::Accepted) => self.accepted += 1,
            Err(f) => self.failures.push(f),
        }
    }

    pub fn summary(&self, format: Format) -> String {
        let secs = self.elapsed.as_secs_f64();
        format!(
            "fuzz {}: {} cases ({} accepted, {} rejected, {} failed) in {:.1} s: {:.0} cases/s, \
             {:.2} ms per case, slowest {:.0} ms (case {})",
            format.name(),
            self.cases,
            self.accepted,
            self.rejected,
            self.failures.len(),
            secs,
            self.cases as f64 / secs.max(1e-9),
            secs * 1000.0 / self.cases.max(1) as f64,
            self.slowest.0.as_secs_f64() * 1000.0,
            self.slowest.1
        )
    }
}

thread_local! {
    /// Set while a case runs: its panic message goes here instead of to stderr.
    static PANIC: RefCell<Option<String>> = const { RefCell::new(None) };
    static IN_CASE: RefCell<bool> = const { RefCell::new(false) };
}

fn install_panic_hook() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let default = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if IN_CASE.with(|c| *c.borrow()) {
                let text = format!("panic at {}: {}", location(info), payload(info));
                PANIC.with(|p| *p.borrow_mut() = Some(text));
            } else {
                default(info);
            }
        }));
    });
}

fn location(info: &std::panic::PanicHookInfo) -> String {
    info.location()
        .map(|l| format!("{}:{}", l.file(), l.line()))
        .unwrap_or_default()
}

fn payload(info: &std::panic::PanicHookInfo) -> String {
    let p = info.payload();
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default()
}

/// A directory of its own under the target directory, emptied: `purpose` keeps tests that
/// run at once out of each other's way.
pub fn work_dir(purpose: &str, format: Format) -> PathBuf {
    // One per process too: a replay of a seed while a long run of it goes on emptied the
    // run's folder under it ("write the mutant: No such file or directory").
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "fuzz-{purpose}-{}-{}",
        format.name(),
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("fuzz work dir");
    dir
}

/// Runs cases `range` of `format` from `seed`; `every` mutates every bundled asset, not
/// only the small ones.
pub fn campaign(format: Format, seed: u64, range: std::ops::Range<u64>, every: bool) -> Report {
    campaign_journaled(format, seed, range, every, None)
}

/// [`campaign`], writing a line per finished case to `journal` (see [`crate::supervise`]),
/// so that a supervisor learns how far a worker got before a hang ended it.
pub fn campaign_journaled(
    format: Format,
    seed: u64,
    range: std::ops::Range<u64>,
    every: bool,
    journal: Option<&Path>,
) -> Report {
    install_panic_hook();
    // One directory per seed: the fixed and the commit-seeded campaigns of a format run at
    // once.
    let work = work_dir(&format!("cases-{seed}"), format);
    let seeds = corpus::seeds(format, every, &work);
    let mut journal = journal.map(|p| Journal::create(p, range.start));
    let dog = Watchdog::start();
    let mut report = Report::default();
    let started = Instant::now();
    for index in range {
        let (at, mutant) = mutant(&seeds, seed, index);
        let (seed_file, original) = &seeds[at];
        let ext = extension(&seed_file.name);
        let case_path = work.join(format!("fuzz-case.{ext}"));
        std::fs::write(&case_path, &mutant).expect("write the mutant");
        let id = format!(
            "{} seed {seed} case {index} (from {})",
            format.name(),
            seed_file.name
        );
        // An abort (a failed allocation) ends the process without a word: this names it.
        let _ = std::fs::write(work.join("current-case.txt"), &id);
        dog.watch(Some(id));
        let t = Instant::now();
        let plan = Plan {
            variant: index,
            few_frames: every,
        };
        let result = run_caught(format, &case_path, original, plan);
        let took = t.elapsed();
        dog.watch(None);
        let result = result.map_err(|problem| Failure {
            format,
            seed,
            index,
            every,
            problem,
            saved: save_failure(format, seed, index, &ext, &mutant),
        });
        if let Some(j) = journal.as_mut() {
            j.record(index, took, &result);
        }
        report.add(index, took, result);
    }
    report.elapsed = started.elapsed();
    let _ = std::fs::remove_dir_all(&work);
    report
}

/// The mutant of case `index` and which of `seeds` it was made from.
pub fn mutant(seeds: &[(Seed, PathBuf)], seed: u64, index: u64) -> (usize, Vec<u8>) {
    let mut rng = Rng::for_case(seed, index);
    let at = rng.below(seeds.len());
    (at, seeds[at].0.mutant(&mut rng))
}

pub fn extension(name: &str) -> String {
    Path::new(name)
        .extension()
        .unwrap_or_default()
        .to_string_lossy()
        .into_owned()
}

/// `run` with panics turned into a broken rule.
pub fn run_caught(
    format: Format,
    case: &Path,
    original: &Path,
    plan: Plan,
) -> Result<Outcome, String> {
    install_panic_hook();
    IN_CASE.with(|c| *c.borrow_mut() = true);
    let result = catch_unwind(AssertUnwindSafe(|| run(format, case, original, plan)));
    IN_CASE.with(|c| *c.borrow_mut() = false);
    match result {
        Ok(r) => r,
        Err(_) => Err(PANIC
            .with(|p| p.borrow_mut().take())
            .unwrap_or_else(|| "panic".to_owned())),
    }
}

pub fn save_failure(format: Format, seed: u64, index: u64, ext: &str, mutant: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("fuzz-failures");
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{}-{seed}-{index}.{ext}", format.name()));
    let _ = std::fs::write(&path, mutant);
    path
}
