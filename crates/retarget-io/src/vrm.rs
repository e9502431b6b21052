//! VRM humanoid tables: which glTF node is which humanoid bone. VRM 0.x lists them,
//! VRM 1.0 and VRM Animation key them by bone name.

use crate::asset::Format;
use retarget_core::HumanBone;
use serde_json::Value;
use std::collections::HashMap;

pub struct HumanoidTable {
    pub format: Format,
    pub bones: HashMap<usize, HumanBone>,
    /// Bone names in the table that are not VRM humanoid bones.
    pub unknown: Vec<String>,
}

/// The table, with entries naming nodes the file does not have set aside as unknown.
pub fn humanoid_table(doc: &gltf::Document) -> Option<HumanoidTable> {
    let mut table = read_table(doc)?;
    let nodes = doc.nodes().len();
    let mut past: Vec<(usize, HumanBone)> = table
        .bones
        .iter()
        .filter(|&(&node, _)| node >= nodes)
        .map(|(&node, &bone)| (node, bone))
        .collect();
    past.sort_by_key(|&(node, _)| node);
    for (node, bone) in past {
        table.bones.remove(&node);
        table.unknown.push(format!(
            "{bone:?} (node {node}, past the file's {nodes} nodes)"
        ));
    }
    Some(table)
}

fn read_table(doc: &gltf::Document) -> Option<HumanoidTable> {
    if let Some(ext) = doc.extension_value("VRMC_vrm") {
        return Some(keyed_table(ext, Format::Vrm1));
    }
    if let Some(ext) = doc.extension_value("VRMC_vrm_animation") {
        return Some(keyed_table(ext, Format::Vrma));
    }
    let ext = doc.extension_value("VRM")?;
    let mut table = HumanoidTable {
        format: Format::Vrm0,
        bones: HashMap::new(),
        unknown: Vec::new(),
    };
    let list = ext
        .pointer("/humanoid/humanBones")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    for entry in list {
        let name = entry.get("bone").and_then(Value::as_str).unwrap_or("");
        let node = entry.get("node").and_then(Value::as_u64);
        match (HumanBone::from_vrm0(name), node) {
            (Some(bone), Some(node)) => {
                table.bones.insert(node as usize, bone);
            }
            _ => table.unknown.push(name.to_owned()),
        }
    }
    Some(table)
}

fn keyed_table(ext: &Value, format: Format) -> HumanoidTable {
    let mut table = HumanoidTable {
        format,
        bones: HashMap::new(),
        unknown: Vec::new(),
    };
    if let Some(map) = ext
        .pointer("/humanoid/humanBones")
        .and_then(Value::as_object)
    {
        for (name, v) in map {
            let node = v.get("node").and_then(Value::as_u64);
            match (HumanBone::from_vrm1(name), node) {
                (Some(bone), Some(node)) => {
                    table.bones.insert(node as usize, bone);
                }
                _ => table.unknown.push(name.clone()),
            }
        }
    }
    table
}
