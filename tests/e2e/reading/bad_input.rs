//! Every kind of bad input gives a typed error that names the file and the problem;
//! none panics.

use crate::common::textured::TexturedTriangle;
use crate::common::{asset_path, load_err_bytes};
use retarget_studio::io::{ImportOptions, Problem};

fn message(e: &retarget_studio::io::ImportError) -> String {
    e.to_string()
}

#[test]
fn truncated_glb_at_many_lengths() {
    let glb = std::fs::read(asset_path("gltf/CesiumMan.glb")).unwrap();
    for cut in [0, 7, 12, 20, 100, 2000, glb.len() / 2, glb.len() - 1] {
        let e = load_err_bytes("cut.glb", &glb[..cut]);
        let m = message(&e);
        assert!(m.contains("cut.glb"), "{m}");
        assert!(
            matches!(
                e.problem,
                Problem::CorruptGlb(_)
                    | Problem::NotGltf(_)
                    | Problem::Buffers(_)
                    | Problem::Gltf(_)
            ),
            "cut at {cut}: {m}"
        );
        // In words, not the `gltf` crate's `Length { length, length_read }`.
        assert!(!m.contains("length_read"), "cut at {cut}: {m}");
        if cut >= 12 {
            assert!(m.contains("the file is truncated"), "cut at {cut}: {m}");
        }
    }
}

#[test]
fn a_file_that_is_not_gltf() {
    let e = load_err_bytes("notes.glb", b"this is a shopping list, not a model\n");
    assert!(matches!(e.problem, Problem::NotGltf(_)), "{e}");
    assert!(message(&e).contains("notes.glb"));
    let e = load_err_bytes("broken.gltf", b"{\"asset\": {\"version\": ");
    assert!(matches!(e.problem, Problem::NotGltf(_)), "{e}");
    // FBX is read: a header alone is a truncated FBX, not an unknown type.
    let e = load_err_bytes("model.fbx", b"Kaydara FBX Binary");
    assert!(matches!(e.problem, Problem::Fbx(_)), "{e}");
    assert!(message(&e).contains("model.fbx"));
    let e = load_err_bytes("model.obj", b"v 0 0 0\n");
    assert!(matches!(e.problem, Problem::UnknownFormat), "{e}");
}

#[test]
fn missing_file() {
    let path = asset_path("gltf/does-not-exist.glb");
    let e = retarget_studio::io::load(&path, &ImportOptions::default()).unwrap_err();
    assert!(matches!(e.problem, Problem::Read(_)));
    assert!(message(&e).contains("does-not-exist.glb"));
    assert!(
        message(&e).ends_with("cannot read the file: no such file"),
        "{e}"
    );
}

