//! Base colour textures for the viewports. `io` hands over the encoded PNG/JPEG bytes of each
//! glTF image; here each is decoded once (the `image` crate) into 8-bit sRGB RGBA when a
//! character is first posed, kept per character, and passed to the renderer by `Arc`, so the
//! renderer uploads each image once and the per-frame path only clones pointers.

use crate::io::{EncodedImage, ImageMime, MeshPrimitive, SkinnedMesh, TextureWrap};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Larger images are scaled down to this many texels on their longer side: enough for a
/// viewport, and within every GL's texture size limit.
pub const MAX_TEXTURE_SIDE: u32 = 4096;

/// A decoded image: 8-bit sRGB RGBA, rows from the top of the image down.
#[derive(Clone, Debug, PartialEq)]
pub struct RgbaImage {
    pub width: u32,
    pub height: u32,
    /// `width * height * 4` bytes.
    pub pixels: Vec<u8>,
}

impl RgbaImage {
    /// Bytes on the GPU with a full mip chain (a third more than the base level).
    pub fn gpu_bytes(&self) -> usize {
        self.pixels.len() * 4 / 3
    }
}

/// What a mesh draw needs of its texture: the decoded image (shared; its pointer identifies
/// it to the renderer) and how it wraps.
#[derive(Clone, Debug, PartialEq)]
pub struct DrawTexture {
    pub image: Arc<RgbaImage>,
    pub wrap_s: TextureWrap,
    pub wrap_t: TextureWrap,
}

impl DrawTexture {
    /// Same image (by pointer, not by comparing texels) and same wrap modes.
    pub fn same_as(&self, other: &DrawTexture) -> bool {
        Arc::ptr_eq(&self.image, &other.image)
            && self.wrap_s == other.wrap_s
            && self.wrap_t == other.wrap_t
    }
}

/// The decoded images of one character, keyed by the identity of `io`'s shared images.
#[derive(Debug, Default)]
pub struct TextureCache {
    /// Each encoded image with its decoding (`None`: it could not be decoded). Few per
    /// character, so a linear search by pointer is cheaper than hashing.
    entries: Vec<(Arc<EncodedImage>, Option<Arc<RgbaImage>>)>,
    /// Time spent decoding, all images together.
    pub decode_time: Duration,
    /// One line per image that could not be decoded.
    pub warnings: Vec<String>,
}

impl TextureCache {
    /// Decodes the base colour images of `meshes` that are not decoded yet. Once every image
    /// is known this only compares pointers and allocates nothing.
    pub fn prepare(&mut self, meshes: &[SkinnedMesh]) {
        let images = meshes
            .iter()
            .flat_map(|m| &m.primitives)
            .filter_map(|p| p.base_color_texture.as_ref())
            .map(|t| &t.image);
        for image in images {
            if self.entries.iter().any(|(e, _)| Arc::ptr_eq(e, image)) {
                continue;
            }
            let started = Instant::now();
            let decoded = match decode(image) {
                Ok(rgba) => Some(Arc::new(rgba)),
                Err(e) => {
                    let message = format!(
                        "{}: cannot decode the {} base colour texture ({e}); drawn without it",
                        image.label,
                        image.mime.as_str()
                    );
                    eprintln!("{message}");
                    self.warnings.push(message);
                    None
                }
            };
            self.decode_time += started.elapsed();
            self.entries.push((image.clone(), decoded));
        }
    }

    /// The decoded texture of `prim`, if it has one and [`Self::prepare`] could decode it.
    pub fn texture_for(&self, prim: &MeshPrimitive) -> Option<DrawTexture> {
        let texture = prim.base_color_texture.as_ref()?;
        let (_, decoded) = self
            .entries
            .iter()
            .find(|(e, _)| Arc::ptr_eq(e, &texture.image))?;
        Some(DrawTexture {
            image: decoded.clone()?,
            wrap_s: texture.wrap_s,
            wrap_t: texture.wrap_t,
        })
    }

    /// Decoded images (failed ones not counted).
    pub fn decoded(&self) -> impl Iterator<Item = &Arc<RgbaImage>> {
        self.entries.iter().filter_map(|(_, d)| d.as_ref())
    }

    pub fn clear(&mut self) {
        *self = Self::default();
    }
}

