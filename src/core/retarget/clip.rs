//! Whole clips: sample the source at the output rate, solve each frame, key the result.

use super::{MAX_FRAMES, RetargetError, Retargeter};
use crate::core::clip::{Clip, Interpolation, JointTracks, Track};
use crate::core::pose::Pose;
use crate::core::sampler::{CompiledClip, Cursor};
use crate::core::skeleton::{MAX_EXTENT, Skeleton};
use glam::Quat;

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
    pub fn retarget_clip(
        &mut self,
        source: &Skeleton,
        clip: &Clip,
        target: &Skeleton,
        options: &RetargetClipOptions,
    ) -> Result<Clip, RetargetError> {
        let (fps, frames) = output_frames(clip, options)?;
        let solved = self.solve_frames(source, clip, target, frames);
        let Solved {
            times,
            mut poses,
            feet,
            reached,
        } = solved;
        let n = target.len();
        let mut worlds = vec![glam::Mat4::IDENTITY; n];
        self.last_plant = self.plant(target, &mut poses, &times, &feet);
        self.last_plant.reach_missed = self.reach_poses(target, &mut poses, &reached);
        if self.solve.mirror {
            self.mirror_poses(target, &mut poses);
        }
        let mut rotations = vec![Vec::with_capacity(frames); n];
        let mut translations = vec![Vec::with_capacity(frames); n];
        for (pose, &t) in poses.iter().zip(&times) {
            pose.world_matrices_into(target, &mut worlds);
            if let Some(j) = worlds.iter().position(|m| !within_extent(m)) {
                return Err(RetargetError::Overflow {
                    joint: target.names()[j].clone(),
                    time: t,
                });
            }
            for j in 0..n {
                rotations[j].push(pose.rotations[j]);
                translations[j].push(pose.translations[j]);
            }
        }
        let mut moving = vec![false; n];
        for j in self.moving_joints() {
            moving[j] = true;
        }
        let tracks = (0..n)
            .map(|j| {
                make_continuous(&mut rotations[j]);
                let reference = &self.target_reference;
                let rest = target.rest()[j];
                let translation = (moving[j]
                    || !reference.translations[j].abs_diff_eq(rest.translation, 1e-6))
                .then(|| keyed(&times, std::mem::take(&mut translations[j])));
                let scale = (!reference.scales[j].abs_diff_eq(rest.scale, 1e-6))
                    .then(|| keyed(&times, vec![reference.scales[j]; times.len()]));
                JointTracks {
                    translation,
                    rotation: Some(keyed(&times, std::mem::take(&mut rotations[j]))),
                    scale,
                }
            })
            .collect();
        Ok(Clip::new(clip.name.clone(), tracks, Some(fps)))
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
    /// Fits the solve to `clip` and solves `frames` frames spread evenly over it, sampling
    /// the clip through its compiled form with one cursor (no search per track and frame).
    pub(super) fn solve_frames(
        &mut self,
        source: &Skeleton,
        clip: &Clip,
        target: &Skeleton,
        frames: usize,
    ) -> Solved {
        let compiled = CompiledClip::new(clip);
        self.fit_compiled(source, &compiled, clip.frame_count());
        // Spread frames evenly over the clip's own span, so that at the source's rate the
        // output keys land exactly on its keys (a BVH's 0.008333 s is not quite 1/120).
        let step = clip.duration_secs() / (frames.max(2) - 1) as f32;
        let times: Vec<f32> = (0..frames)
            .map(|k| clip.start_secs() + k as f32 * step)
            .collect();
        let mut cursor = Cursor::new(&compiled);
        let mut source_pose = Pose::rest(source);
        let rest = Pose::rest(source);
        let mut target_pose = Pose::rest(target);
        let mut poses = Vec::with_capacity(frames);
        let mut source_world = vec![glam::Mat4::IDENTITY; source.len()];
        let mut feet = vec![Vec::with_capacity(frames); self.legs.len()];
        let mut reached = vec![Vec::with_capacity(frames); self.reach.len()];
        let source_container = glam::Mat4::from(self.source_container);
        let planting = self.solve.plant_feet && !self.legs.is_empty();
        for &t in &times {
            source_pose.copy_from(&rest);
            compiled.sample(t, &mut cursor, &mut source_pose);
            self.retarget_pose(&source_pose, &mut target_pose);
            // Source positions only for a pass that uses them: the frame-by-frame solve
            // (the runtime's default) pays nothing here.
            if !self.reach.is_empty() {
                source_pose.world_matrices_under(source, source_container, &mut source_world);
                self.push_reach_sources(&source_world, &mut reached);
            }
            if planting {
                // Down each source foot's own path: no full forward kinematics.
                for (leg, track) in self.legs.iter().zip(&mut feet) {
                    let at = super::root::chain_world(
                        self.source_container,
                        &leg.source_chain,
                        &source_pose,
                    );
                    track.push(glam::Vec3::from(at.translation));
                }
            }
            poses.push(target_pose.clone());
        }
        Solved {
            times,
            poses,
            feet,
            reached,
        }
    }

    /// The mirror of the target's poses as this solve's settings ask (plane, hips, twins).
    pub fn mirror(&self, target: &Skeleton) -> crate::core::mirror::Mirror {
        let reference = crate::core::ReferencePose {
            locals: self.target_reference.clone(),
            container: glam::Mat4::from(self.target_container),
        };
        crate::core::mirror::Mirror::new(
            target,
            &reference,
            self.mirror_twins.clone(),
            self.roots.first().map(|r| r.pelvis()),
            &self.solve.mirror_plane,
        )
    }

    /// Mirrors every solved pose on the target, after planting (as the crowd paper does:
    /// on the target skeleton, after retargeting).
    fn mirror_poses(&self, target: &Skeleton, poses: &mut [Pose]) {
        let mut mirror = self.mirror(target);
        let mut out = Pose::rest(target);
        for pose in poses {
            mirror.apply(pose, &mut out);
            pose.copy_from(&out);
        }
    }
}

/// Finite and within what a skeleton may hold ([`MAX_EXTENT`]) once a writer has changed
/// its unit (metres to millimetres), so that the clip written reads back.
fn within_extent(m: &glam::Mat4) -> bool {
    m.to_cols_array()
        .iter()
        .all(|v| v.abs() <= MAX_EXTENT / 1000.0)
}

fn keyed<T: crate::core::clip::Keyframe>(times: &[f32], values: Vec<T>) -> Track<T> {
    // Times are sorted by construction and values were checked finite frame by frame.
    Track::new(times.to_vec(), values, Interpolation::Linear)
        .unwrap_or_else(|e| unreachable!("retargeted keys are valid: {e}"))
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
}
