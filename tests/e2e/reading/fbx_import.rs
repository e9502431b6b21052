//! FBX import on real files: the four from other exporters (ufbx's test data) and the
//! glTF characters written to FBX by Blender (scripts/make-fbx-characters.py).

use crate::common::{asset_path, load, load_err_bytes};
use glam::Vec3;
use retarget_studio::core::{Axis, Clip, Pose, Skeleton, Unit};
use retarget_studio::io::{Asset, Format, ImportOptions, Problem};
use retarget_studio::session::{ExportFormat, ExportJob, Session};
use std::collections::HashMap;

const UFBX_FILES: &[&str] = &[
    "fbx/blender279_sausage_6100_ascii.fbx",
    "fbx/maya2019_game_sausage_7500_binary_3stacks.fbx",
    "fbx/maya2019_sausage_no_bindpose_7500_ascii.fbx",
    "fbx/max2020_transformed_skin_7500_ascii.fbx",
];
const CHARACTERS: [&str; 3] = ["CesiumMan", "Fox", "RobotExpressive"];

fn clip_summary(asset: &Asset) -> Vec<(String, f32, f32)> {
    let r = |x: f32| (x * 1e4).round() / 1e4;
    asset
        .clips
        .iter()
        .map(|c| {
            (
                c.clip.name.clone(),
                r(c.clip.start_secs()),
                r(c.clip.end_secs()),
            )
        })
        .collect()
}

fn names(asset: &Asset) -> Vec<&str> {
    asset.skeletons[0]
        .names()
        .iter()
        .map(String::as_str)
        .collect()
}

/// World joint positions by name at time `t` (rest pose under the clip's tracks).
fn world_at(skeleton: &Skeleton, clip: &Clip, t: f32) -> HashMap<String, Vec3> {
    let mut pose = Pose::rest(skeleton);
    clip.sample(t, &mut pose);
    skeleton
        .names()
        .iter()
        .cloned()
        .zip(pose.world_positions(skeleton))
        .collect()
}

/// The figure's height: the Y extent of its joints in the rest pose.
fn height(skeleton: &Skeleton) -> f32 {
    let ys = Pose::rest(skeleton).world_positions(skeleton);
    let (lo, hi) = ys.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    hi - lo
}

/// The glTF animation a Blender-made stack came from: stacks are named
/// `<armature>|<animation>_<armature>`, and an unnamed glTF animation is `Anim_<index>`.
fn gltf_clip<'a>(gltf: &'a Asset, stack: &str) -> Option<&'a Clip> {
    let action = stack.split('|').nth(1).unwrap_or(stack);
    gltf.clips.iter().enumerate().find_map(|(i, c)| {
        let name = &c.clip.name;
        let unnamed = format!("Anim_{i}_");
        (action.starts_with(&format!("{name}_")) || action.starts_with(&unnamed)).then_some(&c.clip)
    })
}

/// How far the FBX of a glTF character is from the glTF, per stack: the largest distance
/// between same-named joints divided by the glTF figure's height, at the FBX keys that fall
/// on a glTF key (`on_keys`) and at the others (`between`, where Blender resampled), with the
/// number of joints compared.
struct Miss {
    stack: String,
    on_keys: f32,
    on_key_frames: usize,
    between: f32,
    joints: usize,
}

fn misses(character: &str) -> Vec<Miss> {
    let gltf = load(&format!("gltf/{character}.glb"));
    let fbx = load(&format!("fbx/{character}.fbx"));
    let (gs, fs) = (&gltf.skeletons[0], &fbx.skeletons[0]);
    let h = height(gs);
    let mut out = Vec::new();
    for fc in &fbx.clips {
        let gc = gltf_clip(&gltf, &fc.clip.name)
            .unwrap_or_else(|| panic!("{character}: no glTF clip for stack '{}'", fc.clip.name));
        let gltf_keys: Vec<f32> = gc
            .tracks()
            .iter()
            .flat_map(|t| t.rotation.as_ref())
            .flat_map(|r| r.times().to_vec())
            .collect();
        // Blender's exporter writes each action from its first frame: a glTF clip whose
        // keys start at 1/24 s (CesiumMan) starts at 0 in the FBX.
        let shift = gc.start_secs() - fc.clip.start_secs();
        let times: Vec<f32> = fc.clip.tracks()[0]
            .rotation
            .as_ref()
            .map_or_else(|| vec![fc.clip.start_secs()], |r| r.times().to_vec());
        let mut m = Miss {
            stack: fc.clip.name.clone(),
            on_keys: 0.0,
            on_key_frames: 0,
            between: 0.0,
            joints: 0,
        };
        for &t in times.iter().filter(|&&t| t + shift <= gc.end_secs() + 1e-4) {
            let (a, b) = (world_at(gs, gc, t + shift), world_at(fs, &fc.clip, t));
            let common: Vec<_> = a.keys().filter(|k| b.contains_key(*k)).collect();
            m.joints = common.len();
            let e = common
                .iter()
                .map(|k| a[*k].distance(b[*k]) / h)
                .fold(0.0, f32::max);
            if gltf_keys.iter().any(|k| (k - (t + shift)).abs() < 1e-4) {
                m.on_keys = m.on_keys.max(e);
                m.on_key_frames += 1;
            } else {
                m.between = m.between.max(e);
            }
        }
        out.push(m);
    }
    out
}

