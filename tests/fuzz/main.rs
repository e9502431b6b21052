//! In-tree fuzzing on the stable toolchain: structure-aware mutants of the bundled assets in
//! every format go through the library as the CLI uses it. Rules: no panic, no case over
//! 5 s of CPU time (see `watchdog`), every error names the file, every accepted input gives
//! finite output. A failure replays from (format, seed, case index); once fixed, its mutant
//! becomes a file under `tests/fuzz/regressions/<format>/`.
//!
//! `cargo test --test fuzz` runs two campaigns per format: `FUZZ_CASES` cases (default
//! `CI_CASES`) from the fixed `CI_SEED`, and `FUZZ_COMMIT_CASES` (default `COMMIT_CASES`) from
//! a seed made of the commit (see [`commit_seed`]), so that each commit tries cases no earlier
//! one did. The long run is `cargo test --release --test fuzz -- --ignored long_run
//! --nocapture`; it runs its cases in worker processes, so that a hang is recorded and the
//! run goes on.

mod corpus;
mod finite;
mod harness;
mod mutate;
mod regressions;
mod rng;
mod run;
mod supervise;
mod watchdog;

use harness::{Report, campaign, campaign_journaled};
use mutate::Format;
use std::sync::atomic::Ordering;
use supervise::supervised;

/// Cases per format in `cargo test`: CI must run at least 20,000.
const CI_CASES: u64 = 20_000;

/// The seed of the fixed CI campaigns; the long run takes `FUZZ_SEED` or another.
const CI_SEED: u64 = 11;

/// Cases per format in the commit-seeded campaign: a tenth of the fixed one's, on the same
/// small seeds (the large assets' cases take seconds each in the debug profile, past the
/// watchdog on a busy machine; the long run covers them in release).
const COMMIT_CASES: u64 = 2_000;

/// The seed of the commit-seeded campaign and where it came from: `FUZZ_COMMIT` (a commit
/// hash or any text) if set, else `git rev-parse HEAD` of this checkout, else (a copy
/// without git) a fixed seed, said so. A hash's first 16 hex digits are the seed, so the
/// printed seed replays a failure whatever the commit.
fn commit_seed() -> (u64, String) {
    let from_env = std::env::var("FUZZ_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty());
    let from_git = || {
        std::process::Command::new("git")
            .args(["rev-parse", "HEAD"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| String::from_utf8(o.stdout).ok())
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
    };
    match from_env
        .map(|c| (c, "FUZZ_COMMIT"))
        .or_else(|| from_git().map(|c| (c, "git HEAD")))
    {
        Some((commit, how)) => (seed_of(commit.trim()), format!("{how} {}", commit.trim())),
        None => (
            CI_SEED + 1,
            "no commit known (no git, no FUZZ_COMMIT)".to_owned(),
        ),
    }
}

/// A commit hash's first 16 hex digits, or an FNV-1a hash of any other text.
fn seed_of(commit: &str) -> u64 {
    let head = commit.get(..16.min(commit.len())).unwrap_or(commit);
    if head.len() == 16
        && let Ok(v) = u64::from_str_radix(head, 16)
    {
        return v;
    }
    commit.bytes().fold(0xCBF2_9CE4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01B3)
    })
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn check(format: Format, report: &Report) {
    println!("{}", report.summary(format));
    // The first few: a broken rule tends to break in every case that reaches it.
    let failures: Vec<String> = report
        .failures
        .iter()
        .take(20)
        .map(|f| f.to_string())
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} cases broke a rule; the first {}:\n{}",
        report.failures.len(),
        report.cases,
        failures.len(),
        failures.join("\n")
    );
}

fn ci(format: Format) {
    let cases = env_u64("FUZZ_CASES").unwrap_or(CI_CASES);
    let seed = env_u64("FUZZ_SEED").unwrap_or(CI_SEED);
    check(format, &campaign(format, seed, 0..cases, false));
}

fn commit(format: Format) {
    let cases = env_u64("FUZZ_COMMIT_CASES").unwrap_or(COMMIT_CASES);
    let (seed, from) = commit_seed();
    // Printed before the run: a hang ends the process before any report.
    println!(
        "fuzz {} commit campaign: seed {seed} (from {from}), {cases} cases; a failure \
         replays with FUZZ_REPLAY={}:{seed}:<case>",
        format.name(),
        format.name()
    );
    check(format, &campaign(format, seed, 0..cases, false));
}

