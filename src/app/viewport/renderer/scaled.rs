//! Drawing at a lower resolution where the GL is software: the scene goes into a texture a
//! fraction of the viewport's size, which is then stretched onto the viewport. On llvmpipe a
//! frame's cost is mostly shading pixels, so half the resolution is about a quarter of the
//! 3D's cost.

use super::viewer::{GlamViewer, lights};
use super::{BACKGROUND, ViewportRenderer};
use crate::app::viewport::camera::OrbitCamera;
use crate::app::viewport::scene::CharacterScene;
use three_d::{
    Blend, ClearState, ColorTexture, Context, CopyEffect, DepthTexture2D, Interpolation, Light,
    RenderTarget, ScissorBox, Texture2D, Viewport, Wrapping, WriteMask,
};

impl ViewportRenderer {
    /// As `paint`, drawn at `scale` of the viewport's resolution into a texture and
    /// stretched onto the viewport.
    pub(super) fn paint_scaled(
        &mut self,
        screen: &RenderTarget,
        (scissor, viewer): (ScissorBox, &GlamViewer),
        scene: &CharacterScene,
        camera: &OrbitCamera,
        scale: f32,
    ) {
        let shown = three_d::Viewer::viewport(viewer);
        let size = scaled_size(shown.width, shown.height, scale);
        Scaled::ensure(&mut self.scaled, &self.context, size);
        // Taken out while drawing: the scene's objects borrow the rest of the renderer.
        let Some(mut textures) = self.scaled.take() else {
            return;
        };
        let small = GlamViewer::new(camera, Viewport::new_at_origo(size.0, size.1));
        let (ambient, sun) = lights(&self.context, camera);
        let lights: [&dyn Light; 2] = [&ambient, &sun];
        let [r, g, b] = BACKGROUND;
        {
            let target = textures.target();
            target.clear(ClearState::color_and_depth(r, g, b, 1.0, 1.0));
            target.render(&small, self.ground_and_meshes(scene), &lights);
            if scene.show_skeleton {
                // As in `paint`: the skeleton over the mesh, bones hiding each other.
                target.clear(ClearState::depth(1.0));
                target.render(&small, self.skeleton(), &lights);
            }
        }
        screen.apply_screen_effect_partially(
            scissor,
            &COPY,
            viewer,
            &[],
            Some(textures.color()),
            None,
        );
        self.scaled = Some(textures);
    }
}

/// The offscreen colour and depth the scene is drawn into, kept while its size holds.
pub(super) struct Scaled {
    color: Texture2D,
    depth: DepthTexture2D,
    size: (u32, u32),
}

impl Scaled {
    /// Textures of `size`: these, or new ones when the size changed.
    pub(super) fn ensure(slot: &mut Option<Scaled>, context: &Context, size: (u32, u32)) {
        if slot.as_ref().is_some_and(|s| s.size == size) {
            return;
        }
        let color = Texture2D::new_empty::<[u8; 4]>(
            context,
            size.0,
            size.1,
            Interpolation::Linear,
            Interpolation::Linear,
            None,
            Wrapping::ClampToEdge,
            Wrapping::ClampToEdge,
        );
        let depth = DepthTexture2D::new::<f32>(
            context,
            size.0,
            size.1,
            Wrapping::ClampToEdge,
            Wrapping::ClampToEdge,
        );
        *slot = Some(Scaled { color, depth, size });
    }

    /// A render target on the textures.
    pub(super) fn target(&mut self) -> RenderTarget<'_> {
        RenderTarget::new(
            self.color.as_color_target(None),
            self.depth.as_depth_target(),
        )
    }

    /// The colour drawn, for the copy onto the viewport.
    pub(super) fn color(&self) -> ColorTexture<'_> {
        ColorTexture::Single(&self.color)
    }
}

/// Copies colour only, as drawn: the texture holds sRGB bytes already (the scene's shaders
/// encode them), and the window's alpha stays egui's.
pub(super) const COPY: CopyEffect = CopyEffect {
    write_mask: WriteMask {
        red: true,
        green: true,
        blue: true,
        alpha: false,
        depth: false,
    },
    blend: Blend::Disabled,
};

/// The size of the texture for a viewport of `width`×`height` pixels at `scale`.
pub(super) fn scaled_size(width: u32, height: u32, scale: f32) -> (u32, u32) {
    let side = |v: u32| ((v as f32 * scale).round() as u32).clamp(1, v.max(1));
    (side(width), side(height))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scaled_texture_is_never_empty_nor_larger_than_the_viewport() {
        assert_eq!(scaled_size(960, 1000, 0.5), (480, 500));
        assert_eq!(scaled_size(1, 1, 0.5), (1, 1));
        assert_eq!(scaled_size(640, 480, 1.0), (640, 480));
        assert_eq!(scaled_size(640, 480, 3.0), (640, 480));
    }
}
