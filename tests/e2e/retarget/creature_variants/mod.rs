//! The creature variant generators (`common::file_variants::{creatures, four_armed,
//! joint_names}`) checked with our own reader on the Fox and the humanoids: each
//! variant loads, has the joints it should, and every original joint moves exactly as in the
//! original (rest pose and every key time of every clip), except where the variant says what
//! changes (a shorter tail, longer legs). Optionally the Khronos validator, when
//! the independent tools are beside the repository.

use crate::common::file_variants::checks::{
    REL_TOL, assert_same_mesh, bytes, load_glb, rest_skinned_vertices, size,
};
use crate::common::file_variants::creatures::chain_from;
use crate::common::file_variants::four_armed::{LOWER, four_armed_with};
use crate::common::file_variants::glb::{Glb, indices};
use crate::common::file_variants::joint_names::{renames_with, split_side};
use crate::common::file_variants::labels::{human_bones, nodes_of};
use crate::common::file_variants::node_edit::{
    joint_named, joints_named, node_name, root_joints, subtree,
};
use crate::common::file_variants::{
    NameStyle, SideMarker, extra_root_node, four_armed, longer_limbs, renamed_as, renamed_with,
    shorten_chain, split_bone,
};
use glam::{Mat4, Vec3};
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::io::Asset;
use std::path::Path;

const FOX: &str = "gltf/Fox.glb";
const ROBOT: &str = "gltf/RobotExpressive.glb";
const CESIUM: &str = "gltf/CesiumMan.glb";
const VRM: &str = "vrm/cryptovoxels.vrm";

/// A character's joints: names, rest and bind worlds, and each clip's worlds at key times.
struct Motion {
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    rest: Vec<Mat4>,
    bind: Vec<Mat4>,
    /// (clip name, times, world matrices per frame).
    clips: Vec<(String, Vec<f32>, Vec<Vec<Mat4>>)>,
    /// The rest pose's size (largest extent of the joints).
    size: f32,
}

impl Motion {
    /// Sampled at the clips' own key times, or at `like`'s (the original's) when given.
    fn of(asset: &Asset, like: Option<&Motion>) -> Motion {
        assert_eq!(asset.skeletons.len(), 1, "one skeleton");
        let s = &asset.skeletons[0];
        let rest = Pose::rest(s).world_matrices(s);
        let clips = asset
            .clips
            .iter()
            .enumerate()
            .map(|(c, ac)| {
                let times = like.map_or_else(
                    || crate::common::key_times(&ac.clip),
                    |m| m.clips[c].1.clone(),
                );
                let frames = times
                    .iter()
                    .map(|&t| {
                        let mut pose = Pose::rest(s);
                        ac.clip.sample(t, &mut pose);
                        pose.world_matrices(s)
                    })
                    .collect();
                (ac.clip.name.clone(), times, frames)
            })
            .collect();
        let points: Vec<Vec3> = rest.iter().map(|m| m.w_axis.truncate()).collect();
        Motion {
            names: s.names().to_vec(),
            parents: s.parents().to_vec(),
            bind: Pose::bind(s).world_matrices(s),
            rest,
            clips,
            size: size(&points),
        }
    }

    fn load(data: &[u8], like: Option<&Motion>) -> Motion {
        Motion::of(&load_glb(data), like)
    }

    fn index(&self, name: &str) -> usize {
        let found: Vec<usize> = (0..self.names.len())
            .filter(|&i| self.names[i] == name)
            .collect();
        assert_eq!(found.len(), 1, "one joint named {name}: {found:?}");
        found[0]
    }

    fn tol(&self) -> f32 {
        REL_TOL * self.size
    }

    /// Rest and every frame, as (label, worlds).
    fn poses(&self) -> impl Iterator<Item = (String, &Vec<Mat4>)> {
        std::iter::once(("rest".to_owned(), &self.rest)).chain(self.clips.iter().flat_map(
            |(name, times, frames)| {
                times
                    .iter()
                    .zip(frames)
                    .map(move |(t, f)| (format!("{name} at {t:.3}s"), f))
            },
        ))
    }
}

