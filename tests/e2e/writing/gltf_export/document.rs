//! What our GLB's document holds, read as JSON: one file from a .gltf of external and
//! data URIs, unknown extensions' accessors kept where they were, no `null` member.

use super::*;
use crate::common::{asset_path, load};

fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().fold(0u32, |a, b| (a << 8) | u32::from(*b)) << (8 * (3 - chunk.len()));
        for i in 0..4 {
            out.push(if i <= chunk.len() {
                ABC[(n >> (18 - 6 * i) & 63) as usize] as char
            } else {
                '='
            });
        }
    }
    out
}

/// Fox as a .gltf whose buffer is a file with a space in its name and whose texture is a
/// data: URI, declaring `extension` if given.
fn fox_as_gltf(dir: &Path, extension: Option<&str>) -> PathBuf {
    let glb = gltf::Gltf::open(asset_path("gltf/Fox.glb")).unwrap();
    let blob = glb.blob.clone().unwrap();
    let mut root = glb.document.into_json();
    std::fs::write(dir.join("Fox data.bin"), &blob).unwrap();
    root.buffers[0].uri = Some("Fox%20data.bin".into());
    let image = &mut root.images[0];
    let view = &root.buffer_views[image.buffer_view.take().unwrap().value()];
    let start = view.byte_offset.map_or(0, |o| o.0 as usize);
    let png = &blob[start..start + view.byte_length.0 as usize];
    image.uri = Some(format!("data:image/png;base64,{}", base64(png)));
    image.mime_type = None;
    root.extensions_used.extend(extension.map(str::to_owned));
    let path = dir.join("Fox.gltf");
    std::fs::write(&path, root.to_string_pretty().unwrap()).unwrap();
    path
}

#[test]
fn a_gltf_with_external_and_data_uris_becomes_one_glb() {
    let tmp = tempfile::tempdir().unwrap();
    let source = fox_as_gltf(tmp.path(), None);
    let asset = reload(&source);
    let clips: Vec<Clip> = asset.clips_of(0).cloned().collect();
    let dir = out_dir();
    let out = dir.path.join("Fox.from_gltf.glb");
    let opts = options(GlbContent::WithCharacter);
    let report = export_glb(&source, &asset, 0, &clips, &opts, &out).unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("1 image")),
        "{report:?}"
    );

    let glb = gltf::Gltf::open(&out).unwrap();
    let buffers: Vec<_> = glb.document.buffers().collect();
    assert_eq!(buffers.len(), 1);
    assert!(matches!(buffers[0].source(), gltf::buffer::Source::Bin));
    let image = glb.document.images().next().unwrap();
    let gltf::image::Source::View { view, mime_type } = image.source() else {
        panic!("the image should be embedded");
    };
    assert_eq!(mime_type, "image/png");
    let bin = glb.blob.as_ref().unwrap();
    assert!(bin[view.offset()..].starts_with(b"\x89PNG"));
    // The textured fox is whole: same contents as the original GLB, same motion.
    assert_eq!(contents(&asset_path("gltf/Fox.glb")), contents(&out));
    assert_written_clips_match("Fox.gltf", &asset, &clips, &out);
}

#[test]
fn unknown_extensions_keep_every_accessor_where_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    // An extension could point at accessors by index, so none may move.
    let source = fox_as_gltf(tmp.path(), Some("EXT_made_up"));
    let root = gltf::Gltf::open(&source).unwrap().document.into_json();
    let asset = reload(&source);
    let run = asset.find_clip("Run").unwrap().clip.clone();
    let dir = out_dir();
    let out = dir.path.join("Fox.unknown_extension.glb");
    let opts = options(GlbContent::WithCharacter);
    let report = export_glb(&source, &asset, 0, std::slice::from_ref(&run), &opts, &out).unwrap();
    let notes = report.notes.join("\n");
    assert!(notes.contains("extensions"), "{notes}");
    let written = gltf::Gltf::open(&out).unwrap().document.into_json();
    assert!(written.accessors.len() > root.accessors.len());
    for (a, b) in root.accessors.iter().zip(&written.accessors) {
        let view = |x: &gltf::json::Accessor| x.buffer_view.map(|v| v.value());
        assert_eq!((a.count, view(a)), (b.count, view(b)));
    }
    assert_written_clips_match("Fox unknown extension", &asset, &[run], &out);
}

/// glTF's schema allows no `null`, and gltf-json writes one for an absent option
/// (`KHR_texture_transform`'s `texCoord`): Blender's importer then refuses the whole file.
/// The skinless VRM 1.0 binds its expressions with texture transforms.
#[test]
fn no_member_is_null_in_what_we_write() {
    let dir = out_dir();
    let rel = "vrm/vrm1_expressions_isBinary_no_skin.vrm";
    let asset = load(rel);
    let s = &asset.skeletons[0];
    let mut tracks = vec![JointTracks::default(); s.len()];
    let head = s.find("Head").unwrap();
    let turn = vec![Quat::IDENTITY, Quat::from_rotation_y(0.4)];
    tracks[head].rotation = Some(Track::new(vec![0.0, 1.0], turn, Interpolation::Linear).unwrap());
    let clip = Clip::new("Turn", tracks, None);
    let out = dir.path.join("expressions_no_skin.with_character.glb");
    export(
        rel,
        &asset,
        &[clip],
        options(GlbContent::WithCharacter),
        &out,
    );
    fn nulls(v: &serde_json::Value, at: &str, found: &mut Vec<String>) {
        match v {
            serde_json::Value::Null => found.push(at.to_owned()),
            serde_json::Value::Object(m) => m
                .iter()
                .for_each(|(k, v)| nulls(v, &format!("{at}/{k}"), found)),
            serde_json::Value::Array(a) => a
                .iter()
                .enumerate()
                .for_each(|(i, v)| nulls(v, &format!("{at}/{i}"), found)),
            _ => {}
        }
    }
    let glb = crate::common::file_variants::glb::Glb::parse(&std::fs::read(&out).unwrap());
    let mut found = Vec::new();
    nulls(&glb.json, "", &mut found);
    assert!(found.is_empty(), "null members: {found:?}");
    assert!(glb.json.to_string().contains("KHR_texture_transform"));
    assert_eq!(reload(&out).clips.len(), 1);
}
