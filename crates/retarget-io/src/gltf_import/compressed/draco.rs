//! `KHR_draco_mesh_compression`: each compressed primitive is decoded with the pure-Rust
//! `draco-core` into a new buffer, and the primitive's accessors (which carry no data of
//! their own) are pointed at it, in the types they declare.

use super::DRACO;
use crate::error::Problem;
use draco_core::{DataType, DecodeLimits, DecoderBuffer, FaceIndex, Mesh, MeshDecoder, PointIndex};
use gltf::json::accessor::{ComponentType, GenericComponentType};
use gltf::json::validation::{Checked, USize64};
use gltf::json::{self, Index, Root};
use serde_json::Value;
use std::collections::HashSet;

/// The most decoded bytes one primitive may hold: a header cannot make the reader allocate
/// more.
const MAX_DECODED_BYTES: u64 = 1 << 30;

/// The bytes decoded so far, as a buffer the document will gain, and its views.
#[derive(Default)]
struct Out {
    bytes: Vec<u8>,
    views: Vec<json::buffer::View>,
    /// Accessors already pointed at decoded data (primitives may share them).
    done: HashSet<usize>,
}

impl Out {
    /// Appends `data` as a new view (on a four-byte boundary) and returns its index.
    fn push(&mut self, root_views: usize, buffer: usize, data: &[u8]) -> Index<json::buffer::View> {
        while self.bytes.len() % 4 != 0 {
            self.bytes.push(0);
        }
        self.views.push(json::buffer::View {
            buffer: Index::new(buffer as u32),
            byte_length: USize64::from(data.len()),
            byte_offset: Some(USize64::from(self.bytes.len())),
            byte_stride: None,
            target: None,
            name: None,
            extensions: None,
            extras: Default::default(),
        });
        self.bytes.extend_from_slice(data);
        Index::new((root_views + self.views.len() - 1) as u32)
    }
}

