//! Whole clips: sample the source at the output rate, solve each frame, key the result.

use super::legs::plant;
use super::{MAX_FRAMES, RetargetError, Retargeter};
use crate::clip::{Clip, Interpolation, JointTracks, Track};
use crate::pose::Pose;
use crate::sampler::TrackReader;
use crate::skeleton::{MAX_EXTENT, Skeleton};
use glam::{Affine3A, Quat, Vec3};
use std::sync::Arc;

/// A retargeted clip and what its planting did (contacts, hip drop, reach missed).
#[derive(Clone, Debug)]
pub struct RetargetedClip {
    pub clip: Clip,
    pub plant: plant::PlantReport,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RetargetClipOptions {
    /// Output frame rate; `None` takes the source clip's native rate (or 30).
    pub fps: Option<f32>,
}

/// Makes consecutive rotation keys lie in one hemisphere (`dot >= 0`), so interpolation
/// takes the short way and no key flips sign (invariant 6).
pub fn make_continuous(keys: &mut [Quat]) {
    for k in 1..keys.len() {
        if keys[k].dot(keys[k - 1]) < 0.0 {
            keys[k] = -keys[k];
        }
    }
}

impl Retargeter {
    /// Retargets `clip` (of `source`) into a clip of the target skeleton. Every target joint
    /// gets a rotation track; joints whose translation or scale differ from the target's
    /// rest, or that follow the source's translation, get those tracks too, so the clip
    /// plays right on the target file's own nodes. Refuses a clip longer than
    /// [`MAX_FRAMES`], and a solve that overflows (a source with absurdly large numbers).
    ///
    /// Works on a copy fitted to `clip` ([`Self::fitted_to`]): this retargeter is left as it
    /// was, so one serves many clips and threads.
    pub fn retarget_clip(
        &self,
        source: &Skeleton,
        clip: &Clip,
        target: &Skeleton,
        options: &RetargetClipOptions,
    ) -> Result<RetargetedClip, RetargetError> {
        let (fps, frames) = output_frames(clip, options)?;
        // The keys after the fit, which tilts the feet and with them the copies under them.
        let job = self.fitted_to(source, clip);
        let reader = TrackReader::new(clip);
        let still = job.still_translations(source, clip, target);
        let mut keys = Keys::new(&job, target, frames, &still);
        let mut report = plant::PlantReport::default();
        let times = if job.plan.solve.plant_feet && !job.plan.legs.is_empty()
            || !job.plan.reach.is_empty()
        {
            // Planting needs the whole clip solved before any frame is final.
            let solved = job.solve_frames(source, &reader, target, frames);
            let Solved {
                times,
                mut poses,
                feet,
                reached,
            } = solved;
            report = job.plant(target, &mut poses, &times, &feet);
            report.reach_missed = job.reach_poses(target, &mut poses, &reached);
            job.settle_twists(target, &mut poses);
            for (pose, &t) in poses.iter().zip(&times) {
                keys.push(pose, t)?;
            }
            times
        } else {
            // Frame by frame: each solved pose goes straight into the keys.
            job.solve_each(source, &reader, target, frames, |_, _, pose, t| {
                keys.push(pose, t)
            })?
        };
        Ok(RetargetedClip {
            clip: keys.into_clip(&job, target, clip.name.clone(), times, fps),
            plant: report,
        })
    }
}

/// Frames of rotations [`Keys`] gathers before it moves them into the joints' tracks.
const BURST: usize = 16;

/// A retargeted clip's keys, per target joint, filled one solved pose at a time (mirrored
/// when the solve mirrors) after a check that the pose stays within what a file may hold.
struct Keys<'a> {
    target: &'a Skeleton,
    /// Per joint, a key per frame (room for every frame reserved up front).
    rotations: Vec<Vec<Quat>>,
    /// The last few frames' rotations, frame after frame, until a burst is full: moved into
    /// the tracks a burst at a time, each track is written in runs, not a key per frame.
    burst: Vec<Quat>,
    /// The joints that get a translation track (`translated`), with their keys.
    translations: Vec<(usize, Vec<Vec3>)>,
    extent: Extent,
    mirror: Option<(crate::mirror::Mirror, Pose)>,
}

