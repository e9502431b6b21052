//! `retarget-studio check --source S --target T [--project P] [--clip C] [--json]`: the
//! quality report of a retarget (`session::quality_report`), with what was detected on each side.

use crate::core::quality::{Report, Thresholds};
use crate::session::{Session, Side};
use serde::Serialize;
use std::fmt::Write as _;

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    #[command(flatten)]
    pub open: super::OpenArgs,
    /// The clip to check (default: the project's, else the first).
    #[arg(long)]
    pub clip: Option<String>,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Skip looking for the likeliest causes of a failing report (each is judged on the
    /// whole clip again).
    #[arg(long)]
    pub no_causes: bool,
    #[command(flatten)]
    pub fix: super::self_check::FixArgs,
    #[command(flatten)]
    pub quiet: super::progress::QuietArg,
    #[command(flatten)]
    pub solve: super::SolveArgs,
}

/// A failing measure's likely cause, as `check` prints it (`session::Cause`).
#[derive(Serialize)]
pub struct CauseOutput {
    pub measure: &'static str,
    pub cause: String,
    /// The target joints it means.
    pub joints: Vec<String>,
    /// The fix, in the editor's words (its Quality tab offers it as one undoable edit).
    pub fix: String,
    pub value: f64,
    pub value_with_fix: f64,
    pub passes_with_fix: bool,
}

fn cause_output(session: &Session, c: &crate::session::Cause) -> CauseOutput {
    let names = session.target.skeleton().names();
    CauseOutput {
        measure: c.measure.label(),
        cause: c.words.clone(),
        joints: c.rows.iter().map(|&j| names[j].clone()).collect(),
        fix: c.fix_label.clone(),
        value: c.before,
        value_with_fix: c.after,
        passes_with_fix: c.passes_after,
    }
}

/// What was detected on one side and where it came from.
#[derive(Serialize)]
pub struct Detected {
    pub file: String,
    pub unit: String,
    pub unit_source: &'static str,
    pub up: &'static str,
    pub up_source: &'static str,
    /// The turn about +Y that made the character face +Z, in degrees.
    pub facing_turn_deg: f32,
    pub reference: String,
    pub notes: Vec<String>,
    /// Where the reading of the file may be wrong, with the evidence: an up axis other than
    /// the format's default, a rest pose that disagrees with the motion about up, or a
    /// facing read from the motion (where the body travels, its head against its tail).
    pub doubts: Vec<String>,
}

/// A source whose pelvis spends the clip near its floor is lying down, or read with the
/// wrong up axis; the report then measures a heap on the floor.
fn pelvis_doubt(report: &Report) -> Option<String> {
    let height = report.pelvis.source;
    (height < 0.5).then(|| {
        format!(
            "the pelvis spends the clip {height:.2} leg lengths above the floor (a standing body: about 1): lying down, or up read wrong?"
        )
    })
}

pub fn detected(side: &Side) -> Detected {
    let a = &side.asset;
    let forward = side.file.container.rotation * glam::Vec3::Z;
    Detected {
        file: side.path.display().to_string(),
        unit: a.unit.name().to_owned(),
        unit_source: a.unit_source.name(),
        up: a.up.name(),
        up_source: a.up_source.name(),
        facing_turn_deg: forward.x.atan2(forward.z).to_degrees().round(),
        reference: match &side.file.reference {
            crate::core::PoseSource::Bind => "bind".to_owned(),
            crate::core::PoseSource::Rest => "rest".to_owned(),
            crate::core::PoseSource::Frame { clip, frame } => {
                format!("frame {frame} of clip '{clip}'")
            }
        },
        notes: a.warnings.clone(),
        doubts: a
            .warnings
            .iter()
            .filter(|w| w.starts_with("up is ") || w.starts_with("forward is "))
            .cloned()
            .collect(),
    }
}

#[derive(Serialize)]
struct CheckOutput<'a> {
    clip: &'a str,
    source: Detected,
    target: Detected,
    report: &'a Report,
    /// Target chains (`core::chains`) that no pair reaches: limbs, spine or pelvis the
    /// map could not find a source for.
    unmapped_chains: Vec<String>,
    /// The likeliest causes of a failing report, best first, each with its tested fix.
    causes: Vec<CauseOutput>,
    /// The fix taken because the automatic set-up failed and it passes (`--no-fix` keeps
    /// the set-up); the report is the one with it.
    taken: Option<TakenOutput>,
}

