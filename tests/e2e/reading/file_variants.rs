//! The variant-file generators (`common::file_variants`) checked with our own reader: each
//! variant loads, keeps its joints, and moves them exactly as the original (or as the
//! convention says: ×k, longer legs, turned world).

use crate::common::file_variants::bvh_variants::{euler_to_quat, quat_to_euler};
use crate::common::file_variants::checks::{
    assert_frames, assert_same_mesh, bind_positions, bytes, clip_positions, frames_error, load_as,
    load_bvh, load_glb, rest_skinned_vertices,
};
use crate::common::file_variants::glb::{Glb, indices};
use crate::common::file_variants::mixamo::{REST_TURN_ARMS, armature_children};
use crate::common::file_variants::{
    Convention, bound_elsewhere, degenerate_zero_pose, longer_legs, mixamo_through_blender,
    rename_map, renamed, reoriented, rescaled, z_up_bvh,
};
use crate::common::{BVH_ASSETS, asset_path};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::{Axis, HumanBone, Pose, Skeleton, Unit};
use retarget_studio::io::{Asset, Format, ImportOptions};

/// The skinned characters (the .vrma has no skin).
const CHARACTERS: &[&str] = &[
    "gltf/RobotExpressive.glb",
    "gltf/CesiumMan.glb",
    "gltf/Fox.glb",
    "vrm/cryptovoxels.vrm",
];
/// Those with a clip.
const ANIMATED: &[&str] = &[
    "gltf/RobotExpressive.glb",
    "gltf/CesiumMan.glb",
    "gltf/Fox.glb",
];
fn joint_count(asset: &Asset) -> usize {
    asset.skeletons[0].len()
}

#[test]
fn every_glb_variant_loads_with_the_same_joints() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let original = joint_count(&load_as(
            rel.rsplit('/').next().unwrap(),
            &data,
            ImportOptions::default(),
        ));
        let variants = [
            ("mixamo +90", mixamo_through_blender(&data, 90.0)),
            ("mixamo -90", mixamo_through_blender(&data, -90.0)),
            ("mixamo names", renamed(&data, Convention::Mixamo)),
            ("unreal names", renamed(&data, Convention::Unreal)),
            ("×0.01", rescaled(&data, 0.01)),
            ("×100", rescaled(&data, 100.0)),
            ("reoriented", reoriented(&data, 7)),
        ];
        for (what, v) in variants {
            let asset = load_glb(&v);
            assert_eq!(joint_count(&asset), original, "{rel} {what}");
            assert_eq!(asset.skeletons.len(), 1, "{rel} {what}: one skeleton");
        }
        assert_eq!(
            joint_count(&load_glb(&longer_legs(&data, 1.3))),
            original,
            "{rel}"
        );
    }
}

#[test]
fn glb_round_trip_changes_nothing() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let again = Glb::parse(&data).to_bytes();
        let (a, b) = (load_glb(&data), load_glb(&again));
        assert_eq!(a.skeletons, b.skeletons, "{rel}");
        assert_eq!(a.clips.len(), b.clips.len(), "{rel}");
    }
}

#[test]
fn reoriented_moves_every_joint_as_the_original() {
    for rel in ANIMATED {
        let data = bytes(rel);
        let (a, b) = (load_glb(&data), load_glb(&reoriented(&data, 11)));
        assert_frames(rel, &clip_positions(&a), &clip_positions(&b), |p| p);
        // Not a no-op: the local axes really turned.
        let turned = a.skeletons[0]
            .rest()
            .iter()
            .zip(b.skeletons[0].rest())
            .filter(|(x, y)| x.rotation.angle_between(y.rotation) > 0.2)
            .count();
        assert!(
            turned * 2 > joint_count(&a),
            "{rel}: only {turned} joints turned"
        );
    }
}

#[test]
fn reoriented_keeps_the_bind_pose() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let (a, b) = (load_glb(&data), load_glb(&reoriented(&data, 5)));
        assert_frames(rel, &[bind_positions(&a)], &[bind_positions(&b)], |p| p);
    }
}

#[test]
fn mixamo_through_blender_moves_every_joint_as_the_original() {
    for rel in ANIMATED {
        let data = bytes(rel);
        let a = load_glb(&data);
        for turn in [90.0, -90.0] {
            let v = mixamo_through_blender(&data, turn);
            let b = load_glb(&v);
            assert_frames(
                &format!("{rel} {turn}"),
                &clip_positions(&a),
                &clip_positions(&b),
                |p| p,
            );
            // Centimetres under a 0.01 armature that holds the skinned meshes too.
            let s = &b.skeletons[0];
            let container_scale = s.container().x_axis.truncate().length();
            let original_scale = a.skeletons[0].container().x_axis.truncate().length();
            assert!(
                (container_scale / original_scale - 0.01).abs() < 1e-6,
                "{rel}"
            );
            let g = Glb::parse(&v);
            let children = armature_children(&g);
            assert!(
                g.skinned_mesh_nodes().iter().all(|m| children.contains(m)),
                "{rel}"
            );
            assert!(
                s.names().iter().all(|n| n.starts_with("mixamorig:")),
                "{rel}"
            );
            assert_eq!(b.format, Format::Glb);
        }
    }
}

