//! Automatic labelling of any skeleton's joints against the canonical humanoid profile
//! (the VRM 1.0 bone set), so that every rig maps once to the profile and any two rigs map to
//! each other through it (Godot's approach, see docs/design.md).
//!
//! Evidence is used in order of trust: a humanoid table the file carries (VRM), then names
//! (`names`, `name_labels`), then the shape of the hierarchy and the rest geometry
//! (`topology`, `limbs`). Each joint gets at most one label and each bone at most one joint;
//! the more confident claim wins. Names and geometry check each other: agreement raises a
//! name label's confidence, a left/right contradiction lowers it, and a figure whose named
//! head is not above its named hips (a quadruped) gets only low-confidence labels.

mod limbs;
mod name_labels;
mod names;
mod rigify;
mod topology;
mod tree;

use super::deform::Subset;
use super::{HumanBone, Pose, Skeleton};
use glam::Vec3;
use names::{NameInfo, Part};
use serde::{Deserialize, Serialize};
use std::collections::HashSet;
use tree::{Tree, horizontal};

/// Where a label came from, so the bone-map editor can show what to check first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum LabelMethod {
    /// The file's own humanoid table (VRM).
    Table,
    /// The joint's name.
    Name,
    /// The hierarchy's shape and the rest geometry.
    Topology,
    /// Set by the user; `auto_label` never produces it.
    Hand,
}

/// One joint's humanoid bone, how it was found and how sure that is (0..=1).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Label {
    pub bone: HumanBone,
    pub method: LabelMethod,
    pub confidence: f32,
}

/// A claim that `joint` is `bone`; claims compete in `merge`.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Candidate {
    joint: usize,
    bone: HumanBone,
    method: LabelMethod,
    confidence: f32,
}

/// Name labels of a figure that is not an upright biped are scaled by this.
const NOT_UPRIGHT: f32 = 0.4;

/// Whether a joint's name says the left side (`true`) or the right (`false`): `LeftUpLeg`,
/// `thigh_l`, `FrontLeg.R`, CMU's `lfemur`. `None` when it says neither.
pub fn side_of_name(name: &str) -> Option<bool> {
    names::read_name(name).side.map(|s| s == names::Side::Left)
}

/// Labels every joint of `skeleton` (one entry per joint, `None` where nothing fits). `pose`
/// is the pose whose world geometry to use; callers pass the bind pose. A pose of the wrong
/// size is ignored in favour of the skeleton's own bind pose.
pub fn auto_label(skeleton: &Skeleton, pose: &Pose) -> Vec<Option<Label>> {
    auto_label_deforming(skeleton, pose, None)
}

/// Name labels of a joint off the skeleton the skin deforms with are scaled by this, and
/// only extremities that no joint on it took are given: an unweighted finger of a robot
/// whose hand is one rigid part still moves in a clip, while a `c.hips` control gives way.
const UNWEIGHTED: f32 = 0.6;

/// As `auto_label`, reading shape only on the skeleton the skin deforms with
/// (`core::deform`), `weights` being each joint's vertex weight. Names there come first; a
/// weighted joint's name beats an unweighted one's (a Rigify `torso` control above
/// `DEF-hips`); joints off it (controls, IK targets and poles beside the weighted chains)
/// get what their names say only where the body left the bone free.
pub fn auto_label_deforming(
    skeleton: &Skeleton,
    pose: &Pose,
    weights: Option<&[f32]>,
) -> Vec<Option<Label>> {
    let mut labels = table_labels(skeleton);
    if skeleton.is_empty() {
        return labels;
    }
    let mut keep = weights.and_then(|w| body_mask(skeleton, w));
    // A twist bone inside a limb (`forearm.twist` between the forearm and the hand) is not
    // a body bone: the shape is read as if the limb bone were whole.
    let twists = (0..skeleton.len()).filter(|&j| {
        crate::humanoid::says_twist(&skeleton.names()[j]) && skeleton.children(j).count() == 1
    });
    for j in twists.collect::<Vec<_>>() {
        keep.get_or_insert_with(|| vec![true; skeleton.len()])[j] = false;
    }
    let sub = Subset::new(skeleton.parents(), keep.as_deref());
    let positions = world_positions(skeleton, pose);
    let names = sub.pick(skeleton.names());
    let weighted: Vec<bool> = match (weights, &keep) {
        (Some(w), Some(_)) => sub.joints.iter().map(|&j| w[j] > 0.0).collect(),
        _ => vec![true; sub.joints.len()],
    };
    let mut sub_labels = sub.pick(&labels);
    let tree = Tree::new(&sub.parents, sub.pick(&positions));
    label_by_names_and_shape(&mut sub_labels, &names, &tree, &weighted);
    let table: HashSet<HumanBone> = labels.iter().flatten().map(|l| l.bone).collect();
    for (&j, label) in sub.joints.iter().zip(sub_labels) {
        if labels[j].is_none() {
            labels[j] = label.filter(|l| !table.contains(&l.bone));
        }
    }
    let finger_positions = positions.clone();
    if let Some(keep) = keep {
        label_the_rest(skeleton, positions, &keep, &mut labels);
    }
    crate::hands::label_fingers(skeleton, &finger_positions, &mut labels);
    labels
}

