//! VRM expressions: those a model can play (VRM 1.0 `VRMC_vrm.expressions`, VRM 0.x
//! `VRM.blendShapeMaster.blendShapeGroups`) as curve targets binding its morph targets, and
//! the nodes a VRM Animation keys them on (`VRMC_vrm_animation.expressions`, `lookAt`).

use crate::asset::{CurveTarget, MorphBind};
use serde_json::Value;
use std::collections::HashMap;

/// The meshes read from a file, as the expressions need them: for each, the glTF node that
/// draws it, the glTF mesh it is, and how many morph targets it has.
pub struct MeshSlot {
    pub node: usize,
    pub gltf_mesh: usize,
    pub morphs: usize,
}

/// The expressions of a VRM 1.0 or 0.x model as curve targets (`expression: true`), in the
/// file's order (presets, then custom ones); empty for any other file. A bind that names
/// no mesh read, or a morph that mesh does not have, is left out with a warning.
pub fn curve_targets(
    doc: &gltf::Document,
    meshes: &[MeshSlot],
    warnings: &mut Vec<String>,
) -> Vec<CurveTarget> {
    let mut out = Expressions::default();
    if let Some(ext) = doc.extension_value("VRMC_vrm") {
        for (name, expression) in expressions(ext) {
            let binds = items(expression, "morphTargetBinds");
            let mut read = Vec::new();
            for bind in binds {
                let node = index(bind, "node");
                let morph = index(bind, "index");
                let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(1.0);
                let slots: Vec<usize> = match node {
                    Some(node) => (0..meshes.len())
                        .filter(|&i| meshes[i].node == node)
                        .collect(),
                    None => Vec::new(),
                };
                bind_slots(&mut read, meshes, &slots, morph, weight as f32, || {
                    format!("node {node:?}")
                })
                .unwrap_or_else(|why| {
                    out.skipped.push(format!("{name} ({why})"));
                });
            }
            out.add(name, read);
        }
    } else if let Some(ext) = doc.extension_value("VRM") {
        let groups = ext
            .pointer("/blendShapeMaster/blendShapeGroups")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        for (g, group) in groups.iter().enumerate() {
            let preset = group.get("presetName").and_then(Value::as_str);
            let own = group.get("name").and_then(Value::as_str);
            let name = match (preset, own) {
                (Some(p), _) if !p.is_empty() && !p.eq_ignore_ascii_case("unknown") => p,
                (_, Some(n)) if !n.is_empty() => n,
                _ => {
                    warnings.push(format!(
                        "VRM blend shape group {g} has no name; not imported"
                    ));
                    continue;
                }
            };
            let binds = items(group, "binds");
            let mut read = Vec::new();
            for bind in binds {
                let mesh = index(bind, "mesh");
                let morph = index(bind, "index");
                // VRM 0.x weighs binds in percent.
                let weight = bind.get("weight").and_then(Value::as_f64).unwrap_or(100.0) / 100.0;
                let slots: Vec<usize> = match mesh {
                    Some(mesh) => (0..meshes.len())
                        .filter(|&i| meshes[i].gltf_mesh == mesh)
                        .collect(),
                    None => Vec::new(),
                };
                bind_slots(&mut read, meshes, &slots, morph, weight as f32, || {
                    format!("mesh {mesh:?}")
                })
                .unwrap_or_else(|why| out.skipped.push(format!("{name} ({why})")));
            }
            out.add(name, read);
        }
    }
    if !out.skipped.is_empty() {
        warnings.push(format!(
            "expression binds to morphs not read, left out: {}",
            out.skipped.join(", ")
        ));
    }
    out.targets
}

#[derive(Default)]
struct Expressions {
    targets: Vec<CurveTarget>,
    skipped: Vec<String>,
}

impl Expressions {
    /// A second expression of a name (a custom one named as a preset) adds its binds.
    fn add(&mut self, name: &str, binds: Vec<MorphBind>) {
        match self.targets.iter_mut().find(|t| t.name == name) {
            Some(t) => t.binds.extend(binds),
            None => self.targets.push(CurveTarget {
                name: name.to_owned(),
                expression: true,
                binds,
            }),
        }
    }
}

fn index(v: &Value, key: &str) -> Option<usize> {
    v.get(key)
        .and_then(Value::as_u64)
        .and_then(|i| usize::try_from(i).ok())
}

/// Binds morph `morph` of each mesh in `slots` at `weight`; `Err` says why none could be.
fn bind_slots(
    out: &mut Vec<MorphBind>,
    meshes: &[MeshSlot],
    slots: &[usize],
    morph: Option<usize>,
    weight: f32,
    what: impl Fn() -> String,
) -> Result<(), String> {
    if slots.is_empty() {
        return Err(format!("{} draws no mesh read", what()));
    }
    let Some(morph) = morph else {
        return Err(format!("{}: no morph index", what()));
    };
    if !weight.is_finite() {
        return Err(format!("{}: its weight is not a number", what()));
    }
    if let Some(&i) = slots.iter().find(|&&i| morph >= meshes[i].morphs) {
        return Err(format!(
            "{}: morph {morph} of its {}",
            what(),
            meshes[i].morphs
        ));
    }
    for &i in slots {
        out.push(MorphBind {
            mesh: i,
            morph,
            node: Some(meshes[i].node),
            weight,
        });
    }
    Ok(())
}

/// The nodes a VRM Animation keys its expressions on: the weight is the node's translation
/// X. `lookAt` is the node whose rotation aims the gaze.
#[derive(Debug, Default)]
pub struct AnimatedExpressions {
    pub nodes: HashMap<usize, String>,
    pub look_at: Option<usize>,
}

