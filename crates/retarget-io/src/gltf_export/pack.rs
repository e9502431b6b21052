//! Merges every source buffer into the one BIN chunk of a GLB. Buffer views that nothing
//! uses any more (those of dropped animations, of repaired attributes) are left out, so an
//! export does not carry the old clips along as dead weight.

use crate::error::ExportProblem;
use gltf::json::validation::USize64;
use gltf::json::{self, Index, Root};

/// Packs the views of `root` (whose buffer `n` holds `sources[n]`) into one buffer and
/// returns its bytes. With `collect_garbage` off every accessor and view is kept at its
/// index, for files whose extensions may point at them in ways this writer cannot see.
pub(super) fn pack(
    root: &mut Root,
    sources: &[&[u8]],
    collect_garbage: bool,
) -> Result<Vec<u8>, ExportProblem> {
    let used_accessors = if collect_garbage {
        used_accessors(root)
    } else {
        vec![true; root.accessors.len()]
    };
    let used_views = if collect_garbage {
        used_views(root, &used_accessors)
    } else {
        vec![true; root.buffer_views.len()]
    };
    let (bin, views) = copy_views(root, sources, &used_views)?;
    let view_map = index_map(&used_views);
    root.buffer_views = views;
    let accessor_map = index_map(&used_accessors);
    let mut kept = Vec::with_capacity(root.accessors.len());
    for (accessor, used) in root.accessors.drain(..).zip(&used_accessors) {
        if *used {
            kept.push(accessor);
        }
    }
    root.accessors = kept;
    visit_view_refs(root, |v| remap(v, &view_map));
    visit_accessor_refs(root, |a| remap(a, &accessor_map));
    root.buffers = if bin.is_empty() {
        Vec::new()
    } else {
        vec![json::Buffer {
            byte_length: USize64::from(bin.len()),
            name: None,
            uri: None,
            extensions: None,
            extras: Default::default(),
        }]
    };
    Ok(bin)
}

/// Copies each used view's bytes into the new buffer. A view starts on a 4-byte boundary
/// plus its old offset's remainder, so accessors inside it keep the alignment they had.
fn copy_views(
    root: &Root,
    sources: &[&[u8]],
    used: &[bool],
) -> Result<(Vec<u8>, Vec<json::buffer::View>), ExportProblem> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    for (i, (view, _)) in root
        .buffer_views
        .iter()
        .zip(used)
        .enumerate()
        .filter(|(_, (_, u))| **u)
    {
        let source = sources.get(view.buffer.value()).ok_or_else(|| {
            ExportProblem::Invalid(format!(
                "buffer view {i} names a buffer that does not exist"
            ))
        })?;
        let offset = view.byte_offset.map_or(0, |o| o.0) as usize;
        let end = offset.checked_add(view.byte_length.0 as usize);
        let bytes = end.and_then(|end| source.get(offset..end)).ok_or_else(|| {
            ExportProblem::Invalid(format!(
                "buffer view {i} reaches past the end of its {}-byte buffer",
                source.len()
            ))
        })?;
        let start = bin.len().next_multiple_of(4) + offset % 4;
        bin.resize(start, 0);
        bin.extend_from_slice(bytes);
        let mut view = view.clone();
        view.buffer = Index::new(0);
        view.byte_offset = (start > 0).then(|| USize64::from(start));
        views.push(view);
    }
    bin.resize(bin.len().next_multiple_of(4), 0);
    Ok((bin, views))
}

/// Accessors that meshes, skins and animations refer to.
fn used_accessors(root: &mut Root) -> Vec<bool> {
    let mut used = vec![false; root.accessors.len()];
    visit_accessor_refs(root, |a| {
        if let Some(u) = used.get_mut(a.value()) {
            *u = true;
        }
    });
    used
}

/// Views that used accessors (and their sparse parts) and images refer to.
fn used_views(root: &Root, used_accessors: &[bool]) -> Vec<bool> {
    let mut used = vec![false; root.buffer_views.len()];
    let mut mark = |v: &Index<json::buffer::View>| {
        if let Some(u) = used.get_mut(v.value()) {
            *u = true;
        }
    };
    for (accessor, _) in root
        .accessors
        .iter()
        .zip(used_accessors)
        .filter(|(_, u)| **u)
    {
        if let Some(v) = &accessor.buffer_view {
            mark(v);
        }
        if let Some(sparse) = &accessor.sparse {
            mark(&sparse.indices.buffer_view);
            mark(&sparse.values.buffer_view);
        }
    }
    for image in &root.images {
        if let Some(v) = &image.buffer_view {
            mark(v);
        }
    }
    used
}

/// Calls `f` on every accessor index held by meshes, skins and animations.
fn visit_accessor_refs(root: &mut Root, mut f: impl FnMut(&mut Index<json::Accessor>)) {
    for primitive in root.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut()) {
        primitive.attributes.values_mut().for_each(&mut f);
        if let Some(i) = &mut primitive.indices {
            f(i);
        }
        for target in primitive.targets.iter_mut().flatten() {
            let parts = [
                &mut target.positions,
                &mut target.normals,
                &mut target.tangents,
            ];
            parts.into_iter().flatten().for_each(&mut f);
        }
    }
    for skin in &mut root.skins {
        if let Some(i) = &mut skin.inverse_bind_matrices {
            f(i);
        }
    }
    for sampler in root
        .animations
        .iter_mut()
        .flat_map(|a| a.samplers.iter_mut())
    {
        f(&mut sampler.input);
        f(&mut sampler.output);
    }
}

/// Calls `f` on every buffer view index held by accessors and images.
fn visit_view_refs(root: &mut Root, mut f: impl FnMut(&mut Index<json::buffer::View>)) {
    for accessor in &mut root.accessors {
        if let Some(v) = &mut accessor.buffer_view {
            f(v);
        }
        if let Some(sparse) = &mut accessor.sparse {
            f(&mut sparse.indices.buffer_view);
            f(&mut sparse.values.buffer_view);
        }
    }
    for image in &mut root.images {
        if let Some(v) = &mut image.buffer_view {
            f(v);
        }
    }
}

/// New index of each kept item (`None` for dropped ones).
fn index_map(used: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    used.iter()
        .map(|&u| {
            u.then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

fn remap<T>(index: &mut Index<T>, map: &[Option<u32>]) {
    if let Some(Some(new)) = map.get(index.value()) {
        *index = Index::new(*new);
    }
}