/// The joints the skin deforms with (`core::deform::deforming`), where the names agree that
/// they are the body (`skin_covers_named_limbs`); `None` where the weights say nothing.
pub fn body_mask(skeleton: &Skeleton, weights: &[f32]) -> Option<Vec<bool>> {
    crate::deform::deforming(skeleton.parents(), weights)
        .filter(|k| skin_covers_named_limbs(skeleton, k))
}

/// Whether a deform mask keeps a limb its names give. A skin that leaves out every joint
/// named as an upper arm, forearm, thigh or shin while the names give some, and keeps under a
/// third of the joints (Unity's Starter Assets armature weights only its chest, neck and
/// head: 7 of 68), says nothing of which joints are the body: the mask would call every limb
/// a helper, so it is not taken.
fn skin_covers_named_limbs(skeleton: &Skeleton, keep: &[bool]) -> bool {
    let limb = |j: &usize| {
        matches!(
            names::read_name(&skeleton.names()[*j]).part,
            Some(Part::UpperArm | Part::LowerArm | Part::UpperLeg | Part::LowerLeg)
        )
    };
    let named: Vec<usize> = (0..skeleton.len()).filter(limb).collect();
    // A mask that keeps most of the rig is a body whose limb names the reader does not
    // know, with controls beside it named as limbs (`l-ARMCONTROL`): it stands.
    let kept = keep.iter().filter(|&&k| k).count();
    named.is_empty() || named.iter().any(|&j| keep[j]) || kept * 3 >= keep.len()
}

/// Fingers, toes, eyes and the jaw: bones a rig may leave without weight (a robot's hand
/// is one rigid part) while its clips still move them. The trunk and limbs must be on the
/// deforming skeleton.
fn is_extremity(bone: HumanBone) -> bool {
    use HumanBone::*;
    name_labels::is_finger(bone) || matches!(bone, LeftToes | RightToes | LeftEye | RightEye | Jaw)
}

/// Joints off the deforming skeleton: their names' extremity labels, scaled by
/// `UNWEIGHTED`, for bones still free.
fn label_the_rest(
    skeleton: &Skeleton,
    positions: Vec<Vec3>,
    keep: &[bool],
    labels: &mut [Option<Label>],
) {
    let tree = Tree::new(skeleton.parents(), positions);
    let infos: Vec<NameInfo> = skeleton
        .names()
        .iter()
        .map(|n| names::read_name(n))
        .collect();
    let rest: Vec<Candidate> = name_labels::name_candidates(&infos, &tree)
        .into_iter()
        .filter(|c| !keep[c.joint] && is_extremity(c.bone))
        .map(|c| Candidate {
            confidence: c.confidence * UNWEIGHTED,
            ..c
        })
        .collect();
    merge(labels, rest, &tree);
}

/// Rules (b) to (d) on one skeleton (`labels` holds its table labels): names, then shape,
/// names and geometry checking each other. A name on an unweighted joint gives way where a
/// weighted joint's name claims the same bone.
fn label_by_names_and_shape(
    labels: &mut [Option<Label>],
    names: &[String],
    tree: &Tree,
    weighted: &[bool],
) {
    let infos: Vec<NameInfo> = names.iter().map(|n| names::read_name(n)).collect();
    let mut by_name = name_labels::name_candidates(&infos, tree);
    by_name.extend(rigify::trunk_candidates(names, tree));
    let claimed_by_weighted: HashSet<HumanBone> = by_name
        .iter()
        .filter(|c| weighted[c.joint])
        .map(|c| c.bone)
        .collect();
    by_name.retain(|c| weighted[c.joint] || !claimed_by_weighted.contains(&c.bone));
    let upright = names_upright(tree, labels, &by_name);
    let by_shape = if upright == Some(false) {
        by_name.iter_mut().for_each(|c| c.confidence *= NOT_UPRIGHT);
        Vec::new()
    } else {
        let hint = left_hint(tree, labels, &by_name);
        topology::topology_candidates(tree, hint)
    };
    cross_check(&mut by_name, &by_shape);
    merge(labels, by_name, tree);
    // A name that marks a joint as an end site, IK target or helper vetoes geometry.
    let by_shape = by_shape
        .into_iter()
        .filter(|c| infos[c.joint].part != Some(Part::Helper))
        .collect();
    merge(labels, by_shape, tree);
}

/// Rule (a): the importer's table wins. A table label that the Mixamo name gives too is
/// reported as a name label, since that is where it came from (the importer labels Mixamo
/// names into the table).
fn table_labels(skeleton: &Skeleton) -> Vec<Option<Label>> {
    skeleton
        .humanoid()
        .iter()
        .zip(skeleton.names())
        .map(|(bone, name)| {
            let bone = (*bone)?;
            let from_name = HumanBone::from_mixamo(name) == Some(bone);
            Some(Label {
                bone,
                method: if from_name {
                    LabelMethod::Name
                } else {
                    LabelMethod::Table
                },
                confidence: if from_name { 0.95 } else { 1.0 },
            })
        })
        .collect()
}

