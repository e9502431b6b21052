//! glTF, GLB and VRM import on the real rigs in assets/.

use crate::common::{GLTF_ASSETS, asset_path, load};
use glam::{Mat4, Vec3};
use retarget_studio::core::{HumanBone, Pose};
use retarget_studio::io::Format;

/// World matrices of every node from the `gltf` crate's own scene traversal.
fn scene_worlds(rel: &str) -> Vec<Mat4> {
    let (doc, _, _) = gltf::import(asset_path(rel)).unwrap();
    let mut worlds = vec![Mat4::IDENTITY; doc.nodes().len()];
    fn walk(node: gltf::Node, parent: Mat4, out: &mut [Mat4]) {
        let world = parent * Mat4::from_cols_array_2d(&node.transform().matrix());
        out[node.index()] = world;
        for child in node.children() {
            walk(child, world, out);
        }
    }
    for scene in doc.scenes() {
        for node in scene.nodes() {
            walk(node, Mat4::IDENTITY, &mut worlds);
        }
    }
    worlds
}

#[test]
fn forward_kinematics_equals_the_gltf_scene_traversal() {
    for rel in GLTF_ASSETS {
        let asset = load(rel);
        let expected = scene_worlds(rel);
        for (s, skeleton) in asset.skeletons.iter().enumerate() {
            let ours = Pose::rest(skeleton).world_matrices(skeleton);
            for (j, node) in asset.joint_nodes[s].iter().enumerate() {
                let (a, b) = (ours[j], expected[*node]);
                let scale = b
                    .abs()
                    .to_cols_array()
                    .iter()
                    .fold(1.0f32, |m, v| m.max(*v));
                assert!(
                    a.abs_diff_eq(b, 1e-5 * scale),
                    "{rel}: joint {} differs:\n{a}\n{b}",
                    skeleton.names()[j]
                );
            }
        }
    }
}

#[test]
fn real_rigs_have_the_joints_and_clips_their_readme_lists() {
    let robot = load("gltf/RobotExpressive.glb");
    assert_eq!(robot.format, Format::Glb);
    assert_eq!(
        robot.skeletons.len(),
        1,
        "two skins with one joint set share a skeleton"
    );
    assert_eq!(robot.skeletons[0].len(), 43);
    assert_eq!(robot.clips.len(), 14);
    let dance = robot.find_clip("Dance").unwrap();
    assert_eq!(dance.clip.frame_count(), 81);
    assert_eq!(dance.clip.fps(), Some(24.0));
    // Its face's three morph weights are curves of every clip.
    assert_eq!(dance.clip.curves().len(), 3);
    assert!(robot.warnings.is_empty(), "{:?}", robot.warnings);
    // 12 rigid body parts under joints plus the two skinned hands.
    assert_eq!(robot.meshes.len(), 14);

    let fox = load("gltf/Fox.glb");
    assert_eq!(fox.skeletons[0].len(), 24);
    let names: Vec<_> = fox.clips.iter().map(|c| c.clip.name.as_str()).collect();
    assert_eq!(names, ["Survey", "Walk", "Run"]);
    assert!((fox.find_clip("Survey").unwrap().clip.duration_secs() - 3.4167).abs() < 1e-3);
    assert!(
        fox.warnings.iter().any(|w| w.contains("another unit")),
        "Fox is ~60 units tall"
    );

    let cesium = load("gltf/CesiumMan.glb");
    assert_eq!(cesium.skeletons[0].len(), 19);
    assert_eq!(cesium.clips.len(), 1);
    assert_eq!(cesium.clips[0].clip.frame_count(), 48);
    assert_eq!(cesium.meshes[0].vertex_count(), 3273);
}

#[test]
fn vrm0_humanoid_table_labels_joints() {
    let vrm = load("vrm/cryptovoxels.vrm");
    assert_eq!(vrm.format, Format::Vrm0);
    let s = &vrm.skeletons[0];
    assert_eq!(s.len(), 57);
    assert_eq!(s.humanoid().iter().flatten().count(), 43);
    let label = |name: &str| s.humanoid()[s.find(name).unwrap()];
    assert_eq!(label("Hips"), Some(HumanBone::Hips));
    assert_eq!(label("Left arm"), Some(HumanBone::LeftUpperArm));
    assert_eq!(label("Left elbow"), Some(HumanBone::LeftLowerArm));
    assert_eq!(
        label("IndexFinger2_R"),
        Some(HumanBone::RightIndexIntermediate)
    );
    // This file's table leaves the thumbs out: they stay unlabelled rather than guessed.
    assert_eq!(label("Thumb0_L"), None);
}

#[test]
fn vrm_animation_without_a_skin_becomes_a_humanoid_skeleton() {
    let vrma = load("vrm/three-vrm_test.vrma");
    assert_eq!(vrma.format, Format::Vrma);
    let s = &vrma.skeletons[0];
    assert_eq!(s.humanoid().iter().flatten().count(), 51);
    assert_eq!(s.humanoid()[0], Some(HumanBone::Hips));
    let clip = &vrma.clips[0].clip;
    assert!((clip.duration_secs() - 3.0).abs() < 1e-6);
    // The expression and the gaze are curves of the clip.
    let names: Vec<&str> = clip.curves().iter().map(|c| c.name.as_str()).collect();
    assert_eq!(names, ["happy", "lookAt.yaw", "lookAt.pitch"]);
}