#[test]
fn mixamo_through_blender_turns_the_rest_of_the_limbs_away_from_the_bind() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let (a, b) = (
            load_glb(&data),
            load_glb(&mixamo_through_blender(&data, 90.0)),
        );
        let s = &b.skeletons[0];
        let arm = s
            .find("mixamorig:LeftArm")
            .unwrap_or_else(|| panic!("{rel}: no LeftArm"));
        let angle = a.skeletons[0].rest()[arm]
            .rotation
            .angle_between(s.rest()[arm].rotation);
        assert!(
            (angle.to_degrees() - REST_TURN_ARMS).abs() < 0.1,
            "{rel}: {angle}"
        );
        assert_eq!(
            HumanBone::from_mixamo(&s.names()[arm]),
            Some(HumanBone::LeftUpperArm)
        );
    }
}

#[test]
fn mixamo_through_blender_keeps_the_bind_pose() {
    let mut errors = Vec::new();
    for rel in CHARACTERS {
        let data = bytes(rel);
        let a = load_glb(&data);
        for turn in [90.0, -90.0] {
            let b = load_glb(&mixamo_through_blender(&data, turn));
            let what = format!("{rel} {turn}");
            errors.extend(frames_error(
                &what,
                &[bind_positions(&a)],
                &[bind_positions(&b)],
                |p| p,
            ));
        }
    }
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn rescaled_scales_every_joint() {
    for rel in ANIMATED {
        let data = bytes(rel);
        let a = clip_positions(&load_glb(&data));
        for k in [0.01, 100.0] {
            let b = clip_positions(&load_glb(&rescaled(&data, k)));
            assert_frames(&format!("{rel} ×{k}"), &a, &b, |p| p * k);
        }
    }
    let data = bytes("vrm/cryptovoxels.vrm");
    let a = bind_positions(&load_glb(&data));
    let b = bind_positions(&load_glb(&rescaled(&data, 0.01)));
    assert_frames("vrm ×0.01", &[a], &[b], |p| p * 0.01);
}

fn names(asset: &Asset) -> Vec<String> {
    asset.skeletons[0].names().to_vec()
}

#[test]
fn renamed_joints_follow_the_convention_and_keep_their_place() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let a = load_glb(&data);
        let m = load_glb(&renamed(&data, Convention::Mixamo));
        let u = load_glb(&renamed(&data, Convention::Unreal));
        let (mn, un) = (names(&m), names(&u));
        assert!(
            mn.iter().all(|n| n.starts_with("mixamorig:")),
            "{rel}: {mn:?}"
        );
        for (bone, unreal) in [
            (HumanBone::Hips, "pelvis"),
            (HumanBone::LeftUpperLeg, "thigh_l"),
        ] {
            let j = mn
                .iter()
                .position(|n| HumanBone::from_mixamo(n) == Some(bone));
            let j = j.unwrap_or_else(|| panic!("{rel}: no {bone:?} in {mn:?}"));
            assert_eq!(un[j], unreal, "{rel}");
        }
        assert!(un.iter().any(|n| n == "spine_01"), "{rel}: {un:?}");
        assert_eq!(m.format, Format::Glb, "{rel}: the VRM table is gone");
        assert_frames(rel, &[bind_positions(&a)], &[bind_positions(&m)], |p| p);
    }
}

/// World distance between two joints of the rest and the bind pose.
fn lengths(s: &Skeleton, a: usize, b: usize) -> [f32; 2] {
    let rest = Pose::rest(s).world_positions(s);
    let bind = Pose::bind(s).world_positions(s);
    [rest[a].distance(rest[b]), bind[a].distance(bind[b])]
}

