//! The quality matrix: every bundled source clip onto every bundled target and onto generated
//! variants of those targets (other bone axes, Mixamo and Unreal names, ×0.01 and ×100,
//! longer legs, Mixamo through Blender, a skin bound away from the rest), and the FBX of two
//! of them as sources and targets, plus mocap whose zero pose is not a T-pose, and BVH
//! targets (CMU's walk and its variants, written as BVH), each judged by `check`'s measures
//! (`session::quality`). Set `RETARGET_MATRIX_OUT=DIR` to also write each case's GLB or BVH
//! and a table there (CI judges those with Blender).

use crate::common::asset_path;
use crate::common::creature_set::{fox_variants, robot_renamed};
use crate::common::file_variants::{
    Convention, bound_elsewhere, degenerate_zero_pose, fox_walk_bvh_facing_x, longer_legs,
    mixamo_through_blender, renamed, reoriented, rescaled, research_dataset_layout,
    root_offset_at_hips, z_up_bvh,
};
use crate::common::matrix_export::export_case;
use retarget_studio::core::quality::{Report, Thresholds};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::fmt::Write as _;
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
fn targets(dir: &Path) -> Vec<(String, PathBuf)> {
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

type Sources = Vec<(String, PathBuf, Option<&'static str>)>;
type Targets = Vec<(String, PathBuf)>;

/// Quadrupeds: Fox's clips onto Fox and its variants (other names, axes, scale,
/// longer legs, a split spine, a shorter tail, an extra root).
fn quadrupeds(dir: &Path) -> (Sources, Targets) {
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
fn creature_mocap(dir: &Path, fox_targets: &Targets) -> (Sources, Targets) {
    let bvh = dir.join("Fox(bvh,+X,zero-pose-along-x).bvh");
    std::fs::write(&bvh, degenerate_zero_pose(&fox_walk_bvh_facing_x(), 4)).unwrap();
    let sources = vec![("Fox(bvh,+X,zero-pose-along-x)".to_owned(), bvh, None)];
    (sources, fox_targets.clone())
}

/// A CMU walk and the robot's walk: the sources of the blocks below.
fn walks() -> Sources {
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
fn class_files() -> (Sources, Targets) {
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
fn poses_and_bare_humanoid() -> [(Sources, Targets); 2] {
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
fn creature_files() -> [(Sources, Targets); 2] {
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
fn bvh_targets(dir: &Path) -> (Sources, Targets) {
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
fn sources(dir: &Path) -> Vec<(String, PathBuf, Option<&'static str>)> {
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

struct Row {
    pair: String,
    report: Result<Report, String>,
    /// One body on both sides (`Session::same_rig`) whose target has no clip of the
    /// source's name: its floor measures are excused (`IDENTITY_FLOOR`).
    same_body: bool,
}

/// Measures an identity may break where the target file has no clip of the source's name
/// (CesiumMan's GLB and FBX name their clip differently): the output then stands on the
/// target's rest floor while the source stands on its clip's, and CesiumMan's walk never
/// lowers its feet to its rest pose's floor (26 mm above it). With a clip of that name, the
/// target's own clip is its pose (`Session::quality`) and no measure is excused.
const IDENTITY_FLOOR: [&str; 2] = ["ground", "pelvis"];

/// Retargets one case and measures it; with `out`, also writes its GLB and returns its
/// manifest line for the independent judge.
fn run(
    source: &Path,
    clip: Option<&str>,
    target: &Path,
    out: Option<(&Path, &str)>,
) -> Result<(Report, Option<serde_json::Value>, bool), String> {
    let session =
        Session::automatic(source, target, &ImportOptions::default()).map_err(|e| e.to_string())?;
    // One body on both sides, without a clip of the source's name on the target's side.
    let same_body = session.same_rig() && {
        let source_clips = session.source.clips();
        let name = clip.or_else(|| source_clips.first().map(|c| c.name.as_str()));
        !session
            .target
            .clips()
            .iter()
            .any(|c| Some(c.name.as_str()) == name)
    };
    let report = session
        .quality(clip, &Thresholds::default())
        .map_err(|e| e.to_string())?;
    let line = match out {
        Some((path, pair)) => {
            let mut known: Vec<&str> = KNOWN
                .iter()
                .filter(|(p, _, _)| known_pair(p, pair))
                .map(|(_, m, _)| *m)
                .collect();
            if same_body {
                known.extend(IDENTITY_FLOOR);
            }
            Some(export_case(&session, pair, clip, &report, path, &known)?)
        }
        None => None,
    };
    Ok((report, line, same_body))
}

/// One line per pair: each measure's figure, `!` where it breaks its threshold.
fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| pair | direction mean ° | body (of height) | pelvis Δ (leg lengths) | ground Δ mm | skate Δ mm | same rig |\n|---|---|---|---|---|---|---|"
    );
    for row in rows {
        let Ok(r) = &row.report else {
            let _ = writeln!(
                s,
                "| {} | error: {} |||||",
                row.pair,
                row.report.as_ref().err().unwrap()
            );
            continue;
        };
        let mark = |m: &str| {
            let failed = r
                .verdicts
                .iter()
                .any(|v| !v.passed && v.measure.label() == m);
            if failed { "!" } else { "" }
        };
        let dir = r.direction.as_ref().map_or("-".into(), |d| {
            format!("{:.2}{}", d.mean_deg, mark("direction"))
        });
        let ground = r.ground.as_ref().map_or("no contacts".into(), |g| {
            format!(
                "{:+.1}{}",
                g.target.mean_mm - g.source.mean_mm,
                mark("ground")
            )
        });
        let skate = r.skate.as_ref().map_or("no contacts".into(), |g| {
            format!(
                "{:+.1}{}",
                g.target.mean_mm - g.source.mean_mm,
                mark("skate")
            )
        });
        let same = r
            .same_rig
            .as_ref()
            .map_or("-".into(), |x| format!("{:.1e}{}", x.max, mark("same rig")));
        let _ = writeln!(
            s,
            "| {} | {} | {:.1e}{} | {:+.3}{} | {} | {} | {} |",
            row.pair,
            dir,
            r.body.max,
            mark("body"),
            r.pelvis.difference,
            mark("pelvis"),
            ground,
            skate,
            same
        );
    }
    s
}

#[test]
fn every_source_onto_every_target_and_variant() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = std::env::var_os("RETARGET_MATRIX_OUT").map(PathBuf::from);
    if let Some(d) = &out_dir {
        std::fs::create_dir_all(d).unwrap();
    }
    // With an output folder the variant files go there too: the judge reads them back.
    let work = out_dir.clone().unwrap_or_else(|| dir.path().to_path_buf());
    let targets = targets(&work);
    let mut rows = Vec::new();
    let mut manifest = Vec::new();
    let (fox_sources, fox_targets) = quadrupeds(&work);
    let mut blocks = vec![
        (sources(&work), targets),
        creature_mocap(&work, &fox_targets),
        (fox_sources, fox_targets),
        bvh_targets(&work),
        class_files(),
    ];
    blocks.extend(poses_and_bare_humanoid());
    blocks.extend(creature_files());
    for (src_label, src, clip, targets) in blocks.iter().flat_map(|(sources, targets)| {
        sources
            .iter()
            .map(move |s| (s.0.clone(), s.1.clone(), s.2, targets))
    }) {
        for (tgt_label, tgt) in targets {
            let pair = format!("{src_label} → {tgt_label}");
            // Blender judges the bundled targets under every clip, and every variant under
            // the CMU walk and the fox's walk: a few minutes of CI. FBX sources and targets
            // are read back by Blender's FBX importer.
            // The renamed robot is also judged onto itself: Blender must read its
            // walk back.
            let renamed_self =
                src_label == "RobotExpressive:Walking" && tgt_label == "RobotExpressive[renamed]";
            // The fox's run is keyed at uneven times that Blender resamples onto whole
            // frames, so its reading is another clip: judged by `check` alone.
            let bvh = tgt.extension().is_some_and(|e| e == "bvh");
            // The robot's three palms onto VALID's one hand move its ring and thumb bases
            // 3.6e-3 of the height off their rest lengths: `check` counts the fingers and
            // judge's integrity does not, so the two figures disagree; `check` judges it.
            let uneven_fingers = pair == "RobotExpressive:Walking → VALID(meshopt)";
            let judged = src_label != "Fox:Run"
                && !uneven_fingers
                && (!tgt_label.contains('[')
                    || src_label == "02_01"
                    || src_label == "Fox:Walk"
                    || renamed_self
                    || bvh);
            let out = out_dir.as_ref().filter(|_| judged).map(|d| {
                d.join(format!(
                    "{}.{}",
                    pair.replace(" → ", "__")
                        .replace([':', '[', ']', ' ', '+'], "_"),
                    if bvh { "bvh" } else { "glb" }
                ))
            });
            let result = run(&src, clip, tgt, out.as_deref().map(|o| (o, pair.as_str())));
            let same_body = result.as_ref().is_ok_and(|r| r.2);
            let report = result.map(|(report, line, _)| {
                manifest.extend(line);
                report
            });
            rows.push(Row {
                pair,
                report,
                same_body,
            });
        }
    }
    if let Some(d) = &out_dir {
        let text = serde_json::to_string_pretty(&manifest).unwrap();
        std::fs::write(d.join("manifest.json"), text).unwrap();
    }
    let table = table(&rows);
    println!("{table}");
    if let Some(d) = &out_dir {
        std::fs::write(d.join("matrix.md"), &table).unwrap();
    }
    let errors: Vec<&str> = rows
        .iter()
        .filter(|r| r.report.is_err())
        .map(|r| r.pair.as_str())
        .collect();
    assert!(errors.is_empty(), "cases that did not run: {errors:?}");
    let mut broken = Vec::new();
    for row in &rows {
        let Ok(r) = &row.report else { continue };
        for v in r.verdicts.iter().filter(|v| !v.passed) {
            let measure = v.measure.label();
            let known = KNOWN
                .iter()
                .any(|(pair, m, _)| known_pair(pair, &row.pair) && (*m == measure || *m == "*"))
                || (row.same_body && IDENTITY_FLOOR.contains(&measure));
            if !known {
                broken.push(format!(
                    "{}: {measure} {:.3} (limit {})",
                    row.pair, v.value, v.limit
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "measures over their threshold:\n{}",
        broken.join("\n")
    );
}

/// A KNOWN entry naming a pair (`A → B`) matches that pair only; one without an arrow
/// matches every pair it begins.
fn known_pair(known: &str, pair: &str) -> bool {
    if known.contains(" → ") {
        known == pair
    } else {
        pair.starts_with(known)
    }
}

/// Failures understood and left for later issues: (pair prefix, measure or `*`, why).
const KNOWN: &[(&str, &str, &str)] = &[(
    "RobotExpressive:Walking → walk1(makehuman)",
    "body",
    "the robot's ring finger onto MakeHuman's, under its `__Ring1_L` helper: the proximal \
     bone stretches 0.041 of the height at frame 0; left for the fingers work",
)];