/// World joint positions of `pose`, or of the bind pose when `pose` does not fit the
/// skeleton. Non-finite positions become the origin so that comparisons stay total.
fn world_positions(skeleton: &Skeleton, pose: &Pose) -> Vec<Vec3> {
    let n = skeleton.len();
    let fits = pose.translations.len() == n && pose.rotations.len() == n && pose.scales.len() == n;
    let positions = if fits {
        pose.world_positions(skeleton)
    } else {
        Pose::bind(skeleton).world_positions(skeleton)
    };
    positions
        .into_iter()
        .map(|p| if p.is_finite() { p } else { Vec3::ZERO })
        .collect()
}

/// The joint the table or the strongest name claim gives `bone`.
fn claimed(labels: &[Option<Label>], cands: &[Candidate], bone: HumanBone) -> Option<usize> {
    labels
        .iter()
        .position(|l| l.is_some_and(|l| l.bone == bone))
        .or_else(|| {
            cands
                .iter()
                .filter(|c| c.bone == bone)
                .max_by(|a, b| a.confidence.total_cmp(&b.confidence))
                .map(|c| c.joint)
        })
}

/// Whether the named head stands above the named hips (more above than ahead); `None` when
/// names do not give both.
fn names_upright(tree: &Tree, labels: &[Option<Label>], cands: &[Candidate]) -> Option<bool> {
    let hips = claimed(labels, cands, HumanBone::Hips)?;
    let head = claimed(labels, cands, HumanBone::Head)?;
    let v = tree.pos[head] - tree.pos[hips];
    Some(v.y > 0.1 * tree.height && v.y > horizontal(v).length())
}

/// The left/right twin of a sided bone (`leftHand` ↔ `rightHand`).
fn twin(bone: HumanBone) -> Option<HumanBone> {
    let s = bone.as_str();
    if let Some(rest) = s.strip_prefix("left") {
        HumanBone::from_vrm1(&format!("right{rest}"))
    } else if let Some(rest) = s.strip_prefix("right") {
        HumanBone::from_vrm1(&format!("left{rest}"))
    } else {
        None
    }
}

/// Left minus right summed over twin pairs that the table or names place, for the facing
/// when geometry cannot tell it.
fn left_hint(tree: &Tree, labels: &[Option<Label>], cands: &[Candidate]) -> Option<Vec3> {
    let mut sum = Vec3::ZERO;
    let mut any = false;
    for &bone in HumanBone::ALL
        .iter()
        .filter(|b| b.as_str().starts_with("left"))
    {
        let Some(right) = twin(bone) else { continue };
        if let (Some(l), Some(r)) = (claimed(labels, cands, bone), claimed(labels, cands, right)) {
            sum += tree.pos[l] - tree.pos[r];
            any = true;
        }
    }
    any.then_some(sum)
}

/// Names that geometry confirms gain confidence; names whose side geometry contradicts lose
/// some (the name still wins: it is the rigger's word, and a mirrored rig is possible).
fn cross_check(by_name: &mut [Candidate], by_shape: &[Candidate]) {
    for c in by_name.iter_mut() {
        let shape = by_shape.iter().find(|s| s.joint == c.joint).map(|s| s.bone);
        if shape == Some(c.bone) {
            c.confidence = (c.confidence + 0.05).min(0.95);
        } else if shape.is_some() && shape == twin(c.bone) {
            c.confidence *= 0.75;
        }
    }
}

/// Gives free joints their most confident free bone: higher confidence first, then the joint
/// nearer the root (`lwrist` before `lhand`), then the lower index.
fn merge(labels: &mut [Option<Label>], mut cands: Vec<Candidate>, tree: &Tree) {
    cands.sort_by(|a, b| {
        b.confidence
            .total_cmp(&a.confidence)
            .then(tree.depth[a.joint].cmp(&tree.depth[b.joint]))
            .then(a.joint.cmp(&b.joint))
    });
    let mut used: HashSet<HumanBone> = labels.iter().flatten().map(|l| l.bone).collect();
    for c in cands {
        let free = labels.get(c.joint).is_some_and(|l| l.is_none());
        if free && used.insert(c.bone) {
            labels[c.joint] = Some(Label {
                bone: c.bone,
                method: c.method,
                confidence: c.confidence.clamp(0.0, 1.0),
            });
        }
    }
}

/// Spine, chest and upper chest along a chain of `n` joints between hips and neck: one is the
/// spine; two add the chest; three the upper chest; longer chains spread the three out with
/// the upper chest at the top, where the arms hang.
fn spine_bones(n: usize) -> Vec<Option<HumanBone>> {
    use HumanBone::{Chest, Spine, UpperChest};
    let mut bones = vec![None; n];
    match n {
        0 => {}
        1 => bones[0] = Some(Spine),
        2 => bones.copy_from_slice(&[Some(Spine), Some(Chest)]),
        _ => {
            bones[0] = Some(Spine);
            bones[(n - 1) / 2] = Some(Chest);
            bones[n - 1] = Some(UpperChest);
        }
    }
    bones
}

#[cfg(test)]
mod tests;
