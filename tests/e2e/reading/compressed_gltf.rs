//! Compressed glTF: a Draco character (glTF-Transform's Astronaut) and a meshopt-compressed,
//! quantized avatar with WebP textures (VALID), read with their skeletons, clips and
//! decoded meshes, kept on export, and errors that name the extension.

use crate::common::file_variants::glb::Glb;
use crate::common::{asset_path, cli_ok, load};
use glam::{Mat4, Vec3};
use retarget_studio::core::Pose;
use retarget_studio::io::{Asset, SkinnedMesh};

const DRACO: &str = "gltf/draco/quaternius_astronaut_draco_gltftransform.glb";
const MESHOPT: &str = "gltf/morph/valid_hispanic_f2_meshopt_65morphs.glb";

/// Each vertex of `mesh` skinned with its skeleton's rest pose: `Σ w·G_j·IBM_j·v`.
fn skinned_at_rest(asset: &Asset, mesh: &SkinnedMesh) -> Vec<Vec3> {
    let skeleton = &asset.skeletons[mesh.skeleton];
    let worlds = Pose::rest(skeleton).world_matrices(skeleton);
    let skin: Vec<Mat4> = worlds
        .iter()
        .zip(&mesh.inverse_bind)
        .map(|(g, ibm)| *g * *ibm)
        .collect();
    let mut out = Vec::new();
    for p in &mesh.primitives {
        for ((v, js), ws) in p.positions.iter().zip(&p.joints).zip(&p.weights) {
            let point = (0..4)
                .map(|k| skin[js[k] as usize].transform_point3(*v) * ws[k])
                .sum();
            out.push(point);
        }
    }
    out
}

fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    let lo = points
        .iter()
        .fold(Vec3::splat(f32::INFINITY), |a, p| a.min(*p));
    let hi = points
        .iter()
        .fold(Vec3::splat(f32::NEG_INFINITY), |a, p| a.max(*p));
    (lo, hi)
}

/// Every vertex's weights sum to 1 and name joints of the skeleton.
fn assert_weights(asset: &Asset) {
    for mesh in &asset.meshes {
        let joints = asset.skeletons[mesh.skeleton].len();
        for p in &mesh.primitives {
            for (ws, js) in p.weights.iter().zip(&p.joints) {
                let sum: f32 = ws.iter().sum();
                assert!(
                    (sum - 1.0).abs() < 0.01,
                    "{}: weights sum to {sum}",
                    mesh.name
                );
                assert!(js.iter().all(|&j| (j as usize) < joints), "{}", mesh.name);
            }
        }
    }
}

fn mesh<'a>(asset: &'a Asset, name: &str) -> &'a SkinnedMesh {
    let names: Vec<&str> = asset.meshes.iter().map(|m| m.name.as_str()).collect();
    asset
        .meshes
        .iter()
        .find(|m| m.name == name)
        .unwrap_or_else(|| panic!("no mesh '{name}' among {names:?}"))
}

#[test]
fn a_draco_character_reads_its_skeleton_clips_and_meshes() {
    let asset = load(DRACO);
    assert_eq!(asset.skeletons.len(), 1);
    let skeleton = &asset.skeletons[0];
    assert_eq!(skeleton.len(), 43);
    assert_eq!(asset.clips.len(), 18);
    let walk = asset.find_clip("Walk").unwrap();
    assert_eq!(walk.clip.frame_count(), 31);
    // The frog body (skinned) and the pistol (rigid, under a finger joint).
    let body = mesh(&asset, "Cube.021");
    assert_eq!(body.vertex_count(), 5696);
    assert_eq!(body.triangle_count(), 18774 / 3);
    assert_eq!(mesh(&asset, "Cube.074").vertex_count(), 2350);
    assert_weights(&asset);
    // The skin around the skeleton: from the floor to just above the head joint.
    let rest = Pose::rest(skeleton).world_positions(skeleton);
    let head = rest[skeleton.find("Head").unwrap()];
    let (lo, hi) = bounds(&skinned_at_rest(&asset, body));
    assert!(lo.y.abs() < 0.05, "the feet at {lo}");
    assert!(
        hi.y > head.y && hi.y < head.y * 1.6,
        "the top at {hi}, head {head}"
    );
}

/// World joint positions at 1/3 s into Walk, from an independent pure-Python glTF reader
/// (the team's `ref-dump`, which reads the nodes and animations of Draco files).
const DRACO_WALK_AT_THIRD: &[(&str, [f32; 3])] = &[
    ("Root", [-0.001311, -0.002415, -0.23544]),
    ("Hips", [-0.000465, 0.742965, -0.182675]),
    ("Head", [0.037994, 2.080817, -0.172616]),
    ("Foot.L", [0.350613, 0.408436, -0.164352]),
    ("LowerLeg.R", [-0.349408, 0.444481, -0.147134]),
    ("Middle1.R", [-1.117179, 0.790534, 0.330362]),
];

#[test]
fn draco_joint_positions_agree_with_an_independent_reader() {
    let asset = load(DRACO);
    let walk = asset.find_clip("Walk").unwrap();
    let skeleton = &asset.skeletons[walk.skeleton];
    let mut pose = Pose::rest(skeleton);
    walk.clip.sample(1.0 / 3.0, &mut pose);
    let world = pose.world_positions(skeleton);
    for (name, expected) in DRACO_WALK_AT_THIRD {
        let got = world[skeleton.find(name).unwrap()];
        let d = got.distance(Vec3::from_array(*expected));
        assert!(d < 1e-4, "{name}: {got} against {expected:?}");
    }
}

