use super::*;

/// A GLB of `json` and `bin` with honest lengths.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let total = 12 + 8 + j.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    if !bin.is_empty() {
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(bin);
    }
    out
}

fn root(json: &str) -> gltf::json::Root {
    gltf::json::deserialize::from_str(json).expect("JSON a glTF root")
}

/// One node, two F32 keys at accessor 0 and `output` as accessor 1, one channel.
fn animated(output: &str, path: &str, node: usize) -> String {
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "nodes": [{{"name": "a"}}],
        "buffers": [{{"byteLength": 64}}],
        "bufferViews": [{{"buffer": 0, "byteLength": 64}}],
        "accessors": [
          {{"bufferView": 0, "componentType": 5126, "count": 2, "type": "SCALAR"}},
          {output}],
        "animations": [{{"samplers": [{{"input": 0, "output": 1}}],
          "channels": [{{"sampler": 0, "target": {{"node": {node}, "path": "{path}"}}}}]}}]}}"#
    )
}

fn semantics(json: &str) -> Result<(), Invalid> {
    let r = root(json);
    check_document(&r)?;
    check_semantics(&gltf::Document::from_json_without_validation(r))
}

const VEC3_2: &str = r#"{"bufferView": 0, "componentType": 5126, "count": 2, "type": "VEC3"}"#;

#[test]
fn a_well_formed_channel_passes() {
    semantics(&animated(VEC3_2, "translation", 0)).unwrap();
}

#[test]
fn a_truncated_glb_says_so_in_words() {
    let whole = glb(r#"{"asset":{"version":"2.0"}}"#, &[0; 16]);
    check_container(&whole).unwrap();
    let e = check_container(&whole[..whole.len() - 5]).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("the file is truncated: the header says"),
        "{text}"
    );
    assert!(!text.contains("Length {"), "{text}");
    let e = check_container(&whole[..7]).unwrap_err();
    assert!(matches!(e, Invalid::Truncated(_)), "{e}");
}

#[test]
fn container_lengths_that_lie_are_refused() {
    let mut bad = glb(r#"{"asset":{"version":"2.0"}}"#, &[0; 16]);
    bad[8..12].copy_from_slice(&3u32.to_le_bytes());
    assert!(matches!(check_container(&bad), Err(Invalid::Container(_))));
    let mut bad = glb(r#"{"asset":{"version":"2.0"}}"#, &[0; 16]);
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(check_container(&bad), Err(Invalid::Truncated(_))));
    let mut bad = glb(r#"{"asset":{"version":"2.0"}}"#, &[]);
    bad[16..20].copy_from_slice(b"BIN\0");
    let e = check_container(&bad).unwrap_err();
    assert!(e.to_string().contains("expected \"JSON\""), "{e}");
}

#[test]
fn a_channel_on_a_missing_node_or_unknown_path_is_refused() {
    let e = semantics(&animated(VEC3_2, "translation", 7)).unwrap_err();
    assert!(
        matches!(
            e,
            Invalid::OutOfRange {
                index: 7,
                len: 1,
                ..
            }
        ),
        "{e}"
    );
    let e = semantics(&animated(VEC3_2, "wobble", 0)).unwrap_err();
    assert!(e.to_string().contains("target path"), "{e}");
}

#[test]
fn an_unknown_interpolation_is_a_schema_error_in_words() {
    let json = animated(VEC3_2, "translation", 0).replace(
        r#""output": 1}"#,
        r#""output": 1, "interpolation": "BOUNCY"}"#,
    );
    let e = semantics(&json).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, Invalid::Schema(_)), "{text}");
    assert!(
        text.contains("interpolation has a value glTF does not allow"),
        "{text}"
    );
}

#[test]
fn output_kinds_must_suit_the_target_path() {
    let u32_vec4 = r#"{"bufferView": 0, "componentType": 5125, "count": 2, "type": "VEC4"}"#;
    let e = semantics(&animated(u32_vec4, "rotation", 0)).unwrap_err();
    assert!(
        matches!(e, Invalid::AccessorType { accessor: 1, .. }),
        "{e}"
    );
    let e = semantics(&animated(VEC3_2, "rotation", 0)).unwrap_err();
    assert!(e.to_string().contains("VEC4"), "{e}");
}

#[test]
fn key_and_value_counts_must_agree() {
    let three = VEC3_2.replace("\"count\": 2", "\"count\": 3");
    let e = semantics(&animated(&three, "translation", 0)).unwrap_err();
    assert!(e.to_string().contains("2 key times need 2 values"), "{e}");
    let cubic = animated(VEC3_2, "translation", 0).replace(
        r#""output": 1}"#,
        r#""output": 1, "interpolation": "CUBICSPLINE"}"#,
    );
    let e = semantics(&cubic).unwrap_err();
    assert!(e.to_string().contains("cubic spline"), "{e}");
}

#[test]
fn weights_on_an_empty_key_accessor_are_refused_not_divided_by() {
    let weights = r#"{"bufferView": 0, "componentType": 5126, "count": 4, "type": "SCALAR"}"#;
    let json = animated(weights, "weights", 0).replacen("\"count\": 2", "\"count\": 0", 1);
    let e = semantics(&json).unwrap_err();
    assert!(e.to_string().contains("has no keys"), "{e}");
    // The same weights over two keys pass: 4 values are 2 per key.
    semantics(&animated(weights, "weights", 0)).unwrap();
}

