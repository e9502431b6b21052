//! A small skinned glTF made in the tests: one joint and a triangle (or two, sharing one
//! material) with a base colour texture, its image stored where the test asks (a buffer
//! view, a data URI, a file next to the .gltf), and its UV accessor of any type.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// Where the texture's image lives.
pub enum ImageAt {
    /// In the .bin, through buffer view 5.
    View(Vec<u8>),
    /// In the .bin, but buffer view 5 claims bytes past the buffer's end.
    ViewPastTheEnd,
    /// A base64 `data:` URI.
    DataUri(Vec<u8>),
    /// A URI relative to the .gltf; `Some(bytes)` writes the file, `None` leaves it missing.
    File(String, Option<Vec<u8>>),
    /// No image, no texture.
    Nothing,
}

pub struct TexturedTriangle {
    pub image: ImageAt,
    /// `type` and `componentType` of TEXCOORD_0.
    pub uv_type: (&'static str, u32),
    /// The `texCoord` the base colour texture names.
    pub tex_coord: u32,
    /// Merged into the base colour textureInfo (e.g. a `KHR_texture_transform`).
    pub texture_info_extra: Value,
    /// Merged into the material (e.g. `alphaMode`).
    pub material_extra: Value,
    /// Two primitives on the same material (so the same image).
    pub two_primitives: bool,
}

impl Default for TexturedTriangle {
    fn default() -> Self {
        Self {
            image: ImageAt::Nothing,
            uv_type: ("VEC2", 5126),
            tex_coord: 0,
            texture_info_extra: json!({}),
            material_extra: json!({}),
            two_primitives: false,
        }
    }
}

/// UVs of the three vertices, TEXCOORD_0 then TEXCOORD_1.
pub const UV0: [[f32; 2]; 3] = [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]];
pub const UV1: [[f32; 2]; 3] = [[0.5, 0.5], [0.75, 0.5], [0.5, 0.75]];

impl TexturedTriangle {
    /// Writes `name` (a .gltf) and its `name.bin` into `dir`; returns the .gltf's path.
    pub fn write(&self, dir: &Path, name: &str) -> PathBuf {
        let mut bin = Vec::new();
        for p in [[0.0f32, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]] {
            p.iter().for_each(|v| bin.extend(v.to_le_bytes()));
        }
        bin.extend([0u8; 12]); // JOINTS_0: all on joint 0
        for _ in 0..3 {
            [1.0f32, 0.0, 0.0, 0.0]
                .iter()
                .for_each(|v| bin.extend(v.to_le_bytes()));
        }
        for uv in UV0.iter().chain(&UV1) {
            uv.iter().for_each(|v| bin.extend(v.to_le_bytes()));
        }
        let image_offset = bin.len();
        let mut image_view_length = 0;
        let image = match &self.image {
            ImageAt::View(bytes) => {
                bin.extend(bytes);
                image_view_length = bytes.len();
                Some(json!({"bufferView": 5, "mimeType": "image/png"}))
            }
            ImageAt::ViewPastTheEnd => {
                image_view_length = 1000;
                Some(json!({"bufferView": 5, "mimeType": "image/png"}))
            }
            ImageAt::DataUri(bytes) => Some(json!({
                "uri": format!("data:image/jpeg;base64,{}", base64(bytes))
            })),
            ImageAt::File(uri, bytes) => {
                if let Some(bytes) = bytes {
                    std::fs::write(dir.join(uri), bytes).unwrap();
                }
                Some(json!({ "uri": uri }))
            }
            ImageAt::Nothing => None,
        };
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
        let bin_name = format!("{name}.bin");
        std::fs::write(dir.join(&bin_name), &bin).unwrap();

        let mut info = json!({"index": 0, "texCoord": self.tex_coord});
        merge(&mut info, &self.texture_info_extra);
        let mut pbr = json!({"baseColorFactor": [1.0, 0.5, 0.25, 1.0]});
        if image.is_some() {
            pbr["baseColorTexture"] = info;
        }
        let mut material = json!({ "pbrMetallicRoughness": pbr });
        merge(&mut material, &self.material_extra);
        let primitive = json!({
            "attributes": {"POSITION": 0, "JOINTS_0": 1, "WEIGHTS_0": 2,
                           "TEXCOORD_0": 3, "TEXCOORD_1": 4},
            "material": 0
        });
        let primitives = if self.two_primitives {
            json!([primitive.clone(), primitive])
        } else {
            json!([primitive])
        };
        let (uv_type, uv_component) = self.uv_type;
        let mut doc = json!({
            "asset": {"version": "2.0"},
            "scenes": [{"nodes": [0, 1]}],
            "nodes": [{"name": "root"}, {"name": "body", "mesh": 0, "skin": 0}],
            "skins": [{"joints": [0]}],
            "meshes": [{"name": "tri", "primitives": primitives}],
            "materials": [material],
            "buffers": [{"byteLength": bin.len(), "uri": bin_name}],
            "bufferViews": [
                {"buffer": 0, "byteOffset": 0, "byteLength": 36},
                {"buffer": 0, "byteOffset": 36, "byteLength": 12},
                {"buffer": 0, "byteOffset": 48, "byteLength": 48},
                {"buffer": 0, "byteOffset": 96, "byteLength": 24},
                {"buffer": 0, "byteOffset": 120, "byteLength": 24},
                {"buffer": 0, "byteOffset": image_offset, "byteLength": image_view_length.max(1)}
            ],
            "accessors": [
                {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3",
                 "min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]},
                {"bufferView": 1, "componentType": 5121, "count": 3, "type": "VEC4"},
                {"bufferView": 2, "componentType": 5126, "count": 3, "type": "VEC4"},
                {"bufferView": 3, "componentType": uv_component, "count": 3, "type": uv_type},
                {"bufferView": 4, "componentType": 5126, "count": 3, "type": "VEC2"}
            ],
            "extensionsUsed": ["KHR_texture_transform"]
        });
        if let Some(image) = image {
            doc["images"] = json!([image]);
            doc["samplers"] = json!([{"wrapS": 33071, "wrapT": 33648}]);
            doc["textures"] = json!([{"source": 0, "sampler": 0}]);
        }
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
        path
    }
}

/// Object keys of `extra` set into `target`.
fn merge(target: &mut Value, extra: &Value) {
    if let (Some(t), Some(e)) = (target.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            t.insert(k.clone(), v.clone());
        }
    }
}

/// Standard base64 with padding (no extra crate for the tests).
pub fn base64(bytes: &[u8]) -> String {
    const ABC: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ABC[(n >> (18 - 6 * k) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A `w`x`h` image, red at the top-left texel and blue elsewhere, encoded as `format`.
pub fn encoded_image(w: u32, h: u32, format: image::ImageFormat) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        if x == 0 && y == 0 {
            image::Rgb([255, 0, 0])
        } else {
            image::Rgb([0, 0, 255])
        }
    });
    let mut bytes = Vec::new();
    img.write_to(&mut std::io::Cursor::new(&mut bytes), format)
        .unwrap();
    bytes
}
