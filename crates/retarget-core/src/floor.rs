//! Where a figure stands over its own motion: the lowest height its feet reach over its
//! clips. A file whose every frame places the root (BVH) has no rest pose to stand on: its
//! zero pose puts the root at the root OFFSET, which CMU leaves at 0 (the feet then hang a
//! leg length below the floor) and other files set to hip height. Only the motion says
//! where the floor is, as it does for a source clip (`Retargeter::fit_clip`).

use super::clip::Clip;
use super::pose::Pose;
use super::skeleton::Skeleton;
use glam::Mat4;

/// One time per frame of `clip`: its keys' span in `frame_count` even steps (a BVH's
/// frames). None for a clip without keys.
pub fn frame_times(clip: &Clip) -> impl Iterator<Item = f32> + '_ {
    clip.even_times(clip.frame_count())
}

/// The lowest of `joints` in `each` ([`lowest_of_each`]'s figures): `None` without joints,
/// or without a finite height, and the caller then keeps the floor it had.
pub fn lowest_of(each: &[Option<f32>], joints: &[usize]) -> Option<f32> {
    let heights = joints
        .iter()
        .filter_map(|&j| each.get(j).copied().flatten());
    heights.reduce(f32::min)
}

/// Per joint, the lowest finite height (world y, under `container`) it reaches over every
/// frame of `clips`, each frame played over the rest pose; `None` where it has none.
pub fn lowest_of_each(skeleton: &Skeleton, container: Mat4, clips: &[&Clip]) -> Vec<Option<f32>> {
    let rest = Pose::rest(skeleton);
    let mut pose = rest.clone();
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    let mut lowest: Vec<Option<f32>> = vec![None; skeleton.len()];
    for clip in clips.iter().filter(|c| c.tracks().len() == skeleton.len()) {
        for t in frame_times(clip) {
            pose.copy_from(&rest);
            clip.sample(t, &mut pose);
            pose.world_matrices_under(skeleton, container, &mut world);
            for (low, m) in lowest.iter_mut().zip(&world) {
                let y = m.w_axis.y;
                if y.is_finite() {
                    *low = Some(low.map_or(y, |l| l.min(y)));
                }
            }
        }
    }
    lowest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Interpolation, JointTracks, Track};
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use glam::Vec3;

    /// The lowest height any of `joints` reaches over every frame of `clips`.
    fn lowest_over_clips(
        skeleton: &Skeleton,
        container: Mat4,
        clips: &[&Clip],
        joints: &[usize],
    ) -> Option<f32> {
        lowest_of(&lowest_of_each(skeleton, container, clips), joints)
    }

    /// A root at the origin (as CMU's OFFSET 0) with a foot 0.9 below it.
    fn figure() -> Skeleton {
        let joints = vec![
            JointDef::new("Hips", None, Transform::IDENTITY),
            JointDef::new(
                "Foot",
                Some(0),
                Transform::from_translation(Vec3::new(0.0, -0.9, 0.0)),
            ),
        ];
        Skeleton::new("figure", Mat4::IDENTITY, joints).unwrap()
    }

    /// The root keyed at these heights, one per frame at 30 fps.
    fn root_at(heights: &[f32]) -> Clip {
        let times: Vec<f32> = (0..heights.len()).map(|k| k as f32 / 30.0).collect();
        let values = heights.iter().map(|&y| Vec3::new(0.0, y, 0.0)).collect();
        let root = JointTracks {
            translation: Some(Track::new(times, values, Interpolation::Linear).unwrap()),
            ..Default::default()
        };
        Clip::new("walk", vec![root, JointTracks::default()], None)
    }

    #[test]
    fn the_floor_is_the_lowest_the_feet_reach_in_the_motion_not_in_the_zero_pose() {
        let s = figure();
        let clip = root_at(&[1.0, 0.95, 0.97]);
        let got = lowest_over_clips(&s, Mat4::IDENTITY, &[&clip], &[1]).unwrap();
        assert!((got - 0.05).abs() < 1e-6, "{got}");
        // Under a container (a unit, a lift), in its world.
        let container = Mat4::from_translation(Vec3::Y) * Mat4::from_scale(Vec3::splat(0.01));
        let got = lowest_over_clips(&s, container, &[&clip], &[1]).unwrap();
        assert!((got - 1.0005).abs() < 1e-6, "{got}");
    }

    #[test]
    fn every_clip_counts_and_heights_past_f32_do_not() {
        let s = figure();
        // Keys near f32::MAX overflow under a ×10 container: those frames are left out.
        let (a, b) = (root_at(&[1.0, 3e38]), root_at(&[0.92, -3e38]));
        let ten = Mat4::from_scale(Vec3::splat(10.0));
        let got = lowest_over_clips(&s, ten, &[&a, &b], &[1]).unwrap();
        assert!((got - 0.2).abs() < 1e-5, "{got}");
        let huge = root_at(&[-3e38]);
        assert_eq!(lowest_over_clips(&s, ten, &[&huge], &[1]), None);
    }

    #[test]
    fn no_frames_no_feet_or_no_finite_height_say_nothing() {
        let s = figure();
        let empty = Clip::new("empty", vec![JointTracks::default(); 2], None);
        assert_eq!(lowest_over_clips(&s, Mat4::IDENTITY, &[&empty], &[1]), None);
        assert_eq!(lowest_over_clips(&s, Mat4::IDENTITY, &[], &[1]), None);
        let clip = root_at(&[1.0]);
        assert_eq!(lowest_over_clips(&s, Mat4::IDENTITY, &[&clip], &[]), None);
        assert_eq!(lowest_over_clips(&s, Mat4::IDENTITY, &[&clip], &[7]), None);
    }

    #[test]
    fn one_frame_is_its_start() {
        let clip = root_at(&[1.0]);
        assert_eq!(frame_times(&clip).collect::<Vec<_>>(), vec![0.0]);
        let clip = root_at(&[1.0, 1.0, 1.0]);
        let times: Vec<f32> = frame_times(&clip).collect();
        assert_eq!(times.len(), 3);
        assert!((times[2] - 2.0 / 30.0).abs() < 1e-6);
    }
}
