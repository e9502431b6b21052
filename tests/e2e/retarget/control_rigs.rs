//! Rigs exported with their controls beside the skeleton the skin deforms with: the body
//! joints must move exactly as they do on the same rig without the controls, and the
//! controls, IK targets and poles must stay where their parents take them.

use crate::common::file_variants::controls::{ik_controls, ik_feet_from_root, rigify_controls};
use crate::common::{asset_path, session, world_frames};
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::session::Session;

/// The worst distance, over height, between each joint of the plain rig and its namesake
/// (`renamed(name)`) on the variant, over a retargeted clip of each.
fn worst_gap(source: &str, plain: &str, variant: &[u8], renamed: impl Fn(&str) -> String) -> f32 {
    let (_dir, a, b) = crate::common::onto_plain_and_variant(source, plain, variant);
    let frames = |s: &Session| {
        let clip = s.retarget_clip(None, Some(30.0)).unwrap();
        world_frames(s.target.skeleton(), &clip, 24)
    };
    let (fa, fb) = (frames(&a), frames(&b));
    let (sa, sb) = (a.target.skeleton(), b.target.skeleton());
    let pairs: Vec<(usize, usize)> = sa
        .names()
        .iter()
        .enumerate()
        .map(|(j, n)| {
            let k = sb.find(&renamed(n));
            (j, k.unwrap_or_else(|| panic!("{n} is in the variant")))
        })
        .collect();
    let bind = Pose::bind(sa).world_positions(sa);
    let (lo, hi) = bind.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let mut worst = (0.0f32, String::new());
    for (pa, pb) in fa.iter().zip(&fb) {
        for &(j, k) in &pairs {
            let gap = pa[j].distance(pb[k]) / (hi - lo);
            if gap > worst.0 {
                worst = (gap, sa.names()[j].clone());
            }
        }
    }
    eprintln!(
        "{plain}: worst gap {:.2e} of the height at {}",
        worst.0, worst.1
    );
    if worst.0 > 1e-2 {
        let (ns, nt) = (b.source.skeleton().names(), sb.names());
        for p in b.map.pairs() {
            eprintln!(
                "  {} <- {} {:?} {:?}",
                nt[p.target], ns[p.source], p.bone, p.method
            );
        }
    }
    worst.0
}

/// Rigify's export: deform joints `DEF-…`, controls named `hips`, `chest`, `neck`, `head`
/// away from those parts, `ORG-` copies in the limbs. Before the skin's weights chose the
/// body, the `hips` control took the hips' motion and the body stayed behind.
#[test]
fn a_rigify_export_moves_its_deform_joints_as_the_plain_rig() {
    for plain in ["gltf/CesiumMan.glb", "gltf/RobotExpressive.glb"] {
        let variant = rigify_controls(&std::fs::read(asset_path(plain)).unwrap());
        let gap = worst_gap("bvh/02_01.bvh", plain, &variant, |n| format!("DEF-{n}"));
        assert!(
            gap < 2e-3,
            "{plain}: DEF joints {gap:.2e} of the height off"
        );
    }
}

/// The controls keep their rest offsets from their parents in every frame: nothing maps
/// onto them.
#[test]
fn rigify_controls_stay_where_their_parents_take_them() {
    let plain = "gltf/CesiumMan.glb";
    let variant = rigify_controls(&std::fs::read(asset_path(plain)).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rigify.glb");
    std::fs::write(&path, &variant).unwrap();
    let s = session(&asset_path("bvh/02_01.bvh"), &path);
    let t = s.target.skeleton();
    for name in ["hips", "chest", "neck", "head", "ORG-leg_joint_L_1"] {
        let j = t.find(name).unwrap();
        assert!(s.map.for_target(j).is_none(), "{name} is a control");
    }
    let hips = s
        .map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Hips));
    assert_eq!(
        hips.map(|p| t.names()[p.target].as_str()),
        Some("DEF-Skeleton_torso_joint_1")
    );
}

/// A game character's IK controls beside the FK legs and arms, named like body parts
/// (`l-LEGCONTROL`, `l-ARMORIENT`), with `l-`/`r-` prefixes: they were labelled the lower
/// leg and the upper arm.
#[test]
fn ik_controls_beside_the_limbs_are_not_body_parts() {
    for plain in ["gltf/CesiumMan.glb", "gltf/RobotExpressive.glb"] {
        let variant = ik_controls(&std::fs::read(asset_path(plain)).unwrap());
        let renamed = |n: &str| {
            use crate::common::file_variants::joint_names::{Side, split_side};
            match split_side(n) {
                Some((Side::Left, base)) => format!("l-{base}"),
                Some((Side::Right, base)) => format!("r-{base}"),
                None => n.to_owned(),
            }
        };
        let gap = worst_gap("bvh/02_01.bvh", plain, &variant, renamed);
        assert!(
            gap < 2e-3,
            "{plain}: body joints {gap:.2e} of the height off"
        );
    }
}

/// Feet hung from the root as IK joints, the leg ending in an unweighted leaf where the
/// foot was (the Quaternius rigs' `LowerLeg.L_end`): the weighted foot is the foot.
#[test]
fn an_ik_foot_hung_from_the_root_follows_its_leg() {
    let plain = "gltf/CesiumMan.glb";
    let variant = ik_feet_from_root(&std::fs::read(asset_path(plain)).unwrap());
    let gap = worst_gap("bvh/02_01.bvh", plain, &variant, str::to_owned);
    assert!(gap < 1e-2, "feet {gap:.2e} of the height off");
}
