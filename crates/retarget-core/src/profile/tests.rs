//! `auto_label` on small hand-built figures; the real rigs are in tests/e2e/retarget/profile_labels.rs.

use super::*;
use crate::{JointDef, Transform};
use glam::{Mat4, Quat};

/// A Mixamo-like stick figure in metres facing +Z (its left at +X):
/// (name, parent, world position).
const FIGURE: &[(&str, Option<usize>, [f32; 3])] = &[
    ("Hips", None, [0.0, 1.0, 0.0]),
    ("LeftUpLeg", Some(0), [0.1, 0.95, 0.0]),
    ("LeftLeg", Some(1), [0.1, 0.5, 0.02]),
    ("LeftFoot", Some(2), [0.1, 0.08, 0.0]),
    ("LeftToeBase", Some(3), [0.1, 0.0, 0.12]),
    ("RightUpLeg", Some(0), [-0.1, 0.95, 0.0]),
    ("RightLeg", Some(5), [-0.1, 0.5, 0.02]),
    ("RightFoot", Some(6), [-0.1, 0.08, 0.0]),
    ("RightToeBase", Some(7), [-0.1, 0.0, 0.12]),
    ("Spine", Some(0), [0.0, 1.1, 0.0]),
    ("Spine1", Some(9), [0.0, 1.25, 0.0]),
    ("Spine2", Some(10), [0.0, 1.4, 0.0]),
    ("Neck", Some(11), [0.0, 1.55, 0.0]),
    ("Head", Some(12), [0.0, 1.65, 0.0]),
    ("HeadTop_End", Some(13), [0.0, 1.85, 0.0]),
    ("LeftShoulder", Some(11), [0.05, 1.5, 0.0]),
    ("LeftArm", Some(15), [0.18, 1.5, 0.0]),
    ("LeftForeArm", Some(16), [0.45, 1.5, 0.0]),
    ("LeftHand", Some(17), [0.7, 1.5, 0.0]),
    ("LeftHandIndex1", Some(18), [0.78, 1.5, 0.01]),
    ("RightShoulder", Some(11), [-0.05, 1.5, 0.0]),
    ("RightArm", Some(20), [-0.18, 1.5, 0.0]),
    ("RightForeArm", Some(21), [-0.45, 1.5, 0.0]),
    ("RightHand", Some(22), [-0.7, 1.5, 0.0]),
    ("RightHandIndex1", Some(23), [-0.78, 1.5, 0.01]),
];

/// The figure with every world position turned by `turn` and names given by `name`.
fn figure(turn: Quat, name: impl Fn(usize, &str) -> String) -> Skeleton {
    let world = |i: usize| turn * Vec3::from_array(FIGURE[i].2);
    let joints = FIGURE
        .iter()
        .enumerate()
        .map(|(i, (n, parent, _))| {
            let local = world(i) - parent.map_or(Vec3::ZERO, world);
            JointDef::new(name(i, n), *parent, Transform::from_translation(local))
        })
        .collect();
    Skeleton::new("figure", Mat4::IDENTITY, joints).unwrap()
}

fn bones(labels: &[Option<Label>]) -> Vec<Option<HumanBone>> {
    labels.iter().map(|l| l.map(|l| l.bone)).collect()
}

fn expected() -> Vec<Option<HumanBone>> {
    use HumanBone::*;
    vec![
        Some(Hips),
        Some(LeftUpperLeg),
        Some(LeftLowerLeg),
        Some(LeftFoot),
        Some(LeftToes),
        Some(RightUpperLeg),
        Some(RightLowerLeg),
        Some(RightFoot),
        Some(RightToes),
        Some(Spine),
        Some(Chest),
        Some(UpperChest),
        Some(Neck),
        Some(Head),
        None,
        Some(LeftShoulder),
        Some(LeftUpperArm),
        Some(LeftLowerArm),
        Some(LeftHand),
        Some(LeftIndexProximal),
        Some(RightShoulder),
        Some(RightUpperArm),
        Some(RightLowerArm),
        Some(RightHand),
        Some(RightIndexProximal),
    ]
}

#[test]
fn names_label_every_bone_and_geometry_agrees() {
    let s = figure(Quat::IDENTITY, |_, n| n.to_owned());
    let labels = auto_label(&s, &Pose::bind(&s));
    assert_eq!(bones(&labels), expected());
    for l in labels.iter().flatten() {
        assert_eq!(l.method, LabelMethod::Name, "{l:?}");
        assert!(l.confidence >= 0.85, "{l:?}");
    }
}

#[test]
fn meaningless_names_fall_back_to_topology_in_either_facing() {
    // Turned half round, the figure faces −Z like a VRM 0.x model: its left is at −X.
    for turn in [Quat::IDENTITY, Quat::from_rotation_y(std::f32::consts::PI)] {
        let s = figure(turn, |i, _| format!("joint_{i:02}"));
        let got = bones(&auto_label(&s, &Pose::bind(&s)));
        let mut want = expected();
        // Fingers need names; the head-top end site is left alone.
        want[19] = None;
        want[24] = None;
        assert_eq!(got, want, "turn {turn}");
    }
}