impl<'a> Keys<'a> {
    /// `still`: joints whose translation the clip leaves at the rest (no track).
    fn new(solver: &Retargeter, target: &'a Skeleton, frames: usize, still: &[bool]) -> Self {
        let n = target.len();
        let mut moves = translated(solver, target);
        for (m, s) in moves.iter_mut().zip(still) {
            *m &= !s;
        }
        Self {
            target,
            rotations: (0..n).map(|_| Vec::with_capacity(frames)).collect(),
            burst: Vec::with_capacity(BURST * n),
            translations: (0..n)
                .filter(|&j| moves[j])
                .map(|j| (j, Vec::with_capacity(frames)))
                .collect(),
            extent: Extent::new(
                solver.plan.target_container,
                target,
                &moves,
                &keyed_scales(solver, target),
            ),
            mirror: solver
                .plan
                .solve
                .mirror
                .then(|| (solver.mirror(target), Pose::rest(target))),
        }
    }

    /// Keys `pose` at time `t` as the next frame, or refuses it when it overflows.
    fn push(&mut self, pose: &Pose, t: f32) -> Result<(), RetargetError> {
        // Mirrored after planting, as the crowd paper does: on the target, after retargeting.
        let pose = match &mut self.mirror {
            Some((mirror, out)) => {
                mirror.apply(pose, out);
                &*out
            }
            None => pose,
        };
        if let Some(j) = self.extent.overflow(self.target, pose) {
            return Err(RetargetError::Overflow {
                joint: self.target.names()[j].clone(),
                time: t,
            });
        }
        self.burst.extend_from_slice(&pose.rotations);
        for (j, keys) in &mut self.translations {
            keys.push(pose.translations[*j]);
        }
        if self.burst.len() == BURST * self.rotations.len() {
            self.flush();
        }
        Ok(())
    }

    /// Moves the burst's rotations into the tracks, each key in the hemisphere of the one
    /// before it (`make_continuous`, run on the burst after the track's last key).
    fn flush(&mut self) {
        let n = self.rotations.len();
        let frames = self.burst.len() / n.max(1);
        if frames == 0 {
            return;
        }
        let mut run = [Quat::IDENTITY; BURST + 1];
        for (j, keys) in self.rotations.iter_mut().enumerate() {
            // A first key lies in its own hemisphere.
            run[0] = keys.last().copied().unwrap_or(self.burst[j]);
            for f in 0..frames {
                run[f + 1] = self.burst[f * n + j];
            }
            make_continuous(&mut run[..=frames]);
            keys.extend_from_slice(&run[1..=frames]);
        }
        self.burst.clear();
    }

    fn into_clip(
        mut self,
        solver: &Retargeter,
        target: &Skeleton,
        name: String,
        times: Vec<f32>,
        fps: f32,
    ) -> Clip {
        self.flush();
        debug_assert!(self.rotations.iter().all(|keys| keys.len() == times.len()));
        let reference = &solver.plan.target_reference;
        let times: Arc<[f32]> = times.into();
        let mut translations = self.translations.into_iter().peekable();
        let tracks = (0..target.len())
            .map(|j| {
                let rest = target.rest()[j];
                let translation = translations
                    .next_if(|(k, _)| *k == j)
                    .map(|(_, keys)| keyed(&times, keys));
                let scale = (!reference.scales[j].abs_diff_eq(rest.scale, 1e-6))
                    .then(|| keyed(&times, vec![reference.scales[j]; times.len()]));
                JointTracks {
                    translation,
                    rotation: Some(keyed(&times, std::mem::take(&mut self.rotations[j]))),
                    scale,
                }
            })
            .collect();
        Clip::new(name, tracks, Some(fps))
    }
}

/// Per target joint, the scale the written file holds: the reference's where it keys one
/// (it differs from the rest), else the rest's.
fn keyed_scales(solver: &Retargeter, target: &Skeleton) -> Vec<Vec3> {
    let reference = &solver.plan.target_reference.scales;
    (0..target.len())
        .map(|j| {
            let rest = target.rest()[j].scale;
            if reference[j].abs_diff_eq(rest, 1e-6) {
                rest
            } else {
                reference[j]
            }
        })
        .collect()
}

