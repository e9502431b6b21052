//! From what names say to VRM bones. A name alone is often not enough: `LeftLeg` is the
//! lower leg in Mixamo but `Left leg` is the upper leg in a VRoid export, `Spine1` is the chest
//! in one rig and the upper chest in another, and finger joints are numbered from 0 or 1.
//! So the parts read from names are settled against their neighbours in the hierarchy:
//! the spine by its place between hips and neck, fingers by depth, legs by what lies above
//! and below them.

use super::names::{Finger, NameInfo, Part, Side};
use super::tree::Tree;
use super::{Candidate, LabelMethod, spine_bones};
use crate::HumanBone;

/// Confidence of a label that a clear keyword gave (`UpperArm.L`, `thigh_l`).
const CLEAR: f32 = 0.9;
/// An exact VRM 1.0 or Mixamo name.
const EXACT: f32 = 0.95;

/// Every label the names suggest; several may claim one bone or one joint, and the merge in
/// `auto_label` keeps the most confident.
pub(super) fn name_candidates(infos: &[NameInfo], tree: &Tree) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (j, info) in infos.iter().enumerate() {
        if let Some(bone) = info.exact
            && !is_finger(bone)
        {
            out.push(candidate(j, bone, EXACT));
        }
        if let Some((bone, confidence)) = part_bone(j, infos, tree) {
            out.push(candidate(j, bone, confidence));
        }
    }
    let neck = first_of(infos, tree, Part::Neck, HumanBone::Neck);
    if let Some(neck) = neck {
        out.push(candidate(neck, HumanBone::Neck, CLEAR));
    }
    spine_candidates(infos, tree, neck, &mut out);
    finger_candidates(infos, tree, &mut out);
    out
}

fn candidate(joint: usize, bone: HumanBone, confidence: f32) -> Candidate {
    Candidate {
        joint,
        bone,
        method: LabelMethod::Name,
        confidence,
    }
}

