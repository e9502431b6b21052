//! Compressed glTF opened as a plain one. Meshopt buffer views (`EXT_meshopt_compression`)
//! and Draco primitives (`KHR_draco_mesh_compression`) are decoded into ordinary buffers
//! before anything reads an accessor, so the readers, and the exporter (which writes the
//! data uncompressed), see an ordinary document. For reading only, quantized attributes
//! (`KHR_mesh_quantization`) become floats, and a WebP-only texture (`EXT_texture_webp`),
//! which nothing here decodes, is pointed at its image so that the mesh is drawn without
//! it, with a warning. A Draco primitive that does not decode is left out, with a warning.

mod draco;
mod meshopt;

use crate::error::Problem;
use gltf::json::accessor::{ComponentType, GenericComponentType};
use gltf::json::validation::{Checked, USize64};
use gltf::json::{self, Index, Root};
use std::collections::HashSet;
use std::path::Path;

pub(crate) const MESHOPT: &str = "EXT_meshopt_compression";
pub(crate) const DRACO: &str = "KHR_draco_mesh_compression";
const QUANTIZATION: &str = "KHR_mesh_quantization";
const WEBP: &str = "EXT_texture_webp";

/// The largest fallback buffer a meshopt file may declare.
const MAX_FALLBACK_BYTES: usize = 1 << 30;

fn fail(extension: &'static str, what: &str, reason: impl Into<String>) -> Problem {
    Problem::Compressed {
        extension,
        what: what.to_owned(),
        reason: reason.into(),
    }
}

/// The meshes with a Draco-compressed primitive that has morph targets (before decoding):
/// Draco reorders the vertices, and the targets' offsets no longer follow them.
pub(crate) fn draco_morph_meshes(root: &Root) -> HashSet<usize> {
    root.meshes
        .iter()
        .enumerate()
        .filter(|(_, m)| {
            m.primitives.iter().any(|p| {
                p.targets.as_ref().is_some_and(|t| !t.is_empty())
                    && p.extensions
                        .as_ref()
                        .is_some_and(|e| e.others.contains_key(DRACO))
            })
        })
        .map(|(i, _)| i)
        .collect()
}

/// The extensions this module handles.
pub(crate) const HANDLED: [&str; 4] = [MESHOPT, DRACO, QUANTIZATION, WEBP];

/// Whether the document uses an extension this module handles.
pub(crate) fn applies(root: &Root) -> bool {
    root.extensions_used
        .iter()
        .chain(&root.extensions_required)
        .any(|e| HANDLED.contains(&e.as_str()))
}

fn is_fallback(buffer: &json::Buffer) -> bool {
    buffer
        .extensions
        .as_ref()
        .and_then(|e| e.others.get(MESHOPT))
        .and_then(|m| m.get("fallback"))
        .and_then(serde_json::Value::as_bool)
        == Some(true)
}

/// The buffers' bytes; a meshopt fallback buffer, which holds no bytes of its own, is zeros
/// for the decoder to fill.
pub(crate) fn load_buffers(
    doc: &gltf::Document,
    base: Option<&Path>,
    mut blob: Option<Vec<u8>>,
) -> Result<Vec<gltf::buffer::Data>, Problem> {
    let mut out = Vec::new();
    for buffer in doc.buffers() {
        if is_fallback(&doc.as_json().buffers[buffer.index()]) {
            let length = buffer.length();
            if length > MAX_FALLBACK_BYTES {
                return Err(fail(
                    MESHOPT,
                    &format!("buffer {}", buffer.index()),
                    format!("it declares {length} decoded bytes, more than this reader holds"),
                ));
            }
            out.push(gltf::buffer::Data(vec![0; length]));
            continue;
        }
        let words = |e: gltf::Error| Problem::Buffers(super::buffer_words(&e));
        let data = gltf::buffer::Data::from_source_and_blob(buffer.source(), base, &mut blob)
            .map_err(words)?;
        if data.len() < buffer.length() {
            return Err(words(gltf::Error::BufferLength {
                buffer: buffer.index(),
                expected: buffer.length(),
                actual: data.len(),
            }));
        }
        out.push(data);
    }
    Ok(out)
}

/// Decodes every meshopt view and Draco primitive in place and drops both extensions from
/// the document, buffers included: what is left is plain glTF. Gives back a warning for
/// each Draco primitive left out because it does not decode.
pub(crate) fn decode(
    root: &mut Root,
    buffers: &mut Vec<gltf::buffer::Data>,
) -> Result<Vec<String>, Problem> {
    meshopt::decode_views(root, buffers)?;
    let warnings = draco::decode_primitives(root, buffers)?;
    for buffer in &mut root.buffers {
        if let Some(e) = buffer.extensions.as_mut() {
            e.others.remove(MESHOPT);
            if e.others.is_empty() {
                buffer.extensions = None;
            }
        }
    }
    for list in [&mut root.extensions_used, &mut root.extensions_required] {
        list.retain(|e| e != MESHOPT && e != DRACO);
    }
    Ok(warnings)
}