/// A fix `check` took, as `retarget` takes it too.
#[derive(Serialize)]
struct TakenOutput {
    sentence: String,
    fix: String,
    measure: &'static str,
    before: f64,
    after: f64,
}

/// The report as text or JSON, and whether every measure passed.
/// The names and joints of the target chains the map leaves out.
fn unmapped_chains(session: &Session) -> Vec<String> {
    let chains = &session.target.chains;
    let names = chains.names();
    let joints = session.target.skeleton().names();
    session
        .unmapped_target_chains()
        .into_iter()
        .map(|c| {
            let chain = &chains.chains[c];
            format!(
                "{} ({} … {})",
                names[c],
                joints[chain.start()],
                joints[chain.end()]
            )
        })
        .collect()
}

pub fn run(args: &CheckArgs) -> anyhow::Result<(String, bool)> {
    let progress = super::progress::Progress::new(args.quiet);
    let mut session = args.open.session(&progress)?;
    args.solve.apply(&mut session);
    let clip = session.source_clip(args.clip.as_deref())?.name.clone();
    progress.step(format!("checking clip '{clip}'"))?;
    let limits = Thresholds::default();
    let report = session.quality(Some(&clip), &limits)?;
    super::interrupt::check()?;
    let taken = (args.fix).take(&mut session, &args.open, &clip, &report, &progress)?;
    // With a fix taken, the report is the one with it.
    let report = match taken {
        Some(_) => session.quality(Some(&clip), &limits)?,
        None => report,
    };
    let causes = if args.no_causes || report.passed() {
        Vec::new()
    } else {
        progress.step("looking for the likeliest causes".to_owned())?;
        session.causes(Some(&clip), &report, &limits)?
    };
    super::interrupt::check()?;
    drop(progress);
    let passed = report.passed();
    let out = CheckOutput {
        clip: &clip,
        source: detected(&session.source),
        target: detected(&session.target),
        report: &report,
        unmapped_chains: unmapped_chains(&session),
        causes: causes.iter().map(|c| cause_output(&session, c)).collect(),
        taken: taken.as_ref().map(|t| TakenOutput {
            sentence: t.sentence(),
            fix: t.cause.fix_label.clone(),
            measure: t.cause.measure.label(),
            before: t.cause.before,
            after: t.cause.after,
        }),
    };
    if args.json {
        return Ok((serde_json::to_string_pretty(&out)? + "\n", passed));
    }
    Ok((text(&session, &out), passed))
}

fn text(session: &Session, out: &CheckOutput) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{} ({}) onto {}",
        session.source.path.display(),
        out.clip,
        session.target.path.display()
    );
    for (role, d) in [("source", &out.source), ("target", &out.target)] {
        let _ = writeln!(
            s,
            "{role}: unit {} ({}), up {} ({}), turned {}° to face +Z, reference {}",
            d.unit, d.unit_source, d.up, d.up_source, d.facing_turn_deg, d.reference
        );
    }
    if let Some(t) = &out.taken {
        let _ = writeln!(s, "{}", t.sentence);
    }
    s.push_str(&out.report.to_text());
    if !s.ends_with('\n') {
        s.push('\n');
    }
    for (role, d) in [("source", &out.source), ("target", &out.target)] {
        for doubt in &d.doubts {
            let _ = writeln!(s, "(!) {role}: {doubt}");
        }
    }
    if let Some(doubt) = pelvis_doubt(out.report) {
        let _ = writeln!(s, "(!) source: {doubt}");
    }
    if !out.unmapped_chains.is_empty() {
        let _ = writeln!(
            s,
            "(!) target chains no pair reaches: {}",
            out.unmapped_chains.join(", ")
        );
    }
    for c in &out.causes {
        let verdict = if c.passes_with_fix {
            "passes"
        } else {
            "better"
        };
        let _ = writeln!(
            s,
            "cause: {} (fix: {}; {} {:.3} → {:.3}, {verdict})",
            c.cause, c.fix, c.measure, c.value, c.value_with_fix
        );
    }
    s
}