/// Two CI tests per format (fixed seed, commit seed), so that the test threads share them
/// out.
macro_rules! ci_tests {
    ($($name:ident, $commit_name:ident: $format:expr),* $(,)?) => {
        $(
            #[test]
            fn $name() {
                ci($format);
            }

            #[test]
            fn $commit_name() {
                commit($format);
            }
        )*
    };
}

ci_tests!(
    glb, glb_commit_seed: Format::Glb,
    gltf_data_uri, gltf_data_uri_commit_seed: Format::Gltf,
    vrm, vrm_commit_seed: Format::Vrm,
    bvh, bvh_commit_seed: Format::Bvh,
    fbx, fbx_commit_seed: Format::Fbx,
    project, project_commit_seed: Format::Project,
);

/// The formats by what a case costs in the long run (BVH's large mocap files take about
/// 30 ms a case, a project 1 ms): started longest first, the workers finish together.
const LONGEST_FIRST: [Format; 6] = [
    Format::Bvh,
    Format::Glb,
    Format::Fbx,
    Format::Vrm,
    Format::Gltf,
    Format::Project,
];

/// At least a million cases over every format and every bundled asset, with cases per
/// second printed per format and overall. A hang or an abort is recorded as that case's
/// failure and the run goes on (see [`supervise`]).
#[test]
#[ignore = "long: run in release, see docs/testing.md, Fuzzing"]
fn long_run() {
    let total = env_u64("FUZZ_CASES").unwrap_or(1_000_000);
    let seed = env_u64("FUZZ_SEED").unwrap_or(0x5EED);
    let per_format = total.div_ceil(Format::ALL.len() as u64);
    let started = std::time::Instant::now();
    // As many worker processes at once as cores (or `FUZZ_JOBS`), each supervised by a
    // thread taking the next format: more would only stretch every case's wall time
    // towards the 5 s bound.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = env_u64("FUZZ_JOBS").map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n.max(1) as usize,
    );
    let reports: Vec<(Format, Report)> = std::thread::scope(|scope| {
        let runs: Vec<_> = (0..workers.min(Format::ALL.len()))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    while let Some(&format) =
                        LONGEST_FIRST.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        done.push((format, supervised(format, seed, 0..per_format, true)));
                    }
                    done
                })
            })
            .collect();
        runs.into_iter()
            .flat_map(|r| r.join().expect("a campaign thread"))
            .collect()
    });
    let mut failures = Vec::new();
    for (format, report) in &reports {
        println!("{}", report.summary(*format));
        failures.extend(report.failures.iter().take(20).map(|f| f.to_string()));
    }
    let secs = started.elapsed().as_secs_f64();
    let cases = per_format * Format::ALL.len() as u64;
    println!(
        "fuzz long run: {cases} cases in {secs:.0} s: {:.0} cases/s",
        cases as f64 / secs
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The long run's worker process: `FUZZ_WORKER=format:seed:start:end:every` cases,
/// journaled to `FUZZ_JOURNAL` (see [`supervise`]).
#[test]
#[ignore = "started by long_run"]
fn long_run_worker() {
    let Ok(spec) = std::env::var(supervise::WORKER_VAR) else {
        return;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let format = Format::parse(parts[0]).expect("a format name");
    let number = |i: usize| -> u64 { parts[i].parse().expect("a number") };
    let every = parts[4] == "true";
    let journal = std::env::var_os(supervise::JOURNAL_VAR).map(std::path::PathBuf::from);
    campaign_journaled(
        format,
        number(1),
        number(2)..number(3),
        every,
        journal.as_deref(),
    );
}

/// One case again: `FUZZ_REPLAY=format:seed:index[:every]`.
#[test]
fn replay() {
    let Ok(spec) = std::env::var("FUZZ_REPLAY") else {
        return;
    };
    let parts: Vec<&str> = spec.split(':').collect();
    let format = Format::parse(parts[0]).expect("a format name");
    let seed: u64 = parts[1].parse().expect("a seed");
    let index: u64 = parts[2].parse().expect("a case index");
    let every = parts.get(3) == Some(&"every");
    check(format, &campaign(format, seed, index..index + 1, every));
}