#[test]
fn table_labels_win_and_mixamo_table_labels_count_as_names() {
    let mut s = figure(Quat::IDENTITY, |i, n| match i {
        0 => "mixamorig:Hips".to_owned(),
        _ => n.to_owned(),
    });
    s.set_humanoid(0, Some(HumanBone::Hips));
    // A deliberately odd table entry: the table still wins over the name.
    s.set_humanoid(2, Some(HumanBone::LeftUpperLeg));
    let labels = auto_label(&s, &Pose::bind(&s));
    let hips = labels[0].unwrap();
    assert_eq!((hips.method, hips.confidence), (LabelMethod::Name, 0.95));
    let odd = labels[2].unwrap();
    assert_eq!(
        (odd.bone, odd.method, odd.confidence),
        (HumanBone::LeftUpperLeg, LabelMethod::Table, 1.0)
    );
    // LeftUpLeg lost its bone to the table and must not share it.
    let count = labels
        .iter()
        .flatten()
        .filter(|l| l.bone == HumanBone::LeftUpperLeg)
        .count();
    assert_eq!(count, 1);
}

#[test]
fn a_pose_of_the_wrong_size_does_not_panic() {
    let s = figure(Quat::IDENTITY, |_, n| n.to_owned());
    let empty = Pose::from_locals(&[]);
    let labels = auto_label(&s, &empty);
    assert_eq!(bones(&labels), expected());
}

#[test]
fn a_figure_lying_down_gets_only_weak_name_labels() {
    let s = figure(
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        |_, n| n.to_owned(),
    );
    let labels = auto_label(&s, &Pose::bind(&s));
    assert!(labels.iter().flatten().all(|l| l.confidence < 0.5));
    let s = figure(
        Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
        |i, _| format!("j{i}"),
    );
    assert!(auto_label(&s, &Pose::bind(&s)).iter().all(Option::is_none));
}

#[test]
fn spine_chain_lengths() {
    use HumanBone::*;
    assert_eq!(spine_bones(1), [Some(Spine)]);
    assert_eq!(spine_bones(3), [Some(Spine), Some(Chest), Some(UpperChest)]);
    assert_eq!(
        spine_bones(5),
        [Some(Spine), None, Some(Chest), None, Some(UpperChest)]
    );
}

#[test]
fn ik_targets_hanging_from_a_root_at_pelvis_height_are_not_legs() {
    // root (at the pelvis) ─┬─ the figure
    //                       ├─ foot target L (a leaf on the floor)
    //                       └─ foot target R
    let root = Vec3::new(0.0, 1.0, -0.1);
    let world = |i: usize| Vec3::from_array(FIGURE[i].2);
    let mut joints = vec![JointDef::new("j0", None, Transform::from_translation(root))];
    for (i, (_, parent, _)) in FIGURE.iter().enumerate() {
        let parent_pos = parent.map_or(root, world);
        let local = Transform::from_translation(world(i) - parent_pos);
        joints.push(JointDef::new(
            format!("j{}", i + 1),
            Some(parent.map_or(0, |p| p + 1)),
            local,
        ));
    }
    for x in [0.1, -0.1] {
        let target = Vec3::new(x, 0.0, 0.0) - root;
        joints.push(JointDef::new(
            "jt",
            Some(0),
            Transform::from_translation(target),
        ));
    }
    let s = Skeleton::new("ik", Mat4::IDENTITY, joints).unwrap();
    let got = bones(&auto_label(&s, &Pose::bind(&s)));
    assert_eq!(got[0], None);
    assert_eq!(got[1], Some(HumanBone::Hips));
    assert_eq!(got[2], Some(HumanBone::LeftUpperLeg));
    assert_eq!(got[26..], [None, None]);
}

/// The figure with controls added: `hips` and `head` hung from the hips' parent-less root
/// away from those parts, `LEGCONTROL.L` at the left foot; weights only on the figure.
fn with_controls() -> (Skeleton, Vec<f32>) {
    let mut joints: Vec<JointDef> = figure(Quat::IDENTITY, |_, n| format!("DEF-{n}"))
        .names()
        .iter()
        .zip(0..)
        .map(|(n, i)| {
            let world = |k: usize| Vec3::from_array(FIGURE[k].2);
            let parent = FIGURE[i].1;
            let local = world(i) - parent.map_or(Vec3::ZERO, world);
            JointDef::new(n.clone(), parent, Transform::from_translation(local))
        })
        .collect();
    let n = joints.len();
    let control = |name: &str, parent: usize, local: [f32; 3]| {
        JointDef::new(
            name,
            Some(parent),
            Transform::from_translation(Vec3::from(local)),
        )
    };
    joints.push(control("hips", 0, [0.0, -0.9, 0.6]));
    joints.push(control("head", 0, [0.0, 0.2, 0.6]));
    joints.push(control("LEGCONTROL.L", 0, [0.1, -0.92, 0.0]));
    let skeleton = Skeleton::new("controls", Mat4::IDENTITY, joints).unwrap();
    let mut weights = vec![1.0; n];
    weights.extend([0.0; 3]);
    (skeleton, weights)
}

