//! Characterize ("characterize" in MotionBuilder's HumanIK): turn a rig's reference pose into
//! the canonical T-pose of the humanoid profile, so that any two rigs line up without a hand
//! edit. Facing +Z, +Y up, the character's left at +X: spine and neck straight up, arms
//! straight out along ±X, legs straight down, feet turned to point forward (only turned about
//! the vertical: how far a foot points down is the rig's shape, not its pose).
//!
//! Each labelled bone is turned, parents first, so that it points at the next labelled joint
//! of its chain; a bone with a left/right pair below it (hips over the upper legs, the chest
//! over the shoulders, a hand over its index and little fingers) is also turned about its own
//! axis so that pair lies along the canonical side axis. With both sides in this pose the
//! rest-relative solve makes every mapped bone point where its source bone points, whatever
//! the two rigs' rest poses were (A-pose, T-pose, or mocap whose zero pose lies along +X).

use super::humanoid::HumanBone;
use super::pose::Pose;
use super::reference::{ReferencePose, rotation_of, world_matrices_with};
use super::skeleton::Skeleton;
use glam::{Mat4, Quat, Vec3};

/// How a labelled bone is laid into the canonical pose.
struct Rule {
    /// Joints that continue the chain, in order of preference.
    next: &'static [HumanBone],
    /// The canonical direction towards the next joint.
    direction: Vec3,
    /// Only turn about the vertical axis (feet).
    yaw_only: bool,
    /// A left/right pair below the bone and the direction from right to left it should take.
    sides: Option<(&'static [HumanBone], &'static [HumanBone], Vec3)>,
}

fn rule(bone: HumanBone) -> Option<Rule> {
    use HumanBone::*;
    const UP: &[HumanBone] = &[Spine, Chest, UpperChest, Neck, Head];
    const SHOULDERS_L: &[HumanBone] = &[LeftShoulder, LeftUpperArm];
    const SHOULDERS_R: &[HumanBone] = &[RightShoulder, RightUpperArm];
    let line = |next, direction| Rule {
        next,
        direction,
        yaw_only: false,
        sides: None,
    };
    let torso = |next| Rule {
        sides: Some((SHOULDERS_L, SHOULDERS_R, Vec3::X)),
        ..line(next, Vec3::Y)
    };
    Some(match bone {
        Hips => Rule {
            sides: Some((&[LeftUpperLeg], &[RightUpperLeg], Vec3::X)),
            ..line(UP, Vec3::Y)
        },
        Spine => torso(&UP[1..]),
        Chest => torso(&UP[2..]),
        UpperChest => torso(&UP[3..]),
        Neck => line(&[Head], Vec3::Y),
        LeftShoulder => line(&[LeftUpperArm], Vec3::X),
        LeftUpperArm => line(&[LeftLowerArm], Vec3::X),
        LeftLowerArm => line(&[LeftHand], Vec3::X),
        RightShoulder => line(&[RightUpperArm], Vec3::NEG_X),
        RightUpperArm => line(&[RightLowerArm], Vec3::NEG_X),
        RightLowerArm => line(&[RightHand], Vec3::NEG_X),
        LeftHand => Rule {
            sides: Some((&[LeftIndexProximal], &[LeftLittleProximal], Vec3::Z)),
            ..line(
                &[LeftMiddleProximal, LeftIndexProximal, LeftRingProximal],
                Vec3::X,
            )
        },
        RightHand => Rule {
            sides: Some((&[RightIndexProximal], &[RightLittleProximal], Vec3::Z)),
            ..line(
                &[RightMiddleProximal, RightIndexProximal, RightRingProximal],
                Vec3::NEG_X,
            )
        },
        LeftUpperLeg => line(&[LeftLowerLeg], Vec3::NEG_Y),
        LeftLowerLeg => line(&[LeftFoot], Vec3::NEG_Y),
        RightUpperLeg => line(&[RightLowerLeg], Vec3::NEG_Y),
        RightLowerLeg => line(&[RightFoot], Vec3::NEG_Y),
        LeftFoot => Rule {
            yaw_only: true,
            ..line(&[LeftToes], Vec3::Z)
        },
        RightFoot => Rule {
            yaw_only: true,
            ..line(&[RightToes], Vec3::Z)
        },
        _ => return None,
    })
}

