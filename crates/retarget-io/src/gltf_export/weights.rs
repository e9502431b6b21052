//! A clip's curves as glTF `weights` channels: each curve moves the morph targets its
//! target weight binds (a morph target of that name, or a VRM expression's binds), summed
//! per mesh node and keyed at the curves' own key times. Morphs no curve moves keep the
//! mesh's default weights (a `weights` channel sets every morph of its node).

use crate::asset::Asset;
use retarget_core::Clip;
use std::collections::BTreeMap;

/// One `weights` channel: `values` holds one weight per morph of the node's mesh per key.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MorphChannel {
    pub node: u32,
    pub times: Vec<f32>,
    pub values: Vec<f32>,
}

/// What moves one morph: a curve (its index in the clip), the morph, the bind's weight.
type Drive = (usize, usize, f32);

/// The channels `clip`'s curves make on `target`'s mesh nodes (curves naming no weight of
/// the target make none: the session has said so).
pub(super) fn morph_channels(clip: &Clip, target: &Asset) -> Vec<MorphChannel> {
    morph_channels_on(clip, target, |b| b.node)
}

/// As `morph_channels`, with the node of each bind's mesh given by `node_of` (a GLB whose
/// meshes the writer made itself).
pub(super) fn morph_channels_on(
    clip: &Clip,
    target: &Asset,
    node_of: impl Fn(&crate::asset::MorphBind) -> Option<usize>,
) -> Vec<MorphChannel> {
    // Per node: its mesh and what moves it (curve, morph, weight).
    let mut nodes: BTreeMap<usize, (usize, Vec<Drive>)> = BTreeMap::new();
    for (c, curve) in clip.curves().iter().enumerate() {
        let Some(t) = target.curve_targets.iter().find(|t| t.name == curve.name) else {
            continue;
        };
        for b in &t.binds {
            if let Some(node) = node_of(b) {
                let entry = nodes.entry(node).or_insert((b.mesh, Vec::new()));
                entry.1.push((c, b.morph, b.weight));
            }
        }
    }
    let mut out = Vec::new();
    for (node, (mesh, drives)) in nodes {
        let Some(m) = target.meshes.get(mesh) else {
            continue;
        };
        let count = m
            .primitives
            .iter()
            .map(|p| p.morphs.len())
            .max()
            .unwrap_or(0)
            .max(m.morph_weights.len());
        if count == 0 || drives.iter().any(|&(_, morph, _)| morph >= count) {
            continue;
        }
        let mut times: Vec<f32> = drives
            .iter()
            .flat_map(|&(c, _, _)| clip.curves()[c].track.times().iter().copied())
            .collect();
        times.sort_by(f32::total_cmp);
        times.dedup_by(|b, a| (*b - *a).abs() < 1e-6);
        let mut values = Vec::with_capacity(times.len() * count);
        for &t in &times {
            let mut weights: Vec<f32> = (0..count)
                .map(|k| m.morph_weights.get(k).copied().unwrap_or(0.0))
                .collect();
            let mut moved = vec![false; count];
            for &(c, morph, weight) in &drives {
                if !moved[morph] {
                    (weights[morph], moved[morph]) = (0.0, true);
                }
                weights[morph] += weight * clip.curves()[c].sample(t);
            }
            values.extend(weights);
        }
        out.push(MorphChannel {
            node: node as u32,
            times,
            values,
        });
    }
    out
}