pub(super) fn is_finger(bone: HumanBone) -> bool {
    let s = bone.as_str();
    ["Thumb", "Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| s.contains(f))
}

/// The bone of one joint whose part needs at most its own side and its ancestors' or
/// descendants' parts to settle.
fn part_bone(j: usize, infos: &[NameInfo], tree: &Tree) -> Option<(HumanBone, f32)> {
    use HumanBone::*;
    let part = infos[j].part?;
    match part {
        Part::Hips => return Some((Hips, CLEAR)),
        Part::Head => return Some((Head, CLEAR)),
        Part::Jaw => return Some((Jaw, 0.85)),
        _ => {}
    }
    let side = infos[j].side?;
    let with = |k: usize, parts: &[Part]| {
        infos[k].side == Some(side) && infos[k].part.is_some_and(|p| parts.contains(&p))
    };
    let above = |parts: &[Part]| tree.ancestors(j).any(|a| with(a, parts));
    let below = |parts: &[Part]| tree.subtree(j).into_iter().skip(1).any(|d| with(d, parts));
    let (left, right, confidence) = match part {
        Part::Eye => (LeftEye, RightEye, 0.85),
        Part::Clavicle => (LeftShoulder, RightShoulder, CLEAR),
        Part::Shoulder if above(&[Part::Clavicle, Part::Shoulder]) => {
            (LeftUpperArm, RightUpperArm, 0.8)
        }
        Part::Shoulder => (LeftShoulder, RightShoulder, CLEAR),
        Part::UpperArm => (LeftUpperArm, RightUpperArm, CLEAR),
        Part::LowerArm => (LeftLowerArm, RightLowerArm, CLEAR),
        Part::Hand => (LeftHand, RightHand, CLEAR),
        Part::Palm => return palm_as_hand(j, side, infos, tree),
        Part::SideHip if below(&[Part::UpperLeg]) => return None,
        Part::SideHip => (LeftUpperLeg, RightUpperLeg, 0.75),
        Part::UpperLeg => (LeftUpperLeg, RightUpperLeg, CLEAR),
        // A leg of three segments (Quaternius' mechs: `UpperLeg` → `MidLeg` → `LowerLeg` →
        // `FootBack`): the knee is the joint below the thigh; a `LowerLeg` below that is the
        // leg's third segment (a digitigrade's metatarsus), no VRM bone.
        Part::LowerLeg if above(&[Part::Leg]) && above(&[Part::UpperLeg]) => return None,
        Part::LowerLeg => (LeftLowerLeg, RightLowerLeg, CLEAR),
        // A leg hung from a shoulder is a front limb: the arm of an upright creature
        // (Mesh2Motion's kaiju: `Front_Leg_Shoulder_L` → `Front_Leg_Upper_L` →
        // `Front_Leg_Lower_L` → `Hand_L`).
        Part::Leg if above(&[Part::Shoulder, Part::Clavicle]) => {
            if above(&[Part::Leg, Part::UpperArm]) {
                (LeftLowerArm, RightLowerArm, 0.8)
            } else {
                (LeftUpperArm, RightUpperArm, 0.8)
            }
        }
        Part::Leg if above(&[Part::UpperLeg, Part::Leg, Part::SideHip]) => {
            (LeftLowerLeg, RightLowerLeg, 0.85)
        }
        Part::Leg if below(&[Part::LowerLeg, Part::Leg]) => (LeftUpperLeg, RightUpperLeg, 0.8),
        // A lone bare `leg`: Mixamo and CMU, the commonest sources, mean the lower leg.
        Part::Leg => (LeftLowerLeg, RightLowerLeg, 0.6),
        // A foot hung away from its leg (an IK control under the root: the mech's `Foot.L`)
        // gives way to one at the end of the leg's own chain (`FootBack.L`).
        Part::Foot if !above(LEGS) && foot_in_a_leg(side, infos, tree) => {
            (LeftFoot, RightFoot, 0.7)
        }
        Part::Foot => (LeftFoot, RightFoot, CLEAR),
        Part::Toes => (LeftToes, RightToes, 0.85),
        _ => return None,
    };
    Some((side.pick(left, right), confidence))
}

/// The parts of a leg above its foot.
const LEGS: &[Part] = &[Part::UpperLeg, Part::LowerLeg, Part::Leg, Part::SideHip];

/// Whether a joint named as a foot of `side` hangs below a leg joint of that side.
fn foot_in_a_leg(side: Side, infos: &[NameInfo], tree: &Tree) -> bool {
    let on_side = |k: usize, parts: &[Part]| {
        infos[k].side == Some(side) && infos[k].part.is_some_and(|p| parts.contains(&p))
    };
    (0..infos.len())
        .any(|k| on_side(k, &[Part::Foot]) && tree.ancestors(k).any(|a| on_side(a, LEGS)))
}

/// A rig without a hand joint (RobotExpressive: `Palm1..3.L` at the wrist, one per finger)
/// gets its hand from a palm; the one leading to the middle finger is the most central.
fn palm_as_hand(j: usize, side: Side, infos: &[NameInfo], tree: &Tree) -> Option<(HumanBone, f32)> {
    let has_hand = infos
        .iter()
        .any(|i| i.side == Some(side) && i.part == Some(Part::Hand));
    if has_hand {
        return None;
    }
    let to_middle = tree.children[j]
        .iter()
        .any(|&c| infos[c].part == Some(Part::Finger(Finger::Middle)));
    let confidence = if to_middle { 0.7 } else { 0.6 };
    Some((
        side.pick(HumanBone::LeftHand, HumanBone::RightHand),
        confidence,
    ))
}

/// The joint nearest the root whose name says `part` (or is exactly `bone`): with two neck
/// joints (`Neck`, `Neck1`; `neck_01`, `neck_02`) the lower one is the VRM neck.
fn first_of(infos: &[NameInfo], tree: &Tree, part: Part, bone: HumanBone) -> Option<usize> {
    (0..infos.len())
        .filter(|&j| infos[j].part == Some(part) || infos[j].exact == Some(bone))
        .min_by_key(|&j| (tree.depth[j], j))
}

/// Spine, chest and upper chest by place along the chain between hips and neck, because the
/// numbers in names disagree between rigs (`Spine1` is the chest in Mixamo, the upper chest
/// in CMU where `LowerBack` comes first).
fn spine_candidates(
    infos: &[NameInfo],
    tree: &Tree,
    neck: Option<usize>,
    out: &mut Vec<Candidate>,
) {
    let spine_like = |j: usize| infos[j].part == Some(Part::SpineLike);
    let mut hips = first_of(infos, tree, Part::Hips, HumanBone::Hips);
    if hips.is_none()
        && let Some(h) =
            legs_fork(infos, tree).filter(|&h| spine_like(h) || pelvis_by_place(infos, tree, h))
    {
        // No joint is named hips: the torso joint the legs hang from is (Roblox R15's
        // `LowerTorso`, under `UpperTorso`), not the first vertebra; so is a joint named for
        // no body part that holds both upper legs and the spine itself (GENEA's `b_root`).
        out.push(candidate(h, HumanBone::Hips, 0.85));
        hips = Some(h);
    }
    let top = neck.or_else(|| first_of(infos, tree, Part::Head, HumanBone::Head));
    let chain: Vec<usize> = match (hips, top) {
        (Some(h), Some(t)) => tree.between(h, t),
        _ => None,
    }
    .map(|path| {
        path.into_iter()
            .filter(|&j| infos[j].part.is_none() || spine_like(j))
            .collect()
    })
    .unwrap_or_else(|| {
        let mut named: Vec<usize> = (0..infos.len()).filter(|&j| spine_like(j)).collect();
        named.sort_by_key(|&j| (tree.depth[j], j));
        named
    });
    for (&j, bone) in chain.iter().zip(spine_bones(chain.len())) {
        let Some(bone) = bone else { continue };
        out.push(if spine_like(j) {
            candidate(j, bone, 0.85)
        } else {
            // On the chain but unnamed: its place says spine, its name does not.
            Candidate {
                joint: j,
                bone,
                method: LabelMethod::Topology,
                confidence: 0.55,
            }
        });
    }
}

/// Whether `h`, named as a root and for no body part, is the pelvis by its place: both upper
/// legs and a spine joint hang from it directly.
fn pelvis_by_place(infos: &[NameInfo], tree: &Tree, h: usize) -> bool {
    // Named as a rig's root (`root`, `b_root`) or for the whole figure (a robot's `Body`): a
    // name that says no part of the body.
    let unnamed = matches!(infos[h].part, None | Some(Part::Helper)) && infos[h].exact.is_none();
    let child_is = |pick: &dyn Fn(&NameInfo) -> bool| {
        tree.children[h]
            .iter()
            .filter(|&&j| pick(&infos[j]))
            .count()
    };
    let upper_leg =
        |i: &NameInfo| matches!(i.part, Some(Part::UpperLeg | Part::Leg | Part::SideHip));
    let spine = |i: &NameInfo| i.part == Some(Part::SpineLike);
    // A leg may hang from its own girdle bone, a sided joint that names no part (MakeHuman's
    // `pelvis.L`): the root holds that leg through it.
    let legs = (tree.children[h].iter())
        .filter(|&&c| {
            upper_leg(&infos[c])
                || (infos[c].side.is_some()
                    && infos[c].part.is_none()
                    && tree.children[c].iter().any(|&g| upper_leg(&infos[g])))
        })
        .count();
    unnamed && legs == 2 && child_is(&spine) >= 1
}

/// The joint the two upper legs (the legs' top joints by name) first meet at.
fn legs_fork(infos: &[NameInfo], tree: &Tree) -> Option<usize> {
    let leg = |side: Side| {
        (0..infos.len())
            .filter(|&j| {
                infos[j].side == Some(side)
                    && matches!(
                        infos[j].part,
                        Some(Part::UpperLeg | Part::Leg | Part::SideHip)
                    )
            })
            .min_by_key(|&j| (tree.depth[j], j))
    };
    let (left, right) = (leg(Side::Left)?, leg(Side::Right)?);
    tree.ancestors(left).find(|&a| tree.is_ancestor(a, right))
}

/// Finger segments by depth below the hand, since rigs count from 0 (`Thumb0_L`), from 1
/// (`index_01_l`) or not at all (`Index.L`, `Index2.L`).
fn finger_candidates(infos: &[NameInfo], tree: &Tree, out: &mut Vec<Candidate>) {
    let mut groups: Vec<((Side, Finger), Vec<usize>)> = Vec::new();
    for (j, info) in infos.iter().enumerate() {
        let finger = match info.part {
            Some(Part::Finger(f)) => f,
            // Below a named finger (the Knight's `MiddleHand.L → Fingers.L`), `Fingers`
            // continues that finger's chain rather than starting the index.
            Some(Part::Fingers) if !below_a_finger(j, infos, tree) => Finger::Index,
            _ => continue,
        };
        if on_a_leg(j, infos, tree) {
            continue;
        }
        let Some(side) = arm_side(j, infos, tree).or(info.side) else {
            continue;
        };
        match groups.iter_mut().find(|(k, _)| *k == (side, finger)) {
            Some((_, joints)) => joints.push(j),
            None => groups.push(((side, finger), vec![j])),
        }
    }
    for ((side, finger), mut joints) in groups {
        joints.sort_by_key(|&j| (tree.depth[j], j));
        for (k, &j) in joints.iter().enumerate() {
            let Some(bone) = finger_bone(side, finger, k) else {
                break;
            };
            // CMU's one `LFingers` joint stands for four fingers; the index is a guess.
            let confidence = if infos[j].part == Some(Part::Fingers) {
                0.6
            } else {
                0.85
            };
            out.push(candidate(j, bone, confidence));
        }
    }
}

/// A toe named as a finger (3ds Max Biped's `LeftFootThumb1` under `LeftFoot`): the
/// nearest limb joint above it is a leg's.
fn on_a_leg(j: usize, infos: &[NameInfo], tree: &Tree) -> bool {
    use Part::*;
    let leg = [Foot, Toes, LowerLeg, UpperLeg, Leg, SideHip];
    let arm = [Hand, Palm, LowerArm, UpperArm];
    tree.ancestors(j)
        .find_map(|a| infos[a].part.filter(|p| leg.contains(p) || arm.contains(p)))
        .is_some_and(|p| leg.contains(&p))
}

fn below_a_finger(j: usize, infos: &[NameInfo], tree: &Tree) -> bool {
    tree.ancestors(j)
        .any(|a| matches!(infos[a].part, Some(Part::Finger(_))))
}

/// The side of the hand or arm a finger hangs from: where a finger's name says the other
/// side (the Quaternius Knight's `Thumb.R` on the left palm), the hierarchy is right.
fn arm_side(j: usize, infos: &[NameInfo], tree: &Tree) -> Option<Side> {
    let arm = [Part::Hand, Part::Palm, Part::LowerArm, Part::UpperArm];
    tree.ancestors(j)
        .map(|a| &infos[a])
        .find(|i| i.side.is_some() && i.part.is_some_and(|p| arm.contains(&p)))
        .and_then(|i| i.side)
}

/// The `k`-th segment (from the palm) of a finger: metacarpal, proximal, distal for the thumb
/// (VRM 1.0), proximal, intermediate, distal for the others.
pub(super) fn finger_bone(side: Side, finger: Finger, k: usize) -> Option<HumanBone> {
    use HumanBone::*;
    let [left, right]: [[HumanBone; 3]; 2] = match finger {
        Finger::Thumb => [
            [LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal],
            [RightThumbMetacarpal, RightThumbProximal, RightThumbDistal],
        ],
        Finger::Index => [
            [LeftIndexProximal, LeftIndexIntermediate, LeftIndexDistal],
            [RightIndexProximal, RightIndexIntermediate, RightIndexDistal],
        ],
        Finger::Middle => [
            [LeftMiddleProximal, LeftMiddleIntermediate, LeftMiddleDistal],
            [
                RightMiddleProximal,
                RightMiddleIntermediate,
                RightMiddleDistal,
            ],
        ],
        Finger::Ring => [
            [LeftRingProximal, LeftRingIntermediate, LeftRingDistal],
            [RightRingProximal, RightRingIntermediate, RightRingDistal],
        ],
        Finger::Little => [
            [LeftLittleProximal, LeftLittleIntermediate, LeftLittleDistal],
            [
                RightLittleProximal,
                RightLittleIntermediate,
                RightLittleDistal,
            ],
        ],
    };
    match side {
        Side::Left => left.get(k).copied(),
        Side::Right => right.get(k).copied(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::names::read_name;
    use super::*;
    use glam::Vec3;

    /// Labels of a bare hierarchy from names only (positions do not matter here).
    fn labels(joints: &[(&str, Option<usize>)]) -> Vec<(String, HumanBone)> {
        let parents: Vec<Option<usize>> = joints.iter().map(|j| j.1).collect();
        let tree = Tree::new(&parents, vec![Vec3::ZERO; joints.len()]);
        let infos: Vec<NameInfo> = joints.iter().map(|j| read_name(j.0)).collect();
        let mut cands = name_candidates(&infos, &tree);
        cands.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let mut out: Vec<(String, HumanBone)> = Vec::new();
        for c in cands {
            if !out
                .iter()
                .any(|(n, b)| *n == joints[c.joint].0 || *b == c.bone)
            {
                out.push((joints[c.joint].0.to_owned(), c.bone));
            }
        }
        out
    }

    fn bone_of(labels: &[(String, HumanBone)], name: &str) -> Option<HumanBone> {
        labels.iter().find(|(n, _)| n == name).map(|(_, b)| *b)
    }

    #[test]
    fn cmu_spine_chain_and_legs() {
        let l = labels(&[
            ("Hips", None),
            ("LHipJoint", Some(0)),
            ("LeftUpLeg", Some(1)),
            ("LeftLeg", Some(2)),
            ("LowerBack", Some(0)),
            ("Spine", Some(4)),
            ("Spine1", Some(5)),
            ("Neck", Some(6)),
            ("Neck1", Some(7)),
            ("Head", Some(8)),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "LHipJoint"), None);
        assert_eq!(bone_of(&l, "LeftUpLeg"), Some(LeftUpperLeg));
        assert_eq!(bone_of(&l, "LeftLeg"), Some(LeftLowerLeg));
        assert_eq!(bone_of(&l, "LowerBack"), Some(Spine));
        assert_eq!(bone_of(&l, "Spine"), Some(Chest));
        assert_eq!(bone_of(&l, "Spine1"), Some(UpperChest));
        assert_eq!(bone_of(&l, "Neck"), Some(Neck));
        assert_eq!(bone_of(&l, "Neck1"), None);
    }

    #[test]
    fn vroid_leg_is_the_upper_leg_and_fingers_go_by_depth() {
        let l = labels(&[
            ("Hips", None),
            ("Left leg", Some(0)),
            ("Left knee", Some(1)),
            ("Left wrist", Some(0)),
            ("Thumb0_L", Some(3)),
            ("Thumb1_L", Some(4)),
            ("Thumb2_L", Some(5)),
            ("index_01_l", Some(3)),
            ("index_02_l", Some(7)),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "Left leg"), Some(LeftUpperLeg));
        assert_eq!(bone_of(&l, "Left knee"), Some(LeftLowerLeg));
        assert_eq!(bone_of(&l, "Thumb0_L"), Some(LeftThumbMetacarpal));
        assert_eq!(bone_of(&l, "Thumb2_L"), Some(LeftThumbDistal));
        assert_eq!(bone_of(&l, "index_02_l"), Some(LeftIndexIntermediate));
    }

    #[test]
    fn a_finger_takes_the_side_of_the_hand_it_hangs_from() {
        let l = labels(&[
            ("Hips", None),
            ("LowerArm.L", Some(0)),
            ("Palm.L", Some(1)),
            ("Thumb.R", Some(1)),
            ("Thumb2.R", Some(3)),
            ("LowerArm.R", Some(0)),
            ("Thumb.L", Some(5)),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "Thumb.R"), Some(LeftThumbMetacarpal));
        assert_eq!(bone_of(&l, "Thumb2.R"), Some(LeftThumbProximal));
        assert_eq!(bone_of(&l, "Thumb.L"), Some(RightThumbMetacarpal));
        let l = labels(&[
            ("Hand.L", None),
            ("MiddleHand.L", Some(0)),
            ("Fingers.L", Some(1)),
        ]);
        assert_eq!(bone_of(&l, "MiddleHand.L"), Some(LeftMiddleProximal));
        assert_eq!(
            bone_of(&l, "Fingers.L"),
            None,
            "continues the middle finger"
        );
    }

    #[test]
    fn smpl_shoulder_under_a_collar_is_the_upper_arm() {
        let l = labels(&[
            ("Pelvis", None),
            ("L_Collar", Some(0)),
            ("L_Shoulder", Some(1)),
            ("L_Elbow", Some(2)),
            ("L_Hip", Some(0)),
            ("L_Knee", Some(4)),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "Pelvis"), Some(Hips));
        assert_eq!(bone_of(&l, "L_Collar"), Some(LeftShoulder));
        assert_eq!(bone_of(&l, "L_Shoulder"), Some(LeftUpperArm));
        assert_eq!(bone_of(&l, "L_Hip"), Some(LeftUpperLeg));
    }

    #[test]
    fn the_torso_joint_the_legs_hang_from_is_the_hips_when_none_is_named() {
        // Roblox R15: no hips by name, the legs under `LowerTorso`, the arms and head under
        // `UpperTorso`.
        let l = labels(&[
            ("root", None),
            ("LowerTorso", Some(0)),
            ("UpperTorso", Some(1)),
            ("Head", Some(2)),
            ("LeftUpperArm", Some(2)),
            ("RightUpperArm", Some(2)),
            ("LeftUpperLeg", Some(1)),
            ("LeftLowerLeg", Some(6)),
            ("RightUpperLeg", Some(1)),
            ("RightLowerLeg", Some(8)),
        ]);
        assert_eq!(bone_of(&l, "LowerTorso"), Some(HumanBone::Hips), "{l:?}");
        assert_eq!(bone_of(&l, "UpperTorso"), Some(HumanBone::Spine), "{l:?}");
        assert_eq!(bone_of(&l, "root"), None, "{l:?}");
    }

    #[test]
    fn a_root_that_holds_both_legs_and_the_spine_is_the_hips_when_none_is_named() {
        // GENEA's Maya rig: `b_root` holds `b_spine0` and both upper legs, under a
        // `body_world` node.
        let l = labels(&[
            ("body_world", None),
            ("b_root", Some(0)),
            ("b_spine0", Some(1)),
            ("b_neck0", Some(2)),
            ("b_head", Some(3)),
            ("b_l_arm", Some(2)),
            ("b_r_arm", Some(2)),
            ("b_l_upleg", Some(1)),
            ("b_l_leg", Some(7)),
            ("b_r_upleg", Some(1)),
            ("b_r_leg", Some(9)),
        ]);
        assert_eq!(bone_of(&l, "b_root"), Some(HumanBone::Hips), "{l:?}");
        assert_eq!(bone_of(&l, "b_spine0"), Some(HumanBone::Spine), "{l:?}");
        assert_eq!(bone_of(&l, "body_world"), None, "{l:?}");
    }

    #[test]
    fn a_robot_body_over_three_segment_legs_is_the_hips_and_the_knee_is_below_the_thigh() {
        // Quaternius' mech: `Body` holds the torso and both legs; each leg runs `UpperLeg`
        // → `MidLeg` → `LowerLeg` → `FootBack`.
        let l = labels(&[
            ("Body", None),
            ("Torso", Some(0)),
            ("Chest", Some(1)),
            ("Neck", Some(2)),
            ("Head", Some(3)),
            ("UpperLeg.L", Some(0)),
            ("MidLeg.L", Some(5)),
            ("LowerLeg.L", Some(6)),
            ("FootBack.L", Some(7)),
            ("UpperLeg.R", Some(0)),
            ("MidLeg.R", Some(9)),
            ("LowerLeg.R", Some(10)),
            ("FootBack.R", Some(11)),
            ("Foot.L", None),
            ("Foot.R", None),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "Body"), Some(Hips), "{l:?}");
        assert_eq!(bone_of(&l, "Torso"), Some(Spine), "{l:?}");
        assert_eq!(bone_of(&l, "MidLeg.L"), Some(LeftLowerLeg), "{l:?}");
        assert_eq!(bone_of(&l, "LowerLeg.L"), None, "{l:?}");
        assert_eq!(bone_of(&l, "FootBack.R"), Some(RightFoot), "{l:?}");
        assert_eq!(
            bone_of(&l, "Foot.L"),
            None,
            "an IK control under no leg: {l:?}"
        );
    }

    #[test]
    fn a_creatures_front_legs_under_its_shoulders_are_its_arms() {
        // Mesh2Motion's kaiju: front legs from shoulders on the chest, hind legs from a
        // sided pelvis bone under the hips.
        let l = labels(&[
            ("Hips", None),
            ("Spine_1", Some(0)),
            ("Head", Some(1)),
            ("Front_Leg_Shoulder_L", Some(1)),
            ("Front_Leg_Upper_L", Some(3)),
            ("Front_Leg_Lower_L", Some(4)),
            ("Hand_L", Some(5)),
            ("Back_Leg_Pelvis_L", Some(0)),
            ("Back_Leg_Upper_L", Some(7)),
            ("Back_Leg_Lower_L", Some(8)),
            ("Back_Leg_Ankle_L", Some(9)),
            ("Back_Leg_Foot_L", Some(10)),
        ]);
        use HumanBone::*;
        assert_eq!(bone_of(&l, "Hips"), Some(Hips), "{l:?}");
        assert_eq!(
            bone_of(&l, "Front_Leg_Shoulder_L"),
            Some(LeftShoulder),
            "{l:?}"
        );
        assert_eq!(
            bone_of(&l, "Front_Leg_Upper_L"),
            Some(LeftUpperArm),
            "{l:?}"
        );
        assert_eq!(
            bone_of(&l, "Front_Leg_Lower_L"),
            Some(LeftLowerArm),
            "{l:?}"
        );
        assert_eq!(bone_of(&l, "Back_Leg_Pelvis_L"), None, "{l:?}");
        assert_eq!(bone_of(&l, "Back_Leg_Upper_L"), Some(LeftUpperLeg), "{l:?}");
        assert_eq!(bone_of(&l, "Back_Leg_Lower_L"), Some(LeftLowerLeg), "{l:?}");
        assert_eq!(bone_of(&l, "Back_Leg_Ankle_L"), Some(LeftFoot), "{l:?}");
    }

    #[test]
    fn a_toe_named_as_a_thumb_is_no_finger() {
        // A Biped remnant: `LeftFootThumb1` under the foot, the hand's thumb below.
        let l = labels(&[
            ("Hips", None),
            ("LeftUpLeg", Some(0)),
            ("LeftLeg", Some(1)),
            ("LeftFoot", Some(2)),
            ("LeftFootThumb1", Some(3)),
            ("Spine", Some(0)),
            ("LeftArm", Some(5)),
            ("LeftForeArm", Some(6)),
            ("LeftHand", Some(7)),
            ("LeftHandThumb1", Some(8)),
            ("LeftHandThumb2", Some(9)),
        ]);
        assert_eq!(bone_of(&l, "LeftFootThumb1"), None, "{l:?}");
        assert_eq!(
            bone_of(&l, "LeftHandThumb1"),
            Some(HumanBone::LeftThumbMetacarpal),
            "{l:?}"
        );
    }
}