/// Per target joint, whether the clip keys its translation: joints the solve moves, and
/// joints whose reference translation is not their rest.
fn translated(solver: &Retargeter, target: &Skeleton) -> Vec<bool> {
    let reference = &solver.plan.target_reference;
    let mut moves: Vec<bool> = (0..target.len())
        .map(|j| {
            let rest = target.rest()[j].translation;
            !reference.translations[j].abs_diff_eq(rest, 1e-6)
        })
        .collect();
    for j in solver.moving_joints() {
        moves[j] = true;
    }
    moves
}

/// Whether a keyed pose stays finite and within [`MAX_EXTENT`] / 1000 in the world (what a
/// skeleton may hold once a writer has changed its unit, metres to millimetres, so that the
/// clip written reads back). A bound first, cheap and conservative: no joint lies farther
/// out than the container's offset plus every joint's offset (as |x|+|y|+|z|) stretched by
/// all the scales above it, and no matrix holds more than those stretches. Offsets and
/// scales the clip does not key are the file's own, summed once; a frame adds the keyed
/// offsets alone. For any real rig the sum is orders of magnitude inside the limit; only a
/// pose it cannot clear pays for exact forward kinematics.
struct Extent {
    container: Affine3A,
    /// Per joint, how much everything above it stretches its offset (scales are not keyed
    /// per frame: the file holds the reference's or the rest's).
    above: Vec<f32>,
    /// Whether every joint's own stretch is within the limit.
    stretch_clear: bool,
    /// The container's offset and the unkeyed offsets, stretched.
    fixed: f32,
    /// Joints whose translation the clip keys.
    keyed: Vec<usize>,
    /// The pose as the file will hold it (unkeyed offsets and scales its own), for the
    /// exact check.
    file: Pose,
    worlds: Vec<glam::Mat4>,
}

impl Extent {
    const LIMIT: f32 = MAX_EXTENT / 1000.0;

    /// The check for `target`'s clip keyed as `keys` has it (`moves`: translation keyed;
    /// `scales`: the scales the file holds).
    fn new(container: Affine3A, target: &Skeleton, moves: &[bool], scales: &[Vec3]) -> Self {
        let m = container.matrix3;
        // The Frobenius norm bounds the container's largest stretch.
        let top =
            (m.x_axis.length_squared() + m.y_axis.length_squared() + m.z_axis.length_squared())
                .sqrt();
        let mut above = vec![0.0; target.len()];
        let mut clear = top <= Self::LIMIT;
        let mut fixed = Vec3::from(container.translation).abs().element_sum();
        for (j, parent) in target.parents().iter().enumerate() {
            above[j] = parent.map_or(top, |p| above[p] * scales[p].abs().max_element());
            clear &= above[j] * scales[j].abs().max_element() <= Self::LIMIT;
            if !moves[j] {
                fixed += above[j] * target.rest()[j].translation.abs().element_sum();
            }
        }
        Self {
            container,
            above,
            stretch_clear: clear,
            fixed,
            keyed: (0..target.len()).filter(|&j| moves[j]).collect(),
            file: Pose {
                scales: scales.to_vec(),
                ..Pose::rest(target)
            },
            worlds: Vec::new(),
        }
    }

    /// The first joint whose world transform overflows, if any.
    fn overflow(&mut self, target: &Skeleton, pose: &Pose) -> Option<usize> {
        let mut reach = self.fixed;
        for &j in &self.keyed {
            reach += self.above[j] * pose.translations[j].abs().element_sum();
        }
        let turns: Quat = pose.rotations.iter().copied().sum();
        // `<=` is false for NaN, and a sum holding a non-finite rotation is not finite.
        if self.stretch_clear && reach <= Self::LIMIT && turns.is_finite() {
            return None;
        }
        let file = &mut self.file;
        file.rotations.copy_from_slice(&pose.rotations);
        for &j in &self.keyed {
            file.translations[j] = pose.translations[j];
        }
        self.worlds.resize(target.len(), glam::Mat4::IDENTITY);
        file.world_matrices_under(target, glam::Mat4::from(self.container), &mut self.worlds);
        self.worlds.iter().position(|m| !within_extent(m))
    }
}