#[test]
fn a_meshopt_avatar_reads_bind_matrices_and_meshes_and_skips_webp_textures() {
    let asset = load(MESHOPT);
    assert_eq!(asset.skeletons.len(), 1, "7 skins over the same 114 joints");
    let skeleton = &asset.skeletons[0];
    assert_eq!(skeleton.len(), 114);
    assert!(asset.clips.is_empty());
    assert_eq!(asset.meshes.len(), 7);
    let head = mesh(&asset, "H_DDS_HighRes");
    assert_eq!(head.vertex_count(), 22249);
    assert_weights(&asset);
    let webp = asset
        .warnings
        .iter()
        .filter(|w| w.contains("EXT_texture_webp"));
    assert_eq!(
        webp.count(),
        1,
        "the base colour image: {:?}",
        asset.warnings
    );
    // Quantized positions skinned with the meshopt-decoded inverse bind matrices land on
    // the skeleton: the body spans the floor to the head joint.
    let rest = Pose::rest(skeleton).world_positions(skeleton);
    let head_joint = rest[skeleton.find("Head").unwrap()];
    let (lo, hi) = bounds(&skinned_at_rest(&asset, head));
    assert!(lo.y.abs() < 0.05, "the feet at {lo}");
    assert!(
        hi.y > head_joint.y && hi.y < head_joint.y + 0.3,
        "top {hi}, head {head_joint}"
    );
    // The bind pose stands where the rest pose does (T-pose both).
    let bind = Pose::bind(skeleton).world_positions(skeleton);
    let worst = bind
        .iter()
        .zip(&rest)
        .map(|(a, b)| a.distance(*b))
        .fold(0.0, f32::max);
    assert!(worst < 0.01, "bind and rest differ by {worst} m");
}

/// `bytes` read as a file named `name`.
fn load_bytes(name: &str, bytes: &[u8]) -> retarget_studio::io::Asset {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    retarget_studio::io::load(&path, &Default::default())
        .unwrap_or_else(|e| panic!("{name} should load: {e}"))
}

#[test]
fn damaged_draco_data_leaves_its_primitive_out_with_a_warning_naming_the_extension() {
    let bytes = std::fs::read(asset_path(DRACO)).unwrap();
    let whole = load_bytes("astronaut.glb", &bytes);
    let mut g = Glb::parse(&bytes);
    let ext = &g.json["meshes"][0]["primitives"][0]["extensions"]["KHR_draco_mesh_compression"];
    let view = &g.json["bufferViews"][ext["bufferView"].as_u64().unwrap() as usize];
    let at = view["byteOffset"].as_u64().unwrap_or(0) as usize;
    let len = view["byteLength"].as_u64().unwrap() as usize;
    g.bin[at..at + len].fill(0x5a);
    let read = load_bytes("astronaut.glb", &g.to_bytes());
    let said = read.warnings.join("\n");
    assert!(
        said.contains("KHR_draco_mesh_compression") && said.contains("primitive 0 left out"),
        "{said}"
    );
    assert_eq!(read.skeletons[0].names(), whole.skeletons[0].names());
    assert_eq!(read.clips.len(), whole.clips.len());
    let primitives = |a: &retarget_studio::io::Asset| -> usize {
        a.meshes.iter().map(|m| m.primitives.len()).sum()
    };
    assert!(primitives(&read) < primitives(&whole));
}

#[test]
fn an_extension_the_reader_lacks_is_named_in_a_warning_and_the_rest_read() {
    let bytes = std::fs::read(asset_path("gltf/RobotExpressive.glb")).unwrap();
    let whole = load_bytes("robot.glb", &bytes);
    let mut g = Glb::parse(&bytes);
    g.json["extensionsUsed"] = serde_json::json!(["EXT_made_up_compression"]);
    g.json["extensionsRequired"] = serde_json::json!(["EXT_made_up_compression"]);
    let read = load_bytes("robot.glb", &g.to_bytes());
    assert!(
        read.warnings
            .iter()
            .any(|w| w.contains("EXT_made_up_compression") && w.contains("does not decode")),
        "{:?}",
        read.warnings
    );
    assert_eq!(read.skeletons[0].len(), whole.skeletons[0].len());
    assert_eq!(read.clips.len(), whole.clips.len());
}

/// A retarget onto each compressed character writes it uncompressed with all its meshes.
#[test]
fn compressed_targets_keep_their_meshes_on_export() {
    let dir = tempfile::tempdir().unwrap();
    let source = asset_path("gltf/RobotExpressive.glb");
    for rel in [DRACO, MESHOPT] {
        let out = dir.path().join("out.glb");
        cli_ok(&[
            "retarget",
            "--source",
            source.to_str().unwrap(),
            "--clip",
            "Walking",
            "--target",
            asset_path(rel).to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ]);
        let before = load(rel);
        let after = retarget_studio::io::load(&out, &Default::default()).unwrap();
        let counts = |a: &Asset| -> Vec<(String, usize)> {
            a.meshes
                .iter()
                .map(|m| (m.name.clone(), m.vertex_count()))
                .collect()
        };
        assert_eq!(counts(&after), counts(&before), "{rel}");
        let json = Glb::parse(&std::fs::read(&out).unwrap()).json;
        let used = json["extensionsUsed"].to_string();
        assert!(
            !used.contains("draco") && !used.contains("meshopt"),
            "{rel}: {used}"
        );
        assert_eq!(after.clips.len(), 1, "{rel}");
    }
}