fn angle_below_horizontal(from: Vec3, to: Vec3) -> f32 {
    let d = (to - from).normalize();
    (-d.y).asin().to_degrees()
}

#[test]
fn bind_pose_comes_from_inverse_bind_matrices_not_node_rest() {
    // RobotExpressive: the nodes hold the arms ~63° down, the skin was bound in a T-pose.
    let robot = load("gltf/RobotExpressive.glb");
    let s = &robot.skeletons[0];
    let (upper, lower) = (s.find("UpperArm.L").unwrap(), s.find("LowerArm.L").unwrap());
    let rest = Pose::rest(s).world_positions(s);
    let bind = Pose::bind(s).world_positions(s);
    let rest_angle = angle_below_horizontal(rest[upper], rest[lower]);
    let bind_angle = angle_below_horizontal(bind[upper], bind[lower]);
    assert!((rest_angle - 63.0).abs() < 5.0, "rest arm {rest_angle}°");
    assert!(bind_angle.abs() < 5.0, "bind arm {bind_angle}°");

    // CesiumMan: Z-up inverse bind matrices under a Z_UP node still give an upright bind pose.
    let cesium = load("gltf/CesiumMan.glb");
    let s = &cesium.skeletons[0];
    let bind = Pose::bind(s).world_positions(s);
    let (torso, neck) = (
        s.find("Skeleton_torso_joint_1").unwrap(),
        s.find("Skeleton_neck_joint_2").unwrap(),
    );
    assert!(
        bind[neck].y - bind[torso].y > 0.4,
        "upright: {} above {}",
        bind[neck],
        bind[torso]
    );
    // Its arms are an A-pose: about 27° below horizontal.
    let (shoulder, elbow) = (
        s.find("Skeleton_arm_joint_L__4_").unwrap(),
        s.find("Skeleton_arm_joint_L__3_").unwrap(),
    );
    let a = angle_below_horizontal(bind[shoulder], bind[elbow]);
    assert!((a - 27.0).abs() < 8.0, "A-pose arm {a}°");
}

#[test]
fn sampling_at_a_key_time_gives_the_key_value_from_the_file() {
    let (doc, buffers, _) = gltf::import(asset_path("gltf/CesiumMan.glb")).unwrap();
    let asset = load("gltf/CesiumMan.glb");
    let skeleton = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    let anim = doc.animations().next().unwrap();
    let mut checked = 0;
    for channel in anim.channels() {
        if channel.target().property() != gltf::animation::Property::Rotation {
            continue;
        }
        let reader = channel.reader(|b| Some(&buffers[b.index()]));
        let times: Vec<f32> = reader.read_inputs().unwrap().collect();
        let gltf::animation::util::ReadOutputs::Rotations(r) = reader.read_outputs().unwrap()
        else {
            unreachable!()
        };
        let values: Vec<[f32; 4]> = r.into_f32().collect();
        let node = channel.target().node().index();
        let joint = asset.joint_nodes[0]
            .iter()
            .position(|&n| n == node)
            .unwrap();
        let key = times.len() / 2;
        let mut pose = Pose::rest(skeleton);
        clip.sample(times[key], &mut pose);
        let q = glam::Quat::from_array(values[key]).normalize();
        assert!(pose.rotations[joint].abs_diff_eq(q, 1e-6));
        checked += 1;
    }
    assert_eq!(checked, 19);
}

#[test]
fn gltf_with_external_buffer_and_data_uri_load() {
    // Split CesiumMan into .gltf JSON + .bin, and into a .gltf with a base64 data URI.
    let glb = std::fs::read(asset_path("gltf/CesiumMan.glb")).unwrap();
    let parsed = gltf::Gltf::from_slice(&glb).unwrap();
    let blob = parsed.blob.clone().unwrap();
    let mut json = parsed.document.into_json();
    let dir = tempfile::tempdir().unwrap();
    json.buffers[0].uri = Some("cesium.bin".into());
    std::fs::write(dir.path().join("cesium.bin"), &blob).unwrap();
    let external = dir.path().join("external.gltf");
    std::fs::write(&external, json.to_string_pretty().unwrap()).unwrap();
    let a = retarget_studio::io::load(&external, &Default::default()).unwrap();
    assert_eq!(a.format, Format::Gltf);
    assert_eq!(a.skeletons[0].len(), 19);
    assert_eq!(a.meshes[0].vertex_count(), 3273);

    use crate::common::textured::base64 as encode;
    json.buffers[0].uri = Some(format!(
        "data:application/octet-stream;base64,{}",
        encode(&blob)
    ));
    let embedded = dir.path().join("embedded.gltf");
    std::fs::write(&embedded, json.to_string_pretty().unwrap()).unwrap();
    let b = retarget_studio::io::load(&embedded, &Default::default()).unwrap();
    assert_eq!(b.clips[0].clip, a.clips[0].clip);
}
