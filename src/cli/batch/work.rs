//! One source onto one target: a session (the project's where it fits, else automatic),
//! then each clip retargeted, judged by the quality report and written, in parallel. An
//! error stops only the output it belongs to.

use super::plan::{Pair, Planned};
use crate::cli::SolveArgs;
use crate::cli::interrupt;
use crate::cli::progress::Progress;
use crate::core::quality::{Report, Thresholds};
use crate::io::project::ProjectFile;
use crate::session::{ExportFormat, ExportJob, Session, Side};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// What the outputs of a pair share.
pub struct Context<'a> {
    pub sources: &'a [Side],
    pub targets: &'a [Side],
    pub project: Option<&'a ProjectFile>,
    pub solve: &'a SolveArgs,
    /// FBX outputs with these options; `None` writes GLB.
    pub fbx: Option<crate::cli::fbx_args::FbxArgs>,
    pub progress: &'a Progress,
    /// Outputs finished so far, for the bar.
    pub done: &'a AtomicUsize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Setup {
    /// The project's map and pose edits.
    Project,
    /// Automatic map and alignment, as `retarget` without a project.
    Automatic,
}

/// The quality report of an output, in short.
#[derive(Clone, Debug, PartialEq)]
pub enum Quality {
    Pass,
    /// The failing measures and the report's flags in words, worst first.
    Fail {
        measures: Vec<String>,
        flags: Vec<String>,
    },
    /// The report could not be made (a rig without legs to measure); why.
    NotJudged(String),
}

#[derive(Clone, Debug)]
pub struct Made {
    pub frames: usize,
    /// Retarget, quality report and writing.
    pub seconds: f64,
    pub bytes: u64,
    pub quality: Quality,
}

#[derive(Clone, Debug)]
pub enum Outcome {
    Made(Made),
    Failed(String),
    /// Ctrl+C came first.
    NotStarted,
}

#[derive(Clone, Debug)]
pub struct Row {
    pub out: PathBuf,
    pub source: PathBuf,
    pub clip: String,
    pub target: PathBuf,
    pub setup: Setup,
    pub outcome: Outcome,
}

/// The rows of one pair, and a note when the project was asked for but did not fit.
pub struct PairResult {
    pub rows: Vec<Row>,
    pub note: Option<String>,
}

pub fn run_pair(cx: &Context, pair: &Pair) -> PairResult {
    let (source, target) = (&cx.sources[pair.source], &cx.targets[pair.target]);
    let row = |p: &Planned, setup, outcome| Row {
        out: p.out.clone(),
        source: source.path.clone(),
        clip: p.clip.clone(),
        target: target.path.clone(),
        setup,
        outcome,
    };
    if interrupt::interrupted() {
        let rows = pair.outputs.iter();
        let rows = rows.map(|p| row(p, Setup::Automatic, Outcome::NotStarted));
        return PairResult {
            rows: rows.collect(),
            note: None,
        };
    }
    let (session, setup, note) = open(cx, source, target);
    let rows = match session {
        Err(e) => pair
            .outputs
            .iter()
            .map(|p| {
                tick(cx);
                row(p, setup, Outcome::Failed(e.clone()))
            })
            .collect(),
        Ok(session) => pair
            .outputs
            .par_iter()
            .map(|p| {
                if interrupt::interrupted() {
                    return row(p, setup, Outcome::NotStarted);
                }
                let outcome = make_guarded(cx, &session, target, p);
                tick(cx);
                row(p, setup, outcome)
            })
            .collect(),
    };
    PairResult { rows, note }
}

fn tick(cx: &Context) {
    let done = cx.done.fetch_add(1, Ordering::SeqCst) + 1;
    cx.progress.advance(done);
}

/// The project's session where it fits this pair (every joint its map and pose edits name
/// is in both files), else the automatic one, with a note saying why.
fn open(
    cx: &Context,
    source: &Side,
    target: &Side,
) -> (Result<Session, String>, Setup, Option<String>) {
    let mut note = None;
    if let Some(project) = cx.project {
        let mut p = project.clone();
        p.source.path = source.path.clone();
        p.target.path = target.path.clone();
        match Session::from_project_file(p) {
            Ok(mut session) => {
                cx.solve.apply(&mut session);
                return (Ok(session), Setup::Project, None);
            }
            Err(e) => {
                note = Some(format!(
                    "{} onto {}: the project does not fit ({e}): automatic set-up",
                    source.path.display(),
                    target.path.display()
                ))
            }
        }
    }
    let session = Session::automatic_of(source.clone(), target.clone()).map(|mut s| {
        cx.solve.apply(&mut s);
        s
    });
    (session.map_err(|e| e.to_string()), Setup::Automatic, note)
}

/// `make`, with a panic (a bug) turned into this output's error so the run goes on.
fn make_guarded(cx: &Context, session: &Session, target: &Side, p: &Planned) -> Outcome {
    let run = std::panic::AssertUnwindSafe(|| make(session, target, p, cx.fbx.as_ref()));
    match std::panic::catch_unwind(run) {
        Ok(Ok(made)) => Outcome::Made(made),
        Ok(Err(e)) => Outcome::Failed(e),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_default();
            Outcome::Failed(format!(
                "{} onto {}: clip '{}': internal error (a bug, please report it): {what}",
                session.source.path.display(),
                target.path.display(),
                p.clip
            ))
        }
    }
}

fn make(
    session: &Session,
    target: &Side,
    p: &Planned,
    fbx: Option<&crate::cli::fbx_args::FbxArgs>,
) -> Result<Made, String> {
    let started = Instant::now();
    let clip = session
        .retarget_clip(Some(&p.clip), None)
        .map_err(|e| e.to_string())?;
    let frames = clip.frame_count();
    let quality = match session.quality_of(&p.clip, &clip, &Thresholds::default()) {
        Ok(report) => quality(&report),
        Err(e) => Quality::NotJudged(e.to_string()),
    };
    // A target without meshes (a BVH skeleton) has no character to carry the clip.
    let bare = target.asset.meshes.is_empty();
    let format = match fbx {
        Some(fbx) => ExportFormat::Fbx(fbx.settings(bare)),
        None if bare => ExportFormat::GlbAnimationOnly,
        None => ExportFormat::GlbWithCharacter,
    };
    let job = ExportJob {
        format,
        clips: vec![Some(p.clip.clone())],
        fps: None,
        out: p.out.clone(),
        reduce: None,
        root_motion: None,
        extract_root: false,
        add_root: false,
    };
    let written = session
        .write_clips(vec![clip], &job)
        .map_err(|e| e.to_string())?;
    Ok(Made {
        frames,
        seconds: started.elapsed().as_secs_f64(),
        bytes: written.files.iter().map(|(_, b)| b).sum(),
        quality,
    })
}

fn quality(report: &Report) -> Quality {
    if report.passed() {
        return Quality::Pass;
    }
    Quality::Fail {
        measures: report
            .verdicts
            .iter()
            .filter(|v| !v.passed)
            .map(|v| v.measure.label().to_owned())
            .collect(),
        flags: report.flags.iter().map(|f| f.message.clone()).collect(),
    }
}