#[test]
fn a_position_index_past_the_accessors_is_caught_before_the_crate_indexes_it() {
    let json = r#"{"asset": {"version": "2.0"},
        "meshes": [{"primitives": [{"attributes": {"POSITION": 9}}]}]}"#;
    let e = check_document(&root(json)).unwrap_err();
    assert!(
        matches!(
            e,
            Invalid::OutOfRange {
                index: 9,
                len: 0,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn skin_matrices_must_be_mat4_floats() {
    let json = r#"{"asset": {"version": "2.0"}, "nodes": [{}, {}],
        "buffers": [{"byteLength": 64}],
        "bufferViews": [{"buffer": 0, "byteLength": 64}],
        "accessors": [{"bufferView": 0, "componentType": 5126, "count": 1, "type": "VEC4"}],
        "skins": [{"joints": [0, 1], "inverseBindMatrices": 0}]}"#;
    let e = semantics(json).unwrap_err();
    assert!(e.to_string().contains("MAT4 of floats is needed"), "{e}");
}

#[test]
fn byte_ranges_that_overflow_or_overrun_are_refused() {
    let json = r#"{"asset": {"version": "2.0"},
        "buffers": [{"byteLength": 16}],
        "bufferViews": [{"buffer": 0, "byteLength": 16}],
        "accessors": [{"bufferView": 0, "componentType": 5126,
                       "count": 4611686018427387904, "type": "VEC3"}]}"#;
    let doc = gltf::Document::from_json_without_validation(root(json));
    let buffers = [gltf::buffer::Data(vec![0; 16])];
    let e = check_ranges(&doc, &buffers).unwrap_err();
    assert!(e.to_string().contains("do not fit buffer view 0"), "{e}");
    let json = json.replace("\"byteLength\": 16}]", "\"byteLength\": 32}]");
    let doc = gltf::Document::from_json_without_validation(root(&json));
    let e = check_ranges(&doc, &buffers).unwrap_err();
    assert!(
        e.to_string()
            .contains("reaches byte 32 of a 16-byte buffer"),
        "{e}"
    );
}

#[test]
fn numbers_past_the_f32_range_are_named_with_their_place() {
    let json =
        br#"{"materials": [{"pbrMetallicRoughness": {"baseColorFactor": [1, 1, 1, -1e39]}}]}"#;
    let e = check_numbers(json).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("materials/0/pbrMetallicRoughness/baseColorFactor/3"),
        "{text}"
    );
    check_numbers(br#"{"a": [3.4e38, -1, 0.5]}"#).unwrap();
    // f32::MAX as serde_json writes it rounds up in f64, but still reads as f32::MAX.
    check_numbers(br#"{"max": [340282346638528900000000000000000000000]}"#).unwrap();
    let whole = glb(r#"{"asset":{"version":"2.0"}}"#, &[0; 4]);
    assert_eq!(
        json_text(&whole).trim_ascii_end(),
        br#"{"asset":{"version":"2.0"}}"#
    );
}

#[test]
fn images_the_crate_would_unwrap_are_refused() {
    let e = check_document(&root(
        r#"{"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}],
        "bufferViews": [{"buffer": 0, "byteLength": 4}], "images": [{"bufferView": 0}]}"#,
    ))
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("image 0: it is stored in a buffer view but has no mimeType"),
        "{e}"
    );
    let e = check_document(&root(r#"{"asset": {"version": "2.0"}, "images": [{}]}"#)).unwrap_err();
    assert!(
        e.to_string().contains("neither a uri nor a bufferView"),
        "{e}"
    );
}

/// Two joints under a skin without inverse bind matrices (identity), in scene 1 of two:
/// scene 0 leaves out its `nodes`, as glTF allows for an empty scene.
const EMPTY_FIRST_SCENE: &str = r#"{"asset": {"version": "2.0"}, "scene": 1,
    "scenes": [{"name": "Face"}, {"name": "Scene", "nodes": [0]}],
    "nodes": [{"name": "hips", "children": [1]}, {"name": "spine", "translation": [0, 1, 0]}],
    "skins": [{"joints": [0, 1]}]}"#;

#[test]
fn a_scene_without_nodes_is_an_empty_scene_and_the_rest_is_read() {
    let path = std::path::Path::new("empty_first_scene.glb");
    for bytes in [
        EMPTY_FIRST_SCENE.as_bytes().to_vec(),
        glb(EMPTY_FIRST_SCENE, &[]),
    ] {
        let asset = crate::gltf_import::import_gltf_bytes(path, &bytes).expect("read");
        assert_eq!(asset.skeletons[0].names(), ["hips", "spine"]);
    }
    // An empty list (the schema wants one node at least) is an empty scene too.
    let listed = EMPTY_FIRST_SCENE.replace(r#"{"name": "Face"}"#, r#"{"nodes": []}"#);
    let asset = crate::gltf_import::import_gltf_bytes(path, listed.as_bytes()).expect("read");
    assert_eq!(asset.skeletons[0].len(), 2);
}