fn pos(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// Every (old, new) pair: the joint `new` of `b` is where `old` of `a` is, at rest and in
/// every frame of every clip, within `REL_TOL` of `a`'s size. Clips must match by name.
fn assert_same_motion(what: &str, a: &Motion, b: &Motion, pairs: &[(String, String)]) {
    assert_eq!(a.clips.len(), b.clips.len(), "{what}: clip count");
    for (ca, cb) in a.clips.iter().zip(&b.clips) {
        assert_eq!(ca.0, cb.0, "{what}: clip names");
    }
    let ids: Vec<(usize, usize)> = pairs
        .iter()
        .map(|(o, n)| (a.index(o), b.index(n)))
        .collect();
    let mut worst = (0.0f32, String::new());
    for ((label, fa), (_, fb)) in a.poses().zip(b.poses()) {
        for (&(i, j), (name, _)) in ids.iter().zip(pairs) {
            let d = pos(&fa[i]).distance(pos(&fb[j]));
            if d > worst.0 {
                worst = (d, format!("{name} ({label})"));
            }
        }
    }
    assert!(
        worst.0 <= a.tol(),
        "{what}: {} is {} off (tolerance {})",
        worst.1,
        worst.0,
        a.tol()
    );
}

fn same_names(a: &Motion, keep: impl Fn(&str) -> bool) -> Vec<(String, String)> {
    a.names
        .iter()
        .filter(|n| keep(n))
        .map(|n| (n.clone(), n.clone()))
        .collect()
}

#[test]
fn creature_variants_side_markers_and_styles() {
    let cases = [
        (NameStyle::Namespace("Fox"), "b_Hip_01", "Fox:b_Hip_01"),
        (NameStyle::MixamoPrefix, "Hips", "mixamorig:Hips"),
        (NameStyle::ModelPrefix, "Torso", "Model_Torso"),
        (NameStyle::LowerCase, "UpperArm.L", "upperarm.l"),
        (NameStyle::NoSeparators, "Foot.L", "FootL"),
        (NameStyle::NoSeparators, "b_Hip_01", "bHip01"),
        (NameStyle::NumericSuffix, "Torso", "Torso_1"),
    ];
    let side = |m| NameStyle::Sides(m);
    let sides = [
        (side(SideMarker::Word), "Foot.L", "LeftFoot"),
        (
            side(SideMarker::DotUpper),
            "b_LeftLeg01_015",
            "b_Leg01_015.L",
        ),
        (
            side(SideMarker::UnderscoreLower),
            "leg_joint_R_1",
            "leg_joint_1_r",
        ),
        (side(SideMarker::PrefixLower), "RightHand", "r_Hand"),
        (side(SideMarker::DotUpper), "l_hand", "hand.L"),
        (
            side(SideMarker::Word),
            "Skeleton_arm_joint_L__4_",
            "LeftSkeleton_arm_joint__4_",
        ),
        (side(SideMarker::DotUpper), "Torso", "Torso"),
        (side(SideMarker::DotUpper), "Leftover", "Leftover"),
    ];
    for (style, old, new) in cases.into_iter().chain(sides) {
        assert_eq!(style.apply(old), new, "{style:?} of {old}");
    }
    assert!(split_side("Body").is_none());
}

#[test]
fn creature_variants_renamed_keep_the_motion() {
    for rel in [FOX, ROBOT, CESIUM] {
        let data = bytes(rel);
        let original = Motion::load(&data, None);
        for style in NameStyle::ALL {
            let what = format!("{rel} {style:?}");
            let pairs = renames_with(&data, |n| style.apply(n));
            let variant = Motion::load(&renamed_as(&data, style), Some(&original));
            assert_eq!(variant.names.len(), original.names.len(), "{what}");
            let changed = pairs.iter().filter(|(o, n)| o != n).count();
            // The robot's sides are Blender's `.L` already.
            let same_sides = rel == ROBOT && style == NameStyle::Sides(SideMarker::DotUpper);
            assert!(changed > 0 || same_sides, "{what}: nothing renamed");
            assert_same_motion(&what, &original, &variant, &pairs);
        }
        let pairs = renames_with(&data, |n| format!("rig|{}", n.to_uppercase()));
        let variant = renamed_with(&data, |n| format!("rig|{}", n.to_uppercase()));
        let v = Motion::load(&variant, Some(&original));
        assert_same_motion(&format!("{rel} custom"), &original, &v, &pairs);
    }
    // The Fox's sides are words inside tokens (`b_LeftUpperArm_09`).
    let fox = bytes(FOX);
    let pairs = renames_with(&fox, |n| NameStyle::Sides(SideMarker::DotUpper).apply(n));
    let sided: Vec<&str> = pairs
        .iter()
        .filter(|(_, n)| n.ends_with(".L") || n.ends_with(".R"))
        .map(|(_, n)| n.as_str())
        .collect();
    assert_eq!(sided.len(), 14, "{sided:?}");
    assert!(sided.contains(&"b_UpperArm_09.L"), "{sided:?}");
}

#[test]
fn creature_variants_extra_root_node() {
    for rel in [FOX, ROBOT, CESIUM] {
        let data = bytes(rel);
        let original = Motion::load(&data, None);
        let out = extra_root_node(&data);
        let g = Glb::parse(&out);
        let roots = indices(&g.json["scenes"][g.scene()]["nodes"]);
        let top = roots[0];
        assert_eq!(node_name(&g, top), "Extra");
        let skinned = g.skinned_mesh_nodes();
        assert!(roots[1..].iter().all(|n| skinned.contains(n)), "{rel}");
        let skeleton = root_joints(&g)[0];
        assert!(
            subtree(&g, top).contains(&skeleton),
            "{rel}: skeleton under Extra"
        );
        let variant = Motion::load(&out, Some(&original));
        assert_eq!(variant.names, original.names, "{rel}");
        assert_same_motion(rel, &original, &variant, &same_names(&original, |_| true));
    }
}

/// Splits `joint` (found by name) in `parts` and checks the original joints, the new joints'
/// place (evenly along the bone to its only joint child, at rest, in the bind pose and in
/// every frame) and their bind pose.
fn check_split(rel: &str, joint: &str, parts: usize) {
    let data = bytes(rel);
    let g = Glb::parse(&data);
    let j = joint_named(&g, joint, |n| n.contains(joint));
    let name = node_name(&g, j);
    let original = Motion::load(&data, None);
    let variant = Motion::load(&split_bone(&data, j, parts), Some(&original));
    let what = format!("{rel} {name} in {parts}");
    assert_eq!(
        variant.names.len(),
        original.names.len() + parts - 1,
        "{what}"
    );
    assert_same_motion(&what, &original, &variant, &same_names(&original, |_| true));
    let at = variant.index(&name);
    let kids: Vec<usize> = (0..variant.names.len())
        .filter(|&c| {
            variant.parents[c] == Some(variant.index(&format!("{name}_split{}", parts - 1)))
        })
        .collect();
    let mut poses: Vec<(String, &Vec<Mat4>)> = variant.poses().collect();
    poses.push(("bind".into(), &variant.bind));
    for (label, w) in poses {
        let child_mean = kids.iter().map(|&c| pos(&w[c])).sum::<Vec3>() / kids.len() as f32;
        for k in 1..parts {
            let s = variant.index(&format!("{name}_split{k}"));
            let want = pos(&w[at]).lerp(child_mean, k as f32 / parts as f32);
            let d = pos(&w[s]).distance(want);
            assert!(d <= original.tol(), "{what}: split{k} {d} off ({label})");
        }
    }
}

#[test]
fn creature_variants_split_bone() {
    check_split(FOX, "Spine01", 3);
    check_split(ROBOT, "Abdomen", 3);
    check_split(CESIUM, "torso_joint_2", 2);
    // Several children: Fox's chest carries the neck and the front legs.
    let data = bytes(FOX);
    let g = Glb::parse(&data);
    let chest = joint_named(&g, "Spine02", |n| n.contains("Spine02"));
    let original = Motion::load(&data, None);
    let variant = Motion::load(&split_bone(&data, chest, 2), Some(&original));
    assert_eq!(variant.names.len(), original.names.len() + 1);
    assert_same_motion(
        "Fox chest in 2",
        &original,
        &variant,
        &same_names(&original, |_| true),
    );
}

#[test]
fn creature_variants_shorten_chain() {
    // The Fox's tail: 3 joints, keep 2 at 0.6 of their length.
    let data = bytes(FOX);
    let g = Glb::parse(&data);
    let first = joint_named(&g, "Tail", |n| n.contains("Tail"));
    let chain: Vec<String> = chain_from(&g, first)
        .iter()
        .map(|&n| node_name(&g, n))
        .collect();
    assert_eq!(chain.len(), 3, "{chain:?}");
    let out = shorten_chain(&data, first, 2, 0.6);
    let original = Motion::load(&data, None);
    let variant = Motion::load(&out, Some(&original));
    assert_eq!(variant.names.len(), original.names.len() - 1);
    assert!(!variant.names.contains(&chain[2]));
    let body = same_names(&original, |n| n != chain[1] && n != chain[2]);
    assert_same_motion("Fox tail", &original, &variant, &body);
    let (a0, a1) = (original.index(&chain[0]), original.index(&chain[1]));
    let (b0, b1) = (variant.index(&chain[0]), variant.index(&chain[1]));
    for ((label, fa), (_, fb)) in original.poses().zip(variant.poses()) {
        let want = (pos(&fa[a1]) - pos(&fa[a0])) * 0.6;
        let got = pos(&fb[b1]) - pos(&fb[b0]);
        assert!(
            got.distance(want) <= original.tol(),
            "tail bone at {label}: {got} vs {want}"
        );
    }
    // The mesh is still skinned to joints that exist, and (bind following rest) unchanged
    // at rest: the dropped joint's vertices follow the last kept one.
    assert_same_mesh(
        "Fox tail mesh",
        &rest_skinned_vertices(&g),
        &rest_skinned_vertices(&Glb::parse(&out)),
        1.0,
    );
    // A finger of the robot: Middle1.L → Middle2.L (→ a `_end` node, dropped with it).
    let data = bytes(ROBOT);
    let g = Glb::parse(&data);
    let first = joint_named(&g, "Middle1.L", |n| n == "Middle1.L");
    let original = Motion::load(&data, None);
    let out = shorten_chain(&data, first, 1, 1.0);
    let variant = Motion::load(&out, Some(&original));
    assert_eq!(variant.names.len(), original.names.len() - 1);
    assert!(!variant.names.iter().any(|n| n == "Middle2.L"));
    let kept = same_names(&original, |n| n != "Middle2.L");
    assert_same_motion("robot finger", &original, &variant, &kept);
    let v = Glb::parse(&out);
    assert!(joints_named(&v, |n| n.starts_with("Middle2.L")).is_empty());
    assert!((0..v.node_count()).all(|n| node_name(&v, n) != "Middle2.L_end"));
}

/// Lengthens the limbs below `tops` (node names) ×1.3 and checks: same joints, the body
/// (everything not below a top) unchanged relative to the root joint in every frame, each
/// limb bone ×1.3 (as a vector) in every frame, the lowest limb joint at rest as high as
/// before, the bind pose following the rest pose.
fn check_longer(rel: &str, tops: &[usize]) {
    let data = bytes(rel);
    let g = Glb::parse(&data);
    let top_names: Vec<String> = tops.iter().map(|&t| node_name(&g, t)).collect();
    let original = Motion::load(&data, None);
    let variant = Motion::load(&longer_limbs(&data, tops, 1.3), Some(&original));
    assert_eq!(variant.names, original.names, "{rel}");
    let tops_i: Vec<usize> = top_names.iter().map(|n| original.index(n)).collect();
    let below = |mut j: usize| {
        while let Some(p) = original.parents[j] {
            if tops_i.contains(&p) {
                return true;
            }
            j = p;
        }
        false
    };
    let n = original.names.len();
    let limbs: Vec<usize> = (0..n).filter(|&j| below(j)).collect();
    assert!(limbs.len() >= tops.len(), "{rel}: limbs {limbs:?}");
    let root = (0..n).find(|&j| original.parents[j].is_none()).unwrap();
    let tol = original.tol();
    for ((label, a), (_, b)) in original.poses().zip(variant.poses()) {
        for j in 0..n {
            let (want, got) = match original.parents[j] {
                Some(p) if below(j) => ((pos(&a[j]) - pos(&a[p])) * 1.3, pos(&b[j]) - pos(&b[p])),
                _ => (pos(&a[j]) - pos(&a[root]), pos(&b[j]) - pos(&b[root])),
            };
            let d = want.distance(got);
            assert!(
                d <= tol,
                "{rel}: {} is {d} off ({label})",
                original.names[j]
            );
        }
    }
    let lowest = |m: &Motion| {
        let pts = limbs.iter().chain(&tops_i).map(|&j| pos(&m.rest[j]).y);
        pts.fold(f32::INFINITY, f32::min)
    };
    let (lo_a, lo_b) = (lowest(&original), lowest(&variant));
    assert!(
        (lo_a - lo_b).abs() <= tol,
        "{rel}: lowest foot {lo_a} → {lo_b}"
    );
    assert!(
        pos(&variant.rest[root]).y > pos(&original.rest[root]).y,
        "{rel}: root raised"
    );
    let miss = |m: &Motion| {
        (0..n)
            .map(|j| pos(&m.rest[j]).distance(pos(&m.bind[j])))
            .fold(0.0, f32::max)
    };
    assert!(
        miss(&variant) <= miss(&original) * 1.3 + tol,
        "{rel}: bind pose {} from rest (original {})",
        miss(&variant),
        miss(&original)
    );
}

#[test]
fn creature_variants_longer_limbs() {
    let fox = Glb::parse(&bytes(FOX));
    let legs = joints_named(&fox, |n| n.contains("UpperArm") || n.contains("Leg01"));
    assert_eq!(legs.len(), 4);
    check_longer(FOX, &legs);
    let cesium = Glb::parse(&bytes(CESIUM));
    let legs = nodes_of(
        &human_bones(&cesium),
        &[HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg],
    );
    check_longer(CESIUM, &legs);
}

#[test]
fn creature_variants_four_armed() {
    for rel in [ROBOT, CESIUM, VRM] {
        let data = bytes(rel);
        let g = Glb::parse(&data);
        let (out, copies) = four_armed_with(&data);
        assert!(out == four_armed(&data), "{rel}: deterministic");
        let original = Motion::load(&data, None);
        let variant = Motion::load(&out, Some(&original));
        let skin: Vec<usize> = g.skin_joints();
        let copied_joints: usize = copies
            .iter()
            .map(|c| c.nodes.iter().filter(|(o, _)| skin.contains(o)).count())
            .sum();
        assert!(copied_joints >= 6, "{rel}: {copied_joints} joints copied");
        assert_eq!(
            variant.names.len(),
            original.names.len() + copied_joints,
            "{rel}"
        );
        assert_same_motion(rel, &original, &variant, &same_names(&original, |_| true));
        let tol = original.tol();
        for c in &copies {
            let top = node_name(&g, c.top);
            let (ot, vt) = (
                original.index(&top),
                variant.index(&format!("{top}{LOWER}")),
            );
            let host = original.index(&node_name(&g, c.host));
            let h = pos(&original.rest[ot]).y - pos(&original.rest[host]).y;
            assert!(h > 0.0, "{rel}: {top} above its host");
            let want = pos(&original.rest[ot]) - Vec3::Y * 0.25 * h;
            assert!(
                pos(&variant.rest[vt]).distance(want) <= tol,
                "{rel}: {top} copy"
            );
            for (o, _) in c.nodes.iter().filter(|(o, _)| skin.contains(o)) {
                let name = node_name(&g, *o);
                let (oj, vj) = (
                    original.index(&name),
                    variant.index(&format!("{name}{LOWER}")),
                );
                let (ra, rb) = (original.rest[oj], variant.rest[vj]);
                assert!(
                    (pos(&ra) - pos(&original.rest[ot]))
                        .distance(pos(&rb) - pos(&variant.rest[vt]))
                        <= tol,
                    "{rel}: {name} copy's offset"
                );
                let (qa, qb) = (
                    ra.to_scale_rotation_translation().1,
                    rb.to_scale_rotation_translation().1,
                );
                assert!(
                    qa.angle_between(qb) < 1e-3,
                    "{rel}: {name} copy's rest turn"
                );
                let bind_want = pos(&original.bind[oj]) - Vec3::Y * 0.25 * h;
                let d = pos(&variant.bind[vj]).distance(bind_want);
                assert!(d <= tol, "{rel}: {name} copy's bind pose {d} off");
                // The arm's pose is copied: each joint in its top's frame is where the
                // original is in the original top's frame, in every frame.
                for ((label, a), (_, b)) in original.poses().zip(variant.poses()).skip(1) {
                    let pa = a[ot].inverse().transform_point3(pos(&a[oj]));
                    let pb = b[vt].inverse().transform_point3(pos(&b[vj]));
                    let d = pa.distance(pb) * a[ot].to_scale_rotation_translation().0.x;
                    assert!(
                        d <= tol,
                        "{rel}: {name} copy {d} off its arm pose ({label})"
                    );
                }
            }
        }
        let v = Glb::parse(&out);
        let copies_in_skin = v
            .skin_joints()
            .iter()
            .filter(|&&n| node_name(&v, n).ends_with(LOWER))
            .count();
        assert_eq!(copies_in_skin, copied_joints, "{rel}: copies in the skin");
        assert!(subtree(&v, copies[0].host).contains(&copies[0].copy));
    }
}

mod validator;