/// The expression nodes of a VRM Animation (`VRMC_vrm_animation`), past-the-end nodes left
/// out; empty for any other file.
pub fn animated(doc: &gltf::Document) -> AnimatedExpressions {
    let mut out = AnimatedExpressions::default();
    let Some(ext) = doc.extension_value("VRMC_vrm_animation") else {
        return out;
    };
    let nodes = doc.nodes().len();
    for (name, e) in expressions(ext) {
        if let Some(node) = index(e, "node").filter(|&n| n < nodes) {
            out.nodes.entry(node).or_insert_with(|| name.clone());
        }
    }
    out.look_at = ext
        .get("lookAt")
        .and_then(|l| index(l, "node"))
        .filter(|&n| n < nodes);
    out
}

/// Every expression of a VRM 1.0 or VRMA extension, presets first, by name.
fn expressions(ext: &Value) -> impl Iterator<Item = (&String, &Value)> {
    ["preset", "custom"].into_iter().flat_map(move |group| {
        ext.pointer(&format!("/expressions/{group}"))
            .and_then(Value::as_object)
            .into_iter()
            .flatten()
    })
}

/// The array under `key`, empty when there is none.
fn items<'a>(value: &'a Value, key: &str) -> &'a [Value] {
    value
        .get(key)
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(root: Value) -> gltf::Document {
        let root: gltf::json::Root = serde_json::from_value(root).unwrap();
        gltf::Document::from_json_without_validation(root)
    }

    fn slots() -> Vec<MeshSlot> {
        vec![
            MeshSlot {
                node: 1,
                gltf_mesh: 0,
                morphs: 2,
            },
            MeshSlot {
                node: 2,
                gltf_mesh: 0,
                morphs: 2,
            },
            MeshSlot {
                node: 3,
                gltf_mesh: 1,
                morphs: 1,
            },
        ]
    }

    #[test]
    fn vrm1_presets_and_custom_expressions_bind_the_nodes_meshes() {
        let d = doc(json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["VRMC_vrm"],
            "extensions": {"VRMC_vrm": {"specVersion": "1.0", "expressions": {
                "preset": {
                    "happy": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.8}]},
                    "blink": {"textureTransformBinds": [{"material": 0, "scale": [0.5, 0.5]}]},
                    "sad": {"morphTargetBinds": [{"node": 3, "index": 5, "weight": 1.0}]}
                },
                "custom": {
                    "wink": {"morphTargetBinds": [{"node": 3, "index": 0, "weight": 1.0},
                                                  {"node": 9, "index": 0, "weight": 1.0}]}
                }
            }}}
        }));
        let mut warnings = Vec::new();
        let t = curve_targets(&d, &slots(), &mut warnings);
        let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names.len(), 4);
        for n in ["happy", "blink", "sad", "wink"] {
            assert!(names.contains(&n), "{names:?}");
        }
        assert!(t.iter().all(|t| t.expression));
        let happy = t.iter().find(|t| t.name == "happy").unwrap();
        assert_eq!(
            happy.binds,
            vec![MorphBind {
                mesh: 0,
                morph: 1,
                node: Some(1),
                weight: 0.8
            }]
        );
        let blink = t.iter().find(|t| t.name == "blink").unwrap();
        assert!(blink.binds.is_empty(), "texture binds only: no morph");
        let wink = t.iter().find(|t| t.name == "wink").unwrap();
        assert_eq!(wink.binds.len(), 1);
        assert_eq!((wink.binds[0].mesh, wink.binds[0].morph), (2, 0));
        // morph 5 of a one-morph mesh, and node 9 (no mesh), are reported.
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].contains("sad") && warnings[0].contains("wink"));
    }

    #[test]
    fn vrm0_groups_take_their_preset_name_and_bind_every_node_of_the_mesh() {
        let d = doc(json!({
            "asset": {"version": "2.0"},
            "extensionsUsed": ["VRM"],
            "extensions": {"VRM": {"blendShapeMaster": {"blendShapeGroups": [
                {"name": "Joy", "presetName": "joy",
                 "binds": [{"mesh": 0, "index": 1, "weight": 100}]},
                {"name": "Smirk", "presetName": "unknown",
                 "binds": [{"mesh": 1, "index": 0, "weight": 50}]},
                {"name": "Empty", "presetName": "neutral", "binds": []}
            ]}}}
        }));
        let mut warnings = Vec::new();
        let t = curve_targets(&d, &slots(), &mut warnings);
        assert!(warnings.is_empty(), "{warnings:?}");
        let names: Vec<&str> = t.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["joy", "Smirk", "neutral"]);
        let joy = &t[0];
        assert!(joy.expression);
        assert_eq!(joy.binds.len(), 2, "mesh 0 is drawn by nodes 1 and 2");
        assert!(joy.binds.iter().all(|b| b.weight == 1.0 && b.morph == 1));
        assert_eq!(joy.binds[0].node, Some(1));
        assert_eq!(joy.binds[1].node, Some(2));
        assert_eq!(t[1].binds[0].weight, 0.5);
        assert!(t[2].binds.is_empty());
    }

    #[test]
    fn a_vrm_animation_names_its_expression_and_look_at_nodes() {
        let d = doc(json!({
            "asset": {"version": "2.0"},
            "nodes": [{}, {}, {}],
            "extensionsUsed": ["VRMC_vrm_animation"],
            "extensions": {"VRMC_vrm_animation": {
                "expressions": {"preset": {"happy": {"node": 1}, "sad": {"node": 7}},
                                "custom": {"wink": {"node": 0}}},
                "lookAt": {"node": 2}
            }}
        }));
        let a = animated(&d);
        assert_eq!(a.nodes.len(), 2, "node 7 is past the end");
        assert_eq!(a.nodes[&1], "happy");
        assert_eq!(a.nodes[&0], "wink");
        assert_eq!(a.look_at, Some(2));
    }
}
