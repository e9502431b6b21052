//! Reading a joint name: which side of the body and which body part it says, across the
//! naming habits of Mixamo, Unreal, Unity/Blender, VRoid/VRM, 3ds Max Biped and CMU mocap.
//! This only reads one name; turning parts into VRM bones needs the hierarchy (`name_labels`).

use crate::HumanBone;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Side {
    Left,
    Right,
}

impl Side {
    /// Picks the left or right twin of a bone.
    pub fn pick(self, left: HumanBone, right: HumanBone) -> HumanBone {
        match self {
            Side::Left => left,
            Side::Right => right,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Finger {
    Thumb,
    Index,
    Middle,
    Ring,
    Little,
}

/// What a name says about the body part, before the hierarchy settles the VRM bone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Part {
    Hips,
    /// Spine, chest, torso, abdomen, lower back, thorax: placed along the chain, not by name.
    SpineLike,
    Neck,
    Head,
    Eye,
    Jaw,
    /// `clavicle`, `collar`: always the VRM shoulder.
    Clavicle,
    /// `shoulder`: the VRM shoulder, or the upper arm below a clavicle (SMPL's `L_Shoulder`).
    Shoulder,
    UpperArm,
    LowerArm,
    Hand,
    /// A palm or metacarpal joint that may stand in for a missing hand joint.
    Palm,
    /// A sided `hip` (`L_Hip`): the upper leg, unless a thigh joint follows below it.
    SideHip,
    UpperLeg,
    LowerLeg,
    /// A bare `leg`: Mixamo and CMU mean the lower leg, others the upper one.
    Leg,
    Foot,
    Toes,
    Finger(Finger),
    /// CMU's `LFingers`: the four fingers as one joint.
    Fingers,
    /// A joint the name marks as not a humanoid bone: an end site, an IK target, a twist
    /// helper, CMU's zero-length `LHipJoint` or `LeftFingerBase`, hair, cloth.
    Helper,
}

/// Everything read from one joint name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct NameInfo {
    pub side: Option<Side>,
    pub part: Option<Part>,
    /// The bone when the name is an exact VRM 1.0 or Mixamo name.
    pub exact: Option<HumanBone>,
}

/// Drops namespaces: everything up to the last `:` or `|` (`mixamorig:`, `Armature|`).
pub(super) fn strip_namespace(name: &str) -> &str {
    name.rsplit([':', '|']).next().unwrap_or(name)
}

/// Lower-case words of a name: split at `_ . - space`, at camelCase humps (`LHipJoint` →
/// `l hip joint`) and between letters and digits (`Spine1` → `spine 1`).
pub(super) fn words(name: &str) -> Vec<String> {
    let chars: Vec<char> = strip_namespace(name).chars().collect();
    let mut out = Vec::new();
    let mut cur = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            flush(&mut cur, &mut out);
            continue;
        }
        if let Some(&prev) = i.checked_sub(1).and_then(|p| chars.get(p))
            && !cur.is_empty()
        {
            let next_lower = chars.get(i + 1).is_some_and(|n| n.is_lowercase());
            let hump = prev.is_lowercase() && c.is_uppercase();
            let acronym_end = prev.is_uppercase() && c.is_uppercase() && next_lower;
            let digit_edge = prev.is_ascii_digit() != c.is_ascii_digit();
            if hump || acronym_end || digit_edge {
                flush(&mut cur, &mut out);
            }
        }
        cur.extend(c.to_lowercase());
    }
    flush(&mut cur, &mut out);
    out
}

fn flush(cur: &mut String, out: &mut Vec<String>) {
    if !cur.is_empty() {
        out.push(std::mem::take(cur));
    }
}

/// Words after a CMU ASF one-letter side prefix (`lfemur`, `rhand`).
const ASF_WORDS: &[&str] = &[
    "femur", "tibia", "foot", "toes", "humerus", "radius", "wrist", "hand", "fingers", "thumb",
    "clavicle", "hipjoint", "shoulder", "thigh", "hip", "arm", "leg", "forearm", "upperarm",
    "elbow", "knee", "ankle", "toe", "collar", "eye",
];

