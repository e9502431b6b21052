//! Two armatures of one rig in one file: the whole scene copied once more under a node
//! `offset` away, each copy's meshes skinned to its own joints, and every animation channel
//! doubled onto the copy (sharing its sampler), as Blender writes a scene with two
//! instances of one character that play the same actions. The copy's node names take
//! `suffix` (Blender's `.001`, or none, as other tools write them).

use super::glb::{Glb, indices, push};
use glam::{Mat4, Vec3};
use serde_json::{Value, json};
use std::collections::HashMap;

/// The file with every scene node copied under a new scene root at `offset`.
pub fn two_armatures(glb: &[u8], offset: Vec3, suffix: &str) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let scene = g.scene();
    let roots = indices(&g.json["scenes"][scene]["nodes"]);
    // Old node -> its copy, for every node under the scene's roots.
    let mut copy_of = HashMap::new();
    let nodes = g.array("nodes");
    let mut stack = roots.clone();
    while let Some(n) = stack.pop() {
        copy_of.insert(n, nodes.len() + copy_of.len());
        stack.extend(indices(&nodes[n]["children"]));
    }
    let mut order: Vec<(usize, usize)> = copy_of.iter().map(|(&a, &b)| (a, b)).collect();
    order.sort_by_key(|&(_, c)| c);
    let skins = copied_skins(&mut g, &copy_of, offset);
    for &(old, _) in &order {
        let mut node = nodes[old].clone();
        if let Some(children) = node.get("children") {
            let new: Vec<usize> = indices(children).iter().map(|c| copy_of[c]).collect();
            node["children"] = json!(new);
        }
        if let Some(s) = node["skin"].as_u64() {
            node["skin"] = json!(skins[s as usize]);
        }
        if let Some(name) = node["name"].as_str() {
            node["name"] = json!(format!("{name}{suffix}"));
        }
        push(&mut g.json, "nodes", node);
    }
    let copies: Vec<usize> = roots.iter().map(|r| copy_of[r]).collect();
    let holder = push(
        &mut g.json,
        "nodes",
        json!({"name": "SecondCopy", "translation": offset.to_array(), "children": copies}),
    );
    g.json["scenes"][scene]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(holder));
    double_channels(&mut g.json, &copy_of);
    g.to_bytes()
}

/// A copy of every skin over the copied joints; its inverse bind matrices take the copy's
/// place into account (they map world space to each joint). Returns each old skin's copy.
fn copied_skins(g: &mut Glb, copy_of: &HashMap<usize, usize>, offset: Vec3) -> Vec<usize> {
    let shift = Mat4::from_translation(-offset);
    let mut out = Vec::new();
    for skin in g.array("skins") {
        let mut new = skin.clone();
        let joints: Vec<usize> = indices(&skin["joints"])
            .iter()
            .map(|j| copy_of[j])
            .collect();
        new["joints"] = json!(joints);
        if let Some(s) = skin["skeleton"].as_u64() {
            new["skeleton"] = json!(copy_of[&(s as usize)]);
        }
        if let Some(a) = skin["inverseBindMatrices"].as_u64() {
            let moved: Vec<Vec<f32>> = g
                .read_floats(a as usize)
                .iter()
                .map(|m| (Mat4::from_cols_slice(m) * shift).to_cols_array().to_vec())
                .collect();
            new["inverseBindMatrices"] = json!(g.push_floats("MAT4", &moved));
        }
        out.push(push(&mut g.json, "skins", new));
    }
    out
}

/// Every channel on a copied node gets a twin on the copy, with the same sampler.
fn double_channels(doc: &mut Value, copy_of: &HashMap<usize, usize>) {
    let Some(animations) = doc["animations"].as_array_mut() else {
        return;
    };
    for anim in animations {
        let channels = anim["channels"].as_array().cloned().unwrap_or_default();
        let twins: Vec<Value> = channels
            .iter()
            .filter_map(|c| {
                let node = c["target"]["node"].as_u64()? as usize;
                let mut twin = c.clone();
                twin["target"]["node"] = json!(copy_of.get(&node)?);
                Some(twin)
            })
            .collect();
        anim["channels"].as_array_mut().unwrap().extend(twins);
    }
}
