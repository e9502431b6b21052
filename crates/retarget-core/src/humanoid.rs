//! The canonical humanoid profile: the VRM 1.0 bone set. Every rig is labelled against it,
//! so N rigs need N maps rather than N² (see docs/design.md, Godot's approach).

use serde::{Deserialize, Serialize};

macro_rules! human_bones {
    ($($variant:ident = $name:literal),* $(,)?) => {
        /// A VRM 1.0 humanoid bone.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        pub enum HumanBone { $($variant),* }

        impl HumanBone {
            pub const ALL: &'static [HumanBone] = &[$(HumanBone::$variant),*];

            /// The VRM 1.0 name, e.g. `leftUpperLeg`.
            pub fn as_str(self) -> &'static str {
                match self { $(HumanBone::$variant => $name),* }
            }

            /// Parses a VRM 1.0 bone name (exact, case-sensitive as the spec writes it).
            pub fn from_vrm1(name: &str) -> Option<HumanBone> {
                match name { $($name => Some(HumanBone::$variant),)* _ => None }
            }
        }
    };
}

human_bones! {
    Hips = "hips", Spine = "spine", Chest = "chest", UpperChest = "upperChest",
    Neck = "neck", Head = "head", LeftEye = "leftEye", RightEye = "rightEye", Jaw = "jaw",
    LeftUpperLeg = "leftUpperLeg", LeftLowerLeg = "leftLowerLeg", LeftFoot = "leftFoot", LeftToes = "leftToes",
    RightUpperLeg = "rightUpperLeg", RightLowerLeg = "rightLowerLeg", RightFoot = "rightFoot", RightToes = "rightToes",
    LeftShoulder = "leftShoulder", LeftUpperArm = "leftUpperArm", LeftLowerArm = "leftLowerArm", LeftHand = "leftHand",
    RightShoulder = "rightShoulder", RightUpperArm = "rightUpperArm", RightLowerArm = "rightLowerArm", RightHand = "rightHand",
    LeftThumbMetacarpal = "leftThumbMetacarpal", LeftThumbProximal = "leftThumbProximal", LeftThumbDistal = "leftThumbDistal",
    LeftIndexProximal = "leftIndexProximal", LeftIndexIntermediate = "leftIndexIntermediate", LeftIndexDistal = "leftIndexDistal",
    LeftMiddleProximal = "leftMiddleProximal", LeftMiddleIntermediate = "leftMiddleIntermediate", LeftMiddleDistal = "leftMiddleDistal",
    LeftRingProximal = "leftRingProximal", LeftRingIntermediate = "leftRingIntermediate", LeftRingDistal = "leftRingDistal",
    LeftLittleProximal = "leftLittleProximal", LeftLittleIntermediate = "leftLittleIntermediate", LeftLittleDistal = "leftLittleDistal",
    RightThumbMetacarpal = "rightThumbMetacarpal", RightThumbProximal = "rightThumbProximal", RightThumbDistal = "rightThumbDistal",
    RightIndexProximal = "rightIndexProximal", RightIndexIntermediate = "rightIndexIntermediate", RightIndexDistal = "rightIndexDistal",
    RightMiddleProximal = "rightMiddleProximal", RightMiddleIntermediate = "rightMiddleIntermediate", RightMiddleDistal = "rightMiddleDistal",
    RightRingProximal = "rightRingProximal", RightRingIntermediate = "rightRingIntermediate", RightRingDistal = "rightRingDistal",
    RightLittleProximal = "rightLittleProximal", RightLittleIntermediate = "rightLittleIntermediate", RightLittleDistal = "rightLittleDistal",
}

impl HumanBone {
    /// The joint a limb segment ends at (the upper arm's forearm, the shin's foot), for the
    /// four segments that carry twist bones; `None` for every other bone.
    pub fn segment_end(self) -> Option<HumanBone> {
        use HumanBone::*;
        Some(match self {
            LeftUpperArm => LeftLowerArm,
            RightUpperArm => RightLowerArm,
            LeftLowerArm => LeftHand,
            RightLowerArm => RightHand,
            LeftUpperLeg => LeftLowerLeg,
            RightUpperLeg => RightLowerLeg,
            LeftLowerLeg => LeftFoot,
            RightLowerLeg => RightFoot,
            _ => return None,
        })
    }

