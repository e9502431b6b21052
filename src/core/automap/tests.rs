use super::*;
use crate::core::chains::testkit::{Rig, biped, fox_like};
use crate::core::chains::{BuildFrame, build};

fn chains(rig: &Rig) -> ChainSkeleton {
    build(&BuildFrame {
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
