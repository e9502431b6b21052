//! What a primitive looks like: base colour factor and texture, alpha mode, and the texture
//! coordinates the texture is read with. Images stay encoded (PNG/JPEG bytes from a buffer
//! view, a data URI or a file next to a .gltf): decoding is the viewer's business.

use crate::asset::{AlphaMode, BaseColorTexture, EncodedImage, ImageMime, TextureWrap};
use crate::error::Problem;
use gltf::texture::WrappingMode;
use std::path::Path;
use std::sync::Arc;

/// The material side of a primitive, as [`crate::MeshPrimitive`] holds it.
pub(super) struct Look {
    pub base_color: [f32; 4],
    pub uvs: Vec<[f32; 2]>,
    pub texture: Option<BaseColorTexture>,
    pub alpha_mode: AlphaMode,
}

/// The file's images, each read on first use and then shared.
pub(super) struct Images<'a> {
    buffers: &'a [gltf::buffer::Data],
    /// Where external images are looked up: the directory of the .gltf.
    base: Option<&'a Path>,
    /// Per glTF image: not tried yet (`None`), unusable (`Some(None)`) or read.
    loaded: Vec<Option<Option<Arc<EncodedImage>>>>,
}

impl<'a> Images<'a> {
    pub fn new(
        doc: &gltf::Document,
        buffers: &'a [gltf::buffer::Data],
        base: Option<&'a Path>,
    ) -> Self {
        Self {
            buffers,
            base,
            loaded: vec![None; doc.images().len()],
        }
    }

    /// The image's bytes, read once; `Ok(None)` with a warning when it cannot be used (a
    /// missing file, an unknown format), an error when the file lies about its own bytes.
    fn get(
        &mut self,
        image: &gltf::Image,
        warnings: &mut Vec<String>,
    ) -> Result<Option<Arc<EncodedImage>>, Problem> {
        let index = image.index();
        if let Some(Some(done)) = self.loaded.get(index) {
            return Ok(done.clone());
        }
        let read = read_image(image, self.buffers, self.base, warnings)?.map(Arc::new);
        if let Some(slot) = self.loaded.get_mut(index) {
            *slot = Some(read.clone());
        }
        Ok(read)
    }
}

/// Base colour, alpha mode, UVs and texture of `prim`, whose mesh is called `name` and has
/// `n` vertices. Attribute types were checked before (`check_attribute_types`).
pub(super) fn read_look(
    prim: &gltf::Primitive,
    buffers: &[gltf::buffer::Data],
    n: usize,
    name: &str,
    images: &mut Images,
    warnings: &mut Vec<String>,
) -> Result<Look, Problem> {
    let material = prim.material();
    let pbr = material.pbr_metallic_roughness();
    let alpha_mode = match material.alpha_mode() {
        gltf::material::AlphaMode::Opaque => AlphaMode::Opaque,
        gltf::material::AlphaMode::Mask => AlphaMode::Mask {
            cutoff: crate::asset::alpha_cutoff(material.alpha_cutoff().unwrap_or(0.5)),
        },
        gltf::material::AlphaMode::Blend => AlphaMode::Blend,
    };
    let info = pbr.base_color_texture();
    let transform = info.as_ref().and_then(|i| i.texture_transform());
    let set = transform
        .as_ref()
        .and_then(|t| t.tex_coord())
        .or(info.as_ref().map(|i| i.tex_coord()))
        .unwrap_or(0);
    let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let mut uvs: Vec<[f32; 2]> = reader
        .read_tex_coords(set)
        .map(|t| t.into_f32().collect())
        .unwrap_or_default();
    if !uvs.is_empty() && uvs.len() != n {
        return Err(Problem::BadData {
            what: format!("mesh '{name}'"),
            reason: format!("TEXCOORD_{set} has {} values for {n} vertices", uvs.len()),
        });
    }
    let texture = match &info {
        None => None,
        Some(_) if uvs.is_empty() => {
            warnings.push(format!(
                "mesh '{name}': its base colour texture reads TEXCOORD_{set}, which the \
                 primitive lacks; drawn without the texture"
            ));
            None
        }
        Some(info) => {
            let texture = info.texture();
            images
                .get(&texture.source(), warnings)?
                .map(|image| BaseColorTexture {
                    image,
                    wrap_s: wrap(texture.sampler().wrap_s()),
                    wrap_t: wrap(texture.sampler().wrap_t()),
                })
        }
    };
    if let Some(t) = &transform {
        apply_texture_transform(&mut uvs, t.offset(), t.rotation(), t.scale());
    }
    Ok(Look {
        base_color: crate::asset::color_factor(pbr.base_color_factor()),
        uvs,
        texture,
        alpha_mode,
    })
}

