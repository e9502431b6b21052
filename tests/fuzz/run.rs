//! One case through the library as the CLI drives it: load, an automatic session (or the
//! project's), a retarget, an export, and the written file read back. Returns what broke a
//! rule, if anything; panics are the caller's to catch.

use crate::finite;
use crate::mutate::Format;
use retarget_studio::io::{ImportOptions, load};
use retarget_studio::session::{
    ExportFormat, ExportJob, FbxSettings, KeyReduction, Session, SessionError, Side, SideRole,
};
use std::path::{Path, PathBuf};

/// How a case ended when it broke no rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Refused with an error that names the file.
    Rejected,
    /// Loaded; its session (if one could be made) retargeted and exported finite numbers.
    Accepted,
}

/// How a case is run: `variant` picks which side the mutant takes and the export kind;
/// `few_frames` retargets about 30 frames of the clip, not all at its own rate (the long
/// run's large seeds: a 23 s clip at 120 fps would take seconds a case).
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub variant: u64,
    pub few_frames: bool,
}

/// Runs the mutant at `case` (already written). `original` is the unmutated seed, the other
/// side of the session.
pub fn run(format: Format, case: &Path, original: &Path, plan: Plan) -> Result<Outcome, String> {
    let variant = plan.variant;
    // A project's errors may name the file of a side it points to, beside it.
    let names: &[&Path] = if format == Format::Project {
        &[case, case.parent().unwrap()]
    } else {
        &[case]
    };
    let session = if format == Format::Project {
        Session::from_project(case).map_err(|e| named(&e, names))
    } else {
        let asset = load(case, &ImportOptions::default()).map_err(|e| named(&e, &[case]));
        let asset = match asset {
            Ok(a) => a,
            Err(Ok(())) => return Ok(Outcome::Rejected),
            Err(Err(broken)) => return Err(broken),
        };
        if let Some(p) = finite::asset(&asset) {
            return Err(format!("loaded with a non-finite value: {p}"));
        }
        // The unmutated side is read once per campaign (a large mocap file took half of a
        // BVH case's time to parse again); the mutant is read as `Session::automatic` reads.
        let options = ImportOptions::default();
        let sides = if variant % 2 == 0 {
            Side::load(SideRole::Source, case, &options)
                .and_then(|s| Ok((s, partner(SideRole::Target, original)?)))
        } else {
            Side::load(SideRole::Target, case, &options)
                .and_then(|t| Ok((partner(SideRole::Source, original)?, t)))
        };
        sides
            .and_then(|(source, target)| Session::automatic_of(source, target))
            .map_err(|e| named(&e, &[case]))
    };
    let session = match session {
        Ok(s) => s,
        Err(Ok(())) => return Ok(Outcome::Rejected),
        Err(Err(broken)) => return Err(broken),
    };
    match retarget_and_export(&session, names, plan) {
        Ok(()) | Err(Ok(())) => Ok(Outcome::Accepted),
        Err(Err(broken)) => Err(broken),
    }
}

thread_local! {
    /// The unmutated files loaded so far, by role and path.
    static PARTNERS: std::cell::RefCell<std::collections::HashMap<(bool, PathBuf), Side>> =
        Default::default();
}

/// The unmutated `path` loaded as `role`, once per thread.
fn partner(role: SideRole, path: &Path) -> Result<Side, SessionError> {
    let key = (role == SideRole::Source, path.to_path_buf());
    if let Some(side) = PARTNERS.with(|p| p.borrow().get(&key).cloned()) {
        return Ok(side);
    }
    let side = Side::load(role, path, &ImportOptions::default())?;
    PARTNERS.with(|p| p.borrow_mut().insert(key, side.clone()));
    Ok(side)
}

/// `Ok(())` when the error's text names one of `files`; the broken rule otherwise.
fn named(e: &dyn std::fmt::Display, files: &[&Path]) -> Result<(), String> {
    let text = e.to_string();
    let names = |p: &&Path| {
        let full = p.to_string_lossy();
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default();
        text.contains(full.as_ref()) || (!name.is_empty() && text.contains(name.as_ref()))
    };
    if files.iter().any(names) {
        Ok(())
    } else {
        Err(format!("the error does not name the file: {text}"))
    }
}

/// A retarget checked for finite keys and poses, then an export whose file reads back
/// finite. `Err(Ok(()))`: refused with an error that names a file.
fn retarget_and_export(
    session: &Session,
    names: &[&Path],
    plan: Plan,
) -> Result<(), Result<(), String>> {
    let (case, variant) = (names[0], plan.variant);
    let fps = session
        .source_clip(None)
        .ok()
        .filter(|_| plan.few_frames)
        .map(|c| 30.0 / c.duration_secs().max(1e-3))
        .filter(|&f| f.is_finite() && f > 0.0);
    let clip = session
        .retarget_clip(None, fps)
        .map_err(|e| named(&e, names))?;
    let target = session.target.skeleton();
    if let Some(p) = finite::clip(&clip).or_else(|| finite::poses(target, &clip)) {
        return Err(Err(format!("retargeted to a non-finite value: {p}")));
    }
    let fbx = |animation_only| {
        ExportFormat::Fbx(FbxSettings {
            animation_only,
            ..FbxSettings::default()
        })
    };
    let (format, ext) = match variant % 5 {
        0 => (ExportFormat::Bvh, "bvh"),
        1 => (ExportFormat::GlbAnimationOnly, "glb"),
        2 => (ExportFormat::GlbWithCharacter, "glb"),
        3 => (fbx(true), "fbx"),
        _ => (fbx(false), "fbx"),
    };
    let out = case.with_file_name(format!("fuzz-out.{ext}"));
    let job = ExportJob {
        format,
        clips: vec![None],
        fps,
        out: out.clone(),
        reduce: (variant % 4 == 3).then(KeyReduction::default),
        root_motion: None,
        extract_root: false,
        add_root: false,
    };
    let mut with_out = names.to_vec();
    with_out.push(&out);
    session.export(&job).map_err(|e| named(&e, &with_out))?;
    let written = load(&out, &ImportOptions::default())
        .map_err(|e| Err(format!("the written file does not read back: {e}")))?;
    match finite::asset(&written) {
        Some(p) => Err(Err(format!("wrote a non-finite value: {p}"))),
        None => Ok(()),
    }
}