/// Finds the side and removes the words that said it. Side words may come first or last
/// (`LeftArm`, `thigh_l`, `upper_arm.L`), in the middle (`arm_joint_L_4`), glued to a word
/// (`lefthand`) or as CMU ASF's one-letter prefix (`lfemur`).
fn take_side(words: &mut Vec<String>) -> Option<Side> {
    let side_of = |w: &str| match w {
        "left" | "l" => Some(Side::Left),
        "right" | "r" => Some(Side::Right),
        _ => None,
    };
    let sides: Vec<Side> = words.iter().filter_map(|w| side_of(w)).collect();
    if words.len() > 1 && sides.len() > 1 && sides.iter().any(|&s| s != sides[0]) {
        // Both sides said: the last is the side suffix (`PalmR.L`, the left hand's palm of
        // the ring finger), the other a letter of the part's own name.
        let at = words.iter().rposition(|w| side_of(w).is_some());
        return at.and_then(|i| side_of(&words.remove(i)));
    }
    if words.len() > 1
        && let Some(side) = sides.first().copied()
    {
        words.retain(|w| side_of(w).is_none());
        return Some(side);
    }
    for w in words.iter_mut() {
        for (prefix, side) in [("left", Side::Left), ("right", Side::Right)] {
            if let Some(rest) = w.strip_prefix(prefix)
                && rest.len() >= 3
            {
                *w = rest.to_owned();
                return Some(side);
            }
        }
        for (prefix, side) in [("l", Side::Left), ("r", Side::Right)] {
            if let Some(rest) = w.strip_prefix(prefix)
                && ASF_WORDS.contains(&rest)
            {
                *w = rest.to_owned();
                return Some(side);
            }
        }
    }
    None
}

/// Words that say nothing about the part (rig prefixes, namespaces glued with `_`).
const NOISE: &[&str] = &[
    "b",
    "bip",
    "j",
    "c",
    "def",
    "mixamorig",
    "skeleton",
    "bone",
    "bn",
    "sk",
    "cc",
];

/// Words that mark a joint as not a humanoid bone.
const HELPER_WORDS: &[&str] = &[
    "end",
    "nub",
    "tip",
    "pole",
    "target",
    "ik",
    "fk",
    "ctrl",
    "control",
    "twist",
    "roll",
    "helper",
    "socket",
    "attach",
    "weapon",
    "prop",
    "null",
    "dummy",
    "mch",
    "org",
    "root",
    "armature",
    "brow",
    "eyebrow",
    "lid",
    "eyelid",
    "heel",
    "sec",
    "hair",
    "skirt",
    "bust",
    "breast",
    "cloth",
    "tail",
    "ear",
    "tongue",
    "tooth",
    "teeth",
    "cheek",
    "lip",
    "mouth",
    "nose",
    "sleeve",
    "coat",
    "cape",
    "hood",
    "ribbon",
    "trajectory",
    "camera",
    "light",
    "grip",
    "bend",
];

/// Body regions that, with `joint` in the name, name a region rather than a bone.
const REGIONS: &[&str] = &["arm", "leg", "torso", "neck", "spine", "body", "trunk", ""];

/// Reads one joint name.
pub(super) fn read_name(name: &str) -> NameInfo {
    let exact =
        HumanBone::from_mixamo(name).or_else(|| HumanBone::from_vrm1(strip_namespace(name)));
    let mut ws = words(name);
    let side = take_side(&mut ws);
    let has_number = ws.iter().any(|w| w.chars().all(|c| c.is_ascii_digit()));
    ws.retain(|w| !w.chars().all(|c| c.is_ascii_digit()));
    // MakeHuman marks a zero-rotation helper inside a limb chain with `__` (`__UpLeg_L`
    // above `UpLeg_L`): the same words as the bone it carries, so only the mark tells.
    let helper = ws.iter().any(|w| HELPER_WORDS.contains(&w.as_str()))
        || strip_namespace(name).starts_with("__");
    ws.retain(|w| !NOISE.contains(&w.as_str()));
    let core: String = ws.concat();
    let is_joint_word = |w: &String| w == "joint" || w == "jnt";
    let region: String = ws
        .iter()
        .filter(|w| !is_joint_word(w))
        .map(String::as_str)
        .collect();
    // A bone's own word with `joint` and a number (Unity's robot Kyle: `Left_Knee_Joint_01`)
    // still names the bone.
    let generic = ws.iter().any(is_joint_word) && REGIONS.contains(&region.as_str());
    let part = if helper {
        Some(Part::Helper)
    } else if generic {
        // `leg_joint_L_1`, `Skeleton_arm_joint_L__4_`, `Skeleton_arm_joint_R`: joints of a
        // body region say which region but not which bone; hierarchy and geometry decide.
        None
    } else {
        classify(&core, side, has_number)
    };
    NameInfo { side, part, exact }
}

