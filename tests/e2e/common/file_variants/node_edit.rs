//! Edits of a GLB's node graph shared by the creature variants: finding joints by name,
//! node worlds, affine maps of animation keys (tangents included), inverse binds moved with
//! the rest pose, and removing nodes with their skin slots, weights and channels.

use super::anim::{Key, map_one};
use super::glb::{Glb, indices, push};
use super::labels::strip_vrm;
use glam::{Mat4, Vec3, Vec4};
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};

/// A node's name, or `node_<index>` when it has none.
pub fn node_name(g: &Glb, n: usize) -> String {
    g.json["nodes"][n]["name"]
        .as_str()
        .map_or_else(|| format!("node_{n}"), str::to_owned)
}

/// Skin joints whose name satisfies `pred`, in node order.
pub fn joints_named(g: &Glb, pred: impl Fn(&str) -> bool) -> Vec<usize> {
    g.skin_joints()
        .into_iter()
        .filter(|&j| pred(&node_name(g, j)))
        .collect()
}

/// The first skin joint whose name satisfies `pred`; panics with `what` when there is none.
pub fn joint_named(g: &Glb, what: &str, pred: impl Fn(&str) -> bool) -> usize {
    *joints_named(g, pred)
        .first()
        .unwrap_or_else(|| panic!("no joint named like {what}"))
}

/// Every node's world matrix.
pub fn worlds(g: &Glb) -> Vec<Mat4> {
    (0..g.node_count()).map(|n| g.world(n)).collect()
}

/// `n` and every node below it, parents first.
pub fn subtree(g: &Glb, n: usize) -> Vec<usize> {
    let mut out = vec![n];
    let mut at = 0;
    while at < out.len() {
        out.extend(indices(&g.json["nodes"][out[at]]["children"]));
        at += 1;
    }
    out
}

/// Skin joints that have no skin joint above them (the skeleton's roots).
pub fn root_joints(g: &Glb) -> Vec<usize> {
    let joints: HashSet<usize> = g.skin_joints().into_iter().collect();
    let parents = g.parents();
    let mut roots: Vec<usize> = joints
        .iter()
        .copied()
        .filter(|&j| {
            let mut at = parents[j];
            while let Some(p) = at {
                if joints.contains(&p) {
                    return false;
                }
                at = parents[p];
            }
            true
        })
        .collect();
    roots.sort_unstable();
    roots
}

/// Adds a channel on `to` for every channel on `from`, each with its own sampler: the same
/// input, and the same output (`map` is `None`) or the output mapped key by key.
pub fn copy_channels(g: &mut Glb, from: usize, to: usize, map: Option<&dyn Fn(Key, bool) -> Key>) {
    for (a, anim) in g.array("animations").iter().enumerate() {
        let samplers = anim["samplers"].as_array().cloned().unwrap_or_default();
        for channel in anim["channels"].as_array().into_iter().flatten() {
            if channel["target"]["node"].as_u64() != Some(from as u64) {
                continue;
            }
            let path = channel["target"]["path"].as_str().unwrap_or("").to_owned();
            let mut sampler = samplers[channel["sampler"].as_u64().unwrap() as usize].clone();
            if let (Some(f), "translation" | "rotation" | "scale") = (map, path.as_str()) {
                let cubic = sampler["interpolation"].as_str() == Some("CUBICSPLINE");
                let values = g.read_floats(sampler["output"].as_u64().unwrap() as usize);
                let mut g2 = |_: usize, k: Key, t: bool| f(k, t);
                let mapped: Vec<Vec<f32>> = values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| map_one(&path, v, cubic && i % 3 != 1, to, &mut g2))
                    .collect();
                let kind = if path == "rotation" { "VEC4" } else { "VEC3" };
                sampler["output"] = json!(g.push_floats(kind, &mapped));
            }
            let anim_json = &mut g.json["animations"][a];
            let s = push(anim_json, "samplers", sampler);
            push(
                anim_json,
                "channels",
                json!({"sampler": s, "target": {"node": to, "path": path}}),
            );
        }
    }
}

