//! Creatures and rigs under other conventions: Fox onto variants of itself (renamed,
//! re-oriented, rescaled, legs ×1.3, spine split in three, tail shortened), a biped's arms
//! onto a four-armed variant (the crowd paper's figure 8), and the robot renamed as met on
//! real files. Every bone maps, and where the variant is the same body the motion comes back.

use crate::common::asset_path;
use crate::common::creature_set::{fox_variants, robot_renamed};
use crate::common::file_variants::four_armed::{LOWER, four_armed};
use crate::common::file_variants::renamed_with;
use glam::Vec3;
use retarget_studio::core::chains::{ChainKind, LimbType};
use retarget_studio::core::{Clip, MapMethod, Pose, Skeleton};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::Path;

fn automatic(source: &Path, target: &Path) -> Session {
    Session::automatic(source, target, &ImportOptions::default())
        .unwrap_or_else(|e| panic!("{} onto {}: {e}", source.display(), target.display()))
}

/// World joint positions of `clip` (or the bind pose) at `times`.
fn frames(s: &Skeleton, clip: &Clip, times: &[f32]) -> Vec<Vec<Vec3>> {
    crate::common::positions_at(s, clip, times)
}

fn height(s: &Skeleton) -> f32 {
    let p = Pose::bind(s).world_positions(s);
    let (lo, hi) = p.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), q| {
        (lo.min(*q), hi.max(*q))
    });
    (hi - lo).max_element()
}

/// The worst distance, in heights, between each name-mapped target joint in the output and
/// its source joint in the clip, over every clip of the source, once each clip's one
/// vertical shift is taken out; and the largest such shift. The shift is the floor rule
/// the judge and the solver share: the source stands on the lowest its feet reach in the
/// clip, the target on its own rest pose's feet, and a clip that never lowers its feet to
/// the rest pose's floor (the fox's walk and run) rides that much lower on the target.
fn identity_error(session: &Session, methods: &[MapMethod]) -> (f32, f32) {
    let (src, tgt) = (session.source.skeleton(), session.target.skeleton());
    let (hs, ht) = (height(src), height(tgt));
    let (mut worst, mut worst_shift) = (0.0f32, 0.0f32);
    let pelvis = session.target.chains.pelvis();
    let named: Vec<_> = session
        .map
        .pairs()
        .iter()
        .filter(|p| methods.contains(&p.method))
        // The body: the pelvis and below (the armature's roots above it stay put).
        .filter(|p| {
            Some(p.target) == pelvis || pelvis.is_some_and(|q| tgt.is_ancestor(q, p.target))
        })
        .map(|p| (p.source, p.target))
        .collect();
    for clip in session.source.clips() {
        let out = session.retarget_clip(Some(&clip.name), None).unwrap();
        // The output's own frames: between keys, two clips keyed at other times differ.
        let n = out.frame_count().max(2);
        let times: Vec<f32> = (0..n)
            .map(|k| out.start_secs() + out.duration_secs() * k as f32 / (n - 1) as f32)
            .collect();
        let (a, b) = (frames(src, clip, &times), frames(tgt, &out, &times));
        let deltas = || {
            a.iter()
                .zip(&b)
                .flat_map(|(fa, fb)| named.iter().map(move |&(s, t)| fb[t] / ht - fa[s] / hs))
        };
        assert!(!named.is_empty(), "no joint of the body is mapped by name");
        let count = (named.len() * a.len()) as f32;
        let shift = Vec3::Y * deltas().map(|d| d.y).sum::<f32>() / count;
        let e = deltas().map(|d| (d - shift).length()).fold(0.0, f32::max);
        println!(
            "  {}: {e:.1e} of the height, shifted {:+.1e}",
            clip.name, shift.y
        );
        worst = worst.max(e);
        worst_shift = worst_shift.max(shift.y.abs());
    }
    (worst, worst_shift)
}

const BY_NAME: [MapMethod; 2] = [MapMethod::ExactName, MapMethod::SimilarName];

