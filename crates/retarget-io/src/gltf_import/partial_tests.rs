//! Files with a part this reader cannot decode are read for the rest: an extension it
//! does not know in `extensionsRequired`, a texture only that extension describes, a Draco
//! primitive whose data does not decode.

use super::import_gltf_bytes;
use std::path::Path;

/// A GLB of `json` and `bin` with honest lengths.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut bin = bin.to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}

/// Two joints and a skin (identity inverse binds); `extra` adds top-level members.
fn rig(extra: &str) -> String {
    format!(
        r#"{{"asset": {{"version": "2.0"}}, "scene": 0, "scenes": [{{"nodes": [0, 2]}}],
        "nodes": [{{"name": "hips", "children": [1]}},
                  {{"name": "spine", "translation": [0, 1, 0]}},
                  {{"name": "body", "mesh": 0, "skin": 0}}],
        "skins": [{{"joints": [0, 1]}}]{extra}}}"#
    )
}

#[test]
fn an_unknown_required_extension_and_its_texture_are_left_out_with_a_warning() {
    let json = rig(
        r#", "extensionsUsed": ["KHR_texture_basisu", "EXT_made_up"],
        "extensionsRequired": ["KHR_texture_basisu", "EXT_made_up"],
        "images": [{"uri": "missing.ktx2"}],
        "textures": [{"extensions": {"KHR_texture_basisu": {"source": 0}}}],
        "meshes": []"#,
    )
    .replace(
        r#"{"name": "body", "mesh": 0, "skin": 0}"#,
        r#"{"name": "body"}"#,
    );
    let asset = import_gltf_bytes(Path::new("basisu.gltf"), json.as_bytes()).expect("read");
    assert_eq!(asset.skeletons[0].names(), ["hips", "spine"]);
    let said = asset.warnings.join("\n");
    assert!(
        said.contains("KHR_texture_basisu, EXT_made_up") && said.contains("does not decode"),
        "{said}"
    );
}

#[test]
fn a_draco_primitive_that_does_not_decode_is_left_out_and_the_skeleton_read() {
    let json = rig(r#", "extensionsUsed": ["KHR_draco_mesh_compression"],
        "extensionsRequired": ["KHR_draco_mesh_compression"],
        "buffers": [{"byteLength": 16}],
        "bufferViews": [{"buffer": 0, "byteLength": 16}],
        "accessors": [{"componentType": 5126, "count": 3, "type": "VEC3",
                       "min": [0, 0, 0], "max": [1, 1, 0]}],
        "meshes": [{"name": "Body", "primitives": [{"attributes": {"POSITION": 0},
            "extensions": {"KHR_draco_mesh_compression":
                {"bufferView": 0, "attributes": {"POSITION": 0}}}}]}]"#);
    let bytes = glb(&json, b"DRACO, but not really");
    let asset = import_gltf_bytes(Path::new("draco.glb"), &bytes).expect("read");
    assert_eq!(asset.skeletons[0].names(), ["hips", "spine"]);
    assert!(asset.meshes.is_empty());
    let said = asset.warnings.join("\n");
    assert!(
        said.contains("KHR_draco_mesh_compression: 'Body', primitive 0 left out"),
        "{said}"
    );
}
