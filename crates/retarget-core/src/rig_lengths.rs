//! Bones whose bind pose alone gives them another length than the rig has.
//!
//! A skin's bind matrices record where each joint was when the mesh was bound. A joint moved
//! along its bone afterwards (Maya's Kenney character: each index finger's first joint slid
//! 4 cm towards the hand, its second joint kept in place) leaves the bind saying the old
//! length while the nodes, and every clip keyed on them, say the new one; every reader of the
//! file (Blender, Maya, ufbx) shows the rig at the new. A reference pose taken from the bind
//! would carry the stale length into every frame of a retarget, the bone stretched against
//! the target's own animation.

use crate::clip::Clip;
use crate::floor::frame_times;
use crate::pose::Pose;
use crate::skeleton::Skeleton;
use glam::{Mat4, Vec3};

/// Lengths closer than this share of the figure's size are one length (float noise of a
/// bind matrix inverted and composed again).
const SAME: f32 = 1e-4;

/// The least share of its bone a joint must have moved along it after binding to be taken
/// for moved: an edit of the rig (Kenney's fingers: 31 %), not the few per cent an
/// exporter's bind and rest disagree by (CesiumMan's FBX, whose bind the glTF shares).
const MOVED: f32 = 0.1;

/// Per joint whose bone (to its parent) has one length in the rig's own poses — the rest
/// and every frame of `clips` — and another in the bind pose: `(joint, length)`, the rig's
/// length in skeleton space. Joints hung from the top of the hierarchy place the body
/// (root motion, IK targets) rather than shape it and are left alone, as is a bone whose
/// length the rig's motion changes: there the bind says as much as any frame.
pub fn stale_bind_lengths(skeleton: &Skeleton, clips: &[&Clip]) -> Vec<(usize, f32)> {
    let parents = skeleton.parents();
    let rest = Pose::rest(skeleton);
    let rest_world = worlds(skeleton, &rest);
    let bind_world = worlds(skeleton, &Pose::bind(skeleton));
    let size = extent(&rest_world);
    let tolerance = SAME * size;
    let length = |w: &[Mat4], j: usize, p: usize| w[j].w_axis.distance(w[p].w_axis);
    let mut stale: Vec<(usize, f32)> = (0..skeleton.len())
        .filter_map(|j| {
            let p = parents[j]?;
            parents[p]?;
            let rig = length(&rest_world, j, p);
            let bound = length(&bind_world, j, p);
            let moved = (rig - bound).abs();
            (moved > tolerance && moved > MOVED * rig.max(bound)).then_some((j, rig))
        })
        .collect();
    if stale.is_empty() {
        return stale;
    }
    let mut pose = rest.clone();
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    for clip in clips.iter().filter(|c| c.tracks().len() == skeleton.len()) {
        for t in frame_times(clip) {
            pose.copy_from(&rest);
            clip.sample(t, &mut pose);
            pose.world_matrices_under(skeleton, Mat4::IDENTITY, &mut world);
            stale.retain(|&(j, rig)| {
                let p = parents[j].expect("stale joints have parents");
                (length(&world, j, p) - rig).abs() <= tolerance
            });
            if stale.is_empty() {
                return stale;
            }
        }
    }
    stale
}

/// The bind pose where the rig rests ([`Pose::bind_in_place`]) with its bones at the rig's
/// lengths ([`at_rig_lengths`]): the reference pose "bind", and the target's own pose for
/// quality.
pub fn bind_pose(skeleton: &Skeleton, clips: &[&Clip]) -> Pose {
    let mut pose = Pose::bind_in_place(skeleton);
    at_rig_lengths(skeleton, clips, &mut pose);
    pose
}

/// `pose` (a bind pose: [`Pose::bind_in_place`]) with every bone of
/// [`stale_bind_lengths`] at the rig's length, along the bind's direction: the shape the
/// skin was bound in, with the bones the rig moves. A bone of no length in the bind takes
/// the rest's offset.
pub fn at_rig_lengths(skeleton: &Skeleton, clips: &[&Clip], pose: &mut Pose) {
    let stale = stale_bind_lengths(skeleton, clips);
    if stale.is_empty() {
        return;
    }
    // Only translations change below: every joint's world rotation and scale, which turn
    // and size its children's offsets, stay the pose's own.
    let world = worlds(skeleton, pose);
    for (j, rig) in stale {
        let p = skeleton.parents()[j].expect("stale joints have parents");
        let offset = pose.translations[j];
        let bound = world[p].transform_vector3(offset).length();
        pose.translations[j] = if bound > f32::EPSILON * rig.max(1.0) {
            offset * (rig / bound)
        } else {
            skeleton.rest()[j].translation
        };
    }
}