/// The output's rate and frame count for `clip`: its own rate unless `options` set one, and
/// a refusal past [`MAX_FRAMES`].
pub(super) fn output_frames(
    clip: &Clip,
    options: &RetargetClipOptions,
) -> Result<(f32, usize), RetargetError> {
    let fps = options.fps.or(clip.fps()).unwrap_or(30.0).max(1e-3);
    let span = f64::from(clip.duration_secs()) * f64::from(fps);
    if span.is_nan() || span >= MAX_FRAMES as f64 {
        return Err(RetargetError::TooLong {
            secs: clip.duration_secs(),
            fps,
            frames: span.round() + 1.0,
        });
    }
    Ok((fps, span.round() as usize + 1))
}

/// A clip solved frame by frame, before the clip-level passes.
pub(super) struct Solved {
    pub times: Vec<f32>,
    pub poses: Vec<Pose>,
    /// Per leg, the source foot's world position per frame (when planting is on).
    pub feet: Vec<Vec<glam::Vec3>>,
    pub reached: Vec<Vec<glam::Vec3>>,
}

impl Retargeter {
    /// Solves `frames` frames of `clip` (`solve_each`) and keeps every pose, with what the
    /// clip-level passes read: the source feet's and reach ends' world positions.
    pub(super) fn solve_frames(
        &self,
        source: &Skeleton,
        clip: &TrackReader,
        target: &Skeleton,
        frames: usize,
    ) -> Solved {
        let mut poses = Vec::with_capacity(frames);
        let mut source_world = vec![glam::Mat4::IDENTITY; source.len()];
        let mut feet = vec![Vec::with_capacity(frames); self.plan.legs.len()];
        let mut reached = vec![Vec::with_capacity(frames); self.plan.reach.len()];
        let planting = self.plan.solve.plant_feet && !self.plan.legs.is_empty();
        let each = |solver: &Self, source_pose: &Pose, target_pose: &Pose, _| {
            // Source positions only for a pass that uses them: the frame-by-frame solve
            // (the runtime's default) pays nothing here.
            let container = solver.plan.source_container;
            if !solver.plan.reach.is_empty() {
                let m = glam::Mat4::from(container);
                source_pose.world_matrices_under(source, m, &mut source_world);
                solver.push_reach_sources(&source_world, &mut reached);
            }
            if planting {
                // Down each source foot's own path: no full forward kinematics.
                for (leg, track) in solver.plan.legs.iter().zip(&mut feet) {
                    let at = super::root::chain_world(container, &leg.source_chain, source_pose);
                    track.push(glam::Vec3::from(at.translation));
                }
            }
            poses.push(target_pose.clone());
            Ok::<_, std::convert::Infallible>(())
        };
        let Ok(times) = self.solve_each(source, clip, target, frames, each);
        Solved {
            times,
            poses,
            feet,
            reached,
        }
    }

    /// Solves `frames` frames spread evenly over `clip` (fitted to it: `fitted`) and hands
    /// each to `each` (the solver, the source pose, the target pose, the time), sampling the
    /// clip in place with one cursor (no search per track and frame).
    /// Returns the frames' times, or `each`'s first error.
    fn solve_each<E>(
        &self,
        source: &Skeleton,
        reader: &TrackReader,
        target: &Skeleton,
        frames: usize,
        mut each: impl FnMut(&Self, &Pose, &Pose, f32) -> Result<(), E>,
    ) -> Result<Vec<f32>, E> {
        let times: Vec<f32> = reader.clip().even_times(frames).collect();
        let mut cursor = reader.cursor();
        // Sampling writes every animated joint each frame; the others keep their rest.
        let mut source_pose = Pose::rest(source);
        let mut target_pose = self.plan.target_reference.clone();
        let mut scratch = super::PoseScratch::new(self);
        debug_assert_eq!(target_pose.len(), target.len());
        for &t in &times {
            reader.sample(t, &mut cursor, &mut source_pose);
            self.solve_pose(&source_pose, &mut target_pose, &mut scratch);
            each(self, &source_pose, &target_pose, t)?;
        }
        Ok(times)
    }