    /// The bone on the other side (`leftHand` ↔ `rightHand`); centre bones are their own twin.
    pub fn twin(self) -> HumanBone {
        let name = self.as_str();
        let swapped = if let Some(rest) = name.strip_prefix("left") {
            format!("right{rest}")
        } else if let Some(rest) = name.strip_prefix("right") {
            format!("left{rest}")
        } else {
            return self;
        };
        HumanBone::from_vrm1(&swapped).unwrap_or(self)
    }

    pub fn is_left(self) -> bool {
        self.as_str().starts_with("left")
    }

    pub fn is_right(self) -> bool {
        self.as_str().starts_with("right")
    }

    /// Parses a VRM 0.x bone name. 0.x counts thumb joints one further from the palm
    /// (`Proximal, Intermediate, Distal`) than 1.0 (`Metacarpal, Proximal, Distal`).
    pub fn from_vrm0(name: &str) -> Option<HumanBone> {
        let renamed = match name {
            "leftThumbProximal" => "leftThumbMetacarpal",
            "leftThumbIntermediate" => "leftThumbProximal",
            "rightThumbProximal" => "rightThumbMetacarpal",
            "rightThumbIntermediate" => "rightThumbProximal",
            other => other,
        };
        HumanBone::from_vrm1(renamed)
    }

    /// Labels a Mixamo joint (`mixamorig:LeftUpLeg`, with any `mixamorigN:` prefix).
    /// Returns `None` for names without the Mixamo prefix: a bare `Spine1` says too little.
    pub fn from_mixamo(joint_name: &str) -> Option<HumanBone> {
        let (prefix, bare) = joint_name.split_once(':')?;
        if !prefix.to_ascii_lowercase().starts_with("mixamorig") {
            return None;
        }
        mixamo_bone(bare)
    }
}

fn mixamo_bone(bare: &str) -> Option<HumanBone> {
    use HumanBone::*;
    let (side_left, rest) = if let Some(r) = bare.strip_prefix("Left") {
        (Some(true), r)
    } else if let Some(r) = bare.strip_prefix("Right") {
        (Some(false), r)
    } else {
        (None, bare)
    };
    let pick = |l: HumanBone, r: HumanBone| match side_left {
        Some(true) => Some(l),
        Some(false) => Some(r),
        None => None,
    };
    match rest {
        "Hips" if side_left.is_none() => Some(Hips),
        "Spine" if side_left.is_none() => Some(Spine),
        "Spine1" if side_left.is_none() => Some(Chest),
        "Spine2" if side_left.is_none() => Some(UpperChest),
        "Neck" if side_left.is_none() => Some(Neck),
        "Head" if side_left.is_none() => Some(Head),
        "Eye" => pick(LeftEye, RightEye),
        "UpLeg" => pick(LeftUpperLeg, RightUpperLeg),
        "Leg" => pick(LeftLowerLeg, RightLowerLeg),
        "Foot" => pick(LeftFoot, RightFoot),
        "ToeBase" => pick(LeftToes, RightToes),
        "Shoulder" => pick(LeftShoulder, RightShoulder),
        "Arm" => pick(LeftUpperArm, RightUpperArm),
        "ForeArm" => pick(LeftLowerArm, RightLowerArm),
        "Hand" => pick(LeftHand, RightHand),
        finger => mixamo_finger(finger, side_left?),
    }
}

