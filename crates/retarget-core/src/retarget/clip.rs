//! Whole clips: sample the source at the output rate, solve each frame, key the result.

use super::keys::Keys;
use super::legs::plant;
use super::{MAX_FRAMES, RetargetError, Retargeter};
use crate::clip::Clip;
use crate::pose::Pose;
use crate::sampler::TrackReader;
use crate::skeleton::Skeleton;
use glam::Quat;

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
        let (fps, times) = self.output_times(clip, options)?;
        let frames = times.len();
        // The keys after the fit, which tilts the feet and with them the copies under them.
        let job = self.fitted_to(source, clip);
        let reader = TrackReader::new(clip);
        let still = job.still_translations(source, clip, target);
        let mut keys = Keys::new(&job, target, frames, &still);
        let mut report = plant::PlantReport::default();
        let times = if job.plan.solve.plant_feet && !job.plan.legs.is_empty()
            || !job.plan.reach.is_empty()
            || job.holds_hands()
            || job.keeps_out()
        {
            // Planting needs the whole clip solved before any frame is final.
            let solved = job.solve_frames(source, &reader, target, times);
            let Solved {
                times,
                mut poses,
                feet,
                reached,
                hands,
            } = solved;
            report = job.plant(target, &mut poses, &times, &feet);
            report.reach_missed = job.reach_poses(target, &mut poses, &reached);
            // The source's hand contacts first; then limbs out of the body, hands that hold
            // each other moved out together so the grip stays.
            let mut joined = Vec::new();
            if job.holds_hands() {
                report.hand_contacts = job.hold_hands(target, &mut poses, &times, &hands);
                joined = job.joined_hands(&report.hand_contacts, times.len(), &times);
            }
            job.keep_out(source, &reader, target, &mut poses, &times, &joined);
            job.settle_twists(target, &mut poses);
            poses.iter_mut().for_each(|pose| job.place_carried(pose));
            job.follow_ik_bones(&mut poses);
            for (pose, &t) in poses.iter().zip(&times) {
                keys.push(pose, t)?;
            }
            times
        } else {
            // Frame by frame: each solved pose goes straight into the keys.
            job.solve_each(source, &reader, target, times, |_, _, pose, t| {
                keys.push(pose, t)
            })?
        };
        Ok(RetargetedClip {
            clip: keys.into_clip(&job, target, clip.name.clone(), times, fps),
            plant: report,
        })
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

impl Retargeter {
    /// The output's rate and frame times for `clip`: spread evenly at the rate (`output_frames`),
    /// but with no rate asked for, one body on both sides keeps the clip's own key times (an
    /// FBX keyed off its frames, a glTF at 24 fps whose first key is at 1/30 s), so the
    /// clip comes back keyed where it was; and a clip keyed at least as densely as its rate
    /// keeps them onto any target (Unity's mocap keys its jumps every 1/120 s between its
    /// 1/30 s frames: sampled at the rate, the take lost the jump's detail). A clip keyed more
    /// sparsely than its rate (a spline every half second) is sampled at the rate.
    pub(super) fn output_times(
        &self,
        clip: &Clip,
        options: &RetargetClipOptions,
    ) -> Result<(f32, Vec<f32>), RetargetError> {
        let (fps, frames) = output_frames(clip, options)?;
        if options.fps.is_none() {
            let own = clip.key_times();
            let dense = self.plan.same_rig || own.len() >= frames;
            if dense && own.len() >= 2 && own.len() <= MAX_FRAMES {
                return Ok((fps, own));
            }
        }
        Ok((fps, clip.even_times(frames).collect()))
    }
}

/// A clip solved frame by frame, before the clip-level passes.
pub(super) struct Solved {
    pub times: Vec<f32>,
    pub poses: Vec<Pose>,
    /// Per leg, the source foot's world position per frame (when planting is on).
    pub feet: Vec<Vec<glam::Vec3>>,
    pub reached: Vec<Vec<glam::Vec3>>,
    /// The source's hands and body points per frame, when hand contacts are kept.
    pub hands: super::arms::hold::SourceTracks,
}