/// Decodes every Draco primitive, takes the extension off it, and adds one buffer with
/// what was decoded. A primitive whose data does not decode is left out of its mesh, with
/// a warning (given back): the skeleton, the skin and the other primitives are still read.
pub(super) fn decode_primitives(
    root: &mut Root,
    buffers: &mut Vec<gltf::buffer::Data>,
) -> Result<Vec<String>, Problem> {
    let buffer = root.buffers.len();
    let mut out = Out::default();
    let mut failed = Vec::new();
    for m in 0..root.meshes.len() {
        for p in 0..root.meshes[m].primitives.len() {
            let prim = &mut root.meshes[m].primitives[p];
            let Some(ext) = prim
                .extensions
                .as_mut()
                .and_then(|e| e.others.remove(DRACO))
            else {
                continue;
            };
            if prim
                .extensions
                .as_ref()
                .is_some_and(|e| e.others.is_empty())
            {
                prim.extensions = None;
            }
            if let Err(reason) = decode_primitive(root, buffers, (m, p), &ext, buffer, &mut out) {
                failed.push((m, p, reason));
            }
        }
    }
    for (m, p, _) in &failed {
        zero_fill(root, (*m, *p), buffer, &mut out);
    }
    let warnings = leave_out(root, &failed);
    if !out.views.is_empty() {
        root.buffers.push(json::Buffer {
            byte_length: USize64::from(out.bytes.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        buffers.push(gltf::buffer::Data(out.bytes));
        root.buffer_views.extend(out.views);
    }
    Ok(warnings)
}

/// Points the accessors of a primitive that did not decode, which have no data of their
/// own, at zeros, so that the document stays valid once the primitive is left out (another
/// primitive may share them).
fn zero_fill(root: &mut Root, (m, p): (usize, usize), buffer: usize, out: &mut Out) {
    let prim = &root.meshes[m].primitives[p];
    let targets = prim.targets.iter().flatten();
    let accessors: Vec<usize> = (prim.attributes.values().copied())
        .chain(prim.indices)
        .chain(
            targets
                .flat_map(|t| [t.positions, t.normals, t.tangents])
                .flatten(),
        )
        .map(|a| a.value())
        .collect();
    let views_before = root.buffer_views.len();
    for a in accessors {
        let Some(acc) = root.accessors.get_mut(a) else {
            continue;
        };
        if acc.buffer_view.is_some() {
            continue;
        }
        let element = match (&acc.component_type, &acc.type_) {
            (Checked::Valid(c), Checked::Valid(t)) => c.0.size() * t.multiplicity(),
            _ => 4,
        };
        let len = (acc.count.0 as usize).saturating_mul(element);
        if len as u64 > MAX_DECODED_BYTES {
            continue;
        }
        point_at(acc, out.push(views_before, buffer, &vec![0; len]));
    }
}

/// Takes the primitives that did not decode out of their meshes (last first, so that the
/// indices still hold), and a mesh left with none (and its skin) off the nodes that draw
/// it; one warning per primitive.
fn leave_out(root: &mut Root, failed: &[(usize, usize, String)]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (m, p, reason) in failed.iter().rev() {
        root.meshes[*m].primitives.remove(*p);
        let name = root.meshes[*m]
            .name
            .clone()
            .unwrap_or_else(|| format!("mesh {m}"));
        warnings.push(format!(
            "{DRACO}: '{name}', primitive {p} left out: {reason}"
        ));
    }
    warnings.reverse();
    let emptied: HashSet<usize> = failed
        .iter()
        .map(|f| f.0)
        .filter(|&m| root.meshes[m].primitives.is_empty())
        .collect();
    for node in &mut root.nodes {
        if node.mesh.is_some_and(|m| emptied.contains(&m.value())) {
            // A skin needs a mesh to deform; the skeleton is read from the skin itself.
            node.mesh = None;
            node.skin = None;
            node.weights = None;
        }
    }
    warnings
}

fn decode_primitive(
    root: &mut Root,
    buffers: &[gltf::buffer::Data],
    (m, p): (usize, usize),
    ext: &Value,
    buffer: usize,
    out: &mut Out,
) -> Result<(), String> {
    let view = ext
        .get("bufferView")
        .and_then(Value::as_u64)
        .ok_or("its 'bufferView' is missing")? as usize;
    let bytes = view_bytes(root, buffers, view)?;
    let limits = DecodeLimits::default().with_max_decoded_bytes(MAX_DECODED_BYTES);
    let mut mesh = Mesh::new();
    MeshDecoder::new()
        .decode(
            &mut DecoderBuffer::new(bytes).with_limits(limits),
            &mut mesh,
        )
        .map_err(|e| format!("the Draco data in buffer view {view} does not decode ({e})"))?;
    let ids = ext
        .get("attributes")
        .and_then(Value::as_object)
        .ok_or("its 'attributes' are missing")?;
    let views_before = root.buffer_views.len();
    for (name, id) in ids {
        let semantic: Checked<json::mesh::Semantic> =
            serde_json::from_value(Value::String(name.clone())).map_err(|e| e.to_string())?;
        let Some(accessor) = root.meshes[m].primitives[p].attributes.get(&semantic) else {
            continue;
        };
        let a = accessor.value();
        if !out.done.insert(a) {
            continue;
        }
        let id = id.as_u64().and_then(|i| u32::try_from(i).ok());
        let attribute = id
            .and_then(|id| mesh.attribute_by_unique_id(id))
            .ok_or_else(|| format!("{name}: the Draco data has no attribute {id:?}"))?;
        let acc = root
            .accessors
            .get_mut(a)
            .ok_or_else(|| format!("{name}: accessor {a} does not exist"))?;
        let data = attribute_bytes(&mesh, attribute, acc).map_err(|e| format!("{name}: {e}"))?;
        point_at(acc, out.push(views_before, buffer, &data));
    }
    let indices: Vec<u8> = (0..mesh.num_faces())
        .flat_map(|f| mesh.face(FaceIndex(f as u32)))
        .flat_map(|PointIndex(i)| i.to_le_bytes())
        .collect();
    let count = indices.len() / 4;
    match root.meshes[m].primitives[p].indices.map(|i| i.value()) {
        Some(a) if !out.done.insert(a) => {}
        Some(a) => {
            let acc = root
                .accessors
                .get_mut(a)
                .ok_or_else(|| format!("indices: accessor {a} does not exist"))?;
            if acc.count.0 as usize != count {
                return Err(format!(
                    "it decodes to {count} indices, but accessor {a} says {}",
                    acc.count.0
                ));
            }
            acc.component_type = Checked::Valid(GenericComponentType(ComponentType::U32));
            point_at(acc, out.push(views_before, buffer, &indices));
        }
        None => {
            let view = out.push(views_before, buffer, &indices);
            root.accessors.push(index_accessor(view, count));
            let index = Index::new((root.accessors.len() - 1) as u32);
            root.meshes[m].primitives[p].indices = Some(index);
        }
    }
    Ok(())
}

fn view_bytes<'b>(
    root: &Root,
    buffers: &'b [gltf::buffer::Data],
    view: usize,
) -> Result<&'b [u8], String> {
    let v = root
        .buffer_views
        .get(view)
        .ok_or_else(|| format!("buffer view {view} does not exist"))?;
    let at = v.byte_offset.map_or(0, |o| o.0 as usize);
    at.checked_add(v.byte_length.0 as usize)
        .and_then(|end| buffers.get(v.buffer.value())?.0.get(at..end))
        .ok_or_else(|| format!("buffer view {view} lies outside its buffer"))
}

fn point_at(acc: &mut json::Accessor, view: Index<json::buffer::View>) {
    acc.buffer_view = Some(view);
    acc.byte_offset = None;
    acc.sparse = None;
}

fn index_accessor(view: Index<json::buffer::View>, count: usize) -> json::Accessor {
    json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Checked::Valid(GenericComponentType(ComponentType::U32)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(json::accessor::Type::Scalar),
        min: None,
        max: None,
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// One value per point of the decoded mesh, converted to the accessor's component type.
fn attribute_bytes(
    mesh: &Mesh,
    attribute: &draco_core::PointAttribute,
    acc: &json::Accessor,
) -> Result<Vec<u8>, String> {
    let (Checked::Valid(ty), Checked::Valid(GenericComponentType(ct))) =
        (acc.type_, acc.component_type)
    else {
        return Err("its accessor has no valid type".into());
    };
    let n = ty.multiplicity();
    let components = attribute.num_components() as usize;
    if components != n {
        return Err(format!(
            "the Draco attribute has {components} components, the accessor {n}"
        ));
    }
    let points = mesh.num_points();
    if acc.count.0 as usize != points {
        return Err(format!(
            "it decodes to {points} vertices, but the accessor says {}",
            acc.count.0
        ));
    }
    let dt = attribute.data_type();
    let size = dt.byte_length();
    let stride = usize::try_from(attribute.byte_stride()).unwrap_or(0);
    if size == 0 || stride < size * n {
        return Err(format!("the Draco attribute's type {dt:?} cannot be read"));
    }
    let data = attribute.buffer().data();
    let mut bytes = Vec::with_capacity(points * n * ct.size());
    for point in 0..points {
        let value = attribute.mapped_index(PointIndex(point as u32)).0 as usize;
        let start = value.saturating_mul(stride);
        let Some(raw) = start
            .checked_add(size * n)
            .and_then(|end| data.get(start..end))
        else {
            return Err(format!("vertex {point} has no value in the Draco data"));
        };
        for c in raw.chunks_exact(size) {
            let v = read(dt, c, attribute.normalized())?;
            write(ct, acc.normalized, v, &mut bytes);
        }
    }
    Ok(bytes)
}

/// One component as a number (a normalized integer as its fraction).
fn read(dt: DataType, b: &[u8], normalized: bool) -> Result<f64, String> {
    let (v, max) = match dt {
        DataType::Int8 => (b[0] as i8 as f64, i8::MAX as f64),
        DataType::Uint8 => (b[0] as f64, u8::MAX as f64),
        DataType::Int16 => (i16::from_le_bytes([b[0], b[1]]) as f64, i16::MAX as f64),
        DataType::Uint16 => (u16::from_le_bytes([b[0], b[1]]) as f64, u16::MAX as f64),
        DataType::Int32 => (i32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64, 1.0),
        DataType::Uint32 => (u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64, 1.0),
        DataType::Float32 => return Ok(f32::from_le_bytes([b[0], b[1], b[2], b[3]]) as f64),
        other => return Err(format!("Draco values of type {other:?} are not read")),
    };
    Ok(if normalized { (v / max).max(-1.0) } else { v })
}

/// Appends `v` as a component of type `ct`; a normalized integer takes a fraction.
fn write(ct: ComponentType, normalized: bool, v: f64, out: &mut Vec<u8>) {
    let int = |max: f64, min: f64| {
        let scaled = if normalized { v * max } else { v };
        scaled.round().clamp(min, max)
    };
    match ct {
        ComponentType::F32 => out.extend((v as f32).to_le_bytes()),
        ComponentType::I8 => out.push(int(i8::MAX as f64, i8::MIN as f64) as i8 as u8),
        ComponentType::U8 => out.push(int(u8::MAX as f64, 0.0) as u8),
        ComponentType::I16 => {
            out.extend((int(i16::MAX as f64, i16::MIN as f64) as i16).to_le_bytes())
        }
        ComponentType::U16 => out.extend((int(u16::MAX as f64, 0.0) as u16).to_le_bytes()),
        ComponentType::U32 => out.extend((int(u32::MAX as f64, 0.0) as u32).to_le_bytes()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn components_convert_between_types() {
        let mut out = Vec::new();
        write(
            ComponentType::U8,
            true,
            read(DataType::Float32, &0.5f32.to_le_bytes(), false).unwrap(),
            &mut out,
        );
        assert_eq!(out, [128]);
        out.clear();
        write(
            ComponentType::F32,
            false,
            read(DataType::Uint16, &[3, 0], false).unwrap(),
            &mut out,
        );
        assert_eq!(out, 3.0f32.to_le_bytes());
        out.clear();
        write(
            ComponentType::F32,
            false,
            read(DataType::Int8, &[0x81], true).unwrap(),
            &mut out,
        );
        assert_eq!(out, (-1.0f32).to_le_bytes());
    }
}