fn worlds(skeleton: &Skeleton, pose: &Pose) -> Vec<Mat4> {
    let mut out = vec![Mat4::IDENTITY; skeleton.len()];
    pose.world_matrices_under(skeleton, Mat4::IDENTITY, &mut out);
    out
}

/// The largest side of the box around the joints.
fn extent(world: &[Mat4]) -> f32 {
    let (lo, hi) = world.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), m| {
        (lo.min(m.w_axis.truncate()), hi.max(m.w_axis.truncate()))
    });
    (hi - lo).max_element().max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Interpolation, JointTracks, Track};
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use glam::Quat;

    /// Hand, finger base, finger middle and tip along +X under a root: the base bound 4
    /// units out and moved to 2 afterwards, the middle kept in place (bound 2 past the base,
    /// now 4); the tip's bind agrees with its rest.
    fn finger() -> Skeleton {
        let at = |x: f32| Transform::from_translation(Vec3::new(x, 0.0, 0.0));
        let turned = |x: f32| Transform {
            rotation: Quat::from_rotation_z(0.3),
            ..at(x)
        };
        let defs = vec![
            JointDef::new("root", None, at(0.0)),
            JointDef::new("hand", Some(0), turned(10.0)),
            JointDef {
                bind: at(4.0),
                ..JointDef::new("base", Some(1), at(2.0))
            },
            JointDef {
                bind: at(2.0),
                ..JointDef::new("middle", Some(2), at(4.0))
            },
            JointDef::new("tip", Some(3), at(3.0)),
        ];
        Skeleton::new("finger", Mat4::IDENTITY, defs).unwrap()
    }

    /// The stale joints, lengths to 1e-5.
    fn stale(s: &Skeleton, clips: &[&Clip]) -> Vec<(usize, f32)> {
        let round = |l: f32| (l * 1e5).round() / 1e5;
        let found = stale_bind_lengths(s, clips);
        found.into_iter().map(|(j, l)| (j, round(l))).collect()
    }

    fn keyed_base(x: &[f32]) -> Clip {
        let times: Vec<f32> = (0..x.len()).map(|i| i as f32).collect();
        let mut tracks = vec![JointTracks::default(); 5];
        let values = x.iter().map(|&x| Vec3::new(x, 0.0, 0.0)).collect();
        tracks[2].translation = Some(Track::new(times, values, Interpolation::Linear).unwrap());
        Clip::new("keyed", tracks, Some(1.0))
    }

    #[test]
    fn a_joint_moved_after_binding_keeps_the_rigs_length_in_the_bind_shape() {
        let s = finger();
        assert_eq!(stale(&s, &[]), [(2, 2.0), (3, 4.0)]);
        let mut pose = Pose::bind(&s);
        at_rig_lengths(&s, &[], &mut pose);
        assert!(pose.translations[2].abs_diff_eq(Vec3::new(2.0, 0.0, 0.0), 1e-5));
        assert!(pose.translations[3].abs_diff_eq(Vec3::new(4.0, 0.0, 0.0), 1e-5));
        // Rotations, the tip and the hand are the bind's.
        assert_eq!(pose.rotations, Pose::bind(&s).rotations);
        assert_eq!(pose.translations[4], Pose::bind(&s).translations[4]);
        // A clip that keys the base at the rest's offset agrees: still the rig's.
        let rigid = keyed_base(&[2.0, 2.0, 2.0]);
        assert_eq!(stale(&s, &[&rigid]), [(2, 2.0), (3, 4.0)]);
    }

    #[test]
    fn a_bone_the_motion_stretches_keeps_its_bind() {
        let s = finger();
        // The clip slides the base: hand→base has no one length; base→middle does.
        let sliding = keyed_base(&[2.0, 3.0, 4.0]);
        assert_eq!(stale(&s, &[&sliding]), [(3, 4.0)]);
        // Keyed at the bind's length throughout, the rest alone is the odd one out.
        let at_bind = keyed_base(&[4.0, 4.0]);
        assert_eq!(stale(&s, &[&at_bind]), [(3, 4.0)]);
    }

    #[test]
    fn a_joint_hung_from_the_top_is_left_alone() {
        let s = finger();
        // hand (under the root) bound elsewhere: it places the body, not a bone of it.
        let mut defs = s.joint_defs();
        defs[1].bind.translation = Vec3::new(12.0, 0.0, 0.0);
        let moved = Skeleton::new("finger", Mat4::IDENTITY, defs).unwrap();
        assert_eq!(stale(&moved, &[]), [(2, 2.0), (3, 4.0)]);
    }
}