impl Retargeter {
    /// Solves `clip` at `times` (`solve_each`) and keeps every pose, with what the
    /// clip-level passes read: the source feet's and reach ends' world positions.
    pub(super) fn solve_frames(
        &self,
        source: &Skeleton,
        clip: &TrackReader,
        target: &Skeleton,
        times: Vec<f32>,
    ) -> Solved {
        let frames = times.len();
        let mut poses = Vec::with_capacity(frames);
        let mut source_world = vec![glam::Mat4::IDENTITY; source.len()];
        let mut feet = vec![Vec::with_capacity(frames); self.plan.legs.len()];
        let mut reached = vec![Vec::with_capacity(frames); self.plan.reach.len()];
        let planting = self.plan.solve.plant_feet && !self.plan.legs.is_empty();
        let arms = self.plan.arms.as_ref().filter(|_| self.holds_hands());
        let mut hands =
            vec![Vec::with_capacity(frames); arms.map_or(0, |a| a.source_chains().count())];
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
            for (chain, track) in arms.iter().flat_map(|a| a.source_chains()).zip(&mut hands) {
                track.push(super::root::chain_world(container, chain, source_pose));
            }
            poses.push(target_pose.clone());
            Ok::<_, std::convert::Infallible>(())
        };
        let Ok(times) = self.solve_each(source, clip, target, times, each);
        Solved {
            times,
            poses,
            feet,
            reached,
            hands,
        }
    }

    /// Solves `clip` at `times` (fitted to it: `fitted`) and hands
    /// each to `each` (the solver, the source pose, the target pose, the time), sampling the
    /// clip in place with one cursor (no search per track and frame).
    /// Returns the frames' times, or `each`'s first error.
    fn solve_each<E>(
        &self,
        source: &Skeleton,
        reader: &TrackReader,
        target: &Skeleton,
        times: Vec<f32>,
        mut each: impl FnMut(&Self, &Pose, &Pose, f32) -> Result<(), E>,
    ) -> Result<Vec<f32>, E> {
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
            stance_height: None,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Interpolation, JointTracks, Track};
    use crate::retarget::keys::BURST;
    use crate::retarget::test_rigs::chain;
    use glam::Vec3;

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

    /// A clip keyed every 1/120 s through part of its 1/30 s frames (Unity's mocap) keeps
    /// its key times onto another rig; one keyed every half second is sampled at its rate.
    #[test]
    fn a_clip_keyed_densely_keeps_its_key_times_and_a_sparse_one_its_rate() {
        use crate::mapping::BoneMap;
        use crate::reference::ReferencePose;
        let s = chain(3, glam::Mat4::IDENTITY);
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let r = Retargeter::new(&s, &reference, &s, &reference, &BoneMap::identity(3)).unwrap();
        let clip = |times: Vec<f32>| {
            let turns = times.iter().map(|&t| Quat::from_rotation_y(t)).collect();
            let track = Track::new(times, turns, Interpolation::Linear).unwrap();
            let mut tracks = vec![JointTracks::default(); 3];
            tracks[1].rotation = Some(track);
            Clip::new("jump", tracks, Some(30.0))
        };
        let options = RetargetClipOptions::default();
        let out_times = |c: &Clip| {
            r.retarget_clip(&s, c, &s, &options)
                .unwrap()
                .clip
                .key_times()
        };
        let mut dense: Vec<f32> = (0..30).map(|k| k as f32 / 30.0).collect();
        dense.extend((1..40).map(|k| 1.0 + k as f32 / 120.0));
        let out = out_times(&clip(dense.clone()));
        assert_eq!(out.len(), dense.len());
        for (a, b) in out.iter().zip(&dense) {
            assert!((a - b).abs() < 1e-5, "{a} against the source's {b}");
        }
        let sparse = out_times(&clip(vec![0.0, 0.5, 1.0]));
        assert_eq!(sparse.len(), 31, "1 s at 30 fps");
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