/// Inverse bind matrices that follow offsets scaled in the rest pose, keeping whatever
/// turns the bind pose has against the rest pose: each joint's bind offset from its nearest
/// joint ancestor is scaled by `scale(joint)`, and each skin root's bind is right-multiplied
/// by `root(joint)` (the change of its local transform), its joints following.
pub fn rebind_scaled(g: &mut Glb, scale: impl Fn(usize) -> f32, root: impl Fn(usize) -> Mat4) {
    let parents = g.parents();
    g.map_skins(|_, joints, ibms| {
        let binds = rebound(joints, ibms, &parents, &scale, &root);
        binds.into_iter().map(affine).collect()
    });
}

/// A skin's inverse binds with each joint's bind offset from its nearest joint ancestor
/// scaled by `scale(joint)` and each skin root's bind right-multiplied by `root(joint)`, the
/// joints below following. A joint whose offset and ancestor are unchanged keeps its bind to
/// the bit.
pub fn rebound(
    joints: &[usize],
    ibms: &[Mat4],
    parents: &[Option<usize>],
    scale: impl Fn(usize) -> f32,
    root: impl Fn(usize) -> Mat4,
) -> Vec<Mat4> {
    let old: HashMap<usize, Mat4> = joints
        .iter()
        .zip(ibms)
        .map(|(&j, m)| (j, m.inverse()))
        .collect();
    let joint_parent = |mut n: usize| {
        while let Some(p) = parents[n] {
            if old.contains_key(&p) {
                return Some(p);
            }
            n = p;
        }
        None
    };
    let depth = |mut n: usize| std::iter::from_fn(|| parents[n].inspect(|&p| n = p)).count();
    let mut order = joints.to_vec();
    order.sort_by_key(|&j| depth(j));
    let mut new: HashMap<usize, Mat4> = HashMap::new();
    for j in order {
        let bind = match joint_parent(j) {
            Some(a) if scale(j) == 1.0 && new[&a] == old[&a] => old[&j],
            Some(a) => {
                let mut local = old[&a].inverse() * old[&j];
                local.w_axis = (local.w_axis.truncate() * scale(j)).extend(1.0);
                new[&a] * local
            }
            None => old[&j] * root(j),
        };
        new.insert(j, bind);
    }
    joints.iter().map(|j| new[j].inverse()).collect()
}

/// `m` with its last row exactly (0, 0, 0, 1), as the validator wants of an inverse bind.
pub fn affine(mut m: Mat4) -> Mat4 {
    m.x_axis.w = 0.0;
    m.y_axis.w = 0.0;
    m.z_axis.w = 0.0;
    m.w_axis.w = 1.0;
    m
}

/// Appends joints (node, inverse bind) to skin `s`.
pub fn add_to_skin(g: &mut Glb, s: usize, new: &[(usize, Mat4)]) {
    let mut joints = indices(&g.json["skins"][s]["joints"]);
    let mut ibms = ibms_of(g, s);
    for &(n, ibm) in new {
        joints.push(n);
        ibms.push(ibm);
    }
    set_skin(g, s, &joints, &ibms);
}

/// A skin's inverse bind matrices (identity where it has none).
pub fn ibms_of(g: &Glb, s: usize) -> Vec<Mat4> {
    let skin = &g.json["skins"][s];
    match skin["inverseBindMatrices"].as_u64() {
        Some(a) => g
            .read_floats(a as usize)
            .iter()
            .map(|m| Mat4::from_cols_slice(m))
            .collect(),
        None => vec![Mat4::IDENTITY; indices(&skin["joints"]).len()],
    }
}

fn set_skin(g: &mut Glb, s: usize, joints: &[usize], ibms: &[Mat4]) {
    let data: Vec<Vec<f32>> = ibms
        .iter()
        .map(|m| affine(*m).to_cols_array().to_vec())
        .collect();
    let acc = g.push_floats("MAT4", &data);
    g.json["skins"][s]["joints"] = json!(joints);
    g.json["skins"][s]["inverseBindMatrices"] = json!(acc);
}