/// Decodes a PNG or JPEG into sRGB RGBA8, scaled down to [`MAX_TEXTURE_SIDE`] if larger. The
/// `image` crate's default limits refuse images that would need more than 512 MiB.
pub fn decode(image: &EncodedImage) -> Result<RgbaImage, String> {
    let format = match image.mime {
        ImageMime::Png => image::ImageFormat::Png,
        ImageMime::Jpeg => image::ImageFormat::Jpeg,
    };
    let mut reader =
        image::ImageReader::with_format(std::io::Cursor::new(&image.bytes[..]), format);
    reader.limits(image::Limits::default());
    let mut decoded = reader.decode().map_err(|e| e.to_string())?;
    if decoded.width().max(decoded.height()) > MAX_TEXTURE_SIDE {
        decoded = decoded.resize(
            MAX_TEXTURE_SIDE,
            MAX_TEXTURE_SIDE,
            image::imageops::FilterType::Triangle,
        );
    }
    let rgba = decoded.into_rgba8();
    let (width, height) = rgba.dimensions();
    if width == 0 || height == 0 {
        return Err("the image is empty".into());
    }
    Ok(RgbaImage {
        width,
        height,
        pixels: rgba.into_raw(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::{AlphaMode, BaseColorTexture};
    use glam::{Mat4, Vec3};

    /// A 2x2 image: red, green on top; blue, white below.
    fn pixels() -> image::RgbaImage {
        image::RgbaImage::from_raw(
            2,
            2,
            vec![
                255, 0, 0, 255, 0, 255, 0, 255, //
                0, 0, 255, 255, 255, 255, 255, 255,
            ],
        )
        .unwrap()
    }

    fn encoded(format: image::ImageFormat, mime: ImageMime) -> EncodedImage {
        let mut bytes = Vec::new();
        let rgb = image::DynamicImage::ImageRgba8(pixels()).into_rgb8();
        rgb.write_to(&mut std::io::Cursor::new(&mut bytes), format)
            .unwrap();
        EncodedImage {
            label: "image 0".into(),
            mime,
            bytes,
        }
    }

    #[test]
    fn png_decodes_exactly_with_the_top_row_first() {
        let rgba = decode(&encoded(image::ImageFormat::Png, ImageMime::Png)).unwrap();
        assert_eq!((rgba.width, rgba.height), (2, 2));
        assert_eq!(&rgba.pixels[..4], &[255, 0, 0, 255], "top-left is red");
        assert_eq!(
            &rgba.pixels[8..12],
            &[0, 0, 255, 255],
            "bottom-left is blue"
        );
        assert_eq!(rgba.gpu_bytes(), 16 * 4 / 3);
    }

    #[test]
    fn jpeg_decodes_to_rgba() {
        let rgba = decode(&encoded(image::ImageFormat::Jpeg, ImageMime::Jpeg)).unwrap();
        assert_eq!((rgba.width, rgba.height, rgba.pixels.len()), (2, 2, 16));
        assert!(rgba.pixels.chunks(4).all(|p| p[3] == 255));
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        for bytes in [
            &b""[..],
            b"\x89PNG\r\n\x1a\n",
            &[0xFF, 0xD8, 0xFF, 0x00, 0x13],
        ] {
            let image = EncodedImage {
                label: "bad".into(),
                mime: if bytes.len() == 8 {
                    ImageMime::Png
                } else {
                    ImageMime::Jpeg
                },
                bytes: bytes.to_vec(),
            };
            assert!(decode(&image).is_err());
        }
    }

    fn mesh_with(images: &[Arc<EncodedImage>]) -> SkinnedMesh {
        let prim = |image: &Arc<EncodedImage>| MeshPrimitive {
            positions: vec![Vec3::ZERO; 3],
            normals: vec![Vec3::Y; 3],
            indices: vec![0, 1, 2],
            joints: vec![[0; 4]; 3],
            weights: vec![[1.0, 0.0, 0.0, 0.0]; 3],
            base_color: [1.0; 4],
            uvs: vec![[0.0, 0.0]; 3],
            base_color_texture: Some(BaseColorTexture {
                image: image.clone(),
                wrap_s: TextureWrap::Repeat,
                wrap_t: TextureWrap::ClampToEdge,
            }),
            alpha_mode: AlphaMode::Opaque,
            morphs: Vec::new(),
        };
        SkinnedMesh {
            name: "m".into(),
            skeleton: 0,
            inverse_bind: vec![Mat4::IDENTITY],
            primitives: images.iter().map(prim).collect(),
            morph_weights: Vec::new(),
        }
    }

    #[test]
    fn each_image_is_decoded_once_and_shared() {
        let good = Arc::new(encoded(image::ImageFormat::Png, ImageMime::Png));
        let bad = Arc::new(EncodedImage {
            label: "image 1".into(),
            mime: ImageMime::Png,
            bytes: b"\x89PNG\r\n\x1a\ntruncated".to_vec(),
        });
        let mesh = mesh_with(&[good.clone(), good.clone(), bad]);
        let mut cache = TextureCache::default();
        cache.prepare(std::slice::from_ref(&mesh));
        cache.prepare(std::slice::from_ref(&mesh));
        assert_eq!(cache.entries.len(), 2);
        assert_eq!(cache.decoded().count(), 1);
        assert_eq!(cache.warnings.len(), 1, "{:?}", cache.warnings);
        assert!(cache.warnings[0].contains("image 1"));
        let a = cache.texture_for(&mesh.primitives[0]).unwrap();
        let b = cache.texture_for(&mesh.primitives[1]).unwrap();
        assert!(a.same_as(&b));
        assert_eq!(a.wrap_t, TextureWrap::ClampToEdge);
        assert!(cache.texture_for(&mesh.primitives[2]).is_none());
        cache.clear();
        assert!(cache.texture_for(&mesh.primitives[0]).is_none());
    }
}