fn wrap(mode: WrappingMode) -> TextureWrap {
    match mode {
        WrappingMode::ClampToEdge => TextureWrap::ClampToEdge,
        WrappingMode::MirroredRepeat => TextureWrap::MirroredRepeat,
        WrappingMode::Repeat => TextureWrap::Repeat,
    }
}

/// `KHR_texture_transform`: `uv' = offset + R(rotation) * (scale * uv)`, with the rotation
/// turning the UVs counter-clockwise in glTF's v-down texture space (the extension's
/// example: offset (0, 1), rotation 90°, scale 0.5 reads the lower-left quadrant).
fn apply_texture_transform(uvs: &mut [[f32; 2]], offset: [f32; 2], rotation: f32, scale: [f32; 2]) {
    let (s, c) = rotation.sin_cos();
    for uv in uvs {
        let (x, y) = (uv[0] * scale[0], uv[1] * scale[1]);
        *uv = [c * x + s * y + offset[0], -s * x + c * y + offset[1]];
    }
}

/// Reads one glTF image. A buffer view past its buffer is an error (the file is corrupt); an
/// unreadable URI or a format other than PNG/JPEG is a warning and no image.
fn read_image(
    image: &gltf::Image,
    buffers: &[gltf::buffer::Data],
    base: Option<&Path>,
    warnings: &mut Vec<String>,
) -> Result<Option<EncodedImage>, Problem> {
    let label = match image.name() {
        Some(n) => format!("image {} ('{n}')", image.index()),
        None => format!("image {}", image.index()),
    };
    let (bytes, declared) = match image.source() {
        gltf::image::Source::View { view, mime_type } => {
            let buffer = buffers.get(view.buffer().index()).map_or(&[][..], |b| &b.0);
            let end = view.offset().checked_add(view.length());
            let Some(bytes) = end.and_then(|end| buffer.get(view.offset()..end)) else {
                return Err(Problem::BadData {
                    what: label,
                    reason: format!(
                        "buffer view {} reaches byte {} of a {}-byte buffer",
                        view.index(),
                        end.map_or_else(|| "past 2^64".to_owned(), |e| e.to_string()),
                        buffer.len()
                    ),
                });
            };
            (bytes.to_vec(), Some(mime_type))
        }
        gltf::image::Source::Uri { uri, mime_type } => match read_uri(uri, base) {
            Ok(bytes) => (bytes, mime_type),
            Err(reason) => {
                warnings.push(format!(
                    "{label}: cannot read '{}': {reason}; drawn without it",
                    short(uri)
                ));
                return Ok(None);
            }
        },
    };
    let Some(mime) = ImageMime::sniff(&bytes) else {
        if declared == Some("image/webp")
            || (bytes.starts_with(b"RIFF") && bytes.get(8..12) == Some(b"WEBP"))
        {
            warnings.push(format!(
                "{label} is WebP (EXT_texture_webp), which this reader does not decode; drawn \
                 without it"
            ));
            return Ok(None);
        }
        warnings.push(format!(
            "{label} ({}) is neither PNG nor JPEG; drawn without it",
            declared.unwrap_or("no declared type")
        ));
        return Ok(None);
    };
    Ok(Some(EncodedImage { label, mime, bytes }))
}