#[test]
fn blender_279_fbx_6_1_takes_are_clips_and_spin_starts_before_zero() {
    let a = load("fbx/blender279_sausage_6100_ascii.fbx");
    assert_eq!(a.format, Format::Fbx);
    assert_eq!(names(&a), ["Skeleton", "Bottom", "Middle", "Top"]);
    // Takes, in file order; "Spin" plays from its LocalTime, one frame before zero.
    let clips = clip_summary(&a);
    let names: Vec<&str> = clips.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["Default Take", "Base", "Spin", "Wiggle"]);
    assert_eq!(clips[2].1, -0.0417, "{clips:?}");
    assert!(clips[2].1 < 0.0 && clips[2].2 > 0.75, "{clips:?}");
}

#[test]
fn maya_three_stacks_keep_their_consecutive_start_times() {
    let a = load("fbx/maya2019_game_sausage_7500_binary_3stacks.fbx");
    assert_eq!(names(&a), ["joint1", "joint2", "joint3", "joint4"]);
    assert_eq!(
        clip_summary(&a),
        [
            ("wiggle".to_owned(), 0.0417, 0.8333),
            ("spin".to_owned(), 0.8333, 1.6667),
            ("deform".to_owned(), 1.6667, 2.5),
        ]
    );
    for c in &a.clips {
        assert_eq!(c.clip.fps(), Some(24.0));
    }
    // Maya works in centimetres: the container scales the joints to metres.
    assert_eq!(a.unit, Unit::Centimetre);
    let s = &a.skeletons[0];
    assert!((s.container().x_axis.length() - 0.01).abs() < 1e-6);
}

#[test]
fn maya_without_bind_pose_binds_from_the_clusters() {
    let a = load("fbx/maya2019_sausage_no_bindpose_7500_ascii.fbx");
    assert_eq!(names(&a), ["joint1", "joint2", "joint3", "joint4"]);
    assert_eq!(a.clips.len(), 1);
    assert_eq!(a.clips[0].clip.name, "wiggle");
    assert_eq!(clip_summary(&a)[0].1, 0.0417);
    assert_eq!(a.meshes.len(), 1);
}

#[test]
fn max_z_up_file_stands_up_in_y() {
    let a = load("fbx/max2020_transformed_skin_7500_ascii.fbx");
    assert_eq!(
        names(&a),
        ["Bone001", "Bone002", "Bone003", "Bone004", "Bone005"]
    );
    assert_eq!((a.up, a.unit), (Axis::PosZ, Unit::Centimetre));
    assert_eq!(a.clips.len(), 1);
    assert_eq!(a.clips[0].clip.fps(), Some(30.0));
    // The chain goes up the file's Z, which is +Y after the conversion.
    let s = &a.skeletons[0];
    let p = Pose::rest(s).world_positions(s);
    assert!(p[4].y - p[0].y > 0.3, "{p:?}");
    assert!((p[4] - p[0]).y > (p[4] - p[0]).z.abs() * 3.0, "{p:?}");
}

/// In the bind pose every influence of a vertex puts it at the same place: the bind pose
/// and the meshes' inverse bind matrices agree (TransformLink, BindPose or neither).
#[test]
fn bind_pose_and_inverse_binds_agree_on_every_file() {
    let mut files: Vec<String> = UFBX_FILES.iter().map(|s| s.to_string()).collect();
    files.extend(CHARACTERS.iter().map(|c| format!("fbx/{c}.fbx")));
    for rel in &files {
        let a = load(rel);
        let s = &a.skeletons[0];
        let bind = Pose::bind(s).world_matrices(s);
        let size = figure_size(s);
        let mut worst = 0.0f32;
        for mesh in &a.meshes {
            for p in &mesh.primitives {
                for (v, pos) in p.positions.iter().enumerate() {
                    let at = |k: usize| {
                        let j = p.joints[v][k] as usize;
                        (bind[j] * mesh.inverse_bind[j]).transform_point3(*pos)
                    };
                    for k in 1..4 {
                        if p.weights[v][k] > 0.0 {
                            worst = worst.max(at(k).distance(at(0)) / size);
                        }
                    }
                }
            }
        }
        assert!(!a.meshes.is_empty(), "{rel}: meshes");
        assert!(
            worst < 1e-4,
            "{rel}: influences disagree by {worst} of the figure's size"
        );
    }
}

