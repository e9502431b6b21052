//! RobotExpressive's joint names rewritten to other rigs' conventions, for renamed copies.

/// RobotExpressive's names in Mixamo's convention.
pub fn mixamo_name(old: &str) -> String {
    let bare = match old {
        "Hips" => "Hips",
        "Abdomen" => "Spine",
        "Torso" => "Spine1",
        "Neck" => "Neck",
        "Head" => "Head",
        _ => return mixamo_sided(old).unwrap_or_else(|| old.to_owned()),
    };
    format!("mixamorig:{bare}")
}

fn mixamo_sided(old: &str) -> Option<String> {
    let (part, side) = old.rsplit_once('.')?;
    let side = if side == "L" { "Left" } else { "Right" };
    let part = match part {
        "Shoulder" => "Shoulder",
        "UpperArm" => "Arm",
        "LowerArm" => "ForeArm",
        "Palm2" => "Hand",
        "UpperLeg" => "UpLeg",
        "LowerLeg" => "Leg",
        "Foot" => "Foot",
        "Thumb" => "HandThumb1",
        "Thumb2" => "HandThumb2",
        "Index" => "HandIndex1",
        "Index2" => "HandIndex2",
        _ => return None,
    };
    Some(format!("mixamorig:{side}{part}"))
}

/// RobotExpressive's names in the Unreal mannequin's convention.
pub fn unreal_name(old: &str) -> String {
    let fixed = match old {
        "Bone" => "root",
        "Hips" => "pelvis",
        "Abdomen" => "spine_01",
        "Torso" => "spine_02",
        "Neck" => "neck_01",
        "Head" => "head",
        _ => "",
    };
    if !fixed.is_empty() {
        return fixed.to_owned();
    }
    let Some((part, side)) = old.rsplit_once('.') else {
        return old.to_owned();
    };
    let part = match part {
        "Shoulder" => "clavicle",
        "UpperArm" => "upperarm",
        "LowerArm" => "lowerarm",
        "Palm2" => "hand",
        "UpperLeg" => "thigh",
        "LowerLeg" => "calf",
        "Foot" => "foot",
        "PoleTarget" => "ik_knee_target",
        "Index" => "index_01",
        "Index2" => "index_02",
        _ => return old.to_owned(),
    };
    format!("{part}_{}", side.to_ascii_lowercase())
}
