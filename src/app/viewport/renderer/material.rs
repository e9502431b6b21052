//! The renderer's skinned-mesh materials and textures (three-d, like the rest of `renderer`):
//! a PBR material whose albedo is the base colour factor times an sRGB texture, with glTF's
//! alpha modes, and the upload of decoded images into GL textures.

use super::srgba;
use crate::app::viewport::MeshDraw;
use crate::app::viewport::texture::RgbaImage;
use crate::io::{AlphaMode, TextureWrap};
use three_d::context::{HasContext, SRGB8_ALPHA8, TEXTURE_2D};
use three_d::{
    Context, CpuMaterial, EffectMaterialId, Interpolation, Light, Mat3, Material, MaterialType,
    Mipmap, PhysicalMaterial, Program, RenderStates, SquareMatrix, Texture2D, Texture2DRef, Viewer,
    Wrapping,
};

/// Shader id of [`MeshMaterial`] with an alpha cutoff (ids below 0x8000 are for materials
/// outside three-d). Its source is always that of a `PhysicalMaterial` with only an albedo
/// texture, so one id suffices; the cutoff is a uniform.
const ALPHA_CUT_MATERIAL_ID: u16 = 0x0A10;

/// three-d's `PhysicalMaterial`, plus glTF's MASK mode: its fragment shader already has an
/// `ALPHACUT` branch (used by the deferred material) that this turns on, with the cutoff as
/// a uniform.
pub(super) struct MeshMaterial {
    pub inner: PhysicalMaterial,
    /// Discard fragments whose texel alpha is below this (the glTF cutoff divided by the base
    /// colour factor's alpha, since the shader tests the texel alone).
    alpha_cut: Option<f32>,
}

/// A material for `draw`, with `texture` (already on the GPU) as its albedo texture, and
/// whether the mesh is drawn at all (a MASK mesh whose untextured alpha is below the cutoff
/// is not).
pub(super) fn mesh_material(
    context: &Context,
    draw: &MeshDraw,
    texture: Option<Texture2DRef>,
) -> (MeshMaterial, bool) {
    let cpu = CpuMaterial {
        albedo: srgba(draw.color),
        roughness: 0.75,
        metallic: 0.0,
        ..Default::default()
    };
    let mut inner = match draw.alpha_mode {
        AlphaMode::Blend => PhysicalMaterial::new_transparent(context, &cpu),
        AlphaMode::Opaque | AlphaMode::Mask { .. } => PhysicalMaterial::new_opaque(context, &cpu),
    };
    let textured = texture.is_some();
    inner.albedo_texture = texture;
    // The fragment's alpha (factor times texel) would land in egui's framebuffer and make the
    // window see-through where a texture has alpha: keep the alpha the clear wrote.
    inner.render_states.write_mask.alpha = false;
    let (alpha_cut, visible) = alpha_cut(draw.alpha_mode, draw.color[3], textured);
    (MeshMaterial { inner, alpha_cut }, visible)
}

/// For glTF's MASK (drawn where factor alpha times texel alpha >= cutoff): the texel alpha
/// below which fragments are discarded, and whether anything is drawn at all.
fn alpha_cut(mode: AlphaMode, factor_alpha: f32, textured: bool) -> (Option<f32>, bool) {
    match mode {
        AlphaMode::Mask { cutoff } if cutoff > 0.0 => {
            if factor_alpha <= 0.0 || (!textured && factor_alpha < cutoff) {
                (None, false)
            } else if textured {
                (Some(cutoff / factor_alpha), true)
            } else {
                (None, true)
            }
        }
        _ => (None, true),
    }
}

impl Material for MeshMaterial {
    fn fragment_shader_source(&self, lights: &[&dyn Light]) -> String {
        let source = self.inner.fragment_shader_source(lights);
        match self.alpha_cut {
            Some(_) => format!("#define ALPHACUT;\nuniform float acut;\n{source}"),
            None => source,
        }
    }

    fn id(&self) -> EffectMaterialId {
        match self.alpha_cut {
            Some(_) => EffectMaterialId(ALPHA_CUT_MATERIAL_ID),
            None => self.inner.id(),
        }
    }

    fn use_uniforms(&self, program: &Program, viewer: &dyn Viewer, lights: &[&dyn Light]) {
        self.inner.use_uniforms(program, viewer, lights);
        if let Some(cut) = self.alpha_cut {
            program.use_uniform_if_required("acut", cut);
        }
    }