#[test]
fn longer_legs_lengthen_the_legs_only() {
    let pairs = [
        (
            "gltf/RobotExpressive.glb",
            ["UpperLeg.L", "LowerLeg.L", "UpperArm.L", "LowerArm.L"],
        ),
        (
            "gltf/CesiumMan.glb",
            [
                "leg_joint_L_1",
                "leg_joint_L_2",
                "Skeleton_arm_joint_L__4_",
                "Skeleton_arm_joint_L__3_",
            ],
        ),
        (
            "vrm/cryptovoxels.vrm",
            ["Left leg", "Left knee", "Left arm", "Left elbow"],
        ),
    ];
    for (rel, [hip, knee, shoulder, elbow]) in pairs {
        let data = bytes(rel);
        let (a, b) = (load_glb(&data), load_glb(&longer_legs(&data, 1.3)));
        let (sa, sb) = (&a.skeletons[0], &b.skeletons[0]);
        let j = |n: &str| sa.find(n).unwrap_or_else(|| panic!("{rel}: {n}"));
        let (la, lb) = (lengths(sa, j(hip), j(knee)), lengths(sb, j(hip), j(knee)));
        let (aa, ab) = (
            lengths(sa, j(shoulder), j(elbow)),
            lengths(sb, j(shoulder), j(elbow)),
        );
        for k in 0..2 {
            assert!(
                (lb[k] / la[k] - 1.3).abs() < 1e-3,
                "{rel}: thigh {} -> {}",
                la[k],
                lb[k]
            );
            assert!(
                (ab[k] / aa[k] - 1.0).abs() < 1e-3,
                "{rel}: arm {} -> {}",
                aa[k],
                ab[k]
            );
        }
    }
}

fn bvh_text(rel: &str) -> String {
    std::fs::read_to_string(asset_path(rel)).unwrap()
}

#[test]
fn degenerate_zero_pose_moves_every_joint_as_the_original() {
    for rel in BVH_ASSETS {
        let text = bvh_text(rel);
        let a = load_bvh(&text, Axis::PosY);
        let b = load_bvh(&degenerate_zero_pose(&text, 3), Axis::PosY);
        assert_eq!(joint_count(&a), joint_count(&b), "{rel}");
        assert_frames(rel, &clip_positions(&a), &clip_positions(&b), |p| p);
    }
}

#[test]
fn degenerate_zero_pose_lays_every_first_bone_along_x() {
    for rel in BVH_ASSETS {
        let b = load_bvh(&degenerate_zero_pose(&bvh_text(rel), 3), Axis::PosY);
        let s = &b.skeletons[0];
        let offset = |j: usize| s.rest()[j].translation;
        let mut checked = 0;
        for j in 0..s.len() {
            let Some(first) = s.children(j).map(offset).find(|o| o.length() > 1e-6) else {
                continue;
            };
            let along = first.x / first.length();
            assert!(
                along > 1.0 - 1e-6,
                "{rel}: {}'s first bone {first}",
                s.names()[j]
            );
            checked += 1;
        }
        assert!(checked >= 20, "{rel}: only {checked} joints with a bone");
        let root = offset(0).length() / Unit::CmuAsf.metres();
        assert!(
            root > 1.0,
            "{rel}: the root OFFSET should be the first position, {root}"
        );
    }
}

#[test]
fn z_up_bvh_turns_the_world_up_to_z() {
    let text = bvh_text("bvh/02_01.bvh");
    let a = clip_positions(&load_bvh(&text, Axis::PosY));
    let raw = clip_positions(&load_bvh(&z_up_bvh(&text), Axis::PosY));
    let turn = Quat::from_rotation_x(std::f32::consts::FRAC_PI_2);
    assert_frames("raw", &a, &raw, |p| turn * p);
    let read_as_z_up = clip_positions(&load_bvh(&z_up_bvh(&text), Axis::PosZ));
    assert_frames("read as Z up", &a, &read_as_z_up, |p| p);
}

#[test]
fn euler_angles_round_trip_in_every_order() {
    let orders = [
        [0, 1, 2],
        [0, 2, 1],
        [1, 0, 2],
        [1, 2, 0],
        [2, 0, 1],
        [2, 1, 0],
    ];
    for order in orders {
        let angles = [0.3, -1.1, 2.5];
        let q = euler_to_quat(&order, &angles);
        let back = quat_to_euler(&order, q);
        let q2 = euler_to_quat(&order, &back);
        assert!(
            q.dot(q2).abs() > 1.0 - 1e-12,
            "{order:?}: {angles:?} -> {back:?}"
        );
    }
}

/// Writes the variants to `$VARIANTS_OUT` for a look with Blender (`pose-dump`).
#[test]
#[ignore = "writes files for a manual check"]
fn write_variants_for_blender() {
    let Ok(out) = std::env::var("VARIANTS_OUT") else {
        return;
    };
    let out = std::path::PathBuf::from(out);
    std::fs::create_dir_all(&out).unwrap();
    for rel in CHARACTERS {
        let stem = rel.rsplit('/').next().unwrap().split('.').next().unwrap();
        let data = bytes(rel);
        let write = |what: &str, v: Vec<u8>| {
            std::fs::write(out.join(format!("{stem}_{what}.glb")), v).unwrap()
        };
        write("mixamo", mixamo_through_blender(&data, 90.0));
        write("reoriented", reoriented(&data, 7));
        write("x100", rescaled(&data, 100.0));
        write("unreal", renamed(&data, Convention::Unreal));
        // `pose-compare --map` files: original name -> variant name.
        for (what, convention) in [
            ("unreal", Convention::Unreal),
            ("mixamo", Convention::Mixamo),
        ] {
            let map: serde_json::Map<String, serde_json::Value> = rename_map(&data, convention)
                .into_iter()
                .map(|(a, b)| (a, b.into()))
                .collect();
            let path = out.join(format!("{stem}_{what}.map.json"));
            std::fs::write(path, serde_json::to_vec_pretty(&map).unwrap()).unwrap();
        }
        write("longlegs", longer_legs(&data, 1.3));
    }
    for rel in BVH_ASSETS {
        let stem = rel.rsplit('/').next().unwrap().trim_end_matches(".bvh");
        let text = bvh_text(rel);
        std::fs::write(
            out.join(format!("{stem}_degenerate.bvh")),
            degenerate_zero_pose(&text, 3),
        )
        .unwrap();
        std::fs::write(out.join(format!("{stem}_zup.bvh")), z_up_bvh(&text)).unwrap();
    }
}