#[test]
fn fox_onto_each_variant_maps_every_bone_and_the_same_body_moves_as_the_source() {
    let dir = tempfile::tempdir().unwrap();
    let fox = asset_path("gltf/Fox.glb");
    for v in fox_variants(&std::fs::read(&fox).unwrap()) {
        let path = dir.path().join(format!("fox-{}.glb", v.label));
        std::fs::write(&path, &v.bytes).unwrap();
        let session = automatic(&fox, &path);
        let joints = session.target.skeleton().len();
        assert_eq!(
            session.map.len(),
            joints,
            "Fox[{}]: every bone mapped; unmapped chains {:?}",
            v.label,
            session.unmapped_target_chains()
        );
        assert_eq!(
            session.map.legs().len(),
            4,
            "Fox[{}] stands on four legs",
            v.label
        );
        if v.same_body {
            let (e, shift) = identity_error(&session, &BY_NAME);
            println!("Fox[{}]: identity {e:.1e} of the height", v.label);
            assert!(e < 1e-3, "Fox[{}]: {e:.2e} of the height", v.label);
            assert!(
                shift < 0.03,
                "Fox[{}]: floors {shift:.2e} of the height apart",
                v.label
            );
        }
    }
}

/// No name in common at all: the chain skeleton alone pairs every limb joint with its twin.
#[test]
fn a_fox_whose_joints_lost_their_names_maps_by_its_chains() {
    let dir = tempfile::tempdir().unwrap();
    let fox = asset_path("gltf/Fox.glb");
    let path = dir.path().join("fox-unnamed.glb");
    std::fs::write(
        &path,
        renamed_with(&std::fs::read(&fox).unwrap(), |_| "bone".into()),
    )
    .unwrap();
    let session = automatic(&fox, &path);
    let chained: Vec<_> = session
        .map
        .pairs()
        .iter()
        .filter(|p| p.method == MapMethod::Chain)
        .collect();
    // All 24 joints: the body, and the two armature roots above the pelvis onto the source's.
    assert_eq!(chained.len(), 24);
    for p in &chained {
        assert_eq!(
            p.source,
            p.target,
            "{} is its own twin",
            session.source.skeleton().names()[p.source]
        );
    }
    let (e, _) = identity_error(&session, &[MapMethod::Chain]);
    assert!(e < 1e-3, "{e:.2e} of the height");
}