/// Keyword table, first match wins: compounds before the words they contain
/// (`forearm` before `arm`, `handindex` to a finger before `hand`).
fn classify(core: &str, side: Option<Side>, has_number: bool) -> Option<Part> {
    let has = |keys: &[&str]| keys.iter().any(|k| core.contains(k));
    // Hip and finger-base joints of mocap rigs, metacarpals other than the thumb's, toes
    // named like fingers (Character Creator's `CC_Base_L_IndexToe1`, which labelled a
    // finger would follow the hand): no VRM bone.
    let helper = has(&["hipjoint", "fingerbase"])
        || (core.contains("metacarpal") && !core.contains("thumb"))
        || (core.contains("toe") && finger(core).is_some());
    let part = if helper {
        Part::Helper
    } else if let Some(f) = finger(core) {
        Part::Finger(f)
    } else if (core == "fingers" || core == "finger") && !has_number {
        Part::Fingers
    } else if has(&["eye"]) {
        Part::Eye
    } else if has(&["jaw"]) {
        Part::Jaw
    } else if has(&["head"]) {
        Part::Head
    } else if has(&["neck"]) {
        Part::Neck
    } else if has(&["clavicle", "collar"]) {
        Part::Clavicle
    } else if has(&["shoulder"]) {
        Part::Shoulder
    } else {
        return limb_or_trunk(core, side);
    };
    Some(part)
}

fn finger(core: &str) -> Option<Finger> {
    let table = [
        ("thumb", Finger::Thumb),
        ("index", Finger::Index),
        ("middle", Finger::Middle),
        ("ring", Finger::Ring),
        ("pinky", Finger::Little),
        ("pinkie", Finger::Little),
        ("little", Finger::Little),
    ];
    table
        .iter()
        .find(|(k, _)| core.contains(k))
        .map(|(_, f)| *f)
}

