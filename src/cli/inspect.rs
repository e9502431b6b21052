//! `retarget-studio inspect FILE [--json]`: what a file holds, for people and for scripts.
//! The JSON shape is documented in docs/cli.md and kept stable.

use crate::core::{Axis, Pose, Skeleton, Transform, Unit, figure_extent};
use crate::io::{Asset, ImportOptions};
use serde::Serialize;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct InspectArgs {
    /// The file to read (.gltf, .glb, .vrm, .vrma, .bvh, .fbx).
    pub file: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// The length unit: a BVH's instead of the detected one, an FBX's instead of the declared
    /// one (m, dm, cm, mm, in, cmu).
    #[arg(long, value_parser = super::parse_unit)]
    pub unit: Option<Unit>,
    /// BVH: the file's up axis instead of the detected one (+Y, -Z, ...).
    #[arg(long, value_parser = super::parse_axis, allow_hyphen_values = true)]
    pub up: Option<Axis>,
}

#[derive(Serialize)]
pub struct Report {
    pub file: String,
    pub format: &'static str,
    pub unit: UnitReport,
    pub up: UpReport,
    pub skeletons: Vec<SkeletonReport>,
    pub clips: Vec<ClipReport>,
    pub meshes: Vec<MeshReport>,
    pub warnings: Vec<String>,
    /// How the character stands: which way it faces and which pose is its reference.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stance: Option<StanceReport>,
    /// The character's chain skeleton as a retarget builds it (docs/cli.md, "Chains").
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub chains: Vec<ChainReport>,
}

/// One bone chain: a stable name, its kind, its joints from start to end, its tags.
#[derive(Serialize)]
pub struct ChainReport {
    pub name: String,
    pub kind: crate::core::chains::ChainKind,
    pub joints: Vec<String>,
    pub tags: crate::core::chains::Tags,
}

/// The chains of the file's character, laid out as a session lays it (turned to face +Z,
/// a humanoid in the canonical T-pose).
fn chains(path: &std::path::Path, options: &ImportOptions) -> Vec<ChainReport> {
    let Ok(session) = crate::session::Session::automatic(path, path, options) else {
        return Vec::new();
    };
    let side = &session.source;
    let names = side.skeleton().names();
    side.chains
        .names()
        .into_iter()
        .zip(&side.chains.chains)
        .map(|(name, c)| ChainReport {
            name,
            kind: c.kind,
            joints: c.joints.iter().map(|&j| names[j].clone()).collect(),
            tags: c.tags,
        })
        .collect()
}

#[derive(Serialize)]
pub struct StanceReport {
    /// The axis the character faces in the file's world (+Z for glTF, -Z for VRM 0.x).
    pub forward: &'static str,
    /// `detected` (from hips, head and legs), `motion` (mocap without them: where the body
    /// travels, else its head against its tail; the evidence is a warning) or `assumed`.
    pub forward_source: &'static str,
    /// `bind`, or `frame 0 of clip 'NAME'` when the zero pose is not a standing figure.
    pub reference: String,
}

/// The stance of the file's character, as a retarget would read it, and the note on a
/// facing read from the motion (with its evidence).
fn stance(
    path: &std::path::Path,
    options: &ImportOptions,
) -> Option<(StanceReport, Option<String>)> {
    use crate::session::{FacingReading, Side, SideRole, read_facing};
    let side = Side::load(SideRole::Source, path, options).ok()?;
    let facing = read_facing(&side);
    let note = match &facing {
        Some(f @ FacingReading::Motion(_)) => f.note(),
        _ => None,
    };
    let report = StanceReport {
        forward: facing
            .as_ref()
            .map_or("+Z", |f| Axis::dominant(f.forward()).name()),
        forward_source: match facing {
            Some(FacingReading::Labels(_)) => "detected",
            Some(FacingReading::Motion(_)) => "motion",
            None => "assumed",
        },
        reference: match &side.file.reference {
            crate::core::PoseSource::Frame { clip, frame } => {
                format!("frame {frame} of clip '{clip}'")
            }
            crate::core::PoseSource::Rest => "rest".to_owned(),
            crate::core::PoseSource::Bind => "bind".to_owned(),
        },
    };
    Some((report, note))
}

#[derive(Serialize)]
pub struct UnitReport {
    pub name: &'static str,
    pub metres: f32,
    pub source: &'static str,
    /// Why, where the file did not say, and the unit that came next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<String>,
}

