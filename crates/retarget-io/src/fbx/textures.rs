//! Materials for the viewer: the base colour (PBR base colour, else the classic diffuse
//! colour) and its texture when the file embeds the image (PNG or JPEG). Images referenced by
//! path only are not read: an FBX's paths are usually those of the machine it was made on.

use crate::asset::{AlphaMode, BaseColorTexture, EncodedImage, ImageMime, TextureWrap};
use std::collections::HashMap;
use std::sync::Arc;

/// What a primitive is drawn with.
pub(super) struct Look {
    pub base_color: [f32; 4],
    pub texture: Option<BaseColorTexture>,
    pub alpha_mode: AlphaMode,
}

/// Images decoded once per texture element, shared by every primitive that uses them.
#[derive(Default)]
pub(super) struct Textures {
    images: HashMap<u32, Option<Arc<EncodedImage>>>,
    missing: Vec<String>,
}

impl Textures {
    pub fn look(
        &mut self,
        material: Option<&ufbx::Ref<ufbx::Material>>,
        warnings: &mut Vec<String>,
    ) -> Look {
        let Some(m) = material else {
            return Look {
                base_color: [1.0; 4],
                texture: None,
                alpha_mode: AlphaMode::Opaque,
            };
        };
        let map = if m.pbr.base_color.has_value || m.pbr.base_color.texture.is_some() {
            &m.pbr.base_color
        } else {
            &m.fbx.diffuse_color
        };
        let c = map.value_vec4;
        let mut base_color = crate::asset::color_factor([c.x as f32, c.y as f32, c.z as f32, 1.0]);
        // A texture's colour is usually meant as is: FBX exporters leave a grey or black
        // diffuse factor beside it.
        let texture = map.texture.as_ref().and_then(|t| self.texture(t, warnings));
        if texture.is_some() {
            base_color = [1.0; 4];
        }
        Look {
            base_color,
            texture,
            alpha_mode: AlphaMode::Opaque,
        }
    }

    fn texture(
        &mut self,
        texture: &ufbx::Texture,
        warnings: &mut Vec<String>,
    ) -> Option<BaseColorTexture> {
        let id = texture.element.element_id;
        let image = self
            .images
            .entry(id)
            .or_insert_with(|| embedded(texture))
            .clone();
        let Some(image) = image else {
            let name = texture.filename.to_string();
            if !self.missing.contains(&name) {
                warnings.push(format!(
                    "texture '{name}' is not embedded as PNG or JPEG in the file; the mesh is \
                     drawn in its base colour"
                ));
                self.missing.push(name);
            }
            return None;
        };
        let wrap = |w: ufbx::WrapMode| match w {
            ufbx::WrapMode::Clamp => TextureWrap::ClampToEdge,
            _ => TextureWrap::Repeat,
        };
        Some(BaseColorTexture {
            image,
            wrap_s: wrap(texture.wrap_u),
            wrap_t: wrap(texture.wrap_v),
        })
    }
}

/// The texture's embedded bytes when they are PNG or JPEG.
fn embedded(texture: &ufbx::Texture) -> Option<Arc<EncodedImage>> {
    let bytes: &[u8] = &texture.content;
    let mime = ImageMime::sniff(bytes)?;
    Some(Arc::new(EncodedImage {
        label: format!("texture '{}'", texture.element.name),
        mime,
        bytes: bytes.to_vec(),
    }))
}
