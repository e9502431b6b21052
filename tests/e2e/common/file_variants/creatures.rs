//! Variants of any skinned GLB for rigs that are not humanoids: the same creature
//! under one more scene node, with a bone split in several, a chain (a tail) shortened, or
//! limbs lengthened. Joints are picked by node index (see `node_edit::joint_named` to find
//! them by name), never by a rig's fixed indices. Every original joint keeps its world
//! motion, except where a variant says what it changes; inverse binds follow the new rest
//! pose so bind and rest agree as before.

use super::anim::{Key, map_keys_affine};
use super::glb::{Glb, indices, push};
use super::gltf_variants::below_any;
use super::node_edit::{
    add_to_skin, ibms_of, into_parent, node_name, rebind_scaled, remove_nodes, root_joints,
    subtree, worlds,
};
use glam::{Mat4, Vec3};
use serde_json::json;
use std::collections::{HashMap, HashSet};

/// The scene's roots wrapped in one more node, `Extra`, with no transform: the joints and
/// the motion are unchanged, only the hierarchy above the skeleton is one node deeper. A
/// skinned mesh node that is a root stays one (the glTF spec's advice: parent transforms do
/// not move a skinned mesh).
pub fn extra_root_node(glb: &[u8]) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let scene = g.scene();
    let skinned = g.skinned_mesh_nodes();
    let (meshes, wrapped): (Vec<usize>, Vec<usize>) = indices(&g.json["scenes"][scene]["nodes"])
        .into_iter()
        .partition(|n| skinned.contains(n));
    let top = push(
        &mut g.json,
        "nodes",
        json!({"name": "Extra", "children": wrapped}),
    );
    let roots: Vec<usize> = std::iter::once(top).chain(meshes).collect();
    g.json["scenes"][scene]["nodes"] = json!(roots);
    g.to_bytes()
}

/// The bone from `joint` to its children split into `parts` bones: `parts - 1` new joints
/// `<name>_split1…` are chained below `joint`, evenly along the offset to its joint children
/// (their mean when it has several, else to its other children), with no turn and no
/// scale, and every former child hangs from the last with its offset (rest and keys) made
/// shorter by as much, so every original node keeps its world transform in every frame. The
/// new joints join each skin that holds `joint`, with the inverse binds of where they sit,
/// and carry no weights.
pub fn split_bone(glb: &[u8], joint: usize, parts: usize) -> Vec<u8> {
    assert!(parts >= 2, "split into at least 2 parts");
    let mut g = Glb::parse(glb);
    let children = indices(&g.json["nodes"][joint]["children"]);
    let skin_joints: HashSet<usize> = g.skin_joints().into_iter().collect();
    let mut toward: Vec<usize> = children
        .iter()
        .copied()
        .filter(|c| skin_joints.contains(c))
        .collect();
    if toward.is_empty() {
        toward = children.clone();
    }
    assert!(!toward.is_empty(), "{} has no child", node_name(&g, joint));
    let d = toward.iter().map(|&c| g.node_trs(c).0).sum::<Vec3>() / toward.len() as f32;
    let step = d / parts as f32;
    let name = node_name(&g, joint);
    let before = g.world(joint);
    let mut parent = joint;
    let mut new = Vec::new();
    for k in 1..parts {
        let n = push(
            &mut g.json,
            "nodes",
            json!({"name": format!("{name}_split{k}"), "translation": step.to_array()}),
        );
        g.json["nodes"][parent]["children"] = json!([n]);
        let ibm_of_joint = Mat4::from_translation(-step * k as f32);
        new.push((n, ibm_of_joint));
        parent = n;
    }
    g.json["nodes"][parent]["children"] = json!(children);
    let shift = step * (parts - 1) as f32;
    for &c in &children {
        let (t, r, s) = g.node_trs(c);
        g.set_node_trs(c, (t - shift, r, s));
    }
    map_keys_affine(&mut g, |n, key, tangent| match key {
        Key::T(t) if children.contains(&n) && !tangent => Key::T(t - shift),
        other => other,
    });
    debug_assert!(g.world(joint).abs_diff_eq(before, 1e-5));
    // IBM of a new joint = T(-k·step)·IBM_joint (its world is W_joint·T(k·step)).
    for s in 0..g.array("skins").len() {
        let joints = indices(&g.json["skins"][s]["joints"]);
        let Some(slot) = joints.iter().position(|&j| j == joint) else {
            continue;
        };
        let ibm = ibms_of(&g, s)[slot];
        let with: Vec<(usize, Mat4)> = new.iter().map(|&(n, t)| (n, t * ibm)).collect();
        add_to_skin(&mut g, s, &with);
    }
    g.to_bytes()
}

