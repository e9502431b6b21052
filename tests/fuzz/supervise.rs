//! The long run's cases in worker processes: a hung case cannot be stopped inside its own
//! process, so the worker's watchdog ends it, and the supervisor here records the hang (or
//! an abort) as a failure and starts a new worker at the next case, to the end of the range.

use crate::corpus;
use crate::harness::{
    CASE_LIMIT, Failure, HANG_EXIT, Report, extension, mutant, save_failure, work_dir,
};
use crate::mutate::Format;
use crate::run::Outcome;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The test a worker process runs (see `long_run_worker` in main.rs), and the variables
/// that tell it what to run and where to write.
pub const WORKER_TEST: &str = "long_run_worker";
pub const WORKER_VAR: &str = "FUZZ_WORKER";
pub const JOURNAL_VAR: &str = "FUZZ_JOURNAL";

/// A worker's record of its finished cases, one line each, flushed as it goes: `a` or `r`
/// (accepted, rejected) or `f` (failed), the case index, its microseconds; a failure adds
/// where its mutant was kept and its problem.
pub struct Journal(std::fs::File);

impl Journal {
    pub fn create(path: &Path, start: u64) -> Journal {
        let mut file = std::fs::File::create(path).expect("create the journal");
        file.write_all(format!("start {start}\n").as_bytes())
            .expect("write the journal");
        Journal(file)
    }

    pub fn record(&mut self, index: u64, took: Duration, result: &Result<Outcome, Failure>) {
        let micros = took.as_micros();
        let line = match result {
            Ok(Outcome::Accepted) => format!("a {index} {micros}\n"),
            Ok(Outcome::Rejected) => format!("r {index} {micros}\n"),
            Err(f) => format!(
                "f {index} {micros} {}\t{}\n",
                f.saved.display(),
                f.problem.replace(['\n', '\t'], " ")
            ),
        };
        // One write a line: a worker ended mid-case leaves whole lines behind.
        self.0
            .write_all(line.as_bytes())
            .expect("write the journal");
    }
}

/// Cases `range` of `format` from `seed` in worker processes, a new one after each hang or
/// abort, which counts as that case's failure.
pub fn supervised(format: Format, seed: u64, range: Range<u64>, every: bool) -> Report {
    let journal = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("fuzz-journal-{}-{seed}.txt", format.name()));
    let exe = std::env::current_exe().expect("the test binary");
    let mut report = Report::default();
    let started = Instant::now();
    let mut next = range.start;
    while next < range.end {
        let _ = std::fs::remove_file(&journal);
        let status = Command::new(&exe)
            .args([WORKER_TEST, "--exact", "--ignored", "--nocapture"])
            .args(["--test-threads", "1"])
            .env(
                WORKER_VAR,
                format!("{}:{seed}:{next}:{}:{every}", format.name(), range.end),
            )
            .env(JOURNAL_VAR, &journal)
            .stdout(Stdio::null())
            .status()
            .expect("start a worker process");
        let text = std::fs::read_to_string(&journal).unwrap_or_default();
        assert!(
            text.starts_with("start "),
            "the worker for {} from case {next} did not start ({status}); is `{WORKER_TEST}` \
             in this binary?",
            format.name()
        );
        let mut resume = next;
        for line in text.lines().skip(1) {
            let Some((index, took, result)) = parse(line, format, seed, every) else {
                continue;
            };
            report.add(index, took, result);
            resume = index + 1;
        }
        if status.success() && resume >= range.end {
            break;
        }
        // The case after the last journaled one ended the worker.
        let problem = match status.code() {
            Some(HANG_EXIT) => format!("hang: ran past its bound ({CASE_LIMIT:?} of CPU time)"),
            _ => format!("the worker process ended in this case ({status})"),
        };
        let failure = Failure {
            format,
            seed,
            index: resume,
            every,
            problem,
            saved: save_case(format, seed, resume, every),
        };
        report.add(resume, Duration::ZERO, Err(failure));
        next = resume + 1;
    }
    report.elapsed = started.elapsed();
    report
}

fn parse(
    line: &str,
    format: Format,
    seed: u64,
    every: bool,
) -> Option<(u64, Duration, Result<Outcome, Failure>)> {
    let mut parts = line.splitn(4, ' ');
    let kind = parts.next()?;
    let index: u64 = parts.next()?.parse().ok()?;
    let took = Duration::from_micros(parts.next()?.parse().ok()?);
    let result = match kind {
        "a" => Ok(Outcome::Accepted),
        "r" => Ok(Outcome::Rejected),
        "f" => {
            let (saved, problem) = parts.next()?.split_once('\t')?;
            Err(Failure {
                format,
                seed,
                index,
                every,
                problem: problem.to_owned(),
                saved: PathBuf::from(saved),
            })
        }
        _ => return None,
    };
    Some((index, took, result))
}

/// Keeps the mutant of a case that ended its worker, made again from its seed.
fn save_case(format: Format, seed: u64, index: u64, every: bool) -> PathBuf {
    let work = work_dir(&format!("saved-{seed}"), format);
    let seeds = corpus::seeds(format, every, &work);
    let (at, bytes) = mutant(&seeds, seed, index);
    let _ = std::fs::remove_dir_all(&work);
    save_failure(format, seed, index, &extension(&seeds[at].0.name), &bytes)
}