/// The joint a hand or foot belongs to along its limb. Some rigs hang these effectors from
/// the root instead (RobotExpressive's IK feet under `Bone`).
pub fn chain_parent(bone: HumanBone) -> Option<HumanBone> {
    use HumanBone::*;
    Some(match bone {
        LeftFoot => LeftLowerLeg,
        RightFoot => RightLowerLeg,
        LeftHand => LeftLowerArm,
        RightHand => RightLowerArm,
        _ => return None,
    })
}

/// An effector that is not below its limb in the hierarchy, with where it sits on the limb.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Attachment {
    pub effector: usize,
    pub anchor: usize,
    /// `anchor_from_effector` in the bind pose, where the skin says the two meet.
    pub offset: Mat4,
}

/// The effectors of `skeleton` that hang away from their limb.
pub fn attachments(skeleton: &Skeleton, labels: &[Option<HumanBone>]) -> Vec<Attachment> {
    let bind = world_matrices_with(skeleton, &Pose::bind(skeleton), Mat4::IDENTITY);
    let find = |b: HumanBone| labels.iter().position(|l| *l == Some(b));
    (0..skeleton.len().min(labels.len()))
        .filter_map(|effector| {
            let anchor = find(chain_parent(labels[effector]?)?)?;
            if skeleton.is_ancestor(anchor, effector) {
                return None;
            }
            Some(Attachment {
                effector,
                anchor,
                offset: bind[anchor].inverse() * bind[effector],
            })
        })
        .collect()
}

/// Puts each attached effector back on its limb in `reference`, as the skin was bound: the
/// limb's bones may have been turned (an A-pose laid into a T-pose) and the effector must
/// go with them, or the foot is left where the A-pose had it.
pub fn attach(skeleton: &Skeleton, attachments: &[Attachment], reference: &mut ReferencePose) {
    for a in attachments {
        let world = world_matrices_with(skeleton, &reference.locals, reference.container);
        let parent = skeleton.parents()[a.effector].map_or(reference.container, |p| world[p]);
        let local = parent.inverse() * world[a.anchor] * a.offset;
        // Only its place: the effector keeps its own turn, so a foot laid flat on the floor
        // stays flat when its shin is straightened above it.
        let translation = local.w_axis.truncate();
        if translation.is_finite() {
            reference.locals.translations[a.effector] = translation;
        }
    }
}

/// The first descendant of `joint` (or effector attached below it) labelled with one of
/// `bones` (in their order) that sits away from `joint` in `positions`.
fn labelled_below(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    positions: &[Vec3],
    joint: usize,
    bones: &[HumanBone],
) -> Option<usize> {
    let mut below = descendants(skeleton, joint);
    let attached: Vec<usize> = (0..labels.len())
        .filter(|&e| {
            labels[e]
                .and_then(chain_parent)
                .and_then(|b| labels.iter().position(|l| *l == Some(b)))
                .is_some_and(|anchor| anchor == joint || below.contains(&anchor))
        })
        .collect();
    below.extend(attached);
    bones.iter().find_map(|b| {
        below
            .iter()
            .copied()
            .find(|&d| labels[d] == Some(*b) && positions[d].distance(positions[joint]) > 1e-6)
    })
}

fn descendants(skeleton: &Skeleton, joint: usize) -> Vec<usize> {
    let mut out = Vec::new();
    let mut stack: Vec<usize> = skeleton.children(joint).collect();
    while let Some(c) = stack.pop() {
        out.push(c);
        stack.extend(skeleton.children(c));
    }
    out.sort_unstable();
    out
}

/// The world turn that lays one bone into the canonical pose, or `None` when it has no
/// chain to point along.
fn bone_turn(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    positions: &[Vec3],
    joint: usize,
    rule: &Rule,
    pre: Quat,
) -> Option<Quat> {
    let next = labelled_below(skeleton, labels, positions, joint, rule.next)?;
    let mut along = pre * (positions[next] - positions[joint]);
    if rule.yaw_only {
        along.y = 0.0;
    }
    let along = along.try_normalize()?;
    let mut turn = Quat::from_rotation_arc(along, rule.direction) * pre;
    if let Some((left, right, side)) = rule.sides {
        let pick = |bones| labelled_below(skeleton, labels, positions, joint, bones);
        if let (Some(l), Some(r)) = (pick(left), pick(right)) {
            let axis = rule.direction;
            let flat = |v: Vec3| (v - axis * v.dot(axis)).try_normalize();
            if let (Some(have), Some(want)) =
                (flat(turn * (positions[l] - positions[r])), flat(side))
            {
                let angle = have.cross(want).dot(axis).atan2(have.dot(want));
                turn = Quat::from_axis_angle(axis, angle) * turn;
            }
        }
    }
    Some(turn.normalize())
}