/// The single-child chain from `first`: `first`, its only joint child, that one's, … while
/// a joint has exactly one joint child.
pub fn chain_from(g: &Glb, first: usize) -> Vec<usize> {
    let joints: HashSet<usize> = g.skin_joints().into_iter().collect();
    let mut chain = vec![first];
    loop {
        let kids: Vec<usize> = indices(&g.json["nodes"][*chain.last().unwrap()]["children"])
            .into_iter()
            .filter(|c| joints.contains(c))
            .collect();
        match kids[..] {
            [only] => chain.push(only),
            _ => return chain,
        }
    }
}

/// A chain (a tail) shortened: of the single-child chain from `first_joint` (`chain_from`)
/// the first `keep` joints stay and the rest of the chain, with everything below, is
/// removed: their weights go to the last kept joint, their channels are dropped. The
/// offsets below `first_joint` that stay (kept joints and their other children) are scaled
/// by `scale`, at rest and in every key; `first_joint` itself stays where it was.
pub fn shorten_chain(glb: &[u8], first_joint: usize, keep: usize, scale: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let chain = chain_from(&g, first_joint);
    assert!(
        (1..chain.len()).contains(&keep),
        "keep {keep} of a chain of {}",
        chain.len()
    );
    let last = chain[keep - 1];
    let drop: HashSet<usize> = subtree(&g, chain[keep]).into_iter().collect();
    let skinned: Vec<usize> = g.skinned_mesh_nodes();
    assert!(
        !skinned.iter().any(|n| drop.contains(n)),
        "a skinned mesh hangs below the dropped joints"
    );
    let scaled: HashSet<usize> = subtree(&g, first_joint)
        .into_iter()
        .filter(|&n| n != first_joint && !drop.contains(&n) && !skinned.contains(&n))
        .collect();
    for &n in &scaled {
        let (t, r, s) = g.node_trs(n);
        g.set_node_trs(n, (t * scale, r, s));
    }
    map_keys_affine(&mut g, |n, key, _| match key {
        Key::T(t) if scaled.contains(&n) => Key::T(t * scale),
        other => other,
    });
    rebind_scaled(
        &mut g,
        |j| if scaled.contains(&j) { scale } else { 1.0 },
        |_| Mat4::IDENTITY,
    );
    let kids: Vec<usize> = indices(&g.json["nodes"][last]["children"])
        .into_iter()
        .filter(|c| !drop.contains(c))
        .collect();
    if kids.is_empty() {
        g.json["nodes"][last]
            .as_object_mut()
            .unwrap()
            .remove("children");
    } else {
        g.json["nodes"][last]["children"] = json!(kids);
    }
    remove_nodes(&mut g, &drop, |_| last);
    g.to_bytes()
}

/// Limbs lengthened on any rig: every node strictly below one of `tops` has its offset
/// (rest translation and translation keys) times `factor`, so each limb bone below a top is
/// `factor` times longer. Then each root joint is raised (rest and keys) so that the lowest
/// joint of the limbs in the rest pose is as high as before (feet stay on the floor), and
/// the inverse binds follow the new rest pose. The rest of the body keeps its shape
/// relative to the root.
pub fn longer_limbs(glb: &[u8], tops: &[usize], factor: f32) -> Vec<u8> {
    assert!(!tops.is_empty(), "no limb tops");
    let mut g = Glb::parse(glb);
    let below = below_any(&g, tops);
    let skinned = g.skinned_mesh_nodes();
    let before = worlds(&g);
    for (n, &is_below) in below.iter().enumerate() {
        if is_below && !skinned.contains(&n) {
            let (t, r, s) = g.node_trs(n);
            g.set_node_trs(n, (t * factor, r, s));
        }
    }
    let limbs: Vec<usize> = g
        .skin_joints()
        .into_iter()
        .filter(|&j| below[j] || tops.contains(&j))
        .collect();
    let lowest = |w: &[Mat4]| {
        limbs
            .iter()
            .map(|&j| w[j].w_axis.y)
            .fold(f32::INFINITY, f32::min)
    };
    let raise = lowest(&before) - lowest(&worlds(&g));
    let parents = g.parents();
    let roots = root_joints(&g);
    let lift: Vec<Option<Vec3>> = (0..g.node_count())
        .map(|n| {
            roots
                .contains(&n)
                .then(|| into_parent(&before, parents[n], Vec3::Y * raise))
        })
        .collect();
    let mut change = HashMap::new();
    for &r in &roots {
        let (t, q, s) = g.node_trs(r);
        let old = Mat4::from_scale_rotation_translation(s, q, t);
        g.set_node_trs(r, (t + lift[r].unwrap(), q, s));
        change.insert(
            r,
            old.inverse() * Mat4::from_translation(lift[r].unwrap()) * old,
        );
    }
    map_keys_affine(&mut g, |n, key, tangent| match key {
        Key::T(t) if below[n] => Key::T(t * factor),
        Key::T(t) if lift[n].is_some() && !tangent => Key::T(t + lift[n].unwrap()),
        other => other,
    });
    rebind_scaled(
        &mut g,
        |j| if below[j] { factor } else { 1.0 },
        |j| change.get(&j).copied().unwrap_or(Mat4::IDENTITY),
    );
    g.to_bytes()
}
