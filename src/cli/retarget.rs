//! `retarget-studio retarget`: a source clip onto a target character, written as GLB, FBX or
//! BVH.
//! Without a project it automaps and auto-aligns.

use super::interrupt::Interrupted;
use super::progress::Progress;
use crate::session::{ExportFormat, ExportJob, KeyReduction, SessionError};
use anyhow::bail;
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub struct RetargetArgs {
    #[command(flatten)]
    pub open: super::OpenArgs,
    /// The clip to retarget (default: the project's, else the first).
    #[arg(long, conflicts_with = "all_clips")]
    pub clip: Option<String>,
    /// Retarget every clip of the source.
    #[arg(long)]
    pub all_clips: bool,
    /// Output file: .glb (the target with the clips added; .vrm for a VRM target), .fbx
    /// (binary FBX 7.4, one take per clip) or .bvh.
    #[arg(long)]
    pub out: PathBuf,
    /// Output frame rate (default: the source clip's).
    #[arg(long)]
    pub fps: Option<f32>,
    /// GLB and FBX: write the skeleton and clips without the target's meshes.
    #[arg(long)]
    pub animation_only: bool,
    #[command(flatten)]
    pub fbx: super::fbx_args::FbxArgs,
    /// Drive target weight TARGET (a morph target or expression) from source curve SOURCE,
    /// or drop SOURCE with `SOURCE=` (repeatable; other curves match by name).
    #[arg(long = "curve", value_name = "SOURCE=TARGET", value_parser = parse_curve)]
    pub curves: Vec<(String, Option<String>)>,
    /// Drop keys that interpolation reproduces within this many degrees (with --reduce-mm).
    #[arg(long)]
    pub reduce_deg: Option<f32>,
    /// Drop keys that interpolation reproduces within this many millimetres.
    #[arg(long)]
    pub reduce_mm: Option<f32>,
    /// Root motion: hips-scaled (default), copy (unscaled), in-place, or extract-to-root
    /// (hips-scaled, then the pelvis's ground path and facing moved onto the rig's root
    /// joint, for Unreal's and Unity's root motion).
    #[arg(long, value_parser = parse_root_motion)]
    pub root_motion: Option<RootMotion>,
    /// With --root-motion extract-to-root on a rig whose hips are its top joint: add a root
    /// joint at the origin to carry the motion.
    #[arg(long)]
    pub add_root: bool,
    #[command(flatten)]
    pub quiet: super::progress::QuietArg,
    #[command(flatten)]
    pub solve: super::SolveArgs,
    #[command(flatten)]
    pub fix: super::self_check::FixArgs,
}

/// How the exported clip moves over the ground.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RootMotion {
    /// The hips' translation mode for the whole clip.
    Hips(crate::core::TranslationMode),
    /// Hips as mapped, then their path and facing moved onto the root joint.
    ExtractToRoot,
}

fn parse_curve(s: &str) -> Result<(String, Option<String>), String> {
    match s.split_once('=') {
        Some((source, target)) if !source.is_empty() => Ok((
            source.to_owned(),
            (!target.is_empty()).then(|| target.to_owned()),
        )),
        _ => Err(format!("'{s}': SOURCE=TARGET, or SOURCE= to drop it")),
    }
}

fn parse_root_motion(s: &str) -> Result<RootMotion, String> {
    use crate::core::TranslationMode::*;
    match s {
        "hips-scaled" => Ok(RootMotion::Hips(HipsScaled)),
        "copy" => Ok(RootMotion::Hips(Copy)),
        "in-place" => Ok(RootMotion::Hips(InPlace)),
        "extract-to-root" => Ok(RootMotion::ExtractToRoot),
        _ => Err(format!(
            "'{s}': hips-scaled, copy, in-place or extract-to-root"
        )),
    }
}