/// The crowd paper's figure 8: both pairs of arms of a four-armed biped move as the
/// source's arms, and the body is judged whole.
#[test]
fn a_biped_drives_both_pairs_of_arms_of_a_four_armed_variant() {
    let dir = tempfile::tempdir().unwrap();
    let dance = asset_path("bvh/05_06.bvh");
    for rel in [
        "gltf/CesiumMan.glb",
        "gltf/RobotExpressive.glb",
        "vrm/cryptovoxels.vrm",
    ] {
        let path = dir.path().join("four-armed.glb");
        std::fs::write(&path, four_armed(&std::fs::read(asset_path(rel)).unwrap())).unwrap();
        let session = automatic(&dance, &path);
        let tgt = session.target.skeleton();
        let copies: Vec<(usize, usize)> = (0..tgt.len())
            .filter_map(|j| {
                let base = tgt.names()[j].strip_suffix(LOWER)?;
                Some((tgt.find(base)?, j))
            })
            .collect();
        // The arms proper, as the chain skeleton finds them (the labeller, confused by four
        // arms, may give an arm's or a finger's label to the copy instead).
        let chains = &session.target.chains;
        let in_arm = |j: usize| {
            chains.chain_of(j).is_some_and(|c| {
                let c = &chains.chains[c];
                c.kind == ChainKind::Limb && c.tags.limb == LimbType::Grasper
            })
        };
        let copies: Vec<(usize, usize)> =
            copies.into_iter().filter(|&(arm, _)| in_arm(arm)).collect();
        assert!(copies.len() >= 6, "{rel}: two arms copied");
        for &(arm, copy) in &copies {
            let a = session.map.for_target(arm).unwrap();
            let b = session.map.for_target(copy);
            let b = b.unwrap_or_else(|| panic!("{rel}: {} unmapped", tgt.names()[copy]));
            let name = &tgt.names()[copy];
            assert_eq!(
                a.source, b.source,
                "{rel}: {name} follows its twin's source"
            );
        }
        // Both take one world turn from their reference poses (rest-relative), so the angle
        // between a copied bone and its twin stays what it is in the reference, frame by
        // frame (the copies are not laid into the T-pose: the labeller knows one pair).
        // The keep-out pass moves the labelled arms alone: off, as the copies are the subject.
        let mut solo = session.clone();
        solo.solve.settings.keep_out = false;
        let out = solo.retarget_clip(None, Some(30.0)).unwrap();
        let times: Vec<f32> = (0..40)
            .map(|k| out.duration_secs() * k as f32 / 39.0)
            .collect();
        let reference = session.target.reference_positions();
        let bone = |w: &[Vec3], j: usize| tgt.parents()[j].map(|p| w[j] - w[p]);
        let mut worst = 0.0f32;
        for w in frames(tgt, &out, &times) {
            for &(arm, copy) in &copies {
                let (Some(da), Some(dc), Some(ra), Some(rc)) = (
                    bone(&w, arm),
                    bone(&w, copy),
                    bone(&reference, arm),
                    bone(&reference, copy),
                ) else {
                    continue;
                };
                if tgt.parents()[copy].is_some_and(|p| copies.iter().all(|c| c.1 != p))
                    || da.length() < 1e-6
                {
                    continue;
                }
                let drift = da.angle_between(dc) - ra.angle_between(rc);
                worst = worst.max(drift.abs().to_degrees());
            }
        }
        assert!(
            worst < 1.0,
            "{rel}: copied arms drift {worst:.2}° from their twins"
        );
        let report = session
            .quality(None, &retarget_studio::core::quality::Thresholds::default())
            .unwrap();
        assert!(
            report.body.max < 1e-2,
            "{rel}: body {:.2e}",
            report.body.max
        );
    }
}

/// The robot renamed as met on real files: `Foot.L` → `FootL`, `Torso` → `Torso_1`, an extra
/// scene node on top. Every joint maps and the robot moves as itself.
#[test]
fn the_robot_under_other_names_maps_whole_and_moves_as_itself() {
    let dir = tempfile::tempdir().unwrap();
    let robot = asset_path("gltf/RobotExpressive.glb");
    let path = dir.path().join("robot-renamed.glb");
    std::fs::write(&path, robot_renamed(&std::fs::read(&robot).unwrap())).unwrap();
    let session = automatic(&robot, &path);
    let tgt = session.target.skeleton();
    assert_eq!(
        session.map.len(),
        tgt.len(),
        "{} of {} mapped",
        session.map.len(),
        tgt.len()
    );
    for p in session.map.pairs() {
        assert_eq!(p.source, p.target, "{}", tgt.names()[p.target]);
    }
    let (e, shift) = identity_error(&session, &BY_NAME);
    assert!(e < 1e-3, "{e:.2e} of the height");
    assert!(shift < 1e-3, "{shift:.2e} of the height");
}