/// Removes `drop` (whole subtrees must be given) from the file. Each dropped skin joint's
/// weights go to `heir(joint)`, a kept joint of the same skin, merged with any weight the
/// vertex already gives it; channels on dropped nodes and then unused samplers are removed;
/// every node index is renumbered. VRM extensions, which index nodes, are removed.
pub fn remove_nodes(g: &mut Glb, drop: &HashSet<usize>, heir: impl Fn(usize) -> usize) {
    for s in 0..g.array("skins").len() {
        drop_from_skin(g, s, drop, &heir);
    }
    drop_channels(g, drop);
    let mut new_index = vec![None; g.node_count()];
    let mut next = 0;
    for (n, slot) in new_index.iter_mut().enumerate() {
        if !drop.contains(&n) {
            *slot = Some(next);
            next += 1;
        }
    }
    let remap = |v: &Value| -> Value {
        json!(
            indices(v)
                .into_iter()
                .filter_map(|n| new_index[n])
                .collect::<Vec<_>>()
        )
    };
    let mut nodes = g.array("nodes");
    for n in nodes.iter_mut() {
        if n.get("children").is_some() {
            n["children"] = remap(&n["children"]);
        }
    }
    g.json["nodes"] = Value::Array(
        nodes
            .into_iter()
            .enumerate()
            .filter(|(i, _)| !drop.contains(i))
            .map(|(_, n)| n)
            .collect(),
    );
    for s in 0..g.array("scenes").len() {
        let roots = remap(&g.json["scenes"][s]["nodes"]);
        g.json["scenes"][s]["nodes"] = roots;
    }
    for s in 0..g.array("skins").len() {
        let joints = remap(&g.json["skins"][s]["joints"]);
        g.json["skins"][s]["joints"] = joints;
        if let Some(k) = g.json["skins"][s]["skeleton"].as_u64() {
            g.json["skins"][s]["skeleton"] = json!(new_index[k as usize].expect("kept skeleton"));
        }
    }
    for a in 0..g.array("animations").len() {
        for c in g.json["animations"][a]["channels"]
            .as_array_mut()
            .into_iter()
            .flatten()
        {
            if let Some(n) = c["target"]["node"].as_u64() {
                c["target"]["node"] = json!(new_index[n as usize].unwrap());
            }
        }
    }
    strip_vrm(&mut g.json);
}

/// Takes the dropped joints out of skin `s`: their slots, inverse binds and weights.
fn drop_from_skin(g: &mut Glb, s: usize, drop: &HashSet<usize>, heir: &impl Fn(usize) -> usize) {
    let joints = indices(&g.json["skins"][s]["joints"]);
    if !joints.iter().any(|j| drop.contains(j)) {
        return;
    }
    let ibms = ibms_of(g, s);
    let kept: Vec<usize> = joints
        .iter()
        .copied()
        .filter(|j| !drop.contains(j))
        .collect();
    let slot_of = |n: usize| kept.iter().position(|&k| k == n);
    let new_slot: Vec<u16> = joints
        .iter()
        .map(|&j| {
            let n = if drop.contains(&j) { heir(j) } else { j };
            slot_of(n).unwrap_or_else(|| panic!("heir {n} of {j} is not kept in skin {s}")) as u16
        })
        .collect();
    let kept_ibms: Vec<Mat4> = joints
        .iter()
        .zip(&ibms)
        .filter(|(j, _)| !drop.contains(j))
        .map(|(_, m)| *m)
        .collect();
    set_skin(g, s, &kept, &kept_ibms);
    let meshes: HashSet<usize> = g
        .array("nodes")
        .iter()
        .filter(|n| n["skin"].as_u64() == Some(s as u64))
        .filter_map(|n| n["mesh"].as_u64().map(|m| m as usize))
        .collect();
    for m in meshes {
        for p in 0..g.json["meshes"][m]["primitives"].as_array().unwrap().len() {
            reweight(g, m, p, &new_slot);
        }
    }
}