/// Per-joint rotation offsets (in the parent's space, to compose on the reference's local
/// rotations as `ReferencePose::new` and `Side::add_bone_offset` do) that lay `reference`
/// into the canonical T-pose. `labels` has one entry per joint. `reference` is updated too.
pub fn canonical_offsets(
    skeleton: &Skeleton,
    labels: &[Option<HumanBone>],
    reference: &mut ReferencePose,
) -> Vec<(usize, Quat)> {
    let attached = attachments(skeleton, labels);
    attach(skeleton, &attached, reference);
    let base: Vec<Quat> = world_matrices_with(skeleton, &reference.locals, reference.container)
        .iter()
        .map(|m| rotation_of(*m))
        .collect();
    let mut offsets = Vec::new();
    for joint in 0..skeleton.len().min(labels.len()) {
        let Some(rule) = labels[joint].and_then(rule) else {
            continue;
        };
        let world = world_matrices_with(skeleton, &reference.locals, reference.container);
        let positions: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
        // A foot first takes back the turn its straightened leg gave it: it stood flat on
        // the floor, and only its heading is the rig's pose.
        let pre = if rule.yaw_only {
            (base[joint] * rotation_of(world[joint]).inverse()).normalize()
        } else {
            Quat::IDENTITY
        };
        let turn = bone_turn(skeleton, labels, &positions, joint, &rule, pre)
            .or(rule.yaw_only.then_some(pre));
        let Some(turn) = turn else {
            continue;
        };
        if turn.angle_between(Quat::IDENTITY) < 1e-5 {
            continue;
        }
        let parent = skeleton.parents()[joint]
            .map_or(rotation_of(reference.container), |p| rotation_of(world[p]));
        let old = reference.locals.rotations[joint];
        let new = (parent.inverse() * turn * rotation_of(world[joint])).normalize();
        reference.locals.rotations[joint] = new;
        offsets.push((joint, (new * old.inverse()).normalize()));
        attach(skeleton, &attached, reference);
    }
    offsets
}

/// Whether a pose in world space (+Y up) stands upright: standing (`is_standing`) with the
/// hips-to-head line within 45° of +Y. A zero pose that stands along another axis than its
/// motion (a Y-up rest under a Z-up motion, tipped over by the turn that stands the motion
/// up) lies on its back. `None` as `is_standing`.
pub fn stands_upright(labels: &[Option<HumanBone>], positions: &[Vec3]) -> Option<bool> {
    let standing = is_standing(labels, positions)?;
    let hips = labels.iter().position(|l| *l == Some(HumanBone::Hips))?;
    let head = [HumanBone::Head, HumanBone::Neck, HumanBone::UpperChest]
        .iter()
        .find_map(|b| labels.iter().position(|l| *l == Some(*b)))?;
    let up = positions[head] - positions[hips];
    Some(standing && up.angle_between(Vec3::Y) < 45f32.to_radians())
}

