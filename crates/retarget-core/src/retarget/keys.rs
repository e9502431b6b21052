//! A retargeted clip's keys: solved poses gathered into each target joint's tracks, each
//! pose first checked against what a file may hold (`Extent`).

use super::clip::make_continuous;
use super::{RetargetError, Retargeter};
use crate::clip::{Clip, Interpolation, JointTracks, Track};
use crate::pose::Pose;
use crate::skeleton::{MAX_EXTENT, Skeleton};
use glam::{Affine3A, Quat, Vec3};
use std::sync::Arc;

/// Frames of rotations [`Keys`] gathers before it moves them into the joints' tracks.
pub(super) const BURST: usize = 16;

/// A retargeted clip's keys, per target joint, filled one solved pose at a time (mirrored
/// when the solve mirrors) after a check that the pose stays within what a file may hold.
pub(super) struct Keys<'a> {
    target: &'a Skeleton,
    /// Per joint, a key per frame (room for every frame reserved up front).
    rotations: Vec<Vec<Quat>>,
    /// The last few frames' rotations, frame after frame, until a burst is full: moved into
    /// the tracks a burst at a time, each track is written in runs, not a key per frame.
    burst: Vec<Quat>,
    /// The joints that get a translation track (`translated`), with their keys.
    translations: Vec<(usize, Vec<Vec3>)>,
    /// The joints whose scale the solve copies (one body on both sides), with their keys.
    scales: Vec<(usize, Vec<Vec3>)>,
    extent: Extent,
    mirror: Option<Mirrored>,
}

/// What mirroring each pose needs: the twins, a pose to mirror into, and the IK bones to
/// put back on the mirrored hands and feet (`ik_bones`) under the target's container.
struct Mirrored {
    mirror: crate::mirror::Mirror,
    out: Pose,
    ik_bones: Vec<super::ik_bones::IkBone>,
    container: Affine3A,
}

impl<'a> Keys<'a> {
    /// `still`: joints whose translation the clip leaves at the rest (no track).
    pub(super) fn new(
        solver: &Retargeter,
        target: &'a Skeleton,
        frames: usize,
        still: &[bool],
    ) -> Self {
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
            scales: solver
                .fit
                .scales
                .iter()
                .map(|&(j, _)| (j, Vec::with_capacity(frames)))
                .collect(),
            extent: Extent::new(
                solver.plan.target_container,
                target,
                &moves,
                &keyed_scales(solver, target),
            )
            .with_stretched(solver.fit.scales.iter().map(|&(j, _)| j).collect()),
            mirror: solver.plan.solve.mirror.then(|| Mirrored {
                mirror: solver.mirror(target),
                out: Pose::rest(target),
                ik_bones: solver.plan.ik_bones.clone(),
                container: solver.plan.target_container,
            }),
        }
    }

    /// Keys `pose` at time `t` as the next frame, or refuses it when it overflows.
    pub(super) fn push(&mut self, pose: &Pose, t: f32) -> Result<(), RetargetError> {
        // Mirrored after planting, as the crowd paper does: on the target, after retargeting.
        let pose = match &mut self.mirror {
            Some(m) => {
                m.mirror.apply(pose, &mut m.out);
                super::ik_bones::follow(&m.ik_bones, m.container, &mut m.out);
                &m.out
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
        for (j, keys) in &mut self.scales {
            keys.push(pose.scales[*j]);
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

    pub(super) fn into_clip(
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
        let mut scales = self.scales.into_iter().peekable();
        let tracks = (0..target.len())
            .map(|j| {
                let rest = target.rest()[j];
                let translation = translations
                    .next_if(|(k, _)| *k == j)
                    .map(|(_, keys)| keyed(&times, keys));
                let copied = scales
                    .next_if(|(k, _)| *k == j)
                    .map(|(_, keys)| keyed(&times, keys));
                let scale = copied.or_else(|| {
                    (!reference.scales[j].abs_diff_eq(rest.scale, 1e-6))
                        .then(|| keyed(&times, vec![reference.scales[j]; times.len()]))
                });
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
    /// Per joint, how much everything above it stretches its offset, by the scales the file
    /// holds (the reference's or the rest's; a pose of a clip that keys scales per frame,
    /// `stretched`, is placed exactly).
    above: Vec<f32>,
    /// Whether every joint's own stretch is within the limit.
    stretch_clear: bool,
    /// The container's offset and the unkeyed offsets, stretched.
    fixed: f32,
    /// Joints whose translation the clip keys.
    keyed: Vec<usize>,
    /// Joints whose scale the clip keys: a pose with any is checked exactly.
    stretched: Vec<usize>,
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
            stretched: Vec::new(),
            file: Pose {
                scales: scales.to_vec(),
                ..Pose::rest(target)
            },
            worlds: Vec::new(),
        }
    }

    /// The check for a clip that also keys these joints' scales (sorted, as the solve
    /// writes them): the bound assumes the file's own, so such a pose is placed exactly.
    fn with_stretched(mut self, joints: Vec<usize>) -> Self {
        self.stretched = joints;
        self
    }

    /// The first joint whose world transform overflows, if any.
    fn overflow(&mut self, target: &Skeleton, pose: &Pose) -> Option<usize> {
        let mut reach = self.fixed;
        for &j in &self.keyed {
            reach += self.above[j] * pose.translations[j].abs().element_sum();
        }
        let turns: Quat = pose.rotations.iter().copied().sum();
        // `<=` is false for NaN, and a sum holding a non-finite rotation is not finite.
        let bounded = self.stretch_clear && self.stretched.is_empty();
        if bounded && reach <= Self::LIMIT && turns.is_finite() {
            return None;
        }
        let file = &mut self.file;
        file.rotations.copy_from_slice(&pose.rotations);
        for &j in &self.keyed {
            file.translations[j] = pose.translations[j];
        }
        for &j in &self.stretched {
            file.scales[j] = pose.scales[j];
        }
        self.worlds.resize(target.len(), glam::Mat4::IDENTITY);
        file.world_matrices_under(target, glam::Mat4::from(self.container), &mut self.worlds);
        self.worlds.iter().position(|m| !within_extent(m))
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
    use crate::retarget::test_rigs::chain;

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
}
