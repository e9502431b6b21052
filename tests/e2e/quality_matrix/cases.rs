//! The matrix's cases: the sources and targets of each block, the bundled files and the
//! variants written for them, and the real files of each class.

use crate::common::asset_path;
use crate::common::creature_set::{fox_variants, robot_renamed};
use crate::common::file_variants::{
    Convention, bound_elsewhere, degenerate_zero_pose, fox_walk_bvh_facing_x, grip_walk,
    longer_legs, mixamo_through_blender, renamed, reoriented, rescaled, research_dataset_layout,
    rifle_walk, root_offset_at_hips, z_up_bvh,
};
use std::path::{Path, PathBuf};

const SOURCES: &[(&str, Option<&str>)] = &[
    ("bvh/02_01.bvh", None),
    ("bvh/05_06.bvh", None),
    ("bvh/01_01.bvh", None),
    ("gltf/RobotExpressive.glb", Some("Walking")),
    ("gltf/RobotExpressive.glb", Some("Running")),
    ("gltf/RobotExpressive.glb", Some("Dance")),
    ("gltf/CesiumMan.glb", None),
    ("gltf/RiggedFigure_unnamed.glb", None),
];

const TARGETS: &[&str] = &[
    "gltf/CesiumMan.glb",
    "vrm/cryptovoxels.vrm",
    "gltf/RobotExpressive.glb",
];

/// The target files: each bundled target and its variants, written into `dir`.
pub(super) fn targets(dir: &Path) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    for rel in TARGETS {
        let bytes = std::fs::read(asset_path(rel)).unwrap();
        let stem = Path::new(rel)
            .file_stem()
            .unwrap()
            .to_str()
            .unwrap()
            .to_owned();
        let variants: Vec<(&str, Vec<u8>)> = vec![
            ("", bytes.clone()),
            ("reoriented", reoriented(&bytes, 7)),
            ("mixamo-names", renamed(&bytes, Convention::Mixamo)),
            ("unreal-names", renamed(&bytes, Convention::Unreal)),
            ("x0.01", rescaled(&bytes, 0.01)),
            ("x100", rescaled(&bytes, 100.0)),
            ("long-legs", longer_legs(&bytes, 1.3)),
            ("mixamo-blender", mixamo_through_blender(&bytes, 90.0)),
            // A renaming met on real files: `Foot.L` → `FootL`, `Torso` → `Torso_1`, an extra
            // node on top.
            ("renamed", robot_renamed(&bytes)),
            // A skin bound away from the rest (as FBX exporters write): 0.6 of its size below
            // and aside from where it rests.
            (
                "bound-elsewhere",
                bound_elsewhere(&bytes, glam::Vec3::new(0.2, -0.6, 0.1)),
            ),
        ];
        for (name, data) in variants {
            let label = if name.is_empty() {
                stem.clone()
            } else {
                format!("{stem}[{name}]")
            };
            let path = dir.join(format!("{label}.glb"));
            std::fs::write(&path, data).unwrap();
            out.push((label, path));
        }
    }
    // FBX targets, as read; the variant generators write GLB only.
    for name in ["CesiumMan", "RobotExpressive"] {
        out.push((
            format!("{name}(fbx)"),
            asset_path(&format!("fbx/{name}.fbx")),
        ));
    }
    out
}

