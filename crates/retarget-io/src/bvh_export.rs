//! BVH export: one clip of one skeleton as a BVH in a chosen unit and up axis (Y-up unless
//! the target came in otherwise: a BVH target gets its own unit and axes back).
//!
//! A BVH joint is a rigid frame: `OFFSET` then a rotation, no scale. Our skeletons may hold
//! a container with a rotation, a unit or a 100× scale, and joints with scale. So each joint
//! gets a *file frame*: its world rotation (the rigid part of its world matrix, container
//! included) times the inverse of that rotation in the rest pose. In the rest pose every file
//! frame is the identity, which makes the file's zero pose our rest pose, drawn with
//! world-aligned offsets (as CMU and most mocap files are). Offsets are then the world-space
//! bone vectors, in the file unit, seen from the parent's file frame: scale of any kind is
//! baked into them. Where an offset does not stay fixed over the clip (animated translation,
//! animated or non-uniform scale under a turning parent), that joint gets position channels
//! too, so the world positions in the file are exact for every joint.
//!
//! Layout: roots get `Xposition Yposition Zposition Zrotation Xrotation Yrotation` with a zero
//! `OFFSET` (readers that add the OFFSET to root positions and those that replace it then
//! agree), other joints `Zrotation Xrotation Yrotation`. A leaf named `*_end` that is its
//! parent's only child is a marker, as our BVH import names End Sites, and is written as its
//! parent's End Site; any other leaf is a real bone whose rotation may matter (a head, a
//! toe), so it stays a JOINT and gets a zero-length End Site. Euler angles are made
//! continuous over the clip. Frame `k` of the file is the clip at `start + k · step`.

mod euler;
mod text;

use crate::atomic::write_atomic;
use crate::error::{ExportError, ExportProblem};
use glam::{DQuat, DVec3, Mat4, Quat, Vec3};
use retarget_core::{Axis, Clip, Pose, Skeleton, Unit, figure_extent};
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BvhExportOptions {
    /// Frames per second of the file; `None` takes the clip's own rate, or 30.
    pub fps: Option<f32>,
    /// The length unit of the numbers in the file.
    pub unit: Unit,
    /// The file's up axis: our +Y is written along it.
    pub up: Axis,
}

