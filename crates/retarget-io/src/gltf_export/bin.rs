//! The data this export adds (animation keys, repaired vertex attributes, embedded images),
//! kept as one extra source buffer. `pack` later merges it with the character's own buffers
//! into the single GLB BIN chunk, so new and old data go through one copying path.

use gltf::json::accessor::{ComponentType, GenericComponentType, Type};
use gltf::json::buffer::Target;
use gltf::json::validation::{Checked, USize64};
use gltf::json::{self, Index, Root};

pub(super) struct Extra {
    buffer: Index<json::Buffer>,
    pub data: Vec<u8>,
}

impl Extra {
    /// Adds a buffer to `root` for this data, after the buffers already there, so that
    /// buffer index `n` is `sources[n]` when packing.
    pub fn new(root: &mut Root) -> Self {
        let buffer = root.push(json::Buffer {
            byte_length: USize64(0),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        });
        Self {
            buffer,
            data: Vec::new(),
        }
    }

    /// Appends `bytes` as a new buffer view that starts on a 4-byte boundary, which every
    /// component type needs.
    pub fn push_view(
        &mut self,
        root: &mut Root,
        bytes: &[u8],
        target: Option<Target>,
    ) -> Index<json::buffer::View> {
        while self.data.len() % 4 != 0 {
            self.data.push(0);
        }
        let offset = self.data.len();
        self.data.extend_from_slice(bytes);
        root.push(json::buffer::View {
            buffer: self.buffer,
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            name: None,
            target: target.map(Checked::Valid),
            extensions: None,
            extras: Default::default(),
        })
    }

    /// Float data of `type_` elements; `bounds` writes min/max (required for animation
    /// inputs and positions).
    pub fn push_f32(
        &mut self,
        root: &mut Root,
        values: &[f32],
        type_: Type,
        bounds: bool,
        target: Option<Target>,
    ) -> Index<json::Accessor> {
        let width = type_.multiplicity();
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(root, &bytes, target);
        let (min, max) = if bounds {
            let (lo, hi) = min_max(values, width);
            (Some(lo), Some(hi))
        } else {
            (None, None)
        };
        root.push(accessor(
            view,
            values.len() / width,
            ComponentType::F32,
            type_,
            min,
            max,
        ))
    }

    /// Unsigned 32-bit scalars (triangle indices).
    pub fn push_u32(
        &mut self,
        root: &mut Root,
        values: &[u32],
        target: Option<Target>,
    ) -> Index<json::Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(root, &bytes, target);
        root.push(accessor(
            view,
            values.len(),
            ComponentType::U32,
            Type::Scalar,
            None,
            None,
        ))
    }

    /// Unsigned 16-bit data (joint indices).
    pub fn push_u16(
        &mut self,
        root: &mut Root,
        values: &[u16],
        type_: Type,
        target: Option<Target>,
    ) -> Index<json::Accessor> {
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let view = self.push_view(root, &bytes, target);
        let count = values.len() / type_.multiplicity();
        root.push(accessor(view, count, ComponentType::U16, type_, None, None))
    }
}

fn accessor(
    view: Index<json::buffer::View>,
    count: usize,
    component: ComponentType,
    type_: Type,
    min: Option<json::Value>,
    max: Option<json::Value>,
) -> json::Accessor {
    json::Accessor {
        buffer_view: Some(view),
        byte_offset: None,
        count: USize64::from(count),
        component_type: Checked::Valid(GenericComponentType(component)),
        extensions: None,
        extras: Default::default(),
        type_: Checked::Valid(type_),
        min,
        max,
        name: None,
        normalized: false,
        sparse: None,
    }
}

/// Per-component minimum and maximum of `width`-wide elements, as JSON arrays. An f32
/// widened to f64 prints exactly, so the validator finds the same values in the data.
pub(super) fn min_max(values: &[f32], width: usize) -> (json::Value, json::Value) {
    let mut lo = vec![f32::INFINITY; width];
    let mut hi = vec![f32::NEG_INFINITY; width];
    for element in values.chunks_exact(width) {
        for (c, v) in element.iter().enumerate() {
            lo[c] = lo[c].min(*v);
            hi[c] = hi[c].max(*v);
        }
    }
    (to_json(&lo), to_json(&hi))
}

pub(super) fn to_json(values: &[f32]) -> json::Value {
    json::Value::Array(
        values
            .iter()
            .map(|v| json::Value::from(f64::from(*v)))
            .collect(),
    )
}