    fn render_states(&self) -> RenderStates {
        self.inner.render_states()
    }

    fn material_type(&self) -> MaterialType {
        self.inner.material_type()
    }
}

/// Uploads an sRGB RGBA8 image with a full mip chain. The GL texture's format is
/// `SRGB8_ALPHA8`, so the GPU turns texels into linear colour when sampling, as the PBR shader
/// expects, at full precision (three-d's own route converts to 8-bit linear on the CPU,
/// which bands in dark tones).
///
/// Orientation: three-d's `fill` flips the rows (the image's top row lands at t = 1) and its
/// `Mesh::new` flips v of a `CpuMesh`'s UVs (`1 - v`), so glTF's top-left-origin UVs go in as
/// they are (checked by eye on CesiumMan: the Cesium logo on its face is upright).
pub(super) fn upload_texture(
    context: &Context,
    image: &RgbaImage,
    wrap_s: TextureWrap,
    wrap_t: TextureWrap,
) -> Texture2DRef {
    let texels: Vec<[u8; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|p| [p[0], p[1], p[2], p[3]])
        .collect();
    let (width, height) = (image.width, image.height);
    // SAFETY: the callback gives the bound texture immutable storage for `[u8; 4]` texels
    // (4 bytes each, as `new_unchecked::<[u8; 4]>` records) with the mip count three-d
    // computed; `fill` then uploads RGBA/UNSIGNED_BYTE data, which SRGB8_ALPHA8 accepts.
    let texture = unsafe {
        Texture2D::new_unchecked::<[u8; 4]>(
            context,
            width,
            height,
            Interpolation::Linear,
            Interpolation::Linear,
            Some(Mipmap::default()),
            wrapping(wrap_s),
            wrapping(wrap_t),
            |t| {
                context.tex_storage_2d(
                    TEXTURE_2D,
                    t.number_of_mip_maps() as i32,
                    SRGB8_ALPHA8,
                    width as i32,
                    height as i32,
                );
            },
        )
    };
    texture.fill(&texels);
    Texture2DRef {
        texture: std::sync::Arc::new(texture),
        transformation: Mat3::identity(),
    }
}

fn wrapping(wrap: TextureWrap) -> Wrapping {
    match wrap {
        TextureWrap::Repeat => Wrapping::Repeat,
        TextureWrap::ClampToEdge => Wrapping::ClampToEdge,
        TextureWrap::MirroredRepeat => Wrapping::MirroredRepeat,
    }
}

/// glTF texture coordinates for a `CpuMesh`: unchanged, since three-d flips v itself when it
/// uploads them (see [`upload_texture`]).
pub(super) fn gl_uvs(uvs: &[[f32; 2]]) -> Vec<three_d::Vec2> {
    uvs.iter().map(|[u, v]| three_d::vec2(*u, *v)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_cuts_on_factor_times_texel_alpha() {
        let mask = AlphaMode::Mask { cutoff: 0.5 };
        assert_eq!(alpha_cut(mask, 1.0, true), (Some(0.5), true));
        assert_eq!(alpha_cut(mask, 0.8, true), (Some(0.625), true));
        assert_eq!(alpha_cut(mask, 0.8, false), (None, true));
        assert_eq!(alpha_cut(mask, 0.3, false), (None, false));
        assert_eq!(alpha_cut(mask, 0.0, true), (None, false));
        assert_eq!(
            alpha_cut(AlphaMode::Mask { cutoff: 0.0 }, 0.0, true),
            (None, true)
        );
        assert_eq!(alpha_cut(AlphaMode::Opaque, 0.0, true), (None, true));
        assert_eq!(alpha_cut(AlphaMode::Blend, 0.2, true), (None, true));
    }

    #[test]
    fn gltf_uvs_go_in_as_they_are() {
        // three-d's `Mesh::new` does the v flip that matches its bottom-up texture rows.
        let uvs = gl_uvs(&[[0.25, 0.0], [0.5, 1.0], [2.0, -0.5]]);
        assert_eq!(uvs[0], three_d::vec2(0.25, 0.0));
        assert_eq!(uvs[1], three_d::vec2(0.5, 1.0));
        assert_eq!(uvs[2], three_d::vec2(2.0, -0.5));
    }
}
