//! Which joint node is which humanoid bone, known independently of the product's labeller: the
//! file's own VRM table, else hand-written tables of the bundled rigs' names. Used to pick the
//! limbs a variant changes and the names a renamed copy gets.

use super::glb::Glb;
use crate::common::renames::{mixamo_name, unreal_name};
use retarget_studio::core::HumanBone;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// The naming convention of a renamed copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Convention {
    /// `mixamorig:Hips`, `mixamorig:LeftUpLeg`, … on every joint.
    Mixamo,
    /// The Unreal mannequin's `pelvis`, `spine_01`, `thigh_l`, …
    Unreal,
}

/// Humanoid bone of each joint node that has one.
pub fn human_bones(glb: &Glb) -> HashMap<usize, HumanBone> {
    let from_vrm = vrm_table(&glb.json);
    if !from_vrm.is_empty() {
        return from_vrm;
    }
    let nodes = glb.array("nodes");
    glb.skin_joints()
        .into_iter()
        .filter_map(|n| Some((n, bone_by_name(nodes[n]["name"].as_str()?)?)))
        .collect()
}

/// The joint nodes of `bones` (those present).
pub fn nodes_of(labels: &HashMap<usize, HumanBone>, bones: &[HumanBone]) -> Vec<usize> {
    let mut out: Vec<usize> = labels
        .iter()
        .filter(|(_, b)| bones.contains(b))
        .map(|(&n, _)| n)
        .collect();
    out.sort_unstable();
    out
}

fn vrm_table(doc: &Value) -> HashMap<usize, HumanBone> {
    let mut out = HashMap::new();
    // VRM 0.x: a list of {bone, node}.
    for b in doc["extensions"]["VRM"]["humanoid"]["humanBones"]
        .as_array()
        .into_iter()
        .flatten()
    {
        if let (Some(bone), Some(node)) = (b["bone"].as_str(), b["node"].as_u64()) {
            HumanBone::from_vrm0(bone).map(|h| out.insert(node as usize, h));
        }
    }
    // VRM 1.0: an object bone -> {node}.
    if let Some(map) = doc["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"].as_object() {
        for (bone, v) in map {
            if let (Some(h), Some(node)) = (HumanBone::from_vrm1(bone), v["node"].as_u64()) {
                out.insert(node as usize, h);
            }
        }
    }
    out
}

/// The bundled rigs' names: RobotExpressive through its Mixamo renaming, CesiumMan's COLLADA
/// names and the Fox's `b_<Name>_<NN>` by hand (the fox's legs as a biped's).
pub fn bone_by_name(name: &str) -> Option<HumanBone> {
    use HumanBone::*;
    if let Some(b) = HumanBone::from_mixamo(name) {
        return Some(b);
    }
    let robot = mixamo_name(name);
    if robot != name
        && let Some(b) = HumanBone::from_mixamo(&robot)
    {
        return Some(b);
    }
    let fox = name
        .strip_prefix("b_")
        .and_then(|r| r.rsplit_once('_'))
        .map(|(n, _)| n);
    Some(match (name, fox) {
        ("Skeleton_torso_joint_1", _) | (_, Some("Hip")) => Hips,
        ("Skeleton_torso_joint_2", _) | (_, Some("Spine01")) => Spine,
        ("torso_joint_3", _) | (_, Some("Spine02")) => Chest,
        ("Skeleton_neck_joint_1", _) | (_, Some("Neck")) => Neck,
        ("Skeleton_neck_joint_2", _) | (_, Some("Head")) => Head,
        ("Skeleton_arm_joint_L__4_", _) | (_, Some("LeftUpperArm")) => LeftUpperArm,
        ("Skeleton_arm_joint_L__3_", _) | (_, Some("LeftForeArm")) => LeftLowerArm,
        ("Skeleton_arm_joint_L__2_", _) | (_, Some("LeftHand")) => LeftHand,
        ("Skeleton_arm_joint_R", _) | (_, Some("RightUpperArm")) => RightUpperArm,
        ("Skeleton_arm_joint_R__2_", _) | (_, Some("RightForeArm")) => RightLowerArm,
        ("Skeleton_arm_joint_R__3_", _) | (_, Some("RightHand")) => RightHand,
        ("leg_joint_L_1", _) | (_, Some("LeftLeg01")) => LeftUpperLeg,
        ("leg_joint_L_2", _) | (_, Some("LeftLeg02")) => LeftLowerLeg,
        ("leg_joint_L_3", _) | (_, Some("LeftFoot01")) => LeftFoot,
        ("leg_joint_L_5", _) | (_, Some("LeftFoot02")) => LeftToes,
        ("leg_joint_R_1", _) | (_, Some("RightLeg01")) => RightUpperLeg,
        ("leg_joint_R_2", _) | (_, Some("RightLeg02")) => RightLowerLeg,
        ("leg_joint_R_3", _) | (_, Some("RightFoot01")) => RightFoot,
        ("leg_joint_R_5", _) | (_, Some("RightFoot02")) => RightToes,
        _ => return None,
    })
}