/// The bytes a URI names: a base64 `data:` URI, a `file:` URI, or a path relative to `base`.
fn read_uri(uri: &str, base: Option<&Path>) -> Result<Vec<u8>, String> {
    if !percent_decodes_to_utf8(uri) {
        return Err("its percent-escapes do not decode to UTF-8".into());
    }
    let data = gltf::buffer::Data::from_source(gltf::buffer::Source::Uri(uri), base)
        .map_err(|e| e.to_string())?;
    let mut bytes = data.0;
    // The `gltf` crate pads to 4 bytes with zeros; PNG and JPEG both end in non-zero bytes.
    while bytes.last() == Some(&0) {
        bytes.pop();
    }
    Ok(bytes)
}

/// Whether a relative URI's `%XX` escapes decode to UTF-8: the `gltf` crate unwraps that
/// decoding and would panic on, say, `%FF`. Other URIs are not percent-decoded.
pub(super) fn percent_decodes_to_utf8(uri: &str) -> bool {
    if uri.contains(':') {
        return true;
    }
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).is_ok()
}

/// A URI short enough for a message (data URIs run to megabytes).
fn short(uri: &str) -> String {
    match uri.char_indices().nth(48) {
        Some((at, _)) => format!("{}...", &uri[..at]),
        None => uri.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texture_transform_follows_the_extensions_example() {
        // Offset (0, 1), rotation 90 degrees, scale 0.5: the lower-left quadrant of the image.
        let mut uvs = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        apply_texture_transform(
            &mut uvs,
            [0.0, 1.0],
            std::f32::consts::FRAC_PI_2,
            [0.5, 0.5],
        );
        for [u, v] in uvs {
            assert!((-1e-6..=0.5 + 1e-6).contains(&u), "u {u}");
            assert!((0.5 - 1e-6..=1.0 + 1e-6).contains(&v), "v {v}");
        }
        // Flipping v (offset (0, 1), scale (1, -1)) gives a bottom-left origin.
        let mut uvs = [[0.25, 0.0], [0.25, 1.0]];
        apply_texture_transform(&mut uvs, [0.0, 1.0], 0.0, [1.0, -1.0]);
        assert_eq!(uvs, [[0.25, 1.0], [0.25, 0.0]]);
    }

    #[test]
    fn images_are_known_by_their_magic_bytes() {
        assert_eq!(
            ImageMime::sniff(b"\x89PNG\r\n\x1a\nrest"),
            Some(ImageMime::Png)
        );
        assert_eq!(
            ImageMime::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some(ImageMime::Jpeg)
        );
        assert_eq!(ImageMime::sniff(b"RIFF....WEBP"), None);
        assert_eq!(ImageMime::sniff(b""), None);
    }

    #[test]
    fn uris_that_would_panic_the_gltf_crate_are_caught() {
        assert!(percent_decodes_to_utf8("textures/skin%20tone.png"));
        assert!(percent_decodes_to_utf8("100%.png"));
        assert!(percent_decodes_to_utf8("data:image/png;base64,%FF"));
        assert!(!percent_decodes_to_utf8("skin%FF.png"));
        assert!(!percent_decodes_to_utf8("%C3%28.png"));
    }

    #[test]
    fn data_uris_and_missing_files() {
        // "\x89PNG\r\n\x1a\n" in base64, padded by the gltf crate and unpadded here.
        let bytes = read_uri("data:image/png;base64,iVBORw0KGgo=", None).unwrap();
        assert_eq!(bytes, b"\x89PNG\r\n\x1a\n");
        let dir = tempfile::tempdir().unwrap();
        let e = read_uri("missing.png", Some(dir.path())).unwrap_err();
        assert!(!e.is_empty());
        let long = format!("data:image/png;base64,{}", "A".repeat(1000));
        assert!(short(&long).len() < 60);
    }
}
