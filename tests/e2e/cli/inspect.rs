//! The `inspect` command as scripts use it: stable JSON, exit codes, one-line errors.

use crate::common::asset_path;
use serde_json::Value;

fn inspect(args: &[&str]) -> std::process::Output {
    crate::common::studio()
        .arg("inspect")
        .args(args)
        .output()
        .unwrap()
}

fn inspect_json(rel: &str) -> Value {
    let path = asset_path(rel);
    let out = inspect(&[path.to_str().unwrap(), "--json"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn json_has_the_documented_fields() {
    let v = inspect_json("gltf/RobotExpressive.glb");
    let joints = v["skeletons"][0]["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 43);
    let root = &joints[0];
    assert_eq!(root["name"], "Bone");
    assert!(root["parent"].is_null());
    assert_eq!(root["translation"].as_array().unwrap().len(), 3);
    assert_eq!(root["rotation"].as_array().unwrap().len(), 4);
    assert_eq!(root["scale"].as_array().unwrap().len(), 3);
    assert!(root["humanoid"].is_null());
    let hips = joints.iter().find(|j| j["name"] == "Hips").unwrap();
    assert!(hips["parent"].as_u64().is_some());
    let clips = v["clips"].as_array().unwrap();
    assert_eq!(clips.len(), 14);
    let dance = clips.iter().find(|c| c["name"] == "Dance").unwrap();
    assert_eq!(dance["frames"], 81);
    assert_eq!(dance["fps"], 24.0);
    assert!((dance["duration"].as_f64().unwrap() - 80.0 / 24.0).abs() < 1e-4);
    assert_eq!(v["unit"]["name"], "m");
    assert_eq!(v["up"]["axis"], "+Y");
    assert_eq!(v["meshes"].as_array().unwrap().len(), 14);
}

#[test]
fn json_for_vrm_labels_and_bvh_units() {
    let vrm = inspect_json("vrm/cryptovoxels.vrm");
    let joints = vrm["skeletons"][0]["joints"].as_array().unwrap();
    let labelled = joints.iter().filter(|j| j["humanoid"].is_string()).count();
    assert_eq!(labelled, 43);
    assert_eq!(joints[0]["humanoid"], "hips");
    assert!(vrm["clips"].as_array().unwrap().is_empty());

    let bvh = inspect_json("bvh/02_01.bvh");
    assert_eq!(bvh["unit"]["name"], "cmu");
    assert_eq!(bvh["unit"]["source"], "detected");
    assert_eq!(bvh["clips"][0]["frames"], 343);
    assert_eq!(bvh["clips"][0]["fps"], 120.0);
}

#[test]
fn unit_override_on_the_command_line() {
    let path = asset_path("bvh/02_01.bvh");
    let out = inspect(&[
        path.to_str().unwrap(),
        "--json",
        "--unit",
        "cm",
        "--up",
        "-z",
    ]);
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["unit"]["name"], "cm");
    assert_eq!(v["unit"]["source"], "override");
    assert_eq!(v["up"]["axis"], "-Z");
}

/// `--unit` overrides an FBX's declared unit too, with the declared one as runner-up.
#[test]
fn unit_override_of_an_fbx_keeps_its_declaration_as_runner_up() {
    let path = asset_path("fbx/CesiumMan.fbx");
    let read = |extra: &[&str]| -> Value {
        let mut args = vec![path.to_str().unwrap(), "--json"];
        args.extend_from_slice(extra);
        let out = inspect(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let declared = read(&[]);
    let (name, other) = match declared["unit"]["name"].as_str().unwrap() {
        "m" => ("m", "cm"),
        n => (n, "m"),
    };
    let picked = read(&["--unit", other]);
    assert_eq!(picked["unit"]["name"], other);
    assert_eq!(picked["unit"]["source"], "override");
    assert_eq!(picked["unit"]["runner_up"], name, "{}", picked["unit"]);
}

#[test]
fn text_output_lists_skeleton_clips_and_meshes() {
    let path = asset_path("gltf/CesiumMan.glb");
    let out = inspect(&[path.to_str().unwrap()]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("19 joints"), "{text}");
    assert!(text.contains("48 frames, 24.000 fps"), "{text}");
    assert!(text.contains("3273 vertices"), "{text}");
}

#[test]
fn bad_input_exits_2_with_one_line_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("half.glb");
    let glb = std::fs::read(asset_path("gltf/Fox.glb")).unwrap();
    std::fs::write(&bad, &glb[..glb.len() / 2]).unwrap();
    for path in [bad, dir.path().join("missing.bvh")] {
        let out = inspect(&[path.to_str().unwrap(), "--json"]);
        assert_eq!(out.status.code(), Some(2));
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        assert!(
            err.contains(path.file_name().unwrap().to_str().unwrap()),
            "{err}"
        );
        assert!(out.stdout.is_empty());
    }
}

/// What a retarget will assume of the character: which way it faces and its reference pose,
/// read from the motion when the zero pose is not a standing figure (LAFAN1-style mocap).
#[test]
fn inspect_says_which_way_the_character_faces_and_its_reference_pose() {
    assert_eq!(
        inspect_json("vrm/cryptovoxels.vrm")["stance"]["forward"],
        "-Z"
    );
    assert_eq!(
        inspect_json("gltf/CesiumMan.glb")["stance"]["forward"],
        "+Z"
    );
    // A creature's facing is read from its motion (its travel, else its body line), in any
    // format: the Fox faces +Z as glTF's convention says.
    let fox = inspect_json("gltf/Fox.glb");
    assert_eq!(fox["stance"]["forward_source"], "motion");
    assert_eq!(fox["stance"]["forward"], "+Z");
    let walk = std::fs::read_to_string(asset_path("bvh/02_01.bvh")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let flat = dir.path().join("along_x.bvh");
    std::fs::write(
        &flat,
        crate::common::file_variants::degenerate_zero_pose(&walk, 3),
    )
    .unwrap();
    let out = inspect(&[flat.to_str().unwrap(), "--json"]);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        v["up"]["axis"], "+Y",
        "up read from the motion, not the +X zero pose"
    );
    assert_eq!(v["unit"]["name"], "cmu");
    assert_eq!(v["stance"]["reference"], "frame 0 of clip 'along_x'");
    let notes = v["warnings"].to_string();
    assert!(notes.contains("not a standing figure"), "{notes}");
}
