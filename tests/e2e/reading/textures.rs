//! Base colour textures and texture coordinates through import: the real rigs in assets/ and
//! small made-up files that store their image every way glTF allows, or lie about it.

use crate::common::textured::{ImageAt, TexturedTriangle, UV0, UV1, encoded_image};
use crate::common::{GLTF_ASSETS, load};
use retarget_studio::app::viewport::texture::{TextureCache, decode};
use retarget_studio::io::{
    AlphaMode, Asset, ImageMime, ImportOptions, MeshPrimitive, Problem, TextureWrap,
};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

fn primitives(asset: &Asset) -> impl Iterator<Item = &MeshPrimitive> {
    asset.meshes.iter().flat_map(|m| &m.primitives)
}

fn import(path: &Path) -> Result<Asset, retarget_studio::io::ImportError> {
    retarget_studio::io::load(path, &ImportOptions::default())
}

#[test]
fn cesium_man_has_a_png_base_colour_texture_with_uvs_per_vertex() {
    let asset = load("gltf/CesiumMan.glb");
    let prims: Vec<_> = primitives(&asset).collect();
    assert_eq!(prims.len(), 1);
    let prim = prims[0];
    assert_eq!(prim.uvs.len(), prim.positions.len());
    assert!(prim.uvs.iter().flatten().all(|c| (0.0..=1.0).contains(c)));
    let texture = prim.base_color_texture.as_ref().expect("a texture");
    // The bundled GLB embeds a PNG (the Khronos .gltf version ships a JPEG).
    assert_eq!(texture.image.mime, ImageMime::Png);
    assert!(texture.image.bytes.starts_with(b"\x89PNG"));
    assert_eq!(
        (texture.wrap_s, texture.wrap_t),
        (TextureWrap::Repeat, TextureWrap::Repeat)
    );
    assert_eq!(prim.base_color, [1.0; 4]);
    assert_eq!(prim.alpha_mode, AlphaMode::Opaque);
    let rgba = decode(&texture.image).unwrap();
    assert_eq!((rgba.width, rgba.height), (1024, 1024));
    assert!(asset.warnings.iter().all(|w| !w.contains("image")));
}

#[test]
fn fox_has_a_png_texture_and_the_vrm_and_robot_have_none() {
    let fox = load("gltf/Fox.glb");
    let prim = primitives(&fox).next().unwrap();
    assert_eq!(prim.uvs.len(), prim.positions.len());
    let image = &prim.base_color_texture.as_ref().unwrap().image;
    assert_eq!(image.mime, ImageMime::Png);

    // cryptovoxels.vrm has TEXCOORD_0 but no images at all: its one material is plain white.
    let vrm = load("vrm/cryptovoxels.vrm");
    assert!(primitives(&vrm).count() > 0);
    for prim in primitives(&vrm) {
        assert_eq!(prim.uvs.len(), prim.positions.len());
        assert!(prim.base_color_texture.is_none());
        assert_eq!(prim.base_color, [1.0; 4]);
    }

    let robot = load("gltf/RobotExpressive.glb");
    for prim in primitives(&robot) {
        assert!(prim.uvs.is_empty() && prim.base_color_texture.is_none());
    }
}

#[test]
fn every_bundled_texture_decodes_once_per_image() {
    for rel in GLTF_ASSETS {
        let asset = load(rel);
        let mut cache = TextureCache::default();
        cache.prepare(&asset.meshes);
        assert!(cache.warnings.is_empty(), "{rel}: {:?}", cache.warnings);
        for prim in primitives(&asset) {
            assert_eq!(
                prim.base_color_texture.is_some(),
                cache.texture_for(prim).is_some(),
                "{rel}"
            );
        }
    }
}

#[test]
fn a_jpeg_in_a_data_uri_shared_by_two_primitives() {
    let dir = tempfile::tempdir().unwrap();
    let jpeg = encoded_image(8, 4, image::ImageFormat::Jpeg);
    let path = TexturedTriangle {
        image: ImageAt::DataUri(jpeg.clone()),
        two_primitives: true,
        ..Default::default()
    }
    .write(dir.path(), "jpeg.gltf");
    let asset = import(&path).unwrap();
    let prims: Vec<_> = primitives(&asset).collect();
    assert_eq!(prims.len(), 2);
    let (a, b) = (
        prims[0].base_color_texture.as_ref().unwrap(),
        prims[1].base_color_texture.as_ref().unwrap(),
    );
    assert!(Arc::ptr_eq(&a.image, &b.image), "one Arc per glTF image");
    assert_eq!(a.image.mime, ImageMime::Jpeg);
    assert_eq!(a.image.bytes, jpeg, "the data URI's bytes, without padding");
    assert_eq!(
        (a.wrap_s, a.wrap_t),
        (TextureWrap::ClampToEdge, TextureWrap::MirroredRepeat)
    );
    assert_eq!(prims[0].uvs, UV0);
    assert_eq!(prims[0].base_color, [1.0, 0.5, 0.25, 1.0]);
    let rgba = decode(&a.image).unwrap();
    assert_eq!((rgba.width, rgba.height), (8, 4));
}