impl Default for BvhExportOptions {
    fn default() -> Self {
        Self {
            fps: None,
            unit: Unit::Centimetre,
            up: Axis::PosY,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BvhExportReport {
    pub path: PathBuf,
    pub bytes: u64,
    pub frames: usize,
    /// ROOT and JOINT entries written (End Sites not counted).
    pub joints: usize,
    /// The `Frame Time:` written.
    pub frame_time_secs: f64,
    /// What the user should know about the file: extra position channels, renamed joints.
    pub notes: Vec<String>,
}

/// A clip longer than this many frames is surely a mistake (hours at 120 fps).
const MAX_FRAMES: f64 = 10_000_000.0;

/// Writes `clip` on `skeleton` to `out` (temp file, then rename: a failure leaves no file).
pub fn export_bvh(
    skeleton: &Skeleton,
    clip: &Clip,
    options: &BvhExportOptions,
    out: &Path,
) -> Result<BvhExportReport, ExportError> {
    let invalid = |msg: String| ExportError::new(out, ExportProblem::Invalid(msg));
    if clip.tracks().len() != skeleton.len() {
        return Err(invalid(format!(
            "clip '{}' has {} joint tracks but skeleton '{}' has {} joints",
            clip.name,
            clip.tracks().len(),
            skeleton.name,
            skeleton.len()
        )));
    }
    let timing = Timing::new(clip, options.fps).map_err(invalid)?;
    let unit_m = f64::from(options.unit.metres());
    let axes = Mat4::from_quat(Quat::from_rotation_arc(options.up.vector(), Vec3::Y).inverse());
    let motion = sample_motion(skeleton, clip, &timing, unit_m, axes);
    let plan = Plan::new(skeleton, &motion, tolerance(skeleton, unit_m));
    let eulers = euler_tracks(&motion);
    if !motion.is_finite() || eulers.iter().any(|e| !e.iter().all(|v| v.is_finite())) {
        return Err(invalid("the sampled pose is not finite".to_owned()));
    }
    let header = text::hierarchy_text(&plan, &motion, timing.times.len(), timing.step_secs);
    let bytes = write_atomic(out, |w| {
        w.write_all(header.as_bytes())?;
        text::write_frames(w, &plan, &motion, &eulers)
    })
    .map_err(|e| ExportError::new(out, ExportProblem::Write(e)))?;
    let mut notes = plan.notes.clone();
    if motion.degenerate > 0 {
        notes.push(format!(
            "{} joint samples had zero scale and no orientation; they took their parent's",
            motion.degenerate
        ));
    }
    Ok(BvhExportReport {
        path: out.to_path_buf(),
        bytes,
        frames: timing.times.len(),
        joints: plan.order.iter().filter(|&&j| !plan.is_end_site(j)).count(),
        frame_time_secs: timing.step_secs,
        notes,
    })
}

/// Frame times: evenly spaced from the clip's start to its end, both included.
struct Timing {
    times: Vec<f32>,
    step_secs: f64,
}

impl Timing {
    /// When the span divided into whole frames gives a step within 0.01% of `1/fps`, that
    /// step is used, so a clip's own keys are hit exactly (CMU's `0.008333` s is not quite
    /// 1/120 s, and 342 of them miss 1/120 s steps by 1.4% of a frame); readers snap such a
    /// rate back to the whole number. Otherwise the step is `1/fps` and the last frame,
    /// which may fall past the end, holds the end pose.
    fn new(clip: &Clip, fps: Option<f32>) -> Result<Self, String> {
        let fps = f64::from(fps.or(clip.fps()).unwrap_or(30.0));
        if !fps.is_finite() || fps <= 0.0 {
            return Err(format!("the frame rate must be above zero (got {fps})"));
        }
        let start = f64::from(clip.start_secs());
        let span = f64::from(clip.duration_secs()).max(0.0);
        let steps = span * fps;
        if !steps.is_finite() || steps > MAX_FRAMES {
            return Err(format!("{span} s at {fps} fps is too many frames"));
        }
        let whole = steps.round();
        let (count, step_secs) = if whole >= 1.0 && (steps / whole - 1.0).abs() <= 1e-4 {
            (whole as usize, span / whole)
        } else {
            ((steps - 1e-6).ceil().max(0.0) as usize, 1.0 / fps)
        };
        let end = f64::from(clip.end_secs());
        let times = (0..=count)
            .map(|k| (start + k as f64 * step_secs).min(end) as f32)
            .collect();
        Ok(Self { times, step_secs })
    }
}

/// Every joint's file-frame data at every exported frame, frame-major (`frame * joints +
/// joint`): the rotation relative to the parent's file frame (roots: to the world) and the
/// offset from the parent in its file frame (roots: the world position), in file units.
struct Motion {
    joints: usize,
    parents: Vec<Option<usize>>,
    rotations: Vec<DQuat>,
    offsets: Vec<DVec3>,
    /// Offsets in the rest pose (world bone vectors in file units).
    rest_offsets: Vec<DVec3>,
    /// Joint samples whose world matrix had no orientation (zero scale).
    degenerate: usize,
}

impl Motion {
    fn frames(&self) -> usize {
        self.rotations.len() / self.joints.max(1)
    }

    fn offset(&self, frame: usize, joint: usize) -> DVec3 {
        self.offsets[frame * self.joints + joint]
    }

    fn is_finite(&self) -> bool {
        self.rotations.iter().all(|q| q.is_finite()) && self.offsets.iter().all(|v| v.is_finite())
    }
}

/// `axes` turns our world (Y up) into the file's.
fn sample_motion(
    skeleton: &Skeleton,
    clip: &Clip,
    timing: &Timing,
    unit_m: f64,
    axes: Mat4,
) -> Motion {
    let n = skeleton.len();
    let rest = Pose::rest(skeleton);
    let mut world = vec![Mat4::IDENTITY; n];
    let mut frames = vec![DQuat::IDENTITY; n];
    rest.world_matrices_into(skeleton, &mut world);
    world.iter_mut().for_each(|m| *m = axes * *m);
    // With an identity alignment the file frames are the rest world rotations.
    file_frames(skeleton, &world, &vec![DQuat::IDENTITY; n], &mut frames);
    let align: Vec<DQuat> = frames.iter().map(|q| q.inverse()).collect();
    let mut motion = Motion {
        joints: n,
        parents: skeleton.parents().to_vec(),
        rotations: Vec::with_capacity(n * timing.times.len()),
        offsets: Vec::with_capacity(n * timing.times.len()),
        rest_offsets: Vec::new(),
        degenerate: 0,
    };
    file_frames(skeleton, &world, &align, &mut frames);
    let (_, rest_offsets) = locals(skeleton, &world, &frames, unit_m);
    motion.rest_offsets = rest_offsets;
    let mut pose = rest.clone();
    for &t in &timing.times {
        pose.copy_from(&rest);
        clip.sample(t, &mut pose);
        pose.world_matrices_into(skeleton, &mut world);
        world.iter_mut().for_each(|m| *m = axes * *m);
        motion.degenerate += file_frames(skeleton, &world, &align, &mut frames);
        let (rotations, offsets) = locals(skeleton, &world, &frames, unit_m);
        motion.rotations.extend(rotations);
        motion.offsets.extend(offsets);
    }
    motion
}

/// World rotation of each file frame: `rotation(world) · align`. A joint with no orientation
/// (zero scale) takes its parent's frame. Returns how many joints had none.
fn file_frames(skeleton: &Skeleton, world: &[Mat4], align: &[DQuat], out: &mut [DQuat]) -> usize {
    let mut degenerate = 0;
    for (i, parent) in skeleton.parents().iter().enumerate() {
        out[i] = match euler::rotation_part(&world[i]) {
            Some(r) => (r * align[i]).normalize(),
            None => {
                degenerate += 1;
                parent.map_or(DQuat::IDENTITY, |p| out[p])
            }
        };
    }
    degenerate
}

/// Rotations relative to the parent's file frame and offsets seen from it, in file units.
fn locals(
    skeleton: &Skeleton,
    world: &[Mat4],
    frames: &[DQuat],
    unit_m: f64,
) -> (Vec<DQuat>, Vec<DVec3>) {
    let pos = |i: usize| world[i].w_axis.truncate().as_dvec3() / unit_m;
    skeleton
        .parents()
        .iter()
        .enumerate()
        .map(|(i, parent)| match parent {
            None => (frames[i], pos(i)),
            Some(p) => {
                let inv = frames[*p].inverse();
                ((inv * frames[i]).normalize(), inv * (pos(i) - pos(*p)))
            }
        })
        .unzip()
}

/// How far (in file units) an offset may move over the clip and still be written as a fixed
/// `OFFSET`: 1e-5 of the figure's height, well under what anyone can see.
fn tolerance(skeleton: &Skeleton, unit_m: f64) -> f64 {
    let height_m = f64::from(figure_extent(skeleton, &Pose::rest(skeleton)).height);
    height_m.max(1e-3) / unit_m * 1e-5
}

/// How a skeleton joint appears in the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// ROOT or JOINT; `positions` adds `Xposition Yposition Zposition` (always on roots).
    Joint { positions: bool },
    /// A leaf marker (`*_end`, as BVH import names End Sites): an End Site of its parent.
    EndSite,
}

/// The file's hierarchy: depth-first order, names and the kind of every joint.
struct Plan {
    order: Vec<usize>,
    children: Vec<Vec<usize>>,
    depth: Vec<usize>,
    names: Vec<String>,
    kinds: Vec<Kind>,
    notes: Vec<String>,
}

impl Plan {
    fn new(skeleton: &Skeleton, motion: &Motion, tolerance: f64) -> Self {
        let n = skeleton.len();
        let mut children = vec![Vec::new(); n];
        let mut depth = vec![0; n];
        for (i, parent) in skeleton.parents().iter().enumerate() {
            if let Some(p) = *parent {
                children[p].push(i);
                depth[i] = depth[p] + 1;
            }
        }
        let (names, mut notes) = file_names(skeleton.names());
        let kinds: Vec<Kind> = (0..n)
            .map(|j| kind_of(skeleton, &children, motion, tolerance, j))
            .collect();
        let moving: Vec<&str> = (0..n)
            .filter(|&j| motion.parents[j].is_some())
            .filter(|&j| kinds[j] == Kind::Joint { positions: true })
            .map(|j| names[j].as_str())
            .collect();
        if !moving.is_empty() {
            notes.push(format!(
                "position channels added where the bone length or direction in the parent's \
                 frame changes over the clip (animated translation or scale): {}",
                moving.join(", ")
            ));
        }
        let order = depth_first(skeleton.parents(), &children);
        Self {
            order,
            children,
            depth,
            names,
            kinds,
            notes,
        }
    }

    fn is_end_site(&self, joint: usize) -> bool {
        self.kinds[joint] == Kind::EndSite
    }
}

fn kind_of(
    skeleton: &Skeleton,
    children: &[Vec<usize>],
    motion: &Motion,
    tolerance: f64,
    joint: usize,
) -> Kind {
    let Some(parent) = skeleton.parents()[joint] else {
        return Kind::Joint { positions: true };
    };
    let first = motion.offset(0, joint);
    let moves = (1..motion.frames()).any(|f| motion.offset(f, joint).distance(first) > tolerance);
    let marker = skeleton.names()[joint]
        .to_ascii_lowercase()
        .ends_with("_end");
    if !moves && marker && children[joint].is_empty() && children[parent].len() == 1 {
        Kind::EndSite
    } else {
        Kind::Joint { positions: moves }
    }
}

/// Names a BVH reader can split on whitespace: blanks become `_`, empty names get
/// `joint<i>`, and repeated names a `_<i>` suffix, since readers find joints by name.
fn file_names(names: &[String]) -> (Vec<String>, Vec<String>) {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    let mut renamed = Vec::new();
    for (i, name) in names.iter().enumerate() {
        let mut s: String = name.split_whitespace().collect::<Vec<_>>().join("_");
        if s.is_empty() {
            s = format!("joint{i}");
        }
        while out.contains(&s) {
            s = format!("{s}_{i}");
        }
        if s != *name {
            renamed.push(format!("'{name}' -> '{s}'"));
        }
        out.push(s);
    }
    let notes = if renamed.is_empty() {
        Vec::new()
    } else {
        vec![format!("joints renamed for BVH: {}", renamed.join(", "))]
    };
    (out, notes)
}

/// Depth-first order (the order BVH lists joints and their channels), without recursion.
fn depth_first(parents: &[Option<usize>], children: &[Vec<usize>]) -> Vec<usize> {
    let mut order = Vec::with_capacity(parents.len());
    let mut stack: Vec<usize> = (0..parents.len())
        .rev()
        .filter(|&j| parents[j].is_none())
        .collect();
    while let Some(j) = stack.pop() {
        order.push(j);
        stack.extend(children[j].iter().rev());
    }
    order
}

/// Continuous Z-X-Y angles per frame and joint (same layout as `Motion::rotations`).
fn euler_tracks(motion: &Motion) -> Vec<[f64; 3]> {
    let n = motion.joints;
    let mut out = vec![[0.0; 3]; motion.rotations.len()];
    for j in 0..n {
        let mut prev = None;
        for f in 0..motion.frames() {
            let e = euler::euler_zxy(motion.rotations[f * n + j], prev);
            out[f * n + j] = e;
            prev = Some(e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;
    use retarget_core::{Interpolation, JointTracks, Track};

    fn clip_with_keys(times: Vec<f32>) -> Clip {
        let values = vec![Vec3::ZERO; times.len()];
        let track = Track::new(times, values, Interpolation::Linear).unwrap();
        let tracks = vec![JointTracks {
            translation: Some(track),
            ..Default::default()
        }];
        Clip::new("c", tracks, None)
    }

    #[test]
    fn keys_that_drift_from_the_rate_are_still_hit() {
        // CMU: 343 keys 0.008333 s apart, a rate of 120 fps once snapped.
        let clip = clip_with_keys((0..343).map(|k| k as f32 * 0.008333).collect());
        assert_eq!(clip.fps(), Some(120.0));
        let timing = Timing::new(&clip, None).unwrap();
        assert_eq!(timing.times.len(), 343);
        assert!((timing.step_secs - 0.008333).abs() < 1e-8);
        assert_eq!(timing.times[342], clip.end_secs());
    }

    #[test]
    fn another_rate_steps_evenly_and_holds_the_end() {
        let clip = clip_with_keys(vec![0.5, 1.55]);
        let timing = Timing::new(&clip, Some(10.0)).unwrap();
        // 1.05 s at 10 fps: 11 steps of 0.1 s, the last one clamped to the end.
        assert_eq!(timing.times.len(), 12);
        assert!((timing.times[1] - 0.6).abs() < 1e-6);
        assert_eq!(timing.times[11], 1.55);
        let still = clip_with_keys(vec![2.0]);
        let timing = Timing::new(&still, None).unwrap();
        assert_eq!(timing.times, vec![2.0]);
        assert!(
            (timing.step_secs - 1.0 / 30.0).abs() < 1e-12,
            "30 fps default"
        );
        assert!(Timing::new(&clip, Some(f32::NAN)).is_err());
        assert!(Timing::new(&clip, Some(-24.0)).is_err());
    }

    #[test]
    fn names_are_single_tokens_and_unique() {
        let names: Vec<String> = ["Hips", "left arm", "", "Hips", "Hips_3"]
            .map(String::from)
            .to_vec();
        let (out, notes) = file_names(&names);
        assert_eq!(out, ["Hips", "left_arm", "joint2", "Hips_3", "Hips_3_4"]);
        assert_eq!(notes.len(), 1);
        assert!(notes[0].contains("'left arm' -> 'left_arm'"), "{notes:?}");
    }

    #[test]
    fn depth_first_follows_children_in_order() {
        let parents = [None, Some(0), Some(0), Some(1), None, Some(4)];
        let mut children = vec![Vec::new(); parents.len()];
        for (i, p) in parents.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
            }
        }
        assert_eq!(depth_first(&parents, &children), [0, 1, 3, 2, 4, 5]);
    }
}