fn figure_size(s: &Skeleton) -> f32 {
    let p = Pose::rest(s).world_positions(s);
    let (lo, hi) = p.iter().fold((Vec3::MAX, Vec3::MIN), |(lo, hi), q| {
        (lo.min(*q), hi.max(*q))
    });
    (hi - lo).max_element().max(1e-6)
}

#[test]
fn blender_made_characters_keep_their_meshes_names_and_textures() {
    let cesium = load("fbx/CesiumMan.fbx");
    assert_eq!(cesium.skeletons[0].len(), 19);
    assert_eq!(cesium.meshes.len(), 1);
    let prim = &cesium.meshes[0].primitives[0];
    assert!(
        prim.base_color_texture.is_some(),
        "the embedded JPEG texture"
    );
    assert_eq!(prim.uvs.len(), prim.positions.len());
    assert_eq!(cesium.meshes[0].triangle_count(), 4672);
    let robot = load("fbx/RobotExpressive.fbx");
    assert!(robot.skeletons[0].names().iter().any(|n| n == "Index2.R"));
    assert_eq!(robot.clips.len(), 4);
    for m in &robot.meshes {
        for p in &m.primitives {
            for w in &p.weights {
                let sum: f32 = w.iter().sum();
                assert!((sum - 1.0).abs() < 1e-5, "{}: weights sum to {sum}", m.name);
            }
        }
    }
}

/// The FBX that Blender wrote from each glTF character reads to the glTF's world joint
/// positions, key by key, within 1e-5 of the figure's height (measured: 1.0e-6 to 1.5e-6;
/// float32 and Blender's own rounding).
///
/// Three stacks cannot be held to that, and for a reason outside this reader: Blender's
/// FBX exporter writes them differently from the glTF it imported. Blender's own FBX
/// importer (the independent tools' pose-dump) reads those files to the same positions as this
/// reader (within 3e-6 m; `scripts/fbx-vs-blender.py` checks it in CI), and differs from
/// Blender's own reading of the glTF by as much as here:
/// - Fox "Run": the glTF keys are not on 24 fps frames (25 keys over 1.158 s) and Blender
///   bakes whole frames with its own per-component interpolation: up to 9.4 % of height;
/// - RobotExpressive "Idle" and "Wave": the right hand (Index2.R, 3.3 cm on a 4.1 m robot)
///   and a few joints near it come out of the exporter moved: up to 1.2 % of height.
///
/// Those are held to their measured bounds, so that a change in this reader still shows.
#[test]
fn fbx_of_a_gltf_character_reads_to_the_gltf_world_positions() {
    let known = [
        ("root|Run_root", 0.1),
        ("RobotArmature|Idle_RobotArmature", 0.008),
        ("RobotArmature|Wave_RobotArmature", 0.013),
    ];
    // Stacks per file: RobotExpressive keeps 4 of its 14 clips (make-fbx-characters.py).
    for (character, stacks) in CHARACTERS.iter().zip([1, 3, 4]) {
        let all = misses(character);
        assert_eq!(all.len(), stacks, "{character}");
        for m in all {
            let bound = known.iter().find(|k| k.0 == m.stack).map_or(1e-5, |k| k.1);
            let worst = m.on_keys.max(m.between);
            assert!(
                worst <= bound,
                "{character} '{}': {worst:e} of height > {bound:e} ({} joints)",
                m.stack,
                m.joints
            );
            assert!(
                m.joints >= 19 && m.on_key_frames + 1 >= 2,
                "{character} '{}'",
                m.stack
            );
        }
    }
}

#[test]
fn namespaces_and_non_ascii_names_are_kept_as_written() {
    let src = std::fs::read_to_string(asset_path(
        "fbx/maya2019_sausage_no_bindpose_7500_ascii.fbx",
    ))
    .unwrap();
    let renamed = src
        .replace("joint1", "Character1:Hüfte")
        .replace("joint2", "Character1:脊椎");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("renamed.fbx");
    std::fs::write(&path, renamed).unwrap();
    let a = retarget_studio::io::load(&path, &ImportOptions::default()).unwrap();
    assert_eq!(&names(&a)[..2], ["Character1:Hüfte", "Character1:脊椎"]);
}