/// The file as the exporter re-reads it (after the importer accepted it): a compressed one
/// decoded, so that it is written uncompressed with its meshes.
pub(crate) fn open_plain(
    bytes: &[u8],
    base: Option<&Path>,
) -> Result<(gltf::Document, Vec<gltf::buffer::Data>), String> {
    // As the importer parses it: scenes without nodes filled in, and the extensions it
    // cannot decode no longer required (it checked the rest).
    let is_glb = bytes.starts_with(b"glTF");
    let gltf = super::parse(bytes, is_glb).map_err(|e| e.to_string())?;
    let document = super::without_unknown_required(gltf.document, &mut Vec::new());
    if !applies(document.as_json()) {
        let buffers = gltf::import_buffers(&document, base, gltf.blob)
            .map_err(|e| format!("cannot load its buffers: {e}"))?;
        return Ok((document, buffers));
    }
    let mut buffers = load_buffers(&document, base, gltf.blob).map_err(|e| e.to_string())?;
    let mut root = document.into_json();
    decode(&mut root, &mut buffers).map_err(|e| e.to_string())?;
    Ok((gltf::Document::from_json_without_validation(root), buffers))
}

/// For the readers only: float copies of quantized attributes, and WebP-only textures
/// pointed at their image (which the texture reader then leaves out with a warning).
/// Returns the accessors turned into floats.
pub(crate) fn prepare_for_reading(
    root: &mut Root,
    buffers: &mut Vec<gltf::buffer::Data>,
) -> Result<HashSet<usize>, Problem> {
    let quantized = dequantize(root, buffers)?;
    for texture in &mut root.textures {
        let webp = texture
            .extensions
            .as_ref()
            .and_then(|e| e.others.get(WEBP))
            .and_then(|w| w.get("source"))
            .and_then(serde_json::Value::as_u64);
        if texture.source.value() == u32::MAX as usize
            && let Some(image) = webp.and_then(|i| u32::try_from(i).ok())
        {
            texture.source = Index::new(image);
        }
    }
    root.extensions_required
        .retain(|e| e != QUANTIZATION && e != WEBP);
    Ok(quantized)
}

