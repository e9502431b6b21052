//! Fitting the solve to one clip before it is retargeted: the source's floor where its feet
//! stand and each foot's neutral tilt (`feet`). Only the joints those read are placed, down
//! their own root paths: a full forward kinematics pass per frame cost as much as the
//! retarget itself.

use super::Retargeter;
use super::plan::RotationSolve;
use crate::core::clip::Clip;
use crate::core::pose::Pose;
use crate::core::reference::rotation_of;
use crate::core::sampler::{CompiledClip, Cursor};
use crate::core::skeleton::Skeleton;
use glam::{Affine3A, Quat, Vec3};

/// The most frames a fit samples (a longer clip is sampled evenly at this many).
const MAX_FIT_FRAMES: usize = 2000;

impl Retargeter {
    /// Fits the solve to `clip`, sampled once: the source's floor where its feet stand (the
    /// lowest they reach), so a clip whose rest pose floats or sinks still lands its feet on
    /// the target's floor, and each foot's neutral tilt from its planted frames (`feet`).
    pub fn fit_clip(&mut self, source: &Skeleton, clip: &Clip) {
        let compiled = CompiledClip::new(clip);
        self.fit_compiled(source, &compiled, clip.frame_count());
    }

    /// [`Self::fit_clip`] on the clip's compiled form (`frames`: its longest track's keys).
    pub(crate) fn fit_compiled(&mut self, source: &Skeleton, clip: &CompiledClip, frames: usize) {
        let mut joints: Vec<usize> = self.feet.iter().map(|f| f.source_foot).collect();
        for r in &self.roots {
            joints.extend(r.source_feet());
        }
        let sampled = SampledClip::new(source, self.source_container, clip, frames, &joints);
        for fit in &self.feet {
            let offset = sampled
                .track(fit.source_foot)
                .and_then(|(positions, turns)| {
                    fit.fitted_offset(positions, turns, self.source_height, sampled.dt)
                })
                .unwrap_or(fit.offset);
            self.rotations[fit.target] = RotationSolve::Mapped {
                source: fit.source_foot,
                offset,
            };
        }
        for r in &mut self.roots {
            let floor = r.source_feet().iter().filter_map(|&f| sampled.track(f));
            let lowest = floor
                .flat_map(|(positions, _)| positions.iter().map(|p| p.y))
                .filter(|y| y.is_finite())
                .reduce(f32::min);
            if let Some(floor) = lowest {
                r.source_floor = floor;
                if self.same_rig {
                    // One body (perhaps rescaled about its origin): it stands where the
                    // source stands, in its own scale.
                    r.target_floor = floor * r.scale;
                }
            }
        }
    }
}

/// A source clip sampled for the fit: per joint asked for, its world position and rotation
/// per frame.
struct SampledClip {
    joints: Vec<usize>,
    positions: Vec<Vec<Vec3>>,
    turns: Vec<Vec<Quat>>,
    dt: f32,
}

impl SampledClip {
    fn new(
        source: &Skeleton,
        container: Affine3A,
        clip: &CompiledClip,
        frames: usize,
        joints: &[usize],
    ) -> Self {
        let mut joints = joints.to_vec();
        joints.sort_unstable();
        joints.dedup();
        // The joints asked for and their ancestors, the only ones forward kinematics places.
        let mut placed = vec![false; source.len()];
        for &j in &joints {
            let mut at = Some(j);
            while let Some(k) = at.filter(|&k| !placed[k]) {
                placed[k] = true;
                at = source.parents()[k];
            }
        }
        let frames = frames.clamp(2, MAX_FIT_FRAMES);
        let dt = clip.duration_secs() / (frames - 1) as f32;
        let mut cursor = Cursor::new(clip);
        // Sampling writes the placed joints each frame; the others keep their rest.
        let mut pose = Pose::rest(source);
        let mut world = vec![Affine3A::IDENTITY; source.len()];
        let mut positions = vec![Vec::with_capacity(frames); joints.len()];
        let mut turns = vec![Vec::with_capacity(frames); joints.len()];
        for k in 0..frames {
            let t = clip.start_secs() + k as f32 * dt;
            clip.sample_some(t, &mut cursor, &mut pose, &placed);
            for (j, parent) in source.parents().iter().enumerate() {
                if placed[j] {
                    let up = parent.map_or(container, |p| world[p]);
                    world[j] = up * super::fk::local(&pose, j);
                }
            }
            for (s, &j) in joints.iter().enumerate() {
                positions[s].push(Vec3::from(world[j].translation));
                turns[s].push(rotation_of(glam::Mat4::from(world[j])));
            }
        }
        Self {
            joints,
            positions,
            turns,
            dt,
        }
    }

    /// Joint `joint`'s world positions and rotations, when it was sampled.
    fn track(&self, joint: usize) -> Option<(&[Vec3], &[Quat])> {
        let s = self.joints.binary_search(&joint).ok()?;
        Some((&self.positions[s], &self.turns[s]))
    }
}
