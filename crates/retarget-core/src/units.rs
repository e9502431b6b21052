//! Length units and up axes, worked out from the figure itself where a file does not say.

use super::humanoid::HumanBone;
use super::pose::Pose;
use super::skeleton::Skeleton;
use glam::Vec3;
use serde::{Deserialize, Serialize};

/// A length unit of a file, as a factor to metres.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Unit {
    Metre,
    /// MakeHuman's BVH unit.
    Decimetre,
    Centimetre,
    Millimetre,
    Inch,
    /// The CMU mocap (ASF) unit: 1/0.45 inch ≈ 5.644 cm.
    CmuAsf,
}

impl Unit {
    pub const ALL: [Unit; 6] = [
        Unit::Metre,
        Unit::Decimetre,
        Unit::Centimetre,
        Unit::Millimetre,
        Unit::Inch,
        Unit::CmuAsf,
    ];

    pub fn metres(self) -> f32 {
        match self {
            Unit::Metre => 1.0,
            Unit::Decimetre => 0.1,
            Unit::Centimetre => 0.01,
            Unit::Millimetre => 0.001,
            Unit::Inch => 0.0254,
            Unit::CmuAsf => 0.0254 / 0.45,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Unit::Metre => "m",
            Unit::Decimetre => "dm",
            Unit::Centimetre => "cm",
            Unit::Millimetre => "mm",
            Unit::Inch => "in",
            Unit::CmuAsf => "cmu",
        }
    }

    pub fn parse(s: &str) -> Option<Unit> {
        Unit::ALL
            .into_iter()
            .find(|u| u.name().eq_ignore_ascii_case(s))
    }

    /// The unit that makes a figure of `height` file units closest to a 1.7 m person,
    /// on a log scale (so 30 CMU units and 67 inches both land near 1.7 m).
    pub fn guess_from_height(height: f32) -> Unit {
        const PERSON_M: f32 = 1.7;
        let miss = |u: Unit| (height * u.metres() / PERSON_M).ln().abs();
        Unit::ALL
            .into_iter()
            .min_by(|a, b| miss(*a).total_cmp(&miss(*b)))
            .unwrap_or(Unit::Metre)
    }
}

/// The length along the bones from a foot to the head of an adult, in metres: the body
/// read in a unit should come near it (1.39-1.62 m over the corpus's mocap of people; a
/// stature of about 1.13 times it).
const PERSON_PATH_M: f32 = 1.5;

/// A unit read from a figure, with its evidence and the unit that came next.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitReading {
    pub unit: Unit,
    /// The measure in file units and what it makes in metres, in words.
    pub evidence: String,
    pub runner_up: Option<Unit>,
}

impl Unit {
    /// The unit that makes the length along the bones from a foot to the head (`path`, in
    /// file units) closest to an adult's, on a log scale. Bone lengths do not change with
    /// the pose, so this holds for mocap whose zero pose is not a standing body (every
    /// offset along +X) and whatever way up it lies.
    pub fn from_body_path(path: f32) -> UnitReading {
        let miss = |u: Unit| (path * u.metres() / PERSON_PATH_M).ln().abs();
        let mut ranked = Unit::ALL.to_vec();
        ranked.sort_by(|a, b| miss(*a).total_cmp(&miss(*b)));
        let unit = ranked[0];
        let runner_up = ranked.get(1).copied();
        let as_m = |u: Unit| path * u.metres();
        let evidence = format!(
            "foot to head along the bones {path:.3} file units: {:.2} m in {}{}",
            as_m(unit),
            unit.name(),
            runner_up.map_or(String::new(), |r| format!(
                " (in {}: {:.2} m)",
                r.name(),
                as_m(r)
            ))
        );
        UnitReading {
            unit,
            evidence,
            runner_up,
        }
    }
}

