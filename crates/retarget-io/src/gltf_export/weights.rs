//! A clip's curves as glTF `weights` channels: each curve moves the morph targets its
//! target weight binds (a morph target of that name, or a VRM expression's binds), summed
//! per mesh node and keyed at the curves' own key times. Morphs no curve moves keep the
//! mesh's default weights (a `weights` channel sets every morph of its node).

use crate::asset::Asset;
use crate::morph_weights::morph_tracks;
use retarget_core::Clip;

/// One `weights` channel: `values` holds one weight per morph of the node's mesh per key.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct MorphChannel {
    pub node: u32,
    pub times: Vec<f32>,
    pub values: Vec<f32>,
}

/// The channels `clip`'s curves make on `target`'s mesh nodes (curves naming no weight of
/// the target make none: the session has said so).
pub(super) fn morph_channels(clip: &Clip, target: &Asset) -> Vec<MorphChannel> {
    morph_channels_on(clip, target, |mesh| {
        target
            .curve_targets
            .iter()
            .flat_map(|t| &t.binds)
            .find(|b| b.mesh == mesh)
            .and_then(|b| b.node)
    })
}

/// As `morph_channels`, with the node drawing each mesh (an index into `Asset::meshes`)
/// given by `node_of` (a GLB whose meshes the writer made itself).
pub(super) fn morph_channels_on(
    clip: &Clip,
    target: &Asset,
    node_of: impl Fn(usize) -> Option<usize>,
) -> Vec<MorphChannel> {
    morph_tracks(target, clip.curves())
        .into_iter()
        .filter_map(|t| {
            Some(MorphChannel {
                node: node_of(t.mesh)? as u32,
                times: t.times,
                values: t.weights,
            })
        })
        .collect()
}
