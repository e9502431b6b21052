use super::*;
use crate::chains::testkit::{Rig, biped, fox_like};
use crate::chains::{BuildFrame, build};

fn chains(rig: &Rig) -> ChainSkeleton {
    build(&BuildFrame {
        names: &[],
        parents: &rig.1,
        positions: &rig.2,
        forward: Vec3::Z,
    })
}

fn map(a: &Rig, b: &Rig) -> BoneMap {
    let (ca, cb) = (chains(a), chains(b));
    let (la, lb) = (vec![None; a.0.len()], vec![None; b.0.len()]);
    automatic_map(
        &RigSide {
            names: &a.0,
            parents: &a.1,
            labels: &la,
            chains: &ca,
            positions: &a.2,
            deforms: None,
        },
        &RigSide {
            names: &b.0,
            parents: &b.1,
            labels: &lb,
            chains: &cb,
            positions: &b.2,
            deforms: None,
        },
    )
}

#[test]
fn the_same_rig_under_another_convention_maps_every_joint_to_itself() {
    let a = biped();
    let mut b = a.clone();
    // `l_thigh` → `mixamorig:Thigh.L`, `hips` → `mixamorig:Hips`.
    for n in &mut b.0 {
        *n = match n.split_once('_') {
            Some((side, rest)) if side == "l" || side == "r" => {
                format!(
                    "mixamorig:{}{}.{}",
                    rest[..1].to_uppercase(),
                    &rest[1..],
                    side.to_uppercase()
                )
            }
            _ => format!("mixamorig:{n}"),
        };
    }
    let m = map(&a, &b);
    assert_eq!(m.len(), b.0.len(), "every bone mapped");
    for p in m.pairs() {
        assert_eq!(p.source, p.target, "{}", b.0[p.target]);
        assert_eq!(p.method, MapMethod::SimilarName);
    }
}

#[test]
fn an_unnamed_quadruped_maps_by_its_chains_and_stands_on_four_legs() {
    let a = fox_like();
    let mut b = a.clone();
    for (k, n) in b.0.iter_mut().enumerate() {
        *n = format!("joint{}", 1000 + k * 7);
    }
    for p in &mut b.2 {
        *p *= 1.7;
    }
    let m = map(&a, &b);
    let hip = a.0.iter().position(|n| n == "hip").unwrap();
    let pelvis = m.for_target(hip).expect("pelvis mapped");
    assert_eq!(pelvis.source, hip);
    assert_eq!(pelvis.translation, TranslationMode::HipsScaled);
    for p in m.pairs() {
        assert_eq!(p.source, p.target, "{}", a.0[p.target]);
        assert_eq!(p.method, MapMethod::Chain);
    }
    // Every joint, the root above the pelvis onto the source's.
    assert_eq!(m.len(), a.0.len());
    assert_eq!(m.legs().len(), 4);
}

#[test]
fn a_helper_hung_from_the_root_copies_its_motion() {
    let a = biped();
    let m = map(&a, &a);
    let pole = a.0.iter().position(|n| n == "pole").unwrap();
    assert_eq!(
        m.for_target(pole).unwrap().translation,
        TranslationMode::Copy
    );
    let hips = a.0.iter().position(|n| n == "hips").unwrap();
    assert_eq!(
        m.for_target(hips).unwrap().translation,
        TranslationMode::HipsScaled
    );
    assert!(m.pairs().iter().all(|p| p.method == MapMethod::ExactName));
}

/// The Fox's own names on the fox-like rig.
fn fox_named() -> Rig {
    let mut rig = fox_like();
    for n in &mut rig.0 {
        *n = match n.as_str() {
            "root" => "_rootJoint",
            "hip" => "b_Hip_01",
            "spine1" => "b_Spine01_02",
            "spine2" => "b_Spine02_03",
            "neck" => "b_Neck_04",
            "head" => "b_Head_05",
            "tail1" => "b_Tail01_012",
            "tail2" => "b_Tail02_013",
            "tail3" => "b_Tail03_014",
            "front_l" => "b_LeftUpperArm_09",
            "front_l2" => "b_LeftForeArm_010",
            "front_l3" => "b_LeftHand_011",
            "front_r" => "b_RightUpperArm_06",
            "front_r2" => "b_RightForeArm_07",
            "front_r3" => "b_RightHand_08",
            "back_l" => "b_LeftLeg01_015",
            "back_l2" => "b_LeftLeg02_016",
            "back_l3" => "b_LeftFoot01_017",
            "back_r" => "b_RightLeg01_019",
            "back_r2" => "b_RightLeg02_020",
            "back_r3" => "b_RightFoot01_021",
            other => panic!("unnamed joint {other}"),
        }
        .to_owned();
    }
    rig
}