pub fn run(args: &RetargetArgs) -> anyhow::Result<String> {
    let started = Instant::now();
    let format = match ExportFormat::from_path(&args.out, args.animation_only) {
        Some(ExportFormat::Fbx(_)) => ExportFormat::Fbx(args.fbx.settings(args.animation_only)),
        Some(_) if args.fbx.any() => bail!(
            "{}: --fbx-units and --fbx-up are for an .fbx output",
            args.out.display()
        ),
        Some(format) => format,
        None => bail!(
            "{}: the output must end in .glb, .vrm (a VRM target), .fbx or .bvh",
            args.out.display()
        ),
    };
    if args.add_root && args.root_motion != Some(RootMotion::ExtractToRoot) {
        bail!("--add-root goes with --root-motion extract-to-root");
    }
    crate::session::check_writable(&args.out)?;
    let progress = Progress::new(args.quiet);
    let mut session = args.open.session(&progress)?;
    args.solve.apply(&mut session);
    for (source, target) in &args.curves {
        session.apply_edit(&crate::session::Edit::SetCurve {
            source: source.clone(),
            target: target.clone(),
        })?;
    }
    let clips: Vec<Option<String>> = if args.all_clips {
        session
            .source
            .clips()
            .iter()
            .map(|c| Some(c.name.clone()))
            .collect()
    } else {
        vec![args.clip.clone()]
    };
    if clips.is_empty() {
        bail!(
            "{}: the file has no clip to retarget",
            session.source.path.display()
        );
    }
    // One clip: the automatic set-up judged on it, and a passing fix taken where it fails
    // (as `check` takes it, so the two judge and write the same).
    let mut notes = Vec::new();
    if let [clip] = clips.as_slice() {
        let name = session.source_clip(clip.as_deref())?.name.clone();
        let limits = crate::core::quality::Thresholds::default();
        let judged = args.fix.wanted(&args.open);
        if let Some(Ok(report)) = judged.then(|| session.quality(Some(&name), &limits)) {
            let taken = (args.fix).take(&mut session, &args.open, &name, &report, &progress)?;
            notes.extend(taken.map(|t| format!("note: {}", t.sentence())));
        }
    }
    let reduce = (args.reduce_deg.is_some() || args.reduce_mm.is_some()).then(|| {
        let d = KeyReduction::default();
        KeyReduction {
            degrees: args.reduce_deg.unwrap_or(d.degrees),
            millimetres: args.reduce_mm.unwrap_or(d.millimetres),
        }
    });
    // A target read without meshes or glTF nodes (a BVH skeleton, an FBX of bones only) has
    // no character to carry the clip: it is written as its skeleton and clips, as batch does.
    let target = &session.target.asset;
    let joints = session.target.skeleton().len();
    let bare = target.meshes.is_empty()
        && (target.joint_nodes)
            .get(session.target.skeleton_index)
            .is_none_or(|n| n.len() != joints);
    let format = match format {
        ExportFormat::GlbWithCharacter if bare => {
            notes.push(format!(
                "note: {} has no meshes: written as its skeleton and clips (animation only)",
                session.target.path.display()
            ));
            ExportFormat::GlbAnimationOnly
        }
        format => format,
    };
    let job = ExportJob {
        format,
        clips,
        fps: args.fps,
        out: args.out.clone(),
        reduce,
        root_motion: match args.root_motion {
            Some(RootMotion::Hips(mode)) => Some(mode),
            _ => None,
        },
        extract_root: args.root_motion == Some(RootMotion::ExtractToRoot),
        add_root: args.add_root,
    };
    progress.count("retargeting", job.clips.len())?;
    // Every clip is retargeted before the first byte is written, so stopping between clips
    // leaves the output as it was.
    let summary = match session.export_with_progress(&job, &|done| progress.advance(done)) {
        Err(SessionError::Cancelled) => return Err(Interrupted.into()),
        result => result?,
    };
    drop(progress);
    let mut out = String::new();
    for note in &notes {
        let _ = writeln!(out, "{note}");
    }
    if let Some((before, after)) = summary.reduced {
        let _ = writeln!(out, "key reduction: {before} keys -> {after}");
    }
    for (path, bytes) in &summary.files {
        let _ = writeln!(
            out,
            "wrote {} ({bytes} bytes): {} clip(s), {} keys",
            path.display(),
            summary.clips,
            summary.keys
        );
    }
    for note in &summary.notes {
        let _ = writeln!(out, "note: {note}");
    }
    let _ = writeln!(out, "done in {:.2} s", started.elapsed().as_secs_f32());
    Ok(out)
}