fn expect_fbx_error(name: &str, bytes: &[u8]) -> String {
    let e = load_err_bytes(name, bytes);
    assert!(matches!(e.problem, Problem::Fbx(_)), "{name}: {e}");
    let text = e.to_string();
    assert!(text.contains(name), "the error names the file: {text}");
    text
}

#[test]
fn truncated_garbled_and_pre_6_1_files_are_errors_naming_the_file() {
    let good = std::fs::read(asset_path(
        "fbx/maya2019_game_sausage_7500_binary_3stacks.fbx",
    ))
    .unwrap();
    for cut in [10, 27, 200, good.len() / 2, good.len() - 200] {
        let t = expect_fbx_error("cut.fbx", &good[..cut]);
        assert!(!t.is_empty());
    }
    let t = expect_fbx_error("cut.fbx", &good[..good.len() / 2]);
    assert!(t.to_lowercase().contains("truncated"), "{t}");
    // Garbled: the bytes after the header scrambled, and a file of noise.
    let mut garbled = good.clone();
    let mut x = 12345u32;
    for b in garbled.iter_mut().skip(27) {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        *b = (x >> 16) as u8;
    }
    expect_fbx_error("garbled.fbx", &garbled);
    expect_fbx_error("noise.fbx", &garbled[27..]);
    expect_fbx_error("empty.fbx", b"");
    // FBX 5.x (pre-6.1): a binary header with version 5800, and an ASCII one.
    let mut old = good.clone();
    old[23..27].copy_from_slice(&5800u32.to_le_bytes());
    let t = expect_fbx_error("old.fbx", &old);
    assert!(
        t.contains("5.8") || t.to_lowercase().contains("version"),
        "{t}"
    );
    let ascii = "; FBX 5.0.0 project file\nFBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 5000\n}\n";
    let t = expect_fbx_error("old_ascii.fbx", ascii.as_bytes());
    assert!(t.to_lowercase().contains("version"), "{t}");
}

fn world_frames(s: &Skeleton, clip: &Clip, times: &[f32]) -> Vec<Vec<Vec3>> {
    crate::common::positions_at(s, clip, times)
}

/// CesiumMan's FBX as the source onto its GLB, and the GLB onto its FBX: the same figure
/// on both sides, so the retargeted joints follow the source's within a few mm, and the
/// GLB written for the FBX target carries the FBX's mesh and texture.
#[test]
fn fbx_works_as_source_and_as_target() {
    let fbx = asset_path("fbx/CesiumMan.fbx");
    let glb = asset_path("gltf/CesiumMan.glb");
    for (src, tgt) in [(&fbx, &glb), (&glb, &fbx)] {
        let session = Session::automatic(src, tgt, &ImportOptions::default()).unwrap();
        assert!(
            session.map.pairs().len() >= 15,
            "{} pairs",
            session.map.pairs().len()
        );
        let source_clip = session.source_clip(None).unwrap().clone();
        let out = session.retarget_clip(None, None).unwrap();
        let ts: Vec<f32> = (0..10)
            .map(|k| out.start_secs() + out.duration_secs() * k as f32 / 9.0)
            .collect();
        let ss: Vec<f32> = ts
            .iter()
            .map(|t| source_clip.start_secs() + (t - out.start_secs()))
            .collect();
        let a = world_frames(session.source.skeleton(), &source_clip, &ss);
        let b = world_frames(session.target.skeleton(), &out, &ts);
        let (sn, tn) = (
            session.source.skeleton().names(),
            session.target.skeleton().names(),
        );
        let h = figure_size(session.target.skeleton());
        let mut worst = 0.0f32;
        for (fa, fb) in a.iter().zip(&b) {
            for (i, n) in sn.iter().enumerate() {
                if let Some(j) = tn.iter().position(|m| m == n) {
                    worst = worst.max(fa[i].distance(fb[j]) / h);
                }
            }
        }
        assert!(
            worst < 0.02,
            "{} -> {}: {worst} of height",
            src.display(),
            tgt.display()
        );
    }
    let session = Session::automatic(&glb, &fbx, &ImportOptions::default()).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("onto_fbx.glb");
    let job = ExportJob {
        format: ExportFormat::GlbWithCharacter,
        clips: vec![None],
        fps: None,
        out: out.clone(),
        reduce: None,
        root_motion: None,
        extract_root: false,
        add_root: false,
    };
    session.export(&job).unwrap();
    let written = retarget_studio::io::load(&out, &ImportOptions::default()).unwrap();
    assert_eq!(written.clips.len(), 1);
    assert_eq!(written.meshes.len(), session.target.asset.meshes.len());
    assert_eq!(written.meshes[0].triangle_count(), 4672);
    assert!(written.meshes[0].primitives[0].base_color_texture.is_some());
    // The written skeleton moves as the retargeted clip does.
    let expected = session.retarget_clip(None, None).unwrap();
    let ws = &written.skeletons[0];
    let ts = [expected.start_secs(), expected.end_secs()];
    let a = world_frames(session.target.skeleton(), &expected, &ts);
    let b = world_frames(ws, &written.clips[0].clip, &ts);
    for (fa, fb) in a.iter().zip(&b) {
        for (pa, pb) in fa.iter().zip(fb) {
            assert!(pa.distance(*pb) < 1e-4, "{pa} vs {pb}");
        }
    }
}