/// Humanoids under other conventions: each bundled rig with a clip onto itself under other
/// names (Mixamo, Unreal, a renaming met on real files), other bone axes, ×0.01 and ×100, and
/// through Blender as Mixamo, maps every bone and gives its clip back.
#[test]
fn each_humanoid_onto_itself_under_other_conventions_maps_whole_and_gives_its_clip_back() {
    use crate::common::file_variants::{
        Convention, mixamo_through_blender, renamed, reoriented, rescaled,
    };
    let dir = tempfile::tempdir().unwrap();
    let all = [
        MapMethod::ExactName,
        MapMethod::SimilarName,
        MapMethod::Table,
        MapMethod::Name,
        MapMethod::Topology,
        MapMethod::Chain,
    ];
    for rel in ["gltf/CesiumMan.glb", "gltf/RobotExpressive.glb"] {
        let source = asset_path(rel);
        let bytes = std::fs::read(&source).unwrap();
        let variants: Vec<(&str, Vec<u8>)> = vec![
            ("reoriented", reoriented(&bytes, 7)),
            ("mixamo-names", renamed(&bytes, Convention::Mixamo)),
            ("unreal-names", renamed(&bytes, Convention::Unreal)),
            ("renamed", robot_renamed(&bytes)),
            ("x0.01", rescaled(&bytes, 0.01)),
            ("x100", rescaled(&bytes, 100.0)),
            ("mixamo-blender", mixamo_through_blender(&bytes, 90.0)),
        ];
        for (label, data) in variants {
            let path = dir.path().join(format!("{label}.glb"));
            std::fs::write(&path, data).unwrap();
            let session = automatic(&source, &path);
            let joints = session.target.skeleton().len();
            assert_eq!(
                session.map.len(),
                joints,
                "{rel}[{label}]: every bone mapped"
            );
            let (e, _) = identity_error(&session, &all);
            println!("{rel}[{label}]: identity {e:.1e} of the height");
            assert!(e < 1e-3, "{rel}[{label}]: {e:.2e} of the height");
        }
    }
}

/// Creature mocap whose rest says nothing about up: the Fox's walk as BVH facing +X, the
/// same with its zero pose laid along +X, and turned Z-up. Up comes from where its limbs
/// hang over the motion (+Y, +Y, +Z), not from head over feet in the rest, which for a
/// long body facing +X says +X (a quadruped came back turned 90°).
#[test]
fn creature_mocap_reads_up_from_its_motion() {
    use crate::common::file_variants::{degenerate_zero_pose, fox_walk_bvh_facing_x, z_up_bvh};
    use retarget_studio::core::Axis;
    let facing_x = fox_walk_bvh_facing_x();
    let dir = tempfile::tempdir().unwrap();
    for (label, text, up) in [
        ("facing +X", facing_x.clone(), Axis::PosY),
        (
            "zero pose along +X",
            degenerate_zero_pose(&facing_x, 4),
            Axis::PosY,
        ),
        ("Z up", z_up_bvh(&facing_x), Axis::PosZ),
    ] {
        let path = dir.path().join(format!("{label}.bvh"));
        std::fs::write(&path, text).unwrap();
        let asset = retarget_studio::io::load(&path, &ImportOptions::default()).unwrap();
        assert_eq!(asset.up, up, "{label}: {:?}", asset.warnings);
        // The same creature as the Fox's own file: its body stands on its legs, Y up.
        let session = automatic(&path, &asset_path("gltf/Fox.glb"));
        let s = session.source.skeleton();
        let world = Pose::rest(s).world_positions(s);
        let clip = &session.source.clips()[0];
        let mut pose = Pose::rest(s);
        clip.sample(clip.start_secs(), &mut pose);
        let frame = pose.world_positions(s);
        let container = session.source.file.container.matrix();
        let lowest = frame
            .iter()
            .map(|p| container.transform_point3(*p).y)
            .fold(f32::MAX, f32::min);
        let highest = frame
            .iter()
            .map(|p| container.transform_point3(*p).y)
            .fold(f32::MIN, f32::max);
        let spread = |axis: fn(Vec3) -> f32| {
            let v: Vec<f32> = frame
                .iter()
                .map(|p| axis(container.transform_point3(*p)))
                .collect();
            v.iter().cloned().fold(f32::MIN, f32::max) - v.iter().cloned().fold(f32::MAX, f32::min)
        };
        // A fox is longer than it is tall: standing, its length lies across Y.
        assert!(
            spread(|p| p.x).max(spread(|p| p.z)) > highest - lowest,
            "{label}: the fox stands on its tail or nose ({} joints)",
            world.len()
        );
    }
}
