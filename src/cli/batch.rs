//! `retarget-studio batch --sources DIR|GLOB --targets DIR|GLOB --out DIR [--project P]
//! [-j N]`: every clip of every source onto every target, one GLB per output, then a table
//! of what was made and how it measures (`check`'s report). A bad file or a failed output is
//! listed at the end and does not stop the others.
//!
//! Exit codes: 0 every output written; 1 some file or output failed (the rest are written),
//! or with `--strict` some output fails a quality threshold; 2 bad usage or nothing to do (no
//! files match, `--out` or `--project` unusable); 130 Ctrl+C (the outputs already written are
//! whole, the rest not started).

mod inputs;
mod names;
mod plan;
mod summary;
mod work;

use super::interrupt::{self, EXIT_INTERRUPTED};
use super::progress::{Progress, QuietArg};
use crate::io::ImportOptions;
use crate::io::project::ProjectFile;
use crate::session::SideRole;
use anyhow::Context as _;
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::AtomicUsize;
use std::time::Instant;

/// Exit code when some file or output failed.
pub const EXIT_SOME_FAILED: i32 = 1;

#[derive(clap::Args, Debug)]
#[command(
    after_help = "Outputs: <source>_<clip>_on_<target>.glb (or .fbx) in --out (the clip left out \
when it repeats the source's name; -2, -3, ... where names collide).\n\
Exit codes: 0 every output written; 1 some file or output failed (the others are written), \
or with --strict some output fails a quality threshold; 2 bad usage or nothing to do; \
130 Ctrl+C (the outputs written are whole)."
)]
pub struct BatchArgs {
    /// Animated files: folders (their .glb .gltf .vrm .bvh .fbx files), glob patterns
    /// (quoted, e.g. 'mocap/*.bvh') or files; several may follow.
    #[arg(long, required = true, num_args = 1..)]
    pub sources: Vec<String>,
    /// Characters to animate, as for --sources.
    #[arg(long, required = true, num_args = 1..)]
    pub targets: Vec<String>,
    /// The folder to write into (made if missing). Files of earlier runs are replaced.
    #[arg(long)]
    pub out: PathBuf,
    /// A project whose map and pose edits apply to each pair it fits (every joint its map
    /// and pose edits name is in both files); other pairs are set up automatically.
    #[arg(long)]
    pub project: Option<PathBuf>,
    /// Outputs made at once (default: one per core).
    #[arg(short = 'j', long = "jobs", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Make only the K-th of N disjoint slices of the outputs (source × target × clip, in
    /// a fixed order), named as one whole run names them: N processes or machines given
    /// 1/N … N/N write together exactly the files of one run. Each still reads every file.
    #[arg(long, value_name = "K/N", value_parser = plan::Shard::parse)]
    pub shard: Option<plan::Shard>,
    /// The outputs' format: glb (the target with the clip) or fbx (binary FBX 7.4, the
    /// skeleton and the clip's take).
    #[arg(long, value_enum, default_value_t = OutputFormat::Glb)]
    pub format: OutputFormat,
    #[command(flatten)]
    pub fbx: super::fbx_args::FbxArgs,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
    /// Also exit 1 when an output fails a quality threshold.
    #[arg(long)]
    pub strict: bool,
    #[command(flatten)]
    pub quiet: QuietArg,
    #[command(flatten)]
    pub solve: super::SolveArgs,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    Glb,
    Fbx,
}

impl OutputFormat {
    pub fn extension(self) -> &'static str {
        match self {
            OutputFormat::Glb => "glb",
            OutputFormat::Fbx => "fbx",
        }
    }
}

/// Runs the batch; the summary to print and the exit code.
pub fn run(args: &BatchArgs) -> anyhow::Result<(String, i32)> {
    let started = Instant::now();
    let sources = inputs::resolve("sources", &args.sources)?;
    let targets = inputs::resolve("targets", &args.targets)?;
    let project = match &args.project {
        Some(p) => {
            Some(ProjectFile::load(p).with_context(|| format!("--project {}", p.display()))?)
        }
        None => None,
    };
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("{}: cannot make the output folder", args.out.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.map_or(0, usize::from))
        .build()
        .context("cannot start the worker threads")?;
    let progress = Progress::new(args.quiet);
    let mut summary =
        pool.install(|| execute(args, &sources, &targets, project.as_ref(), &progress))?;
    drop(progress);
    summary.threads = pool.current_num_threads();
    summary.seconds = started.elapsed().as_secs_f64();
    let code = if summary.interrupted {
        EXIT_INTERRUPTED
    } else if summary.any_failed() || (args.strict && summary.totals().quality_failed > 0) {
        EXIT_SOME_FAILED
    } else {
        0
    };
    let text = if args.json {
        summary.to_json()
    } else {
        summary.to_text()
    };
    Ok((text, code))
}

fn execute(
    args: &BatchArgs,
    sources: &[PathBuf],
    targets: &[PathBuf],
    project: Option<&ProjectFile>,
    progress: &Progress,
) -> anyhow::Result<summary::Summary> {
    progress.step(format!("reading {} file(s)", sources.len() + targets.len()))?;
    let options = ImportOptions::default();
    let (source_sides, mut bad_files) = plan::load_sides(SideRole::Source, sources, &options);
    let (target_sides, bad_targets) = plan::load_sides(SideRole::Target, targets, &options);
    bad_files.extend(bad_targets);
    interrupt::check()?;
    let inputs: Vec<PathBuf> = sources.iter().chain(targets).cloned().collect();
    let extension = args.format.extension();
    let mut pairs = plan::plan(&source_sides, &target_sides, &args.out, &inputs, extension);
    if let Some(shard) = args.shard {
        shard.keep(&mut pairs);
    }
    let total = pairs.iter().map(|p| p.outputs.len()).sum();
    progress.count("retargeting", total)?;
    let done = AtomicUsize::new(0);
    let cx = work::Context {
        sources: &source_sides,
        targets: &target_sides,
        project,
        solve: &args.solve,
        fbx: (args.format == OutputFormat::Fbx).then(|| args.fbx.clone()),
        progress,
        done: &done,
    };
    let results: Vec<work::PairResult> = pairs.par_iter().map(|p| work::run_pair(&cx, p)).collect();
    let mut summary = summary::Summary {
        rows: Vec::new(),
        bad_files,
        notes: Vec::new(),
        sources: source_sides.len(),
        targets: target_sides.len(),
        threads: 1,
        seconds: 0.0,
        interrupted: interrupt::interrupted(),
        shard: args.shard,
    };
    for r in results {
        summary.rows.extend(r.rows);
        summary.notes.extend(r.note);
    }
    Ok(summary)
}
