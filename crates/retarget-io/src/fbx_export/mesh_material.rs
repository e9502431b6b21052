//! A primitive's look as an FBX material: the base colour as a phong diffuse colour, its
//! alpha as opacity, and its texture as an embedded Video under a Texture.

use super::Written;
use crate::asset::{AlphaMode, EncodedImage, ImageMime, MeshPrimitive, SkinnedMesh, TextureWrap};
use crate::fbx_export::curves::{Ids, connect};
use crate::fbx_export::node::{Attr, Node, Props, object_name};
use std::sync::Arc;

/// Each primitive's material index (looks numbered as they first appear; `None` for a
/// primitive without a triangle), and one primitive standing for each material.
pub(super) fn looks(mesh: &SkinnedMesh) -> (Vec<Option<usize>>, Vec<&MeshPrimitive>) {
    let mut firsts: Vec<&MeshPrimitive> = Vec::new();
    let indices = mesh
        .primitives
        .iter()
        .map(|p| {
            if p.indices.len() < 3 {
                return None;
            }
            let same = |q: &&MeshPrimitive| {
                color(q) == color(p)
                    && q.alpha_mode == p.alpha_mode
                    && q.base_color_texture == p.base_color_texture
            };
            Some(firsts.iter().position(same).unwrap_or_else(|| {
                firsts.push(p);
                firsts.len() - 1
            }))
        })
        .collect();
    (indices, firsts)
}

fn color(p: &MeshPrimitive) -> [f32; 4] {
    crate::asset::color_factor(p.base_color)
}

/// Embedded images, one Video each however many textures use them.
#[derive(Default)]
pub(super) struct Images {
    videos: Vec<(Arc<EncodedImage>, Video)>,
}

/// A written Video: its id, file name and object name.
#[derive(Clone)]
struct Video {
    id: i64,
    file: String,
    media: String,
}

impl Images {
    /// Writes `p`'s material (and texture) named `name`; returns the material's id.
    pub fn push_material(
        &mut self,
        p: &MeshPrimitive,
        name: &str,
        ids: &mut Ids,
        out: &mut Written,
    ) -> i64 {
        let id = ids.next();
        let [r, g, b, a] = color(p).map(f64::from);
        let mut props = Props::default();
        props
            .vector("Diffuse", [r, g, b])
            .color("DiffuseColor", [r, g, b])
            .number("DiffuseFactor", 1.0);
        // Opaque ignores alpha, and FBX has no cutoff for Mask: only Blend is see-through.
        if a < 1.0 && p.alpha_mode == AlphaMode::Blend {
            props
                .color("TransparentColor", [1.0; 3])
                .number("TransparencyFactor", 1.0 - a)
                .double("Opacity", a);
        }
        out.objects.push(
            Node::new("Material")
                .attr(id)
                .attr(object_name(name, "Material"))
                .attr("")
                .value("Version", 102)
                .value("ShadingModel", "phong")
                .value("MultiLayer", 0)
                .child(props.node()),
        );
        if let Some(t) = &p.base_color_texture {
            let video = self.video(&t.image, name, ids, out);
            let texture = ids.next();
            out.objects.push(texture_node(texture, name, &video, t));
            out.connections.push(connect(video.id, texture));
            out.connections.push(
                Node::new("C")
                    .attr("OP")
                    .attr(texture)
                    .attr(id)
                    .attr("DiffuseColor"),
            );
        }
        id
    }

    /// The Video holding `image`'s bytes, written the first time it is asked for.
    fn video(
        &mut self,
        image: &Arc<EncodedImage>,
        name: &str,
        ids: &mut Ids,
        out: &mut Written,
    ) -> Video {
        let known = self
            .videos
            .iter()
            .find(|(i, _)| Arc::ptr_eq(i, image) || **i == **image);
        if let Some((_, v)) = known {
            return v.clone();
        }
        let id = ids.next();
        let ext = match image.mime {
            ImageMime::Png => "png",
            ImageMime::Jpeg => "jpg",
        };
        let stem: String = name
            .chars()
            .map(|c| if c.is_alphanumeric() { c } else { '_' })
            .collect();
        let file = format!("{stem}.{ext}");
        let mut props = Props::default();
        props.string("Path", &file);
        out.objects.push(
            Node::new("Video")
                .attr(id)
                .attr(object_name(name, "Video"))
                .attr("Clip")
                .value("Type", "Clip")
                .child(props.node())
                .value("UseMipMap", 0)
                .value("Filename", file.as_str())
                .value("RelativeFilename", file.as_str())
                .value("Content", Attr::Bytes(image.bytes.clone())),
        );
        let video = Video {
            id,
            file,
            media: object_name(name, "Video"),
        };
        self.videos.push((image.clone(), video.clone()));
        video
    }
}

fn texture_node(id: i64, name: &str, video: &Video, t: &crate::asset::BaseColorTexture) -> Node {
    let wrap = |w: TextureWrap| match w {
        TextureWrap::ClampToEdge => 1,
        _ => 0,
    };
    let mut props = Props::default();
    props
        .bool("UseMaterial", true)
        .enumeration("WrapModeU", wrap(t.wrap_s))
        .enumeration("WrapModeV", wrap(t.wrap_t));
    Node::new("Texture")
        .attr(id)
        .attr(object_name(name, "Texture"))
        .attr("")
        .value("Type", "TextureVideoClip")
        .value("Version", 202)
        .value("TextureName", object_name(name, "Texture"))
        .child(props.node())
        .value("Media", video.media.as_str())
        .value("FileName", video.file.as_str())
        .value("RelativeFilename", video.file.as_str())
}
