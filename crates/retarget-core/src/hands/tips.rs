//! Where each fingertip points in the palm frame, so fingers with other joint counts can be
//! compared by their ends: the last segment's direction and how far the finger has closed.

use super::shape::palm_frame;
use super::{Digit, Hand};
use crate::reference::rotation_of;
use crate::skeleton::Skeleton;
use glam::{Mat4, Vec3};

/// One digit's last segment in its palm frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tip {
    pub digit: Digit,
    /// The last segment's unit direction in the palm frame.
    pub direction: Vec3,
    /// Its angle from the palm's x (the line from the hand to the middle finger's base),
    /// radians: how far the finger has closed at its tip.
    pub closed: f32,
}

/// Each digit's tip in the palm frame of `palm` (hand, middle base, index base, outer base)
/// at the pose whose world matrices are `world`. The last segment is the digit's last joint's
/// bone: along the axis of its own frame that its parent's offset to it lies along in the
/// parent's (the `reference` world matrices give that offset), so a distal bone with no tip
/// (a leaf) points where its own turn points it.
pub fn tips(
    skeleton: &Skeleton,
    hand: &Hand,
    palm: [usize; 4],
    world: &[Mat4],
    reference: &[Mat4],
) -> Vec<Tip> {
    let at = |w: &[Mat4], j: usize| w[j].w_axis.truncate();
    let Some(frame) = palm_frame(
        at(world, palm[0]),
        at(world, palm[1]),
        at(world, palm[2]),
        at(world, palm[3]),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for digit in Digit::ALL {
        let joints = hand.digit(digit);
        let Some(&last) = joints.last() else { continue };
        let Some(along) = bone_direction(skeleton, reference, world, last) else {
            continue;
        };
        let Some(direction) = (frame.transpose() * along).try_normalize() else {
            continue;
        };
        out.push(Tip {
            digit,
            direction,
            closed: direction.x.clamp(-1.0, 1.0).acos(),
        });
    }
    out
}

/// The world direction of `joint`'s bone in the pose of `world`: along the axis of its own
/// frame that its parent's offset to it lies along in the parent's frame at `reference` (the
/// rig's bone axis: Blender's Y, a VRM's world axes), so a leaf bone (a distal phalanx with
/// no tip) points where its own turn points it, and a tip joint (`_End`) at no turn
/// continues the segment before it. `None` for a root or a joint at its parent.
pub fn bone_direction(
    skeleton: &Skeleton,
    reference: &[Mat4],
    world: &[Mat4],
    joint: usize,
) -> Option<Vec3> {
    let parent = skeleton.parents()[joint]?;
    let at = |w: &[Mat4], j: usize| w[j].w_axis.truncate();
    let offset =
        rotation_of(reference[parent]).inverse() * (at(reference, joint) - at(reference, parent));
    (rotation_of(world[joint]) * offset).try_normalize()
}