#[test]
fn a_png_in_a_buffer_view_and_one_in_a_file_next_to_the_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let png = encoded_image(2, 2, image::ImageFormat::Png);
    for (name, image) in [
        ("view.gltf", ImageAt::View(png.clone())),
        (
            "file.gltf",
            ImageAt::File("skin%20tone.png".into(), Some(png.clone())),
        ),
    ] {
        if let ImageAt::File(..) = image {
            // The URI is percent-encoded; the file's name is not.
            std::fs::write(dir.path().join("skin tone.png"), &png).unwrap();
        }
        let path = TexturedTriangle {
            image,
            ..Default::default()
        }
        .write(dir.path(), name);
        let asset = import(&path).unwrap();
        let prim = primitives(&asset).next().unwrap();
        let texture = prim.base_color_texture.as_ref().expect(name);
        assert_eq!(texture.image.bytes, png, "{name}");
        let rgba = decode(&texture.image).unwrap();
        assert_eq!(&rgba.pixels[..4], &[255, 0, 0, 255], "{name}: top-left red");
    }
}

#[test]
fn the_texture_reads_the_uv_set_it_names_with_its_transform() {
    let dir = tempfile::tempdir().unwrap();
    let png = encoded_image(2, 2, image::ImageFormat::Png);
    let path = TexturedTriangle {
        image: ImageAt::View(png.clone()),
        tex_coord: 1,
        ..Default::default()
    }
    .write(dir.path(), "set1.gltf");
    let asset = import(&path).unwrap();
    assert_eq!(primitives(&asset).next().unwrap().uvs, UV1);

    // KHR_texture_transform: offset and scale (its own texCoord overrides the textureInfo's).
    let path = TexturedTriangle {
        image: ImageAt::View(png),
        texture_info_extra: json!({"extensions": {"KHR_texture_transform":
            {"offset": [0.5, 0.25], "scale": [0.5, 2.0], "texCoord": 0}}}),
        tex_coord: 1,
        material_extra: json!({"alphaMode": "MASK", "alphaCutoff": 0.3}),
        ..Default::default()
    }
    .write(dir.path(), "transform.gltf");
    let asset = import(&path).unwrap();
    let prim = primitives(&asset).next().unwrap();
    assert_eq!(prim.uvs, [[0.5, 0.25], [1.0, 0.25], [0.5, 2.25]]);
    assert_eq!(prim.alpha_mode, AlphaMode::Mask { cutoff: 0.3 });
}

#[test]
fn a_missing_or_unknown_image_is_a_warning_and_no_texture() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "missing.gltf",
            ImageAt::File("nowhere.png".into(), None),
            "nowhere.png",
        ),
        (
            "gif.gltf",
            ImageAt::File("anim.gif".into(), Some(b"GIF89a....".to_vec())),
            "neither PNG nor JPEG",
        ),
        (
            "escape.gltf",
            ImageAt::File("bad%FF.png".into(), None),
            "percent-escapes",
        ),
    ];
    for (name, image, says) in cases {
        let path = TexturedTriangle {
            image,
            ..Default::default()
        }
        .write(dir.path(), name);
        let asset = import(&path).unwrap_or_else(|e| panic!("{name} still loads: {e}"));
        let prim = primitives(&asset).next().unwrap();
        assert!(prim.base_color_texture.is_none(), "{name}");
        assert_eq!(prim.uvs, UV0, "{name}: the UVs stay");
        assert!(
            asset
                .warnings
                .iter()
                .any(|w| w.contains("image 0") && w.contains(says)),
            "{name}: {:?}",
            asset.warnings
        );
    }
}

#[test]
fn an_image_view_past_its_buffer_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = TexturedTriangle {
        image: ImageAt::ViewPastTheEnd,
        ..Default::default()
    }
    .write(dir.path(), "liar.gltf");
    let e = import(&path).unwrap_err();
    assert!(matches!(e.problem, Problem::BadData { .. }), "{e}");
    let m = e.to_string();
    assert!(
        m.contains("liar.gltf") && m.contains("image 0") && m.contains("buffer view 5"),
        "{m}"
    );
}

#[test]
fn uvs_of_a_type_the_gltf_readers_cannot_read_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    // SCALAR floats, and VEC2 of signed bytes (the `gltf` crate's reader would hit
    // `unreachable!` on the latter).
    for (k, uv_type) in [("SCALAR", 5126), ("VEC2", 5120), ("VEC2", 5125)]
        .into_iter()
        .enumerate()
    {
        let path = TexturedTriangle {
            uv_type,
            ..Default::default()
        }
        .write(dir.path(), &format!("uv{k}.gltf"));
        let e = import(&path).unwrap_err();
        assert!(matches!(e.problem, Problem::BadData { .. }), "{e}");
        let m = e.to_string();
        assert!(m.contains("TEXCOORD_0") && m.contains("accessor 3"), "{m}");
    }
}