fn mixamo_finger(rest: &str, left: bool) -> Option<HumanBone> {
    use HumanBone::*;
    let digits = rest.strip_prefix("Hand")?;
    let (finger, n) = digits.split_at(digits.len().checked_sub(1)?);
    let table: [[HumanBone; 3]; 2] = match finger {
        "Thumb" => [
            [LeftThumbMetacarpal, LeftThumbProximal, LeftThumbDistal],
            [RightThumbMetacarpal, RightThumbProximal, RightThumbDistal],
        ],
        "Index" => [
            [LeftIndexProximal, LeftIndexIntermediate, LeftIndexDistal],
            [RightIndexProximal, RightIndexIntermediate, RightIndexDistal],
        ],
        "Middle" => [
            [LeftMiddleProximal, LeftMiddleIntermediate, LeftMiddleDistal],
            [
                RightMiddleProximal,
                RightMiddleIntermediate,
                RightMiddleDistal,
            ],
        ],
        "Ring" => [
            [LeftRingProximal, LeftRingIntermediate, LeftRingDistal],
            [RightRingProximal, RightRingIntermediate, RightRingDistal],
        ],
        "Pinky" => [
            [LeftLittleProximal, LeftLittleIntermediate, LeftLittleDistal],
            [
                RightLittleProximal,
                RightLittleIntermediate,
                RightLittleDistal,
            ],
        ],
        _ => return None,
    };
    let i: usize = n.parse().ok()?;
    let side = if left { 0 } else { 1 };
    table[side].get(i.checked_sub(1)?).copied()
}

/// Whether a joint's name says it is a twist or roll bone (`upperarm_twist_01_l`,
/// `LeftForeArmRoll`, `lShldrTwist`).
pub fn says_twist(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.contains("twist") || name.contains("roll")
}

/// Where `joint` sits inside the segment from `start` to `end` (world positions): its
/// fraction along it, when it lies on the segment's line (within a tenth of its length) and
/// strictly between the two; a twist bone's place.
pub fn along_segment(start: glam::Vec3, end: glam::Vec3, joint: glam::Vec3) -> Option<f32> {
    let along = end - start;
    let length2 = along.length_squared();
    if length2 < 1e-12 {
        return None;
    }
    let f = (joint - start).dot(along) / length2;
    let off = (joint - start - along * f).length() / length2.sqrt();
    (f > 0.02 && f < 0.98 && off <= 0.1).then_some(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_bone_round_trips_through_its_vrm1_name() {
        assert_eq!(HumanBone::ALL.len(), 55);
        for &b in HumanBone::ALL {
            assert_eq!(HumanBone::from_vrm1(b.as_str()), Some(b));
        }
    }

    #[test]
    fn twins_swap_sides_and_centre_bones_stay() {
        for &b in HumanBone::ALL {
            assert_eq!(b.twin().twin(), b);
            assert_eq!(b.is_left(), b.twin().is_right());
        }
        assert_eq!(HumanBone::LeftRingDistal.twin(), HumanBone::RightRingDistal);
        assert_eq!(HumanBone::Spine.twin(), HumanBone::Spine);
    }

    #[test]
    fn vrm0_thumbs_shift_by_one() {
        assert_eq!(
            HumanBone::from_vrm0("leftThumbProximal"),
            Some(HumanBone::LeftThumbMetacarpal)
        );
        assert_eq!(
            HumanBone::from_vrm0("rightThumbIntermediate"),
            Some(HumanBone::RightThumbProximal)
        );
        assert_eq!(
            HumanBone::from_vrm0("leftThumbDistal"),
            Some(HumanBone::LeftThumbDistal)
        );
        assert_eq!(
            HumanBone::from_vrm0("upperChest"),
            Some(HumanBone::UpperChest)
        );
    }

    #[test]
    fn mixamo_names_label_joints() {
        assert_eq!(
            HumanBone::from_mixamo("mixamorig:LeftUpLeg"),
            Some(HumanBone::LeftUpperLeg)
        );
        assert_eq!(
            HumanBone::from_mixamo("mixamorig:Spine2"),
            Some(HumanBone::UpperChest)
        );
        assert_eq!(
            HumanBone::from_mixamo("mixamorig1:RightHandPinky3"),
            Some(HumanBone::RightLittleDistal)
        );
        assert_eq!(
            HumanBone::from_mixamo("mixamorig:LeftHandThumb1"),
            Some(HumanBone::LeftThumbMetacarpal)
        );
        assert_eq!(HumanBone::from_mixamo("mixamorig:HeadTop_End"), None);
        assert_eq!(HumanBone::from_mixamo("LeftUpLeg"), None);
        assert_eq!(HumanBone::from_mixamo("mixamorig:LeftHandIndex4"), None);
    }
}