pub(super) type Sources = Vec<(String, PathBuf, Option<&'static str>)>;
pub(super) type Targets = Vec<(String, PathBuf)>;

/// Quadrupeds: Fox's clips onto Fox and its variants (other names, axes, scale,
/// longer legs, a split spine, a shorter tail, an extra root).
pub(super) fn quadrupeds(dir: &Path) -> (Sources, Targets) {
    let fox = std::fs::read(asset_path("gltf/Fox.glb")).unwrap();
    let sources = ["Survey", "Walk", "Run"]
        .into_iter()
        .map(|c| (format!("Fox:{c}"), asset_path("gltf/Fox.glb"), Some(c)))
        .collect();
    let targets = fox_variants(&fox)
        .into_iter()
        .map(|v| {
            let label = if v.label.is_empty() {
                "Fox".to_owned()
            } else {
                format!("Fox[{}]", v.label)
            };
            let path = dir.join(format!("{label}.glb"));
            std::fs::write(&path, v.bytes).unwrap();
            (label, path)
        })
        .collect();
    (sources, targets)
}

/// Creature mocap whose rest says nothing about up or forward: the fox's walk as BVH facing
/// +X, its zero pose along +X, onto the fox and every variant (lower-cased names and names
/// without separators included).
pub(super) fn creature_mocap(dir: &Path, fox_targets: &Targets) -> (Sources, Targets) {
    let bvh = dir.join("Fox(bvh,+X,zero-pose-along-x).bvh");
    std::fs::write(&bvh, degenerate_zero_pose(&fox_walk_bvh_facing_x(), 4)).unwrap();
    let sources = vec![("Fox(bvh,+X,zero-pose-along-x)".to_owned(), bvh, None)];
    (sources, fox_targets.clone())
}

/// A CMU walk and the robot's walk: the sources of the blocks below.
pub(super) fn walks() -> Sources {
    vec![
        ("02_01".to_owned(), asset_path("bvh/02_01.bvh"), None),
        (
            "RobotExpressive:Walking".to_owned(),
            asset_path("gltf/RobotExpressive.glb"),
            Some("Walking"),
        ),
    ]
}

/// Real files of the classes studios meet, as read: a Rigify export with its controls and
/// a second armature and a deform-only one, game characters with IK feet and swapped thumb
/// names or keyed IK controls, a twist-bone rig in FBX with a decoy arm, a Draco-compressed
/// character with rest ≠ bind, and a meshopt-compressed avatar with fake leaf joints and no
/// clip; under the walks and a VRMA idle written by three.js.
pub(super) fn class_files() -> (Sources, Targets) {
    let targets = [
        (
            "OpenBot(rigify)",
            "gltf/rigify/openbot_rigodotify_mch_ctrl_2armatures.glb",
        ),
        (
            "Knight(ik-feet)",
            "gltf/ik_controls/quaternius_knight_ikfeet_swapped_thumbs.glb",
        ),
        (
            "SeedSan(fbx,twist)",
            "fbx/twist/seedsan_forearm_twist_robo_arm.fbx",
        ),
        (
            "Astronaut(draco)",
            "gltf/draco/quaternius_astronaut_draco_gltftransform.glb",
        ),
        (
            "VALID(meshopt)",
            "gltf/morph/valid_hispanic_f2_meshopt_65morphs.glb",
        ),
        (
            "minnyquinn(rigify-DEF)",
            "gltf/rigify/minnyquinn_rigify_DEF_rootmotion_pair.glb",
        ),
        (
            "KayKit(ik-controls)",
            "gltf/ik_controls/kaykit_rogue_ik_controls_chibi.glb",
        ),
    ];
    let targets = targets
        .into_iter()
        .map(|(label, rel)| (label.to_owned(), asset_path(rel)))
        .collect();
    let mut sources = walks();
    sources.push((
        "idle(vrma)".to_owned(),
        asset_path("vrma/chatvrm_idle_loop_bvh_names.vrma"),
        None,
    ));
    (sources, targets)
}

/// Real files that say little about the body they move: MakeHuman's one-frame dance pose
/// (ZYX, root channels repeating the offset) and its benchmark pose (position channels as
/// deltas on 134 joints), a one-key VRMA whose key is its own rest (the right output is the
/// target at rest), onto the VRM, CesiumMan and a VRM 1.0 humanoid of bare nodes with no
/// skin; and the walks onto that humanoid.
pub(super) fn poses_and_bare_humanoid() -> [(Sources, Targets); 2] {
    let bare = || {
        let path = asset_path("vrm/vrm1_expressions_isBinary_no_skin.vrm");
        ("expressions(vrm,no-skin)".to_owned(), path)
    };
    let targets: Targets = vec![
        (
            "cryptovoxels".to_owned(),
            asset_path("vrm/cryptovoxels.vrm"),
        ),
        ("CesiumMan".to_owned(), asset_path("gltf/CesiumMan.glb")),
        bare(),
    ];
    let poses = [
        (
            "dance1(makehuman,1-frame)",
            "bvh/makehuman/dance1_zup_zyx_1frame.bvh",
        ),
        (
            "benchmark(makehuman,position-deltas)",
            "bvh/makehuman/benchmark_default163_position_deltas.bvh",
        ),
        ("nop(vrma,1-key)", "vrma/vrm_addon_nop_single_key.vrma"),
    ];
    let sources = poses
        .into_iter()
        .map(|(label, rel)| (label.to_owned(), asset_path(rel), None))
        .collect();
    [(sources, targets), (walks(), vec![bare()])]
}

/// Creatures onto themselves, as read: a quadruped whose hind legs have four segments and
/// whose IK feet and pole targets are skin joints, and an eight-legged spider whose feet are
/// IK joints under the root, not children of its legs.
pub(super) fn creature_files() -> [(Sources, Targets); 2] {
    let one = |label: &str, rel: &str, clips: &[&'static str]| {
        let path = asset_path(rel);
        let sources = clips
            .iter()
            .map(|c| {
                let short = c.rsplit(['|', '_']).next().unwrap_or(c);
                (format!("{label}:{short}"), path.clone(), Some(*c))
            })
            .collect();
        (sources, vec![(label.to_owned(), path)])
    };
    [
        one(
            "Stag",
            "gltf/creatures/quaternius_stag_quadruped.glb",
            &["AnimalArmature|Walk", "AnimalArmature|Gallop"],
        ),
        one(
            "Spider",
            "gltf/creatures/quaternius_spider_8legs.glb",
            &["SpiderArmature|Spider_Walk"],
        ),
    ]
}

/// BVH targets: CMU's 01_01 as read and as other tools write it (Z up, the root OFFSET at
/// hip height, a zero pose along +X), under a CMU walk and the robot's walk. A BVH target's
/// zero pose says nothing of its floor: it stands on its own clip's, and judge measures it
/// against that clip. Its output is written as BVH (there is no character to write a GLB of).
pub(super) fn bvh_targets(dir: &Path) -> (Sources, Targets) {
    let sources = walks();
    let walk = std::fs::read_to_string(asset_path("bvh/01_01.bvh")).unwrap();
    let mut targets = vec![
        ("01_01".to_owned(), asset_path("bvh/01_01.bvh")),
        (
            "walk1(makehuman)".to_owned(),
            asset_path("bvh/makehuman/walk1_zup_xyz_rootchannel_zero.bvh"),
        ),
    ];
    let away = glam::DVec3::new(-35.0, 0.0, 60.0);
    for (label, text) in [
        ("01_01[z-up]", z_up_bvh(&walk)),
        ("01_01[offset-at-hips]", root_offset_at_hips(&walk)),
        ("01_01[zero-pose-along-x]", degenerate_zero_pose(&walk, 5)),
        (
            "01_01[research-layout]",
            research_dataset_layout(&walk, 5, away),
        ),
    ] {
        let path = dir.join(format!("{label}.bvh"));
        std::fs::write(&path, text).unwrap();
        targets.push((label.to_owned(), path));
    }
    (sources, targets)
}

/// The source files: the bundled clips and CMU's walk with a zero pose along +X.
pub(super) fn sources(dir: &Path) -> Vec<(String, PathBuf, Option<&'static str>)> {
    let mut out: Vec<_> = SOURCES
        .iter()
        .map(|(rel, clip)| {
            let label = match clip {
                Some(c) => format!(
                    "{}:{c}",
                    Path::new(rel).file_stem().unwrap().to_str().unwrap()
                ),
                None => Path::new(rel)
                    .file_stem()
                    .unwrap()
                    .to_str()
                    .unwrap()
                    .to_owned(),
            };
            (label, asset_path(rel), *clip)
        })
        .collect();
    // Sources in the conventions too: Mixamo through Blender (its clip must not throw the
    // target's pelvis into the air) and other bone axes.
    for (label, rel, clip, make) in [
        (
            "CesiumMan[mixamo-blender]",
            "gltf/CesiumMan.glb",
            None,
            (|b: &[u8]| mixamo_through_blender(b, -90.0)) as fn(&[u8]) -> Vec<u8>,
        ),
        (
            "RobotExpressive[mixamo-blender]:Walking",
            "gltf/RobotExpressive.glb",
            Some("Walking"),
            |b: &[u8]| mixamo_through_blender(b, 90.0),
        ),
        (
            "RobotExpressive[reoriented]:Dance",
            "gltf/RobotExpressive.glb",
            Some("Dance"),
            |b: &[u8]| reoriented(b, 11),
        ),
    ] {
        let path = dir.join(format!("{}.glb", label.replace(':', "_")));
        std::fs::write(&path, make(&std::fs::read(asset_path(rel)).unwrap())).unwrap();
        out.push((label.to_owned(), path, clip));
    }
    // FBX sources: CesiumMan and the robot as Blender's FBX exporter writes them (the
    // robot binds its root 2.4 units below where it rests).
    out.push((
        "CesiumMan(fbx)".to_owned(),
        asset_path("fbx/CesiumMan.fbx"),
        None,
    ));
    out.push((
        "RobotExpressive(fbx):Walking".to_owned(),
        asset_path("fbx/RobotExpressive.fbx"),
        Some("RobotArmature|Walking_RobotArmature"),
    ));
    let walk = std::fs::read_to_string(asset_path("bvh/02_01.bvh")).unwrap();
    let flat = dir.join("02_01[zero-pose-along-x].bvh");
    std::fs::write(&flat, degenerate_zero_pose(&walk, 3)).unwrap();
    out.push(("02_01[zero-pose-along-x]".into(), flat, None));
    let z_up = dir.join("02_01[z-up].bvh");
    std::fs::write(&z_up, z_up_bvh(&walk)).unwrap();
    out.push(("02_01[z-up]".into(), z_up, None));
    // A hand contact: both hands on one grip through the walk (the grip measure's case).
    out.push(("02_01[grip]".into(), grip_walk(dir), None));
    // Two hands on one prop held apart: a rifle carried and raised through the walk.
    out.push(("02_01[prop]".into(), rifle_walk(dir), None));
    // A research dataset's layout (every bone along +X, six channels, an extra root, ZXY,
    // 4 m from the origin), and MakeHuman's undeclared Z-up decimetres with `__` helpers.
    let research = dir.join("02_01[research-layout].bvh");
    let away = glam::DVec3::new(71.0, 0.0, -53.0);
    std::fs::write(&research, research_dataset_layout(&walk, 3, away)).unwrap();
    out.push(("02_01[research-layout]".into(), research, None));
    out.push((
        "walk1(makehuman)".into(),
        asset_path("bvh/makehuman/walk1_zup_xyz_rootchannel_zero.bvh"),
        None,
    ));
    out
}

/// The label ending of a source whose path the target keeps in metres (`Stride::SourcePath`).
pub(super) const PATH_KEPT: &str = "(path kept)";

/// CMU's walk with its path kept, strides warped, onto legs of other lengths: the KayKit
/// chibi's (0.43 of the source's), CesiumMan's and the robot's.
pub(super) fn kept_path() -> (Sources, Targets) {
    let sources = vec![(
        format!("02_01{PATH_KEPT}"),
        asset_path("bvh/02_01.bvh"),
        None,
    )];
    let targets = [
        (
            "KayKit(ik-controls)",
            "gltf/ik_controls/kaykit_rogue_ik_controls_chibi.glb",
        ),
        ("CesiumMan", "gltf/CesiumMan.glb"),
        ("RobotExpressive", "gltf/RobotExpressive.glb"),
    ];
    let targets = targets
        .into_iter()
        .map(|(label, rel)| (label.to_owned(), asset_path(rel)))
        .collect();
    (sources, targets)
}