#[test]
fn the_same_creature_lower_cased_or_run_together_maps_every_joint_by_name() {
    let a = fox_named();
    for style in ["lower case", "no separators"] {
        let mut b = a.clone();
        for n in &mut b.0 {
            *n = match style {
                "lower case" => n.to_lowercase(),
                _ => n.replace('_', ""),
            };
        }
        // Laid out facing +X, as creature mocap often is: its chain tags say nothing.
        let turn = glam::Quat::from_rotation_y(std::f32::consts::FRAC_PI_2);
        b.2 = b.2.iter().map(|p| turn * *p).collect();
        let m = map(&a, &b);
        assert_eq!(m.len(), b.0.len(), "{style}: every joint mapped");
        for p in m.pairs() {
            assert_eq!(p.source, p.target, "{style}: {}", b.0[p.target]);
            assert_eq!(
                p.method,
                MapMethod::SimilarName,
                "{style}: {}",
                b.0[p.target]
            );
        }
    }
}

/// `rig` without joint `name`: its children hang from its parent.
fn without(rig: &Rig, name: &str) -> Rig {
    let gone = rig.0.iter().position(|n| n == name).expect("joint");
    let keep: Vec<usize> = (0..rig.0.len()).filter(|&j| j != gone).collect();
    let new_index = |j: usize| keep.iter().position(|&k| k == j);
    let parent = |j: usize| match rig.1[j] {
        Some(p) if p == gone => rig.1[gone],
        other => other,
    };
    (
        keep.iter().map(|&j| rig.0[j].clone()).collect(),
        keep.iter()
            .map(|&j| parent(j).and_then(new_index))
            .collect(),
        keep.iter().map(|&j| rig.2[j]).collect(),
    )
}

/// Roblox's face: a jaw and tongue under the head continue the spine's chain of a rig with
/// no neck. The target's neck, above the head its name maps, took the tongue and swung with
/// it (the head's bone stretched by 1.7 % of the height): it stays unmapped.
#[test]
fn a_neck_above_the_mapped_head_never_takes_a_joint_below_the_sources_head() {
    let target = biped();
    let mut source = without(&target, "neck");
    let head = source.0.iter().position(|n| n == "head").unwrap();
    for (name, y, z) in [
        ("jaw", 1.65, 0.05),
        ("tongue1", 1.68, 0.08),
        ("tongue2", 1.7, 0.1),
    ] {
        let parent = source.0.len() - usize::from(name != "jaw");
        source.0.push(name.into());
        source
            .1
            .push(Some(if name == "jaw" { head } else { parent }));
        source.2.push(Vec3::new(0.0, y, z));
    }
    let m = map(&source, &target);
    let neck = target.0.iter().position(|n| n == "neck").unwrap();
    let head_source = m.for_target(target.0.iter().position(|n| n == "head").unwrap());
    assert_eq!(head_source.map(|p| p.source), Some(head));
    if let Some(p) = m.for_target(neck) {
        let below_head = crate::skeleton::is_ancestor_in(&source.1, head, p.source);
        assert!(!below_head, "neck ← {}", source.0[p.source]);
    }
}

/// `rig` with `joints` (name, parent's name, position) added at its end.
fn with(rig: &Rig, joints: &[(&str, &str, [f32; 3])]) -> Rig {
    let mut out = rig.clone();
    for (name, parent, p) in joints {
        let parent = out.0.iter().position(|n| n == parent).expect("parent");
        out.0.push(name.to_string());
        out.1.push(Some(parent));
        out.2.push(Vec3::from(*p));
    }
    out
}

/// A VRoid skirt chain hung from each shin and a bust from the chest; Mixamo's toe ends
/// under its toes. The skirt took the toe end (past the foot and toes the names map), and
/// the shin, aimed at its children, turned 25° off: a helper takes no joint of another
/// limb's branch.
#[test]
fn a_helper_chain_never_takes_a_joint_past_another_limbs_mapped_joints() {
    let source = with(
        &biped(),
        &[
            ("l_toe_end", "l_toe", [0.1, 0.0, 0.2]),
            ("r_toe_end", "r_toe", [-0.1, 0.0, 0.2]),
        ],
    );
    let target = with(
        &biped(),
        &[
            ("skirt_l1", "l_shin", [0.1, 0.45, 0.08]),
            ("skirt_l2", "skirt_l1", [0.1, 0.35, 0.12]),
            ("skirt_l3", "skirt_l2", [0.1, 0.25, 0.16]),
            ("skirt_r1", "r_shin", [-0.1, 0.45, 0.08]),
            ("skirt_r2", "skirt_r1", [-0.1, 0.35, 0.12]),
            ("skirt_r3", "skirt_r2", [-0.1, 0.25, 0.16]),
            ("bust_r1", "chest", [-0.1, 1.35, 0.1]),
            ("bust_r2", "bust_r1", [-0.1, 1.35, 0.15]),
        ],
    );
    let m = map(&source, &target);
    for (t, name) in target.0.iter().enumerate() {
        let helper = name.starts_with("skirt") || name.starts_with("bust");
        if let Some(p) = m.for_target(t).filter(|_| helper) {
            let s = &source.0[p.source];
            let limb = ["foot", "toe", "shoulder", "arm", "hand"]
                .iter()
                .any(|k| s.contains(k));
            assert!(!limb, "{name} ← {s}");
        }
    }
}