/// POSITION, NORMAL and TEXCOORD_n accessors (and morph targets' POSITION and NORMAL) of
/// integer type (`KHR_mesh_quantization`)
/// rewritten as floats in a new buffer: normalized integers as their fractions, others as
/// they are.
fn dequantize(
    root: &mut Root,
    buffers: &mut Vec<gltf::buffer::Data>,
) -> Result<HashSet<usize>, Problem> {
    use gltf::json::mesh::Semantic as S;
    let mut targets: Vec<usize> = Vec::new();
    let mut seen = HashSet::new();
    for prim in root.meshes.iter().flat_map(|m| &m.primitives) {
        for (semantic, accessor) in &prim.attributes {
            let wanted = matches!(
                semantic,
                Checked::Valid(S::Positions | S::Normals | S::TexCoords(_))
            );
            if wanted && seen.insert(accessor.value()) {
                targets.push(accessor.value());
            }
        }
        // Morph targets' POSITION and NORMAL offsets may be quantized too.
        let morphs = prim.targets.iter().flatten();
        for accessor in morphs.flat_map(|t| [&t.positions, &t.normals]).flatten() {
            if seen.insert(accessor.value()) {
                targets.push(accessor.value());
            }
        }
    }
    let buffer = root.buffers.len();
    let mut bytes = Vec::new();
    let mut done = HashSet::new();
    for a in targets {
        let Some(acc) = root.accessors.get(a) else {
            continue;
        };
        let Checked::Valid(GenericComponentType(ct)) = acc.component_type else {
            continue;
        };
        if ct == ComponentType::F32 || acc.sparse.is_some() {
            continue;
        }
        let what = format!("accessor {a}");
        let floats = read_integers(root, buffers, acc)
            .map_err(|reason| fail(QUANTIZATION, &what, reason))?;
        let offset = bytes.len();
        bytes.extend(floats.iter().flat_map(|f| f.to_le_bytes()));
        root.buffer_views.push(json::buffer::View {
            buffer: Index::new(buffer as u32),
            byte_length: USize64::from(floats.len() * 4),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            target: None,
            name: None,
            extensions: None,
            extras: Default::default(),
        });
        let view = Index::new((root.buffer_views.len() - 1) as u32);
        let acc = &mut root.accessors[a];
        acc.buffer_view = Some(view);
        acc.byte_offset = None;
        acc.component_type = Checked::Valid(GenericComponentType(ComponentType::F32));
        acc.normalized = false;
        let (min, max) = min_max(&floats, acc.type_);
        acc.min = Some(min);
        acc.max = Some(max);
        done.insert(a);
    }
    if !bytes.is_empty() {
        root.buffers.push(json::Buffer {
            byte_length: USize64::from(bytes.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        buffers.push(gltf::buffer::Data(bytes));
    }
    Ok(done)
}

/// Per-component bounds, as POSITION accessors must declare them.
fn min_max(values: &[f32], ty: Checked<json::accessor::Type>) -> (json::Value, json::Value) {
    let n = match ty {
        Checked::Valid(t) => t.multiplicity(),
        Checked::Invalid => 1,
    };
    let mut lo = vec![f32::INFINITY; n];
    let mut hi = vec![f32::NEG_INFINITY; n];
    for element in values.chunks_exact(n) {
        for (c, v) in element.iter().enumerate() {
            lo[c] = lo[c].min(*v);
            hi[c] = hi[c].max(*v);
        }
    }
    (json::Value::from(lo), json::Value::from(hi))
}

/// An integer accessor's components as floats, every range checked.
fn read_integers(
    root: &Root,
    buffers: &[gltf::buffer::Data],
    acc: &json::Accessor,
) -> Result<Vec<f32>, String> {
    let (Checked::Valid(ty), Checked::Valid(GenericComponentType(ct))) =
        (acc.type_, acc.component_type)
    else {
        return Err("it has no valid type".into());
    };
    let view_index = acc.buffer_view.ok_or("it has no buffer view")?.value();
    let view = root
        .buffer_views
        .get(view_index)
        .ok_or_else(|| format!("buffer view {view_index} does not exist"))?;
    let n = ty.multiplicity();
    let size = ct.size();
    let element = size * n;
    let stride = view.byte_stride.map_or(element, |s| s.0);
    let count = acc.count.0 as usize;
    let start = (view.byte_offset.map_or(0, |o| o.0 as usize))
        .saturating_add(acc.byte_offset.map_or(0, |o| o.0 as usize));
    let data = buffers
        .get(view.buffer.value())
        .map(|b| &b.0[..])
        .unwrap_or_default();
    // The last element must lie inside the buffer before anything is allocated for them
    // all: the count is the file's word, and a mutant says billions.
    let last = count.checked_sub(1).map(|l| {
        l.checked_mul(stride)?
            .checked_add(start)?
            .checked_add(element)
    });
    if let Some(end) = last
        && end.is_none_or(|end| end > data.len())
    {
        return Err(format!("its {count} elements lie outside their buffer"));
    }
    let mut out = Vec::with_capacity(count * n);
    for i in 0..count {
        let at = i.checked_mul(stride).and_then(|o| o.checked_add(start));
        let Some(raw) = at.and_then(|at| data.get(at..at.checked_add(element)?)) else {
            return Err(format!("element {i} lies outside its buffer"));
        };
        for c in raw.chunks_exact(size) {
            out.push(component(ct, c, acc.normalized));
        }
    }
    Ok(out)
}

fn component(ct: ComponentType, b: &[u8], normalized: bool) -> f32 {
    let (v, max) = match ct {
        ComponentType::I8 => (b[0] as i8 as f32, i8::MAX as f32),
        ComponentType::U8 => (b[0] as f32, u8::MAX as f32),
        ComponentType::I16 => (i16::from_le_bytes([b[0], b[1]]) as f32, i16::MAX as f32),
        ComponentType::U16 => (u16::from_le_bytes([b[0], b[1]]) as f32, u16::MAX as f32),
        ComponentType::U32 => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f32, 1.0),
        ComponentType::F32 => return f32::from_le_bytes([b[0], b[1], b[2], b[3]]),
    };
    if normalized { (v / max).max(-1.0) } else { v }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantized_components_read_as_glsl_does() {
        assert_eq!(
            component(ComponentType::I16, &i16::MIN.to_le_bytes(), true),
            -1.0
        );
        assert_eq!(component(ComponentType::I8, &[127], true), 1.0);
        assert_eq!(
            component(ComponentType::U16, &300u16.to_le_bytes(), false),
            300.0
        );
        assert_eq!(component(ComponentType::U8, &[255], true), 1.0);
    }

    /// A mutant's count of billions is refused before anything is allocated for it (the
    /// long fuzz run's seed 20261127 asked for 34 GB and 12 PB here).
    #[test]
    fn a_quantized_count_past_its_buffer_is_refused_before_allocating() {
        for count in [4_000_000_000u64, 3, 1 << 60] {
            let root: Root = serde_json::from_value(serde_json::json!({
                "asset": {"version": "2.0"},
                "buffers": [{"byteLength": 12}],
                "bufferViews": [{"buffer": 0, "byteLength": 12}],
                "accessors": [{"bufferView": 0, "componentType": 5123, "count": count, "type": "VEC3"}],
            }))
            .unwrap();
            let buffers = vec![gltf::buffer::Data(vec![0; 12])];
            let read = read_integers(&root, &buffers, &root.accessors[0]);
            assert!(read.is_err(), "count {count}: {read:?}");
        }
        let root: Root = serde_json::from_value(serde_json::json!({
            "asset": {"version": "2.0"},
            "buffers": [{"byteLength": 12}],
            "bufferViews": [{"buffer": 0, "byteLength": 12}],
            "accessors": [{"bufferView": 0, "componentType": 5123, "count": 2, "type": "VEC3"}],
        }))
        .unwrap();
        let buffers = vec![gltf::buffer::Data(vec![0; 12])];
        assert_eq!(
            read_integers(&root, &buffers, &root.accessors[0])
                .unwrap()
                .len(),
            6
        );
    }
}