#[derive(Serialize)]
pub struct UpReport {
    pub axis: &'static str,
    pub source: &'static str,
    /// Why, where the file did not say, and the axis that came next.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runner_up: Option<String>,
}

#[derive(Serialize)]
pub struct TrsReport {
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
}

impl From<Transform> for TrsReport {
    fn from(t: Transform) -> Self {
        Self {
            translation: t.translation.to_array(),
            rotation: t.rotation.to_array(),
            scale: t.scale.to_array(),
        }
    }
}

#[derive(Serialize)]
pub struct SkeletonReport {
    pub name: String,
    pub container: TrsReport,
    /// Height of the rest pose in world units (container applied).
    pub height: f32,
    pub joints: Vec<JointReport>,
}

#[derive(Serialize)]
pub struct JointReport {
    pub name: String,
    pub parent: Option<usize>,
    pub translation: [f32; 3],
    pub rotation: [f32; 4],
    pub scale: [f32; 3],
    pub humanoid: Option<&'static str>,
    pub bind: TrsReport,
}

#[derive(Serialize)]
pub struct ClipReport {
    pub name: String,
    /// The first skeleton it drives.
    pub skeleton: usize,
    /// Every skeleton it drives: one animation may drive several copies of a rig.
    pub skeletons: Vec<usize>,
    pub duration: f32,
    pub start: f32,
    pub frames: usize,
    pub fps: Option<f32>,
    pub animated_joints: usize,
}

#[derive(Serialize)]
pub struct MeshReport {
    pub name: String,
    pub skeleton: usize,
    pub primitives: usize,
    pub vertices: usize,
    pub triangles: usize,
}

pub fn report(asset: &Asset) -> Report {
    Report {
        file: asset.path.display().to_string(),
        format: asset.format.name(),
        unit: UnitReport {
            name: asset.unit.name(),
            metres: asset.unit.metres(),
            source: asset.unit_source.name(),
            evidence: (asset.readings.unit.as_ref()).map(|r| r.evidence.clone()),
            runner_up: (asset.readings.unit.as_ref()).and_then(|r| r.runner_up.clone()),
        },
        up: UpReport {
            axis: asset.up.name(),
            source: asset.up_source.name(),
            evidence: (asset.readings.up.as_ref()).map(|r| r.evidence.clone()),
            runner_up: (asset.readings.up.as_ref()).and_then(|r| r.runner_up.clone()),
        },
        skeletons: asset.skeletons.iter().map(skeleton_report).collect(),
        clips: clip_reports(asset),
        meshes: asset
            .meshes
            .iter()
            .map(|m| MeshReport {
                name: m.name.clone(),
                skeleton: m.skeleton,
                primitives: m.primitives.len(),
                vertices: m.vertex_count(),
                triangles: m.triangle_count(),
            })
            .collect(),
        warnings: asset.warnings.clone(),
        stance: None,
        chains: Vec::new(),
    }
}

/// One entry per animation of the file, with every skeleton it drives.
fn clip_reports(asset: &Asset) -> Vec<ClipReport> {
    let mut out: Vec<(usize, ClipReport)> = Vec::new();
    for c in &asset.clips {
        if let Some((_, r)) = out
            .iter_mut()
            .find(|(a, r)| *a == c.animation && r.name == c.clip.name)
        {
            r.skeletons.push(c.skeleton);
            continue;
        }
        out.push((
            c.animation,
            ClipReport {
                name: c.clip.name.clone(),
                skeleton: c.skeleton,
                skeletons: vec![c.skeleton],
                duration: c.clip.duration_secs(),
                start: c.clip.start_secs(),
                frames: c.clip.frame_count(),
                fps: c.clip.fps(),
                animated_joints: c.clip.animated_joint_count(),
            },
        ));
    }
    out.into_iter().map(|(_, r)| r).collect()
}

fn skeleton_report(s: &Skeleton) -> SkeletonReport {
    let joints = (0..s.len())
        .map(|i| {
            let rest = s.rest()[i];
            JointReport {
                name: s.names()[i].clone(),
                parent: s.parents()[i],
                translation: rest.translation.to_array(),
                rotation: rest.rotation.to_array(),
                scale: rest.scale.to_array(),
                humanoid: s.humanoid()[i].map(|h| h.as_str()),
                bind: s.bind()[i].into(),
            }
        })
        .collect();
    SkeletonReport {
        name: s.name.clone(),
        container: Transform::from_mat4(s.container()).into(),
        height: figure_extent(s, &Pose::rest(s)).height,
        joints,
    }
}