/// The length along the bones of `skeleton`'s rest from a foot to the head (the neck when
/// it has no head), in file units; `None` without labelled feet and head.
pub fn body_path(skeleton: &Skeleton, labels: &[Option<HumanBone>]) -> Option<f32> {
    let find = |bones: &[HumanBone]| {
        bones
            .iter()
            .find_map(|b| labels.iter().position(|l| *l == Some(*b)))
    };
    let head = find(&[HumanBone::Head, HumanBone::Neck])?;
    let parents = skeleton.parents();
    let line = |mut j: usize| {
        let mut up = vec![j];
        while let Some(p) = parents[j] {
            up.push(p);
            j = p;
        }
        up
    };
    let to_head = line(head);
    let length = |chain: &[usize], stop: usize| -> f32 {
        chain
            .iter()
            .take_while(|&&j| j != stop)
            .map(|&j| skeleton.rest()[j].translation.length())
            .sum()
    };
    let paths: Vec<f32> = [HumanBone::LeftFoot, HumanBone::RightFoot]
        .iter()
        .filter_map(|&b| find(&[b]))
        .filter_map(|foot| {
            let to_foot = line(foot);
            let common = *to_foot.iter().find(|j| to_head.contains(j))?;
            Some(length(&to_foot, common) + length(&to_head, common))
        })
        .collect();
    let path = paths.iter().sum::<f32>() / paths.len().max(1) as f32;
    (!paths.is_empty() && path > 0.0 && path.is_finite()).then_some(path)
}

/// A signed coordinate axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Axis {
    PosX,
    NegX,
    PosY,
    NegY,
    PosZ,
    NegZ,
}

impl Axis {
    pub fn vector(self) -> Vec3 {
        match self {
            Axis::PosX => Vec3::X,
            Axis::NegX => Vec3::NEG_X,
            Axis::PosY => Vec3::Y,
            Axis::NegY => Vec3::NEG_Y,
            Axis::PosZ => Vec3::Z,
            Axis::NegZ => Vec3::NEG_Z,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Axis::PosX => "+X",
            Axis::NegX => "-X",
            Axis::PosY => "+Y",
            Axis::NegY => "-Y",
            Axis::PosZ => "+Z",
            Axis::NegZ => "-Z",
        }
    }

    pub fn parse(s: &str) -> Option<Axis> {
        let s = s.trim().to_ascii_uppercase();
        let s = if s.len() == 1 { format!("+{s}") } else { s };
        [
            Axis::PosX,
            Axis::NegX,
            Axis::PosY,
            Axis::NegY,
            Axis::PosZ,
            Axis::NegZ,
        ]
        .into_iter()
        .find(|a| a.name() == s)
    }

    /// The signed axis closest to `v` (its largest component).
    pub fn dominant(v: Vec3) -> Axis {
        let a = v.abs();
        if a.x >= a.y && a.x >= a.z {
            if v.x >= 0.0 { Axis::PosX } else { Axis::NegX }
        } else if a.y >= a.z {
            if v.y >= 0.0 { Axis::PosY } else { Axis::NegY }
        } else if v.z >= 0.0 {
            Axis::PosZ
        } else {
            Axis::NegZ
        }
    }
}

/// What a figure's rest pose says about its up axis and size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FigureExtent {
    /// From the feet to the head when both are found, else the joints' bounding-box height
    /// along `up`.
    pub up: Axis,
    /// Height along `up`, in the units of the positions given.
    pub height: f32,
    /// Whether `up` came from head and feet (true) or was assumed (+Y).
    pub up_found: bool,
}

/// Looks at world joint positions of `pose` (including the container) to find which way is
/// up and how tall the figure is.
pub fn figure_extent(skeleton: &Skeleton, pose: &Pose) -> FigureExtent {
    let positions = pose.world_positions(skeleton);
    let head = find_joint(skeleton, HumanBone::Head, &["head"]);
    let feet: Vec<usize> = [HumanBone::LeftFoot, HumanBone::RightFoot]
        .into_iter()
        .filter_map(|b| skeleton.find_humanoid(b))
        .collect();
    let feet = if feet.is_empty() {
        joints_named(skeleton, &["foot", "ankle", "toe"])
    } else {
        feet
    };
    let (up, up_found) = match head {
        Some(h) if !feet.is_empty() => {
            let low = feet.iter().map(|&f| positions[f]).sum::<Vec3>() / feet.len() as f32;
            let v = positions[h] - low;
            if v.length_squared() > 0.0 {
                (Axis::dominant(v), true)
            } else {
                (Axis::PosY, false)
            }
        }
        _ => (Axis::PosY, false),
    };
    FigureExtent {
        up,
        height: extent_along(&positions, up),
        up_found,
    }
}