/// Rewrites a primitive's JOINTS_n/WEIGHTS_n through `new_slot`, merging the weights of
/// slots that now name one joint (joints of a vertex must stay distinct).
fn reweight(g: &mut Glb, m: usize, p: usize, new_slot: &[u16]) {
    let attrs = g.json["meshes"][m]["primitives"][p]["attributes"].clone();
    let sets: Vec<(usize, usize)> = (0..)
        .map_while(|k| {
            let j = attrs[format!("JOINTS_{k}")].as_u64()?;
            let w = attrs[format!("WEIGHTS_{k}")].as_u64()?;
            Some((j as usize, w as usize))
        })
        .collect();
    if sets.is_empty() {
        return;
    }
    let js: Vec<Vec<Vec<f32>>> = sets.iter().map(|&(j, _)| g.read_floats(j)).collect();
    let ws: Vec<Vec<Vec<f32>>> = sets.iter().map(|&(_, w)| g.read_floats(w)).collect();
    let count = js[0].len();
    let width = 4 * sets.len();
    let mut out_j = vec![vec![0u16; width]; count];
    let mut out_w = vec![vec![0f32; width]; count];
    for v in 0..count {
        let mut merged: Vec<(u16, f32)> = Vec::new();
        for k in 0..sets.len() {
            for c in 0..4 {
                let w = ws[k][v][c];
                if w == 0.0 {
                    continue;
                }
                let slot = new_slot[js[k][v][c] as usize];
                match merged.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, sum)) => *sum += w,
                    None => merged.push((slot, w)),
                }
            }
        }
        for (i, (slot, w)) in merged.into_iter().enumerate() {
            out_j[v][i] = slot;
            out_w[v][i] = w;
        }
    }
    for (k, _) in sets.iter().enumerate() {
        let jd: Vec<[u16; 4]> = out_j
            .iter()
            .map(|row| row[4 * k..4 * k + 4].try_into().unwrap())
            .collect();
        let wd: Vec<Vec<f32>> = out_w
            .iter()
            .map(|row| row[4 * k..4 * k + 4].to_vec())
            .collect();
        let ja = push_u16_vec4(g, &jd);
        let wa = g.push_floats("VEC4", &wd);
        let at = &mut g.json["meshes"][m]["primitives"][p]["attributes"];
        at[format!("JOINTS_{k}")] = json!(ja);
        at[format!("WEIGHTS_{k}")] = json!(wa);
    }
}

/// Appends unsigned-short VEC4 data (a JOINTS_n attribute) as a new view and accessor.
fn push_u16_vec4(g: &mut Glb, data: &[[u16; 4]]) -> usize {
    while g.bin.len() % 4 != 0 {
        g.bin.push(0);
    }
    let offset = g.bin.len();
    for e in data {
        e.iter().for_each(|v| g.bin.extend(v.to_le_bytes()));
    }
    let length = g.bin.len() - offset;
    let view = push(
        &mut g.json,
        "bufferViews",
        json!({"buffer": 0, "byteOffset": offset, "byteLength": length, "target": 34962}),
    );
    g.json["buffers"][0]["byteLength"] = json!(g.bin.len());
    push(
        &mut g.json,
        "accessors",
        json!({"bufferView": view, "componentType": 5123, "count": data.len(), "type": "VEC4"}),
    )
}

/// Removes channels on dropped nodes, then samplers no channel uses.
fn drop_channels(g: &mut Glb, drop: &HashSet<usize>) {
    for a in 0..g.array("animations").len() {
        let anim = &mut g.json["animations"][a];
        let mut channels = anim["channels"].as_array().cloned().unwrap_or_default();
        channels.retain(|c| {
            c["target"]["node"]
                .as_u64()
                .is_none_or(|n| !drop.contains(&(n as usize)))
        });
        let samplers = anim["samplers"].as_array().cloned().unwrap_or_default();
        let mut new_sampler = HashMap::new();
        let mut kept = Vec::new();
        for c in channels.iter_mut() {
            let s = c["sampler"].as_u64().unwrap() as usize;
            let i = *new_sampler.entry(s).or_insert_with(|| {
                kept.push(samplers[s].clone());
                kept.len() - 1
            });
            c["sampler"] = json!(i);
        }
        anim["channels"] = Value::Array(channels);
        anim["samplers"] = Value::Array(kept);
    }
}

/// A world-space vector in the local frame of `parent`'s children (`None`: the world).
pub fn into_parent(worlds: &[Mat4], parent: Option<usize>, v: Vec3) -> Vec3 {
    parent.map_or(v, |p| {
        (worlds[p].inverse() * Vec4::new(v.x, v.y, v.z, 0.0)).truncate()
    })
}