/// Mixamo's name of `bone` (found by asking `from_mixamo` about every Mixamo name).
pub fn mixamo_bone_name(bone: HumanBone) -> Option<String> {
    let centre = ["Hips", "Spine", "Spine1", "Spine2", "Neck", "Head"];
    let sided = [
        "Eye", "UpLeg", "Leg", "Foot", "ToeBase", "Shoulder", "Arm", "ForeArm", "Hand",
    ];
    let mut names: Vec<String> = centre.iter().map(|s| s.to_string()).collect();
    for side in ["Left", "Right"] {
        names.extend(sided.iter().map(|p| format!("{side}{p}")));
        for finger in ["Thumb", "Index", "Middle", "Ring", "Pinky"] {
            names.extend((1..=3).map(|k| format!("{side}Hand{finger}{k}")));
        }
    }
    names
        .into_iter()
        .map(|n| format!("mixamorig:{n}"))
        .find(|n| HumanBone::from_mixamo(n) == Some(bone))
}

/// The Unreal mannequin's name of `bone`.
pub fn unreal_bone_name(bone: HumanBone) -> String {
    let name = bone.as_str();
    let (side, part) = if let Some(p) = name.strip_prefix("left") {
        ("_l", p)
    } else if let Some(p) = name.strip_prefix("right") {
        ("_r", p)
    } else {
        ("", name)
    };
    let base = match part {
        "hips" => "pelvis",
        "spine" => "spine_01",
        "chest" => "spine_02",
        "upperChest" => "spine_03",
        "neck" => "neck_01",
        "Shoulder" => "clavicle",
        "UpperArm" => "upperarm",
        "LowerArm" => "lowerarm",
        "Hand" => "hand",
        "UpperLeg" => "thigh",
        "LowerLeg" => "calf",
        "Foot" => "foot",
        "Toes" => "ball",
        "Eye" => "eye",
        other => return unreal_finger(other, side).unwrap_or_else(|| other.to_lowercase()),
    };
    format!("{base}{side}")
}

fn unreal_finger(part: &str, side: &str) -> Option<String> {
    let fingers = ["Thumb", "Index", "Middle", "Ring", "Little"];
    let finger = fingers.iter().find(|f| part.starts_with(*f))?;
    let segment = match &part[finger.len()..] {
        "Metacarpal" => 1,
        "Proximal" if *finger == "Thumb" => 2,
        "Proximal" => 1,
        "Intermediate" => 2,
        "Distal" => 3,
        _ => return None,
    };
    let finger = if *finger == "Little" {
        "pinky"
    } else {
        &finger.to_lowercase()
    };
    Some(format!("{finger}_0{segment}{side}"))
}

/// A joint's new name: its bone's name in `convention`, else the RobotExpressive table's,
/// else (Mixamo) the old name under the `mixamorig:` prefix or (Unreal) the old name.
pub fn convention_name(convention: Convention, old: &str, bone: Option<HumanBone>) -> String {
    match convention {
        Convention::Mixamo => bone.and_then(mixamo_bone_name).unwrap_or_else(|| {
            let robot = mixamo_name(old);
            if robot.starts_with("mixamorig:") {
                robot
            } else {
                format!("mixamorig:{}", old.replace([' ', '.'], "_"))
            }
        }),
        Convention::Unreal => bone.map_or_else(|| unreal_name(old), unreal_bone_name),
    }
}

/// Renames every skin joint node to `convention`, keeping names unique; returns old -> new.
pub fn rename_joints(glb: &mut Glb, convention: Convention) -> Vec<(String, String)> {
    let labels = human_bones(glb);
    let mut taken = HashSet::new();
    let mut pairs = Vec::new();
    for n in glb.skin_joints() {
        let old = glb.json["nodes"][n]["name"]
            .as_str()
            .map_or_else(|| format!("node_{n}"), str::to_owned);
        let mut new = convention_name(convention, &old, labels.get(&n).copied());
        while !taken.insert(new.clone()) {
            new.push_str("_1");
        }
        glb.json["nodes"][n]["name"] = Value::from(new.clone());
        pairs.push((old, new));
    }
    pairs
}

/// Removes every VRM extension (`VRM`, `VRMC_*`) anywhere in the document, so names and
/// geometry must carry what the humanoid table said.
pub fn strip_vrm(doc: &mut Value) {
    let is_vrm = |k: &str| k == "VRM" || k.starts_with("VRMC_");
    for list in ["extensionsUsed", "extensionsRequired"] {
        if let Some(a) = doc.get_mut(list).and_then(Value::as_array_mut) {
            a.retain(|e| !e.as_str().is_some_and(is_vrm));
        }
    }
    strip_in(doc, &is_vrm);
}

fn strip_in(v: &mut Value, is_vrm: &impl Fn(&str) -> bool) {
    match v {
        Value::Object(map) => {
            if let Some(Value::Object(ext)) = map.get_mut("extensions") {
                ext.retain(|k, _| !is_vrm(k));
            }
            map.values_mut().for_each(|x| strip_in(x, is_vrm));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| strip_in(x, is_vrm)),
        _ => {}
    }
}
