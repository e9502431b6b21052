//! Animation keys of a GLB rewritten through the same maps as the nodes' own transforms, so a
//! variant moves exactly as the original.

use super::glb::{Glb, push};
use glam::{Quat, Vec3};
use serde_json::json;
use std::collections::HashSet;

/// One key (or, for CUBICSPLINE, one tangent: the maps are linear, so tangents follow).
#[derive(Clone, Copy, Debug)]
pub enum Key {
    T(Vec3),
    R(Quat),
    S(Vec3),
}

/// Rewrites every translation, rotation and scale key of every animation with `f(node, key)`
/// ([`map_keys_affine`], tangents mapped as keys: the maps are linear).
pub fn map_keys(glb: &mut Glb, mut f: impl FnMut(usize, Key) -> Key) {
    map_keys_affine(glb, |node, key, _| f(node, key));
}

/// Rewrites every translation, rotation and scale key with `f(node, key, is_tangent)`, so an
/// affine map can leave CUBICSPLINE tangents without its offset. Samplers shared by several
/// channels are cloned, so each channel is mapped once with its own node.
pub fn map_keys_affine(g: &mut Glb, mut f: impl FnMut(usize, Key, bool) -> Key) {
    for (a, anim) in g.array("animations").iter().enumerate() {
        let samplers = anim["samplers"].as_array().cloned().unwrap_or_default();
        let mut seen = HashSet::new();
        for (c, channel) in anim["channels"].as_array().unwrap().iter().enumerate() {
            let Some(node) = channel["target"]["node"].as_u64().map(|n| n as usize) else {
                continue;
            };
            let path = channel["target"]["path"].as_str().unwrap_or("");
            if !matches!(path, "translation" | "rotation" | "scale") {
                continue;
            }
            let s = channel["sampler"].as_u64().unwrap() as usize;
            let sampler = samplers[s].clone();
            let cubic = sampler["interpolation"].as_str() == Some("CUBICSPLINE");
            let values = g.read_floats(sampler["output"].as_u64().unwrap() as usize);
            let mapped: Vec<Vec<f32>> = values
                .iter()
                .enumerate()
                .map(|(i, v)| map_one(path, v, cubic && i % 3 != 1, node, &mut f))
                .collect();
            let kind = if path == "rotation" { "VEC4" } else { "VEC3" };
            let output = g.push_floats(kind, &mapped);
            let anim_json = &mut g.json["animations"][a];
            if seen.insert(s) {
                anim_json["samplers"][s]["output"] = json!(output);
            } else {
                let mut clone = sampler.clone();
                clone["output"] = json!(output);
                let i = push(anim_json, "samplers", clone);
                anim_json["channels"][c]["sampler"] = json!(i);
            }
        }
    }
}

pub(super) fn map_one(
    path: &str,
    v: &[f32],
    tangent: bool,
    node: usize,
    f: &mut impl FnMut(usize, Key, bool) -> Key,
) -> Vec<f32> {
    let key = match path {
        "translation" => Key::T(Vec3::from_slice(v)),
        "rotation" => Key::R(Quat::from_slice(v)),
        _ => Key::S(Vec3::from_slice(v)),
    };
    match f(node, key, tangent) {
        Key::T(t) | Key::S(t) => t.to_array().to_vec(),
        Key::R(r) if tangent => r.to_array().to_vec(),
        Key::R(r) => r.normalize().to_array().to_vec(),
    }
}

/// Nodes that have a rotation channel in animation `a`.
pub fn rotated_nodes(glb: &Glb, a: usize) -> Vec<usize> {
    channel_nodes(glb, a, "rotation")
}

/// Nodes targeted by a `path` channel of animation `a`.
pub fn channel_nodes(glb: &Glb, a: usize, path: &str) -> Vec<usize> {
    glb.json["animations"][a]["channels"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|c| c["target"]["path"].as_str() == Some(path))
        .filter_map(|c| c["target"]["node"].as_u64().map(|n| n as usize))
        .collect()
}

/// Adds to animation `a` a rotation channel holding `q` at every time of its first sampler,
/// so that a node whose static rotation is changed keeps its old one while this animation
/// plays (as a baked Blender export would).
pub fn add_constant_rotation(glb: &mut Glb, a: usize, node: usize, q: Quat) {
    let input = glb.json["animations"][a]["samplers"][0]["input"]
        .as_u64()
        .expect("an animation with a sampler") as usize;
    let count = glb.json["accessors"][input]["count"].as_u64().unwrap() as usize;
    let output = glb.push_floats("VEC4", &vec![q.to_array().to_vec(); count]);
    let anim = &mut glb.json["animations"][a];
    let s = push(
        anim,
        "samplers",
        json!({
            "input": input, "output": output, "interpolation": "LINEAR"
        }),
    );
    push(
        anim,
        "channels",
        json!({
            "sampler": s, "target": {"node": node, "path": "rotation"}
        }),
    );
}

/// Nodes whose scale is not uniform, statically or in some scale key: their local axes
/// cannot be turned without shearing (a rotation does not commute with such a scale).
pub fn non_uniform_scale_nodes(glb: &Glb) -> Vec<usize> {
    let uneven = |s: Vec3| (s.max_element() / s.min_element() - 1.0).abs() > 1e-3;
    let mut out: Vec<usize> = (0..glb.node_count())
        .filter(|&n| uneven(glb.node_trs(n).2))
        .collect();
    for anim in glb.array("animations") {
        for c in anim["channels"].as_array().into_iter().flatten() {
            if c["target"]["path"].as_str() != Some("scale") {
                continue;
            }
            let s = c["sampler"].as_u64().unwrap() as usize;
            let output = anim["samplers"][s]["output"].as_u64().unwrap() as usize;
            if glb
                .read_floats(output)
                .iter()
                .any(|v| uneven(Vec3::from_slice(v)))
            {
                out.push(c["target"]["node"].as_u64().unwrap() as usize);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