#[test]
fn controls_off_the_weighted_skeleton_get_no_label() {
    let (s, weights) = with_controls();
    let labels = auto_label_deforming(&s, &Pose::bind(&s), Some(&weights));
    assert_eq!(bones(&labels)[..FIGURE.len()], expected()[..]);
    assert!(labels[FIGURE.len()..].iter().all(Option::is_none));
    // Without the weights the names pick the controls.
    let by_names = bones(&auto_label(&s, &Pose::bind(&s)));
    assert_ne!(by_names[..FIGURE.len()], expected()[..]);
}

#[test]
fn an_unweighted_joint_above_the_body_loses_its_name_to_a_weighted_one() {
    // `Hips` (unweighted) above a weighted `DEF-pelvis`: the weighted joint is the hips.
    let mut joints = vec![JointDef::new("Hips", None, Transform::IDENTITY)];
    for (i, (n, parent, p)) in FIGURE.iter().enumerate() {
        let world = |k: usize| Vec3::from_array(FIGURE[k].2);
        let local = Vec3::from_array(*p) - parent.map_or(Vec3::ZERO, world);
        let name = if i == 0 {
            "DEF-pelvis".to_owned()
        } else {
            n.to_string()
        };
        let parent = Some(parent.map_or(0, |p| p + 1));
        let local = if i == 0 { Vec3::from_array(*p) } else { local };
        joints.push(JointDef::new(
            name,
            parent,
            Transform::from_translation(local),
        ));
    }
    let s = Skeleton::new("above", Mat4::IDENTITY, joints).unwrap();
    let mut weights = vec![1.0; s.len()];
    weights[0] = 0.0;
    let labels = bones(&auto_label_deforming(&s, &Pose::bind(&s), Some(&weights)));
    assert_eq!(labels[1], Some(HumanBone::Hips));
    assert_eq!(labels[0], None);
}

#[test]
fn a_skin_that_leaves_out_every_named_limb_does_not_make_helpers_of_them() {
    // Unity's Starter Assets armature: its skin weights only the chest, neck and head, yet
    // the names give arms and legs; the mask would call every limb a helper.
    let joint = |name: &str, parent: Option<usize>, at: [f32; 3]| {
        JointDef::new(name, parent, Transform::from_translation(Vec3::from(at)))
    };
    let s = Skeleton::new(
        "starter",
        Mat4::IDENTITY,
        vec![
            joint("Hips", None, [0.0, 1.0, 0.0]),
            joint("Left_UpperLeg", Some(0), [0.1, -0.05, 0.0]),
            joint("Left_LowerLeg", Some(1), [0.0, -0.45, 0.0]),
            joint("Right_UpperLeg", Some(0), [-0.1, -0.05, 0.0]),
            joint("Right_LowerLeg", Some(3), [0.0, -0.45, 0.0]),
            joint("Spine", Some(0), [0.0, 0.15, 0.0]),
            joint("Chest", Some(5), [0.0, 0.2, 0.0]),
            joint("Neck", Some(6), [0.0, 0.2, 0.0]),
            joint("Head", Some(7), [0.0, 0.1, 0.0]),
            joint("Left_UpperArm", Some(6), [0.2, 0.15, 0.0]),
            joint("Left_LowerArm", Some(9), [0.3, 0.0, 0.0]),
            joint("Left_Hand", Some(10), [0.25, 0.0, 0.0]),
            joint("Right_UpperArm", Some(6), [-0.2, 0.15, 0.0]),
            joint("Right_LowerArm", Some(12), [-0.3, 0.0, 0.0]),
            joint("Right_Hand", Some(13), [-0.25, 0.0, 0.0]),
            joint("Left_Foot", Some(2), [0.0, -0.45, 0.0]),
            joint("Right_Foot", Some(4), [0.0, -0.45, 0.0]),
        ],
    )
    .unwrap();
    let mut weights = vec![0.0; s.len()];
    for name in ["Chest", "Neck", "Head"] {
        weights[s.find(name).unwrap()] = 100.0;
    }
    assert_eq!(body_mask(&s, &weights), None);
    // Weight on one leg too: the skin covers a named limb, and its mask stands.
    weights[s.find("Left_LowerLeg").unwrap()] = 50.0;
    let keep = body_mask(&s, &weights).unwrap();
    assert!(keep[s.find("Left_LowerLeg").unwrap()] && !keep[s.find("Right_LowerLeg").unwrap()]);
}