/// Bytes flipped anywhere in the four small files: an error or an asset, never a panic.
#[test]
fn flipped_bytes_never_panic() {
    let mut x = 0x2545_f491u32;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let dir = tempfile::tempdir().unwrap();
    for rel in UFBX_FILES {
        let good = std::fs::read(asset_path(rel)).unwrap();
        for round in 0..40 {
            let mut bad = good.clone();
            for _ in 0..(1 + round % 8) {
                let at = next() as usize % bad.len();
                bad[at] = next() as u8;
            }
            let path = dir.path().join("flipped.fbx");
            std::fs::write(&path, &bad).unwrap();
            if let Err(e) = retarget_studio::io::load(&path, &ImportOptions::default()) {
                assert!(e.to_string().contains("flipped.fbx"), "{e}");
            }
        }
    }
}

/// Blender's FBX of the robot binds its root `Bone` 2.4 units below where it rests and keys
/// it at rest. Onto itself, onto its glTF and from its glTF, every stack must come back: one
/// body, same-rig error within 1e-5 of the height, every measure passing. (Before: onto
/// the glTF its limbs pointed 32° off, the IK feet 2.4 units up; from the glTF, the pelvis
/// rode 1.6 leg lengths high.)
#[test]
fn the_robots_fbx_its_glb_and_itself_give_each_others_clips_back() {
    let fbx = asset_path("fbx/RobotExpressive.fbx");
    let glb = asset_path("gltf/RobotExpressive.glb");
    let limits = retarget_studio::core::quality::Thresholds::default();
    for (src, tgt) in [(&fbx, &fbx), (&fbx, &glb), (&glb, &fbx)] {
        let session = Session::automatic(src, tgt, &ImportOptions::default()).unwrap();
        assert!(
            session.same_rig(),
            "{} onto {}",
            src.display(),
            tgt.display()
        );
        let from_fbx = src.extension().is_some_and(|e| e == "fbx");
        for clip in ["Walking", "Running", "Idle", "Wave"] {
            let name = if from_fbx {
                format!("RobotArmature|{clip}_RobotArmature")
            } else {
                clip.to_owned()
            };
            let report = session.quality(Some(&name), &limits).unwrap();
            let what = format!("{name} from {} onto {}", src.display(), tgt.display());
            let same = report.same_rig.as_ref().expect("one rig on both sides");
            assert!(
                same.max < 1e-5,
                "{what}: same rig {:.2e} of the height",
                same.max
            );
            assert!(report.passed, "{what}: {:?}", report.flags);
        }
    }
}

/// Blender's exporter hangs an `<name>_end` leaf under every bone without a child (FBX has
/// no bone tails; 15 on the robot). They are left out with a note, so the FBX of a glTF
/// character has the glTF's joints, and its fingers and IK targets keep their shape.
#[test]
fn blenders_leaf_bones_are_left_out() {
    for character in CHARACTERS {
        let (gltf, fbx) = (
            load(&format!("gltf/{character}.glb")),
            load(&format!("fbx/{character}.fbx")),
        );
        let mut a: Vec<&String> = gltf.skeletons[0].names().iter().collect();
        let mut b: Vec<&String> = fbx.skeletons[0].names().iter().collect();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{character}: the FBX's joints are the glTF's");
    }
    let robot = load("fbx/RobotExpressive.fbx");
    assert!(
        robot
            .warnings
            .iter()
            .any(|w| w.contains("left out 15 of Blender's leaf bones")),
        "{:?}",
        robot.warnings
    );
}