#[test]
fn reoriented_and_rescaled_keep_the_skinned_mesh() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let a = rest_skinned_vertices(&Glb::parse(&data));
        let b = rest_skinned_vertices(&Glb::parse(&reoriented(&data, 9)));
        assert_same_mesh(&format!("{rel} reoriented"), &a, &b, 1.0);
        let c = rest_skinned_vertices(&Glb::parse(&rescaled(&data, 100.0)));
        assert_same_mesh(&format!("{rel} ×100"), &a, &c, 100.0);
    }
}

#[test]
fn mixamo_through_blender_writes_world_space_vertices_and_inverse_binds() {
    for rel in CHARACTERS {
        let data = bytes(rel);
        let original = load_glb(&data);
        let bind = bind_positions(&original);
        let og = Glb::parse(&data);
        for turn in [90.0, -90.0] {
            let g = Glb::parse(&mixamo_through_blender(&data, turn));
            let skin = &g.json["skins"][0];
            let ibms = g.read_floats(skin["inverseBindMatrices"].as_u64().unwrap() as usize);
            let by_node: Vec<(usize, Vec3)> = indices(&skin["joints"])
                .into_iter()
                .zip(&ibms)
                .map(|(n, m)| (n, Mat4::from_cols_slice(m).inverse().w_axis.truncate()))
                .collect();
            // inverse(IBM') is the joint's world bind position, as the original is read.
            let nodes = &original.joint_nodes[0];
            let expected: Vec<Vec3> = by_node
                .iter()
                .map(|(n, _)| bind[nodes.iter().position(|x| x == n).unwrap()])
                .collect();
            let got: Vec<Vec3> = by_node.iter().map(|(_, p)| *p).collect();
            assert_frames(&format!("{rel} {turn}"), &[expected], &[got], |p| p);
            // Vertices in world space: the original's under its mesh node's transform.
            let mesh_node = og.skinned_mesh_nodes()[0];
            let m = og.world(mesh_node);
            let position = |g: &Glb| {
                let mesh = g.json["nodes"][mesh_node]["mesh"].as_u64().unwrap() as usize;
                let a = &g.json["meshes"][mesh]["primitives"][0]["attributes"]["POSITION"];
                g.read_floats(a.as_u64().unwrap() as usize)
                    .iter()
                    .map(|v| Vec3::from_slice(v))
                    .collect::<Vec<_>>()
            };
            let want: Vec<Vec3> = position(&og)
                .iter()
                .map(|v| m.transform_point3(*v))
                .collect();
            assert_same_mesh(&format!("{rel} {turn} vertices"), &want, &position(&g), 1.0);
        }
    }
}

/// Bound away from its rest (the bind moved by 0.8 of the height down and aside): the mesh
/// draws the same, the motion is the same, and only the bind pose has moved, whole.
#[test]
fn bound_elsewhere_moves_only_the_bind_pose() {
    let d = Vec3::new(0.3, -0.8, 0.1);
    for rel in CHARACTERS {
        let data = bytes(rel);
        let moved = bound_elsewhere(&data, d);
        let a = rest_skinned_vertices(&Glb::parse(&data));
        let b = rest_skinned_vertices(&Glb::parse(&moved));
        assert_same_mesh(&format!("{rel} bound elsewhere"), &a, &b, 1.0);
        let (a, b) = (load_glb(&data), load_glb(&moved));
        if ANIMATED.contains(rel) {
            assert_frames(rel, &clip_positions(&a), &clip_positions(&b), |p| p);
        }
        let (ba, bb) = (bind_positions(&a), bind_positions(&b));
        let shift = bb[0] - ba[0];
        let size = crate::common::file_variants::checks::size(&ba);
        assert!(shift.length() > 0.5 * size, "{rel}: bind moved {shift}");
        assert_frames(rel, &[ba], &[bb], |p| p + shift);
    }
}