/// Whether a pose stands as a figure does: the head above the hip point and the feet below
/// it, on one line within 45°. Mocap whose zero pose lies along +X (LAFAN1, Bandai Namco) does
/// not; its motion does. `None` without hips, a head (or neck) and a foot.
pub fn is_standing(labels: &[Option<HumanBone>], positions: &[Vec3]) -> Option<bool> {
    use HumanBone::*;
    let find = |bones: &[HumanBone]| {
        bones
            .iter()
            .find_map(|b| labels.iter().position(|l| *l == Some(*b)))
    };
    let hips = find(&[Hips])?;
    let head = find(&[Head, Neck, UpperChest])?;
    // The hip point: between the thighs where both are labelled (the VRM Add-on's rigs
    // keep the hips joint at the floor and hang the legs a metre above it).
    let hip = match [find(&[LeftUpperLeg]), find(&[RightUpperLeg])] {
        [Some(l), Some(r)] => (positions[l] + positions[r]) / 2.0,
        _ => positions[hips],
    };
    let feet: Vec<usize> = [LeftFoot, RightFoot, LeftLowerLeg, RightLowerLeg]
        .iter()
        .filter_map(|b| find(&[*b]))
        .take(2)
        .collect();
    if feet.is_empty() {
        return None;
    }
    let foot = feet.iter().map(|&f| positions[f]).sum::<Vec3>() / feet.len() as f32;
    let (up, down) = (positions[head] - hip, foot - hip);
    if up.length_squared() < 1e-12 || down.length_squared() < 1e-12 {
        return Some(false);
    }
    // Each foot below the hips, not only their mean: legs laid out to either side (Bandai
    // Namco's zero pose, one leg along +X and the other along -X) meet in a mean under the
    // hips that no leg reaches.
    let each_below = feet.iter().all(|&f| (positions[f] - hip).dot(up) < 0.0);
    Some(each_below && up.angle_between(-down) < 45f32.to_radians())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::ContainerEdit;
    use crate::{JointDef, Transform};

    /// A small A-posed figure: hips, spine, head, arms 40° down, legs apart.
    fn figure() -> (Skeleton, Vec<Option<HumanBone>>) {
        use HumanBone::*;
        let down = Quat::from_rotation_z(-40f32.to_radians());
        let j = |name: &str, parent: Option<usize>, t: Vec3, r: Quat| {
            JointDef::new(name, parent, Transform::new(t, r, Vec3::ONE))
        };
        let joints = vec![
            j("hips", None, Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY),
            j("spine", Some(0), Vec3::new(0.0, 0.2, 0.05), Quat::IDENTITY),
            j("head", Some(1), Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY),
            j("l_arm", Some(1), Vec3::new(0.2, 0.4, 0.0), down),
            j("l_fore", Some(3), Vec3::new(0.3, 0.0, 0.0), Quat::IDENTITY),
            j("l_hand", Some(4), Vec3::new(0.25, 0.0, 0.0), Quat::IDENTITY),
            j("r_arm", Some(1), Vec3::new(-0.2, 0.4, 0.0), down.inverse()),
            j("r_fore", Some(6), Vec3::new(-0.3, 0.0, 0.0), Quat::IDENTITY),
            j(
                "r_hand",
                Some(7),
                Vec3::new(-0.25, 0.0, 0.0),
                Quat::IDENTITY,
            ),
            j(
                "l_leg",
                Some(0),
                Vec3::new(0.1, -0.05, 0.0),
                Quat::from_rotation_z(0.1),
            ),
            j(
                "l_knee",
                Some(9),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::IDENTITY,
            ),
            j(
                "l_foot",
                Some(10),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::IDENTITY,
            ),
            j(
                "r_leg",
                Some(0),
                Vec3::new(-0.1, -0.05, 0.0),
                Quat::IDENTITY,
            ),
            j(
                "r_knee",
                Some(12),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::IDENTITY,
            ),
            j(
                "r_foot",
                Some(13),
                Vec3::new(0.0, -0.45, 0.0),
                Quat::IDENTITY,
            ),
        ];
        let labels = vec![
            Some(Hips),
            Some(Spine),
            Some(Head),
            Some(LeftUpperArm),
            Some(LeftLowerArm),
            Some(LeftHand),
            Some(RightUpperArm),
            Some(RightLowerArm),
            Some(RightHand),
            Some(LeftUpperLeg),
            Some(LeftLowerLeg),
            Some(LeftFoot),
            Some(RightUpperLeg),
            Some(RightLowerLeg),
            Some(RightFoot),
        ];
        (
            Skeleton::new("figure", Mat4::IDENTITY, joints).unwrap(),
            labels,
        )
    }

    fn positions(s: &Skeleton, r: &ReferencePose) -> Vec<Vec3> {
        r.world_matrices(s)
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    #[test]
    fn an_a_pose_becomes_a_t_pose() {
        let (s, labels) = figure();
        let mut r = ReferencePose::new(&s, Pose::rest(&s), &ContainerEdit::default(), &[]);
        let offsets = canonical_offsets(&s, &labels, &mut r);
        assert!(!offsets.is_empty());
        let p = positions(&s, &r);
        let dir = |a: usize, b: usize| (p[b] - p[a]).normalize();
        assert!(
            dir(3, 4).abs_diff_eq(Vec3::X, 1e-5),
            "left upper arm {}",
            dir(3, 4)
        );
        assert!(dir(6, 7).abs_diff_eq(Vec3::NEG_X, 1e-5));
        assert!(dir(4, 5).abs_diff_eq(Vec3::X, 1e-5));
        assert!(
            dir(9, 10).abs_diff_eq(Vec3::NEG_Y, 1e-5),
            "left thigh {}",
            dir(9, 10)
        );
        assert!(
            dir(0, 1).abs_diff_eq(Vec3::Y, 1e-5),
            "the leaning spine stands up"
        );
        // The offsets replayed on the base pose give the same pose.
        let again = ReferencePose::new(&s, Pose::rest(&s), &ContainerEdit::default(), &offsets);
        let q = positions(&s, &again);
        for (a, b) in p.iter().zip(&q) {
            assert!(a.abs_diff_eq(*b, 1e-5));
        }
    }

    #[test]
    fn a_figure_turned_about_its_spine_is_turned_back() {
        let (s, labels) = figure();
        let mut base = Pose::rest(&s);
        base.rotations[0] = Quat::from_rotation_y(0.7);
        let mut r = ReferencePose::new(&s, base, &ContainerEdit::default(), &[]);
        canonical_offsets(&s, &labels, &mut r);
        let p = positions(&s, &r);
        let hip_line = (p[9] - p[12]).normalize();
        assert!(hip_line.abs_diff_eq(Vec3::X, 1e-4), "hip line {hip_line}");
    }

    #[test]
    fn standing_is_told_from_a_pose_along_x() {
        let (s, labels) = figure();
        let r = ReferencePose::new(&s, Pose::rest(&s), &ContainerEdit::default(), &[]);
        assert_eq!(is_standing(&labels, &positions(&s, &r)), Some(true));
        // Every joint along +X from its parent, as LAFAN1's zero pose is.
        let mut flat = Pose::rest(&s);
        for j in 0..s.len() {
            flat.rotations[j] = Quat::IDENTITY;
            let len = flat.translations[j].length();
            flat.translations[j] = if j == 0 { Vec3::ZERO } else { Vec3::X * len };
        }
        let r = ReferencePose::new(&s, flat, &ContainerEdit::default(), &[]);
        assert_eq!(is_standing(&labels, &positions(&s, &r)), Some(false));
        assert_eq!(is_standing(&[None; 15], &positions(&s, &r)), None);
    }

    /// The hips joint at the floor with the thighs where they were (the VRM Add-on's rigs):
    /// the figure still stands, read from the hip point between the thighs.
    #[test]
    fn a_figure_whose_hips_joint_is_at_the_floor_stands() {
        let (s, labels) = figure();
        let r = ReferencePose::new(&s, Pose::rest(&s), &ContainerEdit::default(), &[]);
        let mut p = positions(&s, &r);
        p[0].y = p[11].y.min(p[14].y);
        assert_eq!(is_standing(&labels, &p), Some(true));
        assert_eq!(stands_upright(&labels, &p), Some(true));
    }

    #[test]
    fn legs_laid_out_to_either_side_do_not_stand() {
        // Bandai Namco's zero pose: the spine along +X, the left leg along +X and the right
        // along -X, so the feet's mean lies past the hips from the head though neither foot
        // does.
        let (s, labels) = figure();
        let mut laid = Pose::rest(&s);
        for j in 0..s.len() {
            laid.rotations[j] = Quat::IDENTITY;
            let len = laid.translations[j].length();
            let sign = if (12..15).contains(&j) { -1.0 } else { 1.0 };
            laid.translations[j] = match j {
                0 => Vec3::ZERO,
                // The hip joints a little behind the hips along the body's line.
                9 | 12 => Vec3::new(-0.05, 0.1 * sign, 0.0),
                _ => Vec3::X * len * sign,
            };
        }
        let r = ReferencePose::new(&s, laid, &ContainerEdit::default(), &[]);
        assert_eq!(is_standing(&labels, &positions(&s, &r)), Some(false));
    }
}