/// How tall the figure stands in `pose` along `up`, in the units of its positions.
pub fn height_along(skeleton: &Skeleton, pose: &Pose, up: Axis) -> f32 {
    extent_along(&pose.world_positions(skeleton), up)
}

fn extent_along(positions: &[Vec3], up: Axis) -> f32 {
    let dir = up.vector();
    let (lo, hi) = positions
        .iter()
        .map(|p| p.dot(dir))
        .fold((f32::INFINITY, f32::NEG_INFINITY), |(lo, hi), d| {
            (lo.min(d), hi.max(d))
        });
    if hi > lo { hi - lo } else { 0.0 }
}

fn find_joint(skeleton: &Skeleton, bone: HumanBone, words: &[&str]) -> Option<usize> {
    skeleton
        .find_humanoid(bone)
        .or_else(|| joints_named(skeleton, words).into_iter().next())
}

fn joints_named(skeleton: &Skeleton, words: &[&str]) -> Vec<usize> {
    skeleton
        .names()
        .iter()
        .enumerate()
        .filter(|(_, n)| {
            let n = n.to_ascii_lowercase();
            words.iter().any(|w| n.contains(w)) && !n.contains("end")
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unit_guess_lands_near_a_person() {
        assert_eq!(Unit::guess_from_height(1.75), Unit::Metre);
        assert_eq!(Unit::guess_from_height(172.0), Unit::Centimetre);
        assert_eq!(Unit::guess_from_height(1800.0), Unit::Millimetre);
        assert_eq!(Unit::guess_from_height(68.0), Unit::Inch);
        // A CMU figure is about 30 units from toe to head top.
        assert_eq!(Unit::guess_from_height(30.0), Unit::CmuAsf);
        // MakeHuman's BVH: about 17 decimetres from toe to head top.
        assert_eq!(Unit::guess_from_height(17.2), Unit::Decimetre);
    }

    #[test]
    fn the_path_from_foot_to_head_tells_the_unit_of_a_person() {
        // Foot to head along the bones in the corpus's mocap: LAFAN1 166.5 (cm), Bandai
        // 134.5 (cm), CMU 24.7 (its own unit), MakeHuman 16.4 (dm), Poser 70.3 and a Z-up
        // research file 60.8 (inches), Xsens 1.54 (m), MANN's dog named as a person 100.4 (cm).
        let cases = [
            (166.5, Unit::Centimetre),
            (134.5, Unit::Centimetre),
            (24.7, Unit::CmuAsf),
            (16.4, Unit::Decimetre),
            (70.3, Unit::Inch),
            (60.8, Unit::Inch),
            (1.54, Unit::Metre),
            (100.4, Unit::Centimetre),
        ];
        for (path, unit) in cases {
            let reading = Unit::from_body_path(path);
            assert_eq!(reading.unit, unit, "{}", reading.evidence);
            assert!(reading.runner_up.is_some_and(|r| r != unit));
        }
    }

    #[test]
    fn axis_parse_and_dominant() {
        assert_eq!(Axis::parse("z"), Some(Axis::PosZ));
        assert_eq!(Axis::parse("-y"), Some(Axis::NegY));
        assert_eq!(Axis::parse("w"), None);
        assert_eq!(Axis::dominant(Vec3::new(0.1, -0.2, -3.0)), Axis::NegZ);
        assert_eq!(Unit::parse("CM"), Some(Unit::Centimetre));
    }
}