fn gltf_json(nodes: &str, extra: &str) -> Vec<u8> {
    format!(r#"{{"asset": {{"version": "2.0"}}, "scenes": [{{"nodes": [0]}}], "nodes": {nodes} {extra}}}"#)
        .into_bytes()
}

#[test]
fn parent_cycle_in_gltf_nodes() {
    let json = gltf_json(
        r#"[{"name": "a", "children": [1]}, {"name": "b", "children": [0]}]"#,
        "",
    );
    let e = load_err_bytes("cycle.gltf", &json);
    assert!(
        matches!(
            e.problem,
            Problem::ParentCycle { .. } | Problem::SharedChild { .. }
        ),
        "{e}"
    );
    let own = gltf_json(r#"[{"name": "a", "children": [0]}]"#, "");
    let e = load_err_bytes("self.gltf", &own);
    assert!(matches!(e.problem, Problem::ParentCycle { .. }), "{e}");
}

#[test]
fn gltf_with_no_joints() {
    let json = gltf_json(r#"[{"name": "lonely"}]"#, "");
    let e = load_err_bytes("empty.gltf", &json);
    assert!(matches!(e.problem, Problem::NoJoints), "{e}");
}

#[test]
fn nan_and_zero_rotation_in_gltf_nodes() {
    // JSON has no NaN; an overflowing number parses to infinity.
    let json = gltf_json(r#"[{"name": "a", "translation": [0, 1e999, 0]}]"#, "");
    let e = load_err_bytes("inf.gltf", &json);
    assert!(message(&e).contains("inf.gltf"), "{e}");
    let json = gltf_json(r#"[{"name": "a", "rotation": [0, 0, 0, 0]}]"#, "");
    let e = load_err_bytes("zero.gltf", &json);
    assert!(matches!(e.problem, Problem::BadData { .. }), "{e}");
}

#[test]
fn accessor_reaching_past_its_buffer() {
    // One 12-byte buffer, but the accessor claims 10 VEC3 floats (120 bytes).
    let extra = r#", "buffers": [{"byteLength": 12, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAA"}],
        "bufferViews": [{"buffer": 0, "byteLength": 12}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 10, "type": "VEC3"}],
        "skins": [{"joints": [0], "inverseBindMatrices": 0}]"#;
    let json = gltf_json(r#"[{"name": "a"}]"#, extra);
    let e = load_err_bytes("liar.gltf", &json);
    assert!(matches!(e.problem, Problem::Gltf(_)), "{e}");
    assert!(message(&e).contains("accessor 0"), "{e}");
}

#[test]
fn accessors_the_gltf_readers_would_panic_on() {
    // A count of 0 (the readers compute `count - 1`), and elements wider than their stride.
    let zero = r#", "buffers": [{"byteLength": 64, "uri": "data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}],
        "bufferViews": [{"buffer": 0, "byteLength": 64}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 0, "type": "MAT4"}],
        "skins": [{"joints": [0], "inverseBindMatrices": 0}]"#;
    let e = load_err_bytes("zero.gltf", &gltf_json(r#"[{"name": "a"}]"#, zero));
    assert!(
        matches!(e.problem, Problem::Gltf(_) | Problem::NotGltf(_)),
        "{e}"
    );
    let strided = zero.replace(r#""count": 0"#, r#""count": 1"#).replace(
        r#""byteLength": 64}]"#,
        r#""byteLength": 64, "byteStride": 4}]"#,
    );
    let e = load_err_bytes("stride.gltf", &gltf_json(r#"[{"name": "a"}]"#, &strided));
    assert!(matches!(e.problem, Problem::Gltf(_)), "{e}");
    assert!(message(&e).contains("stride"), "{e}");
}

#[test]
fn a_skin_with_fewer_inverse_bind_matrices_than_joints() {
    let dir = tempfile::tempdir().unwrap();
    let path = TexturedTriangle::default().write(dir.path(), "short.gltf");
    let mut doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    doc["nodes"][0]["children"] = serde_json::json!([2]);
    let push = |v: &mut serde_json::Value, item| v.as_array_mut().unwrap().push(item);
    push(
        &mut doc["nodes"],
        serde_json::json!({"name": "tip", "translation": [0.0, 1.0, 0.0]}),
    );
    doc["skins"][0] = serde_json::json!({"joints": [0, 2], "inverseBindMatrices": 5});
    let identity = glam::Mat4::IDENTITY.to_cols_array();
    push(
        &mut doc["accessors"],
        serde_json::json!({"bufferView": 6, "componentType": 5126,
        "count": 1, "type": "MAT4"}),
    );
    let mut bin = std::fs::read(dir.path().join("short.gltf.bin")).unwrap();
    push(
        &mut doc["bufferViews"],
        serde_json::json!({"buffer": 0, "byteOffset": bin.len(), "byteLength": 64}),
    );
    for v in identity {
        bin.extend(v.to_le_bytes());
    }
    doc["buffers"][0]["byteLength"] = serde_json::json!(bin.len());
    std::fs::write(dir.path().join("short.gltf.bin"), &bin).unwrap();
    std::fs::write(&path, serde_json::to_vec(&doc).unwrap()).unwrap();
    // Loads (the missing matrix keeps the joint's bind) rather than panicking.
    let asset = retarget_studio::io::load(&path, &ImportOptions::default()).unwrap();
    assert_eq!(asset.skeletons[0].len(), 2);
    assert_eq!(asset.meshes[0].inverse_bind.len(), 2);
}

#[test]
fn buffer_uri_whose_escapes_are_not_utf8() {
    // The `gltf` crate unwraps the percent-decoding of a relative URI.
    let extra = r#", "buffers": [{"byteLength": 12, "uri": "bin%FF.bin"}]"#;
    let e = load_err_bytes("escape.gltf", &gltf_json(r#"[{"name": "a"}]"#, extra));
    assert!(matches!(e.problem, Problem::Buffers(_)), "{e}");
    assert!(message(&e).contains("UTF-8"), "{e}");
}

const GOOD_HEADER: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Spine
  {
    OFFSET 0 1 0
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 1 0
    }
  }
}
";

fn bvh_err(body: &str) -> (Problem, String) {
    let e = load_err_bytes("bad.bvh", body.as_bytes());
    let m = message(&e);
    assert!(m.starts_with(&format!("{}", e.path.display())), "{m}");
    (e.problem, m)
}

#[test]
fn bvh_with_a_wrong_channel_count() {
    let text = GOOD_HEADER.replace("CHANNELS 3 Zrotation", "CHANNELS 4 Zrotation")
        + "MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0\n";
    let (p, m) = bvh_err(&text);
    assert!(matches!(p, Problem::Bvh { line: 9, .. }), "{m}");
    assert!(m.contains("declares 4 channels but names 3"), "{m}");
}

#[test]
fn bvh_with_too_few_frame_values() {
    let text = format!(
        "{GOOD_HEADER}MOTION\nFrames: 2\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0\n0 0 0 0 0 0 0 0\n"
    );
    let (p, m) = bvh_err(&text);
    assert!(matches!(p, Problem::Bvh { line: 20, .. }), "{m}");
    assert!(
        m.contains("has 8 values") && m.contains("9 channels"),
        "{m}"
    );
}

#[test]
fn bvh_with_fewer_frames_than_declared() {
    let text = format!("{GOOD_HEADER}MOTION\nFrames: 3\nFrame Time: 0.1\n0 0 0 0 0 0 0 0 0\n");
    let (_, m) = bvh_err(&text);
    assert!(m.contains("'Frames: 3' but the file holds only 1"), "{m}");
    // A count no memory could hold is an error, not an allocation failure.
    let huge = text.replace("Frames: 3", "Frames: 18446744073709551615");
    let (_, m) = bvh_err(&huge);
    assert!(m.contains("but the file holds only 1"), "{m}");
}

#[test]
fn bvh_with_nan_and_garbage_numbers() {
    let text = format!("{GOOD_HEADER}MOTION\nFrames: 1\nFrame Time: 0.1\n0 0 0 0 NaN 0 0 0 0\n");
    let (_, m) = bvh_err(&text);
    assert!(
        m.contains("line 19") && m.contains("'NaN' is not a finite number"),
        "{m}"
    );
    let text = GOOD_HEADER.replace("OFFSET 0 1 0\n    CHANNELS", "OFFSET 0 one 0\n    CHANNELS");
    let (_, m) = bvh_err(&(text + "MOTION\nFrames: 0\nFrame Time: 0.1\n"));
    assert!(m.contains("'one' is not a number"), "{m}");
    let text = format!("{GOOD_HEADER}MOTION\nFrames: 1\nFrame Time: 0\n0 0 0 0 0 0 0 0 0\n");
    let (_, m) = bvh_err(&text);
    assert!(m.contains("frame time must be above zero"), "{m}");
}

#[test]
fn bvh_with_zero_joints_or_broken_structure() {
    let (p, _) = bvh_err("HIERARCHY\nMOTION\nFrames: 0\nFrame Time: 0.1\n");
    assert!(matches!(p, Problem::NoJoints));
    let (_, m) = bvh_err("HIERARCHY\nROOT Hips\n{\n  OFFSET 0 0 0\n");
    assert!(m.contains("ends before MOTION"), "{m}");
    let (_, m) = bvh_err("HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n}\n}\nMOTION\n");
    assert!(
        m.contains("line 6") && m.contains("without a matching"),
        "{m}"
    );
    let (_, m) = bvh_err("MOTION\nFrames: 0\n");
    assert!(m.contains("starts with HIERARCHY"), "{m}");
    let (_, m) = bvh_err(
        "HIERARCHY\nROOT Hips\n{\n OFFSET 0 0 0\n CHANNELS 3 Zrotation Yrotation Wobble\n}\nMOTION\n",
    );
    assert!(m.contains("unknown channel 'Wobble'"), "{m}");
}

#[test]
fn bvh_that_is_binary_garbage() {
    let (_, m) = bvh_err(std::str::from_utf8(&[b'H'; 3]).unwrap());
    assert!(m.contains("line 1"), "{m}");
    let e = load_err_bytes("bin.bvh", &[0xff, 0xfe, 0x00, 0x80]);
    assert!(message(&e).contains("not UTF-8"), "{e}");
}