fn limb_or_trunk(core: &str, side: Option<Side>) -> Option<Part> {
    let has = |keys: &[&str]| keys.iter().any(|k| core.contains(k));
    // `LoArm`, `LoLeg`: MakeHuman's short forms.
    let part = if has(&["forearm", "lowerarm", "loarm", "elbow", "radius", "ulna"]) {
        Part::LowerArm
    } else if has(&["upperarm", "uparm", "humerus"]) {
        Part::UpperArm
    } else if has(&["hand", "wrist"]) {
        Part::Hand
    } else if has(&["palm"]) {
        Part::Palm
    } else if has(&["upleg", "upperleg", "thigh", "femur"]) {
        Part::UpperLeg
    } else if has(&[
        "lowerleg", "loleg", "calf", "shin", "knee", "tibia", "fibula",
    ]) {
        Part::LowerLeg
    } else if has(&["foot", "ankle"]) {
        Part::Foot
    } else if has(&["toe", "ball"]) {
        Part::Toes
    } else if has(&["pelvis", "hips"]) && side.is_some() {
        // A sided pelvis (Mesh2Motion's `Back_Leg_Pelvis_L`, between the hips and the
        // thigh) is a leg's girdle: no VRM bone, and not the hips.
        return None;
    } else if has(&["pelvis", "hips"]) || (core == "hip" && side.is_none()) {
        Part::Hips
    } else if core == "hip" {
        Part::SideHip
    } else if has(&[
        "spine",
        "chest",
        "torso",
        "abdomen",
        "lowerback",
        "upperback",
        "thorax",
        "waist",
        "belly",
        "stomach",
    ]) {
        Part::SpineLike
    } else if has(&["arm"]) {
        Part::UpperArm
    } else if has(&["leg"]) {
        Part::Leg
    } else {
        return None;
    };
    Some(part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(name: &str) -> (Option<Side>, Option<Part>) {
        let info = read_name(name);
        (info.side, info.part)
    }

    const L: Option<Side> = Some(Side::Left);
    const R: Option<Side> = Some(Side::Right);

    #[test]
    fn words_split_namespaces_humps_digits_and_separators() {
        assert_eq!(words("mixamorig:LeftUpLeg"), ["left", "up", "leg"]);
        assert_eq!(words("Armature|upper_arm.L"), ["upper", "arm", "l"]);
        assert_eq!(words("LHipJoint"), ["l", "hip", "joint"]);
        assert_eq!(words("b_Spine01_02"), ["b", "spine", "01", "02"]);
        assert_eq!(
            words("Skeleton_arm_joint_L__4_"),
            ["skeleton", "arm", "joint", "l", "4"]
        );
        assert_eq!(words("Left knee"), ["left", "knee"]);
        assert_eq!(
            words("leftThumbMetacarpal"),
            ["left", "thumb", "metacarpal"]
        );
    }

    #[test]
    fn mixamo_and_cmu_mocap_names() {
        assert_eq!(read("mixamorig:LeftUpLeg"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("LeftLeg"), (L, Some(Part::Leg)));
        assert_eq!(read("RightForeArm"), (R, Some(Part::LowerArm)));
        assert_eq!(read("Spine1"), (None, Some(Part::SpineLike)));
        assert_eq!(read("LHipJoint"), (L, Some(Part::Helper)));
        assert_eq!(read("LowerBack"), (None, Some(Part::SpineLike)));
        assert_eq!(read("Neck1"), (None, Some(Part::Neck)));
        assert_eq!(read("LeftFingerBase"), (L, Some(Part::Helper)));
        assert_eq!(read("LFingers"), (L, Some(Part::Fingers)));
        assert_eq!(read("RThumb"), (R, Some(Part::Finger(Finger::Thumb))));
        assert_eq!(
            read("LeftHandIndex1"),
            (L, Some(Part::Finger(Finger::Index)))
        );
        assert_eq!(read("LeftToeBase_end"), (L, Some(Part::Helper)));
        assert_eq!(read("LeftArm"), (L, Some(Part::UpperArm)));
    }

    #[test]
    fn a_letter_of_the_part_before_the_side_suffix_is_not_the_side() {
        assert_eq!(read("PalmR.L"), (L, Some(Part::Palm)));
        assert_eq!(read("PalmL.R"), (R, Some(Part::Palm)));
        assert_eq!(read("PalmR.R"), (R, Some(Part::Palm)));
    }

    #[test]
    fn a_sided_pelvis_is_no_hips() {
        assert_eq!(read("Back_Leg_Pelvis_L"), (L, None));
        assert_eq!(read("Pelvis"), (None, Some(Part::Hips)));
        assert_eq!(read("Bip01_Pelvis"), (None, Some(Part::Hips)));
    }

    #[test]
    fn makehuman_double_underscore_helpers_are_not_the_bones_they_carry() {
        assert_eq!(read("__UpLeg_L"), (L, Some(Part::Helper)));
        assert_eq!(read("UpLeg_L"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("LoArm_L"), (L, Some(Part::LowerArm)));
        assert_eq!(read("LoLeg_R"), (R, Some(Part::LowerLeg)));
        assert_eq!(read("__Clavicle_R"), (R, Some(Part::Helper)));
        assert_eq!(read("mixamorig:__Jaw").1, Some(Part::Helper));
    }

    #[test]
    fn cmu_asf_one_letter_prefixes() {
        assert_eq!(read("lfemur"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("rtibia"), (R, Some(Part::LowerLeg)));
        assert_eq!(read("lhumerus"), (L, Some(Part::UpperArm)));
        assert_eq!(read("lradius"), (L, Some(Part::LowerArm)));
        assert_eq!(read("lwrist"), (L, Some(Part::Hand)));
        assert_eq!(read("rhand"), (R, Some(Part::Hand)));
        assert_eq!(read("lclavicle"), (L, Some(Part::Clavicle)));
        assert_eq!(read("thorax"), (None, Some(Part::SpineLike)));
        assert_eq!(read("upperneck"), (None, Some(Part::Neck)));
        assert_eq!(read("lowerback"), (None, Some(Part::SpineLike)));
        assert_eq!(read("root"), (None, Some(Part::Helper)));
    }

    #[test]
    fn character_creator_names() {
        assert_eq!(read("CC_Base_Pelvis"), (None, Some(Part::Hips)));
        assert_eq!(read("CC_Base_L_Thigh"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("CC_Base_R_ToeBase"), (R, Some(Part::Toes)));
        assert_eq!(
            read("CC_Base_L_Index1"),
            (L, Some(Part::Finger(Finger::Index)))
        );
        // Toes named after fingers are no fingers; the others read as toes, as before.
        for toe in ["IndexToe1", "PinkyToe1", "RingToe1"] {
            assert_eq!(read(&format!("CC_Base_R_{toe}")), (R, Some(Part::Helper)));
        }
        assert_eq!(read("CC_Base_L_BigToe1"), (L, Some(Part::Toes)));
    }

    #[test]
    fn unreal_names() {
        assert_eq!(read("pelvis"), (None, Some(Part::Hips)));
        assert_eq!(read("spine_03"), (None, Some(Part::SpineLike)));
        assert_eq!(read("thigh_l"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("calf_r"), (R, Some(Part::LowerLeg)));
        assert_eq!(read("ball_l"), (L, Some(Part::Toes)));
        assert_eq!(read("clavicle_l"), (L, Some(Part::Clavicle)));
        assert_eq!(read("lowerarm_l"), (L, Some(Part::LowerArm)));
        assert_eq!(read("index_01_l"), (L, Some(Part::Finger(Finger::Index))));
        assert_eq!(read("neck_01"), (None, Some(Part::Neck)));
        assert_eq!(read("upperarm_twist_01_l"), (L, Some(Part::Helper)));
        assert_eq!(read("ik_foot_l"), (L, Some(Part::Helper)));
    }

    #[test]
    fn unity_blender_vroid_and_vrm_names() {
        assert_eq!(read("LeftUpperLeg"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("upper_arm.L"), (L, Some(Part::UpperArm)));
        assert_eq!(read("forearm.L"), (L, Some(Part::LowerArm)));
        assert_eq!(read("thigh.L"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("shin.R"), (R, Some(Part::LowerLeg)));
        assert_eq!(read("Thigh_R"), (R, Some(Part::UpperLeg)));
        assert_eq!(read("LowerLeg.L"), (L, Some(Part::LowerLeg)));
        assert_eq!(read("PoleTarget.L"), (L, Some(Part::Helper)));
        assert_eq!(read("J_Bip_L_UpperArm"), (L, Some(Part::UpperArm)));
        assert_eq!(read("Left wrist"), (L, Some(Part::Hand)));
        assert_eq!(
            read("IndexFinger1_L"),
            (L, Some(Part::Finger(Finger::Index)))
        );
        assert_eq!(read("Bip01 L Thigh"), (L, Some(Part::UpperLeg)));
        let vrm = read_name("leftUpperArm");
        assert_eq!(vrm.exact, Some(HumanBone::LeftUpperArm));
        assert_eq!((vrm.side, vrm.part), (L, Some(Part::UpperArm)));
    }

    #[test]
    fn numbered_generic_joints_say_no_part() {
        assert_eq!(read("leg_joint_L_1"), (L, None));
        assert_eq!(read("Skeleton_arm_joint_R__2_"), (R, None));
        assert_eq!(read("Skeleton_arm_joint_R"), (R, None));
        assert_eq!(read("Left_Knee_Joint"), (L, Some(Part::LowerLeg)));
        // A bone's word numbered still names the bone (Unity's robot Kyle).
        assert_eq!(read("Left_Knee_Joint_01"), (L, Some(Part::LowerLeg)));
        assert_eq!(read("Right_Upper_Arm_Joint_01"), (R, Some(Part::UpperArm)));
        assert_eq!(read("Left_Thigh_Joint_01"), (L, Some(Part::UpperLeg)));
        assert_eq!(read("joint_07"), (None, None));
        assert_eq!(read("Body"), (None, None));
        assert_eq!(read(""), (None, None));
    }
}
