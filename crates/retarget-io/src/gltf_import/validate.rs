//! The whole glTF document checked before the `gltf` crate's readers touch it. The crate
//! unwraps, indexes and asserts on what its own validation leaves unchecked (an animation
//! channel's target, a POSITION accessor index inside that validation, accessor types per
//! target path, counts, byte ranges), so a lying file would panic it. Here every such case
//! becomes an [`Invalid`] in words.

use gltf::accessor::{DataType as T, Dimensions as D};
use gltf::animation::Property;
use gltf::json::validation::{Checked, Validate};

/// What is wrong with a glTF document or its GLB container.
#[derive(Debug, thiserror::Error)]
pub enum Invalid {
    #[error("the file is truncated: {0}")]
    Truncated(String),
    #[error("the GLB container is broken: {0}")]
    Container(String),
    /// The `gltf` crate's own schema validation, its JSON path and the problem.
    #[error("{}", schema_text(.0))]
    Schema(Vec<(String, &'static str)>),
    #[error("{what}: index {index} is out of range (the file has {len} {items})")]
    OutOfRange {
        what: String,
        index: usize,
        len: usize,
        items: &'static str,
    },
    #[error("{what}: accessor {accessor} holds {found}; {expected} is needed")]
    AccessorType {
        what: String,
        accessor: usize,
        found: String,
        expected: &'static str,
    },
    #[error("{what}: {reason}")]
    Data { what: String, reason: String },
}

fn schema_text(errors: &[(String, &'static str)]) -> String {
    let shown: Vec<String> = errors
        .iter()
        .take(3)
        .map(|(at, problem)| format!("{at} {problem}"))
        .collect();
    let more = match errors.len() {
        0..=3 => String::new(),
        n => format!(" (and {} more)", n - 3),
    };
    format!(
        "the document breaks the glTF schema: {}{more}",
        shown.join("; ")
    )
}

fn data(what: impl Into<String>, reason: impl Into<String>) -> Invalid {
    Invalid::Data {
        what: what.into(),
        reason: reason.into(),
    }
}

const HEADER: usize = 12;
const CHUNK_HEADER: usize = 8;

fn u32_at(bytes: &[u8], at: usize) -> Option<usize> {
    let b = bytes.get(at..at + 4)?;
    Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
}

/// The GLB header and chunk lengths agree with the file (the crate subtracts without
/// checking), said in words where the crate would say `Length { .. }`.
pub fn check_container(bytes: &[u8]) -> Result<(), Invalid> {
    let (Some(version), Some(total)) = (u32_at(bytes, 4), u32_at(bytes, 8)) else {
        return Err(Invalid::Truncated(format!(
            "a GLB starts with a {HEADER}-byte header, the file has {} bytes",
            bytes.len()
        )));
    };
    if version != 2 {
        return Err(Invalid::Container(format!(
            "GLB version {version}; only version 2 is read"
        )));
    }
    if total < HEADER + CHUNK_HEADER {
        return Err(Invalid::Container(format!(
            "the header gives a length of {total} bytes, too short for a header and a chunk"
        )));
    }
    if total > bytes.len() {
        return Err(Invalid::Truncated(format!(
            "the header says {total} bytes, only {} read",
            bytes.len()
        )));
    }
    let body = &bytes[..total];
    let mut at = HEADER;
    for (index, expected) in [(0, *b"JSON"), (1, *b"BIN\0")] {
        if index == 1 && at == body.len() {
            break;
        }
        let (Some(length), Some(kind)) = (u32_at(body, at), body.get(at + 4..at + 8)) else {
            return Err(Invalid::Truncated(format!(
                "chunk {index}'s header does not fit in the {total} bytes the header gives"
            )));
        };
        if kind != expected {
            return Err(Invalid::Container(format!(
                "chunk {index} is of type {:?}, expected {:?}",
                String::from_utf8_lossy(kind),
                String::from_utf8_lossy(&expected)
            )));
        }
        let end = at + CHUNK_HEADER + length;
        if end > body.len() {
            return Err(Invalid::Truncated(format!(
                "chunk {index} says {length} bytes, only {} left in the file",
                body.len() - at - CHUNK_HEADER
            )));
        }
        at = end;
    }
    Ok(())
}

/// The JSON text of a glTF or GLB file (its JSON chunk), once [`check_container`] passed.
pub fn json_text(bytes: &[u8]) -> &[u8] {
    if !bytes.starts_with(b"glTF") {
        return bytes;
    }
    let len = u32_at(bytes, HEADER).unwrap_or(0);
    bytes
        .get(HEADER + CHUNK_HEADER..HEADER + CHUNK_HEADER + len)
        .unwrap_or_default()
}

/// Every number fits an `f32`: the crate reads factors, weights and transforms as `f32`, so
/// `1e39` becomes infinity, which an exporter would write back as `null`.
pub fn check_numbers(json: &[u8]) -> Result<(), Invalid> {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(json) else {
        // The crate's parse reports what is wrong with the text.
        return Ok(());
    };
    match out_of_range(&value) {
        Some((at, n)) => Err(data(
            format!("the number {n} at {at}"),
            "it is beyond the range of a 32-bit float",
        )),
        None => Ok(()),
    }
}

fn out_of_range(v: &serde_json::Value) -> Option<(String, f64)> {
    use serde_json::Value;
    let here = |key: &dyn std::fmt::Display, inner: Option<(String, f64)>| {
        inner.map(|(at, n)| match at.is_empty() {
            true => (key.to_string(), n),
            false => (format!("{key}/{at}"), n),
        })
    };
    match v {
        Value::Number(n) => n
            .as_f64()
            .filter(|&f| !(f as f32).is_finite())
            .map(|f| (String::new(), f)),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, x)| here(&i, out_of_range(x))),
        Value::Object(map) => map.iter().find_map(|(k, x)| here(k, out_of_range(x))),
        _ => None,
    }
}

/// Everything that can be checked before the buffers are read: indices the crate's own
/// validation would follow unchecked, that validation, then what it leaves out.
pub fn check_document(root: &gltf::json::Root) -> Result<(), Invalid> {
    check_position_indices(root)?;
    let mut errors = Vec::new();
    root.validate(root, gltf::json::Path::new, &mut |path, error| {
        errors.push((path().to_string(), words(&error)));
    });
    if !errors.is_empty() {
        return Err(Invalid::Schema(errors));
    }
    check_channel_targets(root)?;
    check_image_sources(root)?;
    // A scene without nodes is an empty scene (glTF leaves `nodes` out then; the reader
    // gives it an empty list, which the crate writes back without the field).
    Ok(())
}

/// The crate unwraps an image's `mimeType` when it has a `bufferView`, and its `uri` when
/// it has none; glTF requires both.
fn check_image_sources(root: &gltf::json::Root) -> Result<(), Invalid> {
    for (i, image) in root.images.iter().enumerate() {
        let problem = match (&image.buffer_view, &image.uri, &image.mime_type) {
            (Some(_), _, None) => "it is stored in a buffer view but has no mimeType",
            (None, None, _) => "it has neither a uri nor a bufferView",
            _ => continue,
        };
        return Err(data(format!("image {i}"), problem));
    }
    Ok(())
}

fn words(error: &gltf::json::validation::Error) -> &'static str {
    use gltf::json::validation::Error as E;
    match error {
        E::IndexOutOfBounds => "is an index past the end of its list",
        E::Invalid => "has a value glTF does not allow",
        E::Missing => "is missing",
        E::Oversize => "is too large for this machine",
        E::Unsupported => "needs an extension this reader does not support",
    }
}

/// The crate's validation indexes the accessor list with every POSITION attribute.
fn check_position_indices(root: &gltf::json::Root) -> Result<(), Invalid> {
    for (m, mesh) in root.meshes.iter().enumerate() {
        for (p, prim) in mesh.primitives.iter().enumerate() {
            let position = Checked::Valid(gltf::json::mesh::Semantic::Positions);
            if let Some(index) = prim.attributes.get(&position)
                && index.value() >= root.accessors.len()
            {
                return Err(Invalid::OutOfRange {
                    what: format!("mesh {m}, primitive {p}, POSITION"),
                    index: index.value(),
                    len: root.accessors.len(),
                    items: "accessors",
                });
            }
        }
    }
    Ok(())
}

/// The crate's validation of an animation checks its samplers and channel sampler indices,
/// not its channels' targets, which the crate later unwraps.
fn check_channel_targets(root: &gltf::json::Root) -> Result<(), Invalid> {
    for (a, anim) in root.animations.iter().enumerate() {
        for (c, channel) in anim.channels.iter().enumerate() {
            let what = || format!("animation {a}, channel {c}");
            let node = channel.target.node.value();
            if node >= root.nodes.len() {
                return Err(Invalid::OutOfRange {
                    what: format!("{}, target node", what()),
                    index: node,
                    len: root.nodes.len(),
                    items: "nodes",
                });
            }
            if matches!(channel.target.path, Checked::Invalid) {
                return Err(data(
                    what(),
                    "its target path is not translation, rotation, scale or weights",
                ));
            }
        }
    }
    Ok(())
}

/// After [`check_document`]: accessor kinds and counts for animations, skins and sparse
/// storage, which the crate's readers assume (and hit `unreachable!` or an assertion on).
pub fn check_semantics(doc: &gltf::Document) -> Result<(), Invalid> {
    for anim in doc.animations() {
        for channel in anim.channels() {
            check_channel(&anim, &channel)?;
        }
    }
    // A skin may list fewer matrices than joints: the importer keeps the others' binds.
    for skin in doc.skins() {
        if let Some(ibm) = skin.inverse_bind_matrices() {
            let what = format!("skin {} inverse bind matrices", skin.index());
            expect(&ibm, &what, D::Mat4, &[T::F32], "MAT4 of floats")?;
        }
    }
    for acc in doc.accessors() {
        if let Some(sparse) = acc.sparse()
            && sparse.count() > acc.count()
        {
            return Err(data(
                format!("accessor {}", acc.index()),
                format!(
                    "{} sparse values for {} elements",
                    sparse.count(),
                    acc.count()
                ),
            ));
        }
    }
    Ok(())
}

fn check_channel(
    anim: &gltf::Animation,
    channel: &gltf::animation::Channel,
) -> Result<(), Invalid> {
    let what = format!("animation {}, channel {}", anim.index(), channel.index());
    let sampler = channel.sampler();
    let (input, output) = (sampler.input(), sampler.output());
    expect(
        &input,
        &format!("{what}, key times"),
        D::Scalar,
        &[T::F32],
        "SCALAR of floats",
    )?;
    let normalized = [T::F32, T::I8, T::U8, T::I16, T::U16];
    let property = channel.target().property();
    let (dims, types, expected) = match property {
        Property::Translation | Property::Scale => (D::Vec3, &[T::F32][..], "VEC3 of floats"),
        Property::Rotation => (
            D::Vec4,
            &normalized[..],
            "VEC4 of floats or normalized integers",
        ),
        Property::MorphTargetWeights => (
            D::Scalar,
            &normalized[..],
            "SCALAR of floats or normalized integers",
        ),
    };
    expect(&output, &format!("{what}, values"), dims, types, expected)?;
    let per_key = match sampler.interpolation() {
        gltf::animation::Interpolation::CubicSpline => 3,
        _ => 1,
    };
    // Counts are the file's: an empty input would divide by zero below (the zero-count
    // check of [`check_ranges`] comes later), a huge one overflow the product.
    if input.count() == 0 {
        return Err(data(
            format!("{what}, key times"),
            format!("accessor {} has no keys (a count of 0)", input.index()),
        ));
    }
    let Some(keys) = input.count().checked_mul(per_key) else {
        return Err(data(
            format!("{what}, key times"),
            format!("accessor {} claims {} keys", input.index(), input.count()),
        ));
    };
    let agrees = match property {
        Property::MorphTargetWeights => output.count().checked_rem(keys) == Some(0),
        _ => output.count() == keys,
    };
    if !agrees {
        return Err(data(
            what,
            format!(
                "{} key times need {keys} values{}, accessor {} holds {}",
                input.count(),
                if per_key == 3 {
                    " (cubic spline: 3 per key)"
                } else {
                    ""
                },
                output.index(),
                output.count()
            ),
        ));
    }
    Ok(())
}

fn expect(
    acc: &gltf::Accessor,
    what: &str,
    dims: D,
    types: &[T],
    expected: &'static str,
) -> Result<(), Invalid> {
    if acc.dimensions() == dims && types.contains(&acc.data_type()) {
        return Ok(());
    }
    Err(Invalid::AccessorType {
        what: what.to_owned(),
        accessor: acc.index(),
        found: format!("{:?} of {:?}", acc.dimensions(), acc.data_type()),
        expected,
    })
}

/// With the buffers read: every accessor has elements and its bytes lie inside its buffer
/// view and buffer, so that the crate's readers, which slice without checking, cannot panic.
pub fn check_ranges(doc: &gltf::Document, buffers: &[gltf::buffer::Data]) -> Result<(), Invalid> {
    // Only the views accessors read: an image's view is the texture reader's to judge (a
    // bad one leaves the mesh untextured with a warning).
    for acc in doc.accessors() {
        let what = format!("accessor {}", acc.index());
        let sparse = acc.sparse();
        let sparse_views = sparse
            .iter()
            .flat_map(|s| [s.indices().view(), s.values().view()]);
        for view in acc.view().into_iter().chain(sparse_views) {
            check_view(&view, buffers)?;
        }
        // The readers compute `count - 1`.
        if acc.count() == 0 || acc.sparse().is_some_and(|s| s.count() == 0) {
            return Err(data(what, "it has a count of 0; glTF needs at least 1"));
        }
        if let Some(view) = acc.view() {
            let size = acc.size();
            let stride = view.stride().unwrap_or(size);
            if stride < size {
                return Err(data(
                    what,
                    format!(
                        "its {size}-byte elements do not fit buffer view {}'s {stride}-byte stride",
                        view.index()
                    ),
                ));
            }
            let needed = (acc.count() - 1)
                .checked_mul(stride)
                .and_then(|n| n.checked_add(acc.offset() + size));
            if needed.is_none_or(|n| n > view.length()) {
                return Err(data(
                    what,
                    format!(
                        "{} elements of {size} bytes from offset {} do not fit buffer view {}'s \
                         {} bytes",
                        acc.count(),
                        acc.offset(),
                        view.index(),
                        view.length()
                    ),
                ));
            }
        }
    }
    Ok(())
}

fn check_view(view: &gltf::buffer::View, buffers: &[gltf::buffer::Data]) -> Result<(), Invalid> {
    let len = buffers.get(view.buffer().index()).map_or(0, |b| b.0.len());
    let end = view.offset().checked_add(view.length());
    if end.is_none_or(|end| end > len) {
        return Err(data(
            format!("buffer view {}", view.index()),
            format!(
                "it reaches byte {} of a {len}-byte buffer",
                view.offset().saturating_add(view.length())
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