pub fn run(args: &InspectArgs) -> anyhow::Result<String> {
    let options = ImportOptions {
        unit: args.unit,
        up: args.up,
    };
    let asset = crate::io::load(&args.file, &options)?;
    let mut report = report(&asset);
    if let Some((stance, note)) = stance(&args.file, &options) {
        report.stance = Some(stance);
        report.warnings.extend(note);
    }
    report.chains = chains(&args.file, &options);
    if args.json {
        Ok(serde_json::to_string_pretty(&report)? + "\n")
    } else {
        Ok(text(&report))
    }
}

fn text(r: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} ({})", r.file, r.format);
    let _ = writeln!(
        out,
        "unit: {} ({} m, {})   up: {} ({})",
        r.unit.name, r.unit.metres, r.unit.source, r.up.axis, r.up.source
    );
    for (what, evidence, next) in [
        ("unit", &r.unit.evidence, &r.unit.runner_up),
        ("up", &r.up.evidence, &r.up.runner_up),
    ] {
        if let Some(e) = evidence {
            let next = next
                .as_ref()
                .map_or(String::new(), |n| format!("; next: {n}"));
            let _ = writeln!(out, "  {what} read from: {e}{next}");
        }
    }
    if let Some(st) = &r.stance {
        let _ = writeln!(
            out,
            "faces: {} ({})   reference pose: {}",
            st.forward, st.forward_source, st.reference
        );
    }
    for (i, s) in r.skeletons.iter().enumerate() {
        let c = &s.container;
        let _ = writeln!(
            out,
            "\nskeleton {i} '{}': {} joints, rest height {:.3}\n  container: t {:?} r {:?} s {:?}",
            s.name,
            s.joints.len(),
            s.height,
            c.translation,
            c.rotation,
            c.scale
        );
        let _ = writeln!(
            out,
            "  {:>3}  {:<28} {:>6}  {:<18} {:<34} {:<40} scale",
            "#", "joint", "parent", "humanoid", "translation", "rotation (xyzw)"
        );
        for (j, joint) in s.joints.iter().enumerate() {
            let parent = joint.parent.map_or("-".to_owned(), |p| p.to_string());
            let _ = writeln!(
                out,
                "  {j:>3}  {:<28} {parent:>6}  {:<18} {:<34} {:<40} {}",
                joint.name,
                joint.humanoid.unwrap_or("-"),
                fmt_vec(&joint.translation),
                fmt_vec(&joint.rotation),
                fmt_vec(&joint.scale)
            );
        }
    }
    let _ = writeln!(out, "\nclips: {}", r.clips.len());
    for c in &r.clips {
        let _ = writeln!(out, "  {}", clip_line(c));
    }
    let _ = writeln!(out, "\nmeshes: {}", r.meshes.len());
    for m in &r.meshes {
        let _ = writeln!(
            out,
            "  '{}' (skeleton {}): {} primitives, {} vertices, {} triangles",
            m.name, m.skeleton, m.primitives, m.vertices, m.triangles
        );
    }
    if !r.chains.is_empty() {
        let _ = writeln!(out, "\nchains: {}", r.chains.len());
        for c in &r.chains {
            let ends = match c.joints.as_slice() {
                [one] => one.clone(),
                [first, .., last] => format!("{first} … {last} ({} joints)", c.joints.len()),
                [] => String::new(),
            };
            let kind = crate::core::chains::kind_name(c.kind);
            let _ = writeln!(out, "  {:<26} {kind:<9} {ends}", c.name);
        }
    }
    if !r.warnings.is_empty() {
        let _ = writeln!(out, "\nwarnings:");
        for w in &r.warnings {
            let _ = writeln!(out, "  {w}");
        }
    }
    out
}

/// A clip in words: its name, the skeletons it drives, its time range and keys.
fn clip_line(c: &ClipReport) -> String {
    let fps = c.fps.map_or("-".to_owned(), |f| format!("{f:.3}"));
    let skeletons = match c.skeletons.as_slice() {
        [one] => format!("skeleton {one}"),
        many => {
            let list: Vec<String> = many.iter().map(usize::to_string).collect();
            format!("skeletons {}", list.join(", "))
        }
    };
    format!(
        "'{}' ({skeletons}): {:.3} s from {:.3} s, {} frames, {fps} fps, {} joints animated",
        c.name, c.duration, c.start, c.frames, c.animated_joints
    )
}

fn fmt_vec(v: &[f32]) -> String {
    let parts: Vec<String> = v.iter().map(|x| format!("{x:.4}")).collect();
    format!("[{}]", parts.join(", "))
}