    /// The mirror of the target's poses as this solve's settings ask (plane, hips, twins).
    pub fn mirror(&self, target: &Skeleton) -> crate::mirror::Mirror {
        let reference = crate::ReferencePose {
            locals: self.plan.target_reference.clone(),
            container: glam::Mat4::from(self.plan.target_container),
        };
        crate::mirror::Mirror::new(
            target,
            &reference,
            (self.plan.mirror_twins.clone())
                .unwrap_or_else(|| crate::mirror::twins_of(target, None, None)),
            self.fit.roots.first().map(|r| r.pelvis()),
            &self.plan.solve.mirror_plane,
        )
    }
}

/// Finite and within what a skeleton may hold ([`MAX_EXTENT`]) once a writer has changed
/// its unit (metres to millimetres), so that the clip written reads back.
fn within_extent(m: &glam::Mat4) -> bool {
    m.to_cols_array()
        .iter()
        .all(|v| v.abs() <= MAX_EXTENT / 1000.0)
}

fn keyed<T: crate::clip::Keyframe>(times: &Arc<[f32]>, values: Vec<T>) -> Track<T> {
    // Times are sorted by construction; values were checked finite frame by frame
    // (`Extent`) and rotations leave the solve at unit length.
    Track::solved(times.clone(), values, Interpolation::Linear)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn continuity_flips_keys_into_one_hemisphere() {
        let q = Quat::from_rotation_y(3.0);
        let mut keys = vec![
            q,
            -q,
            Quat::from_rotation_y(3.1),
            -Quat::from_rotation_y(3.2),
        ];
        make_continuous(&mut keys);
        for w in keys.windows(2) {
            assert!(w[0].dot(w[1]) >= 0.0);
        }
        assert!(keys[1].abs_diff_eq(q, 1e-6));
    }

    /// A chain of joints 1 unit apart on X under a container, for the extent check.
    fn chain(n: usize, container: glam::Mat4) -> Skeleton {
        use crate::skeleton::JointDef;
        use crate::transform::Transform;
        let defs = (0..n)
            .map(|j| {
                let rest = Transform::from_translation(Vec3::X);
                JointDef::new(format!("j{j}"), j.checked_sub(1), rest)
            })
            .collect();
        Skeleton::new("chain", container, defs).unwrap()
    }

    #[test]
    fn the_extent_bound_clears_real_poses_and_names_the_joint_that_overflows() {
        let s = chain(4, glam::Mat4::from_scale(Vec3::splat(100.0)));
        let container = Affine3A::from_scale(Vec3::splat(100.0));
        let moves = [false, false, true, false];
        let mut extent = Extent::new(container, &s, &moves, &[Vec3::ONE; 4]);
        let mut pose = Pose::rest(&s);
        assert_eq!(extent.overflow(&s, &pose), None);
        assert!(
            extent.worlds.is_empty(),
            "a real pose needs no forward kinematics"
        );
        // 1e5 units out, times the container's 100: past the 1e6 a file may hold.
        pose.translations[2] = Vec3::new(0.0, 1e5, 0.0);
        assert_eq!(extent.overflow(&s, &pose), Some(2));
        let mut pose = Pose::rest(&s);
        pose.rotations[3] = Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0);
        assert_eq!(extent.overflow(&s, &pose), Some(3));
        // A scale the file holds that stretches past the limit.
        let mut scales = [Vec3::ONE; 4];
        scales[1] = Vec3::new(1.0, f32::INFINITY, 1.0);
        let mut extent = Extent::new(container, &s, &moves, &scales);
        assert_eq!(extent.overflow(&s, &Pose::rest(&s)), Some(1));
    }

    /// Offsets that cancel out sum past the bound, yet every joint stays near the origin:
    /// the exact check clears the pose.
    #[test]
    fn a_pose_the_bound_cannot_clear_is_checked_exactly() {
        let s = chain(3, glam::Mat4::IDENTITY);
        let mut extent = Extent::new(Affine3A::IDENTITY, &s, &[true; 3], &[Vec3::ONE; 3]);
        let mut pose = Pose::rest(&s);
        pose.translations[1] = Vec3::new(8e5, 0.0, 0.0);
        pose.translations[2] = Vec3::new(-8e5, 0.0, 0.0);
        assert_eq!(extent.overflow(&s, &pose), None);
        assert_eq!(extent.worlds.len(), s.len(), "the exact check ran");
    }

    /// Keys are moved into the tracks a burst of frames at a time, each in the hemisphere
    /// of the key before it: across the bursts' seams too, and in a last partial burst.
    #[test]
    fn keys_stay_in_one_hemisphere_across_bursts() {
        use crate::mapping::BoneMap;
        use crate::reference::ReferencePose;
        let s = chain(3, glam::Mat4::IDENTITY);
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let r = Retargeter::new(&s, &reference, &s, &reference, &BoneMap::identity(3)).unwrap();
        let frames = 2 * BURST + 7;
        // Turning on past a full turn, some keys given the other sign (the same rotation)
        // than the first: every third, and the first of each later burst.
        let turn = |k: usize| {
            let q = Quat::from_rotation_y(0.4 * k as f32);
            if k % 3 == 1 || k % BURST == 0 && k > 0 {
                -q
            } else {
                q
            }
        };
        let times: Vec<f32> = (0..frames).map(|k| k as f32 / 10.0).collect();
        let track = Track::new(
            times,
            (0..frames).map(turn).collect(),
            Interpolation::Linear,
        );
        let mut tracks = vec![JointTracks::default(); 3];
        tracks[1].rotation = Some(track.unwrap());
        let clip = Clip::new("turn", tracks, Some(10.0));
        let out = r
            .retarget_clip(&s, &clip, &s, &RetargetClipOptions::default())
            .unwrap()
            .clip;
        let keys = out.tracks()[1].rotation.as_ref().unwrap();
        assert_eq!(keys.key_count(), frames);
        let values = keys.values();
        for k in 0..frames {
            let want = turn(k);
            assert!(
                values[k].abs_diff_eq(want, 1e-5) || values[k].abs_diff_eq(-want, 1e-5),
                "key {k}: {:?} is not {want:?}",
                values[k]
            );
            if k > 0 {
                assert!(
                    values[k].dot(values[k - 1]) >= 0.0,
                    "keys {} and {k}",
                    k - 1
                );
            }
        }
        assert!(
            values[0].abs_diff_eq(turn(0), 1e-5),
            "the first key as it was"
        );
    }

    /// A clip that carries the root a billion units away is refused, naming the joint and
    /// the time; the same clip within bounds retargets.
    #[test]
    fn a_clip_that_overflows_is_refused_by_joint_and_time() {
        use crate::mapping::BoneMap;
        use crate::reference::ReferencePose;
        let s = chain(3, glam::Mat4::IDENTITY);
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let r = Retargeter::new(&s, &reference, &s, &reference, &BoneMap::identity(3)).unwrap();
        let clip = |far: f32| {
            let root = Track::new(
                vec![0.0, 1.0, 2.0],
                vec![Vec3::ZERO, Vec3::new(far, 0.0, 0.0), Vec3::ZERO],
                Interpolation::Linear,
            )
            .unwrap();
            let mut tracks = vec![JointTracks::default(); 3];
            tracks[0].translation = Some(root);
            Clip::new("walk", tracks, Some(1.0))
        };
        let options = RetargetClipOptions::default();
        assert!(r.retarget_clip(&s, &clip(10.0), &s, &options).is_ok());
        match r.retarget_clip(&s, &clip(1e9), &s, &options) {
            Err(RetargetError::Overflow { joint, time }) => {
                assert_eq!((joint.as_str(), time), ("j0", 1.0));
            }
            other => panic!("{other:?}"),
        }
    }
}
