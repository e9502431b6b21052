//! One capsule per body bone (torso, thighs, upper arms, forearms, hands) in flat arrays
//! indexed by joint: the axis from the joint to its end, the radius fitted to the skin the
//! bone moves, or in proportion to the height where no mesh says.

use super::distance::{Contact, contact};
use crate::humanoid::HumanBone;
use glam::Vec3;
use serde::Serialize;

/// Which part of the body a capsule stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BodyPart {
    Torso,
    LeftThigh,
    RightThigh,
    LeftUpperArm,
    RightUpperArm,
    LeftForearm,
    RightForearm,
    LeftHand,
    RightHand,
}

/// Radii without a mesh, as shares of the figure's height. From adult anthropometry at
/// 1.75 m (a chest about 0.32 m broad and 0.23 m deep, a waist 0.28 m broad, a thigh 0.16 m
/// across at mid length, a forearm 0.08 m, a hand 0.08 m broad): a round capsule stands for
/// a torso wider than deep, so its radius lies between half the depth and half the
/// breadth, on the small side, so that a slim figure's hanging arms do not read as inside.
/// Torso 0.07 (0.12 m), thigh 0.04 (70 mm), upper arm 0.025, forearm 0.02, hand 0.02.
pub const DEFAULT_RADII: [(BodyPart, f32); 9] = [
    (BodyPart::Torso, 0.07),
    (BodyPart::LeftThigh, 0.04),
    (BodyPart::RightThigh, 0.04),
    (BodyPart::LeftUpperArm, 0.025),
    (BodyPart::RightUpperArm, 0.025),
    (BodyPart::LeftForearm, 0.02),
    (BodyPart::RightForearm, 0.02),
    (BodyPart::LeftHand, 0.02),
    (BodyPart::RightHand, 0.02),
];

/// The pairs that must not go into each other: forearms and hands into the torso, and one
/// thigh into the other. The upper arms are left out: they meet the torso at the shoulder.
pub const PAIRS: [(BodyPart, BodyPart); 5] = [
    (BodyPart::LeftForearm, BodyPart::Torso),
    (BodyPart::LeftHand, BodyPart::Torso),
    (BodyPart::RightForearm, BodyPart::Torso),
    (BodyPart::RightHand, BodyPart::Torso),
    (BodyPart::LeftThigh, BodyPart::RightThigh),
];

/// The share of a thigh's axis cut from its top: the thighs meet at the crotch in any pose,
/// where the torso's capsule holds the body.
pub const THIGH_TRIM: f32 = 0.3;

/// A hand with no finger joint reaches this share of its forearm's length past the wrist.
pub const HAND_SHARE: f32 = 0.4;

impl BodyPart {
    pub fn of(bone: HumanBone) -> Option<Self> {
        use HumanBone::*;
        Some(match bone {
            Hips | Spine | Chest | UpperChest => Self::Torso,
            LeftUpperLeg => Self::LeftThigh,
            RightUpperLeg => Self::RightThigh,
            LeftUpperArm => Self::LeftUpperArm,
            RightUpperArm => Self::RightUpperArm,
            LeftLowerArm => Self::LeftForearm,
            RightLowerArm => Self::RightForearm,
            LeftHand => Self::LeftHand,
            RightHand => Self::RightHand,
            _ => return None,
        })
    }

    pub fn label(self) -> &'static str {
        match self {
            Self::Torso => "torso",
            Self::LeftThigh => "left thigh",
            Self::RightThigh => "right thigh",
            Self::LeftUpperArm => "left upper arm",
            Self::RightUpperArm => "right upper arm",
            Self::LeftForearm => "left forearm",
            Self::RightForearm => "right forearm",
            Self::LeftHand => "left hand",
            Self::RightHand => "right hand",
        }
    }

    /// The radius without a mesh, as a share of the height (`DEFAULT_RADII`).
    pub fn default_radius(self) -> f32 {
        DEFAULT_RADII
            .iter()
            .find(|(p, _)| *p == self)
            .map_or(0.02, |(_, r)| *r)
    }
}

/// Where a capsule's axis ends.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CapsuleEnd {
    /// At another joint (the bone's child).
    Joint(usize),
    /// Past the capsule's joint along the bone from `from`, for `share` of that bone's
    /// length (a hand with no finger joint continues its forearm).
    Beyond { from: usize, share: f32 },
}

/// The body's capsules, indexed by joint: a joint with a `part` has a capsule from itself
/// to its `end`, `radius` wide (world units of the pose it was fitted in).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct BodyCapsules {
    pub part: Vec<Option<BodyPart>>,
    pub end: Vec<Option<CapsuleEnd>>,
    pub radius: Vec<f32>,
    /// The figure's height in the pose the radii were fitted in.
    pub height: f32,
}

/// The next torso joint up: where a torso capsule ends.
const UP_THE_TORSO: [HumanBone; 6] = {
    use HumanBone::*;
    [Hips, Spine, Chest, UpperChest, Neck, Head]
};

impl BodyCapsules {
    /// The height of a figure standing at `positions`: its joints' vertical (y) extent.
    pub fn height_of(positions: &[Vec3]) -> f32 {
        let (lo, hi) = (positions.iter()).fold((f32::MAX, f32::MIN), |(lo, hi), p| {
            (lo.min(p.y), hi.max(p.y))
        });
        (hi - lo).max(0.0)
    }

    /// Capsules along the labelled bones of a skeleton at `rest` (world positions per
    /// joint), with radii in proportion to `height` (`DEFAULT_RADII`), the figure's height
    /// standing (a bind pose may lie along +X).
    pub fn from_bones(
        parents: &[Option<usize>],
        labels: &[Option<HumanBone>],
        rest: &[Vec3],
        height: f32,
    ) -> Self {
        let n = parents.len().min(labels.len()).min(rest.len());
        let mut body = Self {
            part: vec![None; n],
            end: vec![None; n],
            radius: vec![0.0; n],
            height,
        };
        if n == 0 || height <= 0.0 || !height.is_finite() {
            return body;
        }
        let find = |bone: HumanBone| labels[..n].iter().position(|l| *l == Some(bone));
        let short = |a: usize, b: usize| rest[a].distance(rest[b]) < 1e-3 * height;
        for (j, label) in labels[..n].iter().enumerate() {
            let Some(part) = label.and_then(BodyPart::of) else {
                continue;
            };
            let bone = label.expect("a part has a label");
            let end = match part {
                BodyPart::Torso => {
                    let at = UP_THE_TORSO.iter().position(|&b| b == bone).unwrap_or(0);
                    UP_THE_TORSO[at + 1..]
                        .iter()
                        .find_map(|&b| find(b))
                        .map(CapsuleEnd::Joint)
                }
                BodyPart::LeftHand | BodyPart::RightHand => {
                    hand_end(j, bone, parents, labels, rest, height)
                }
                _ => child_bone(bone).and_then(find).map(CapsuleEnd::Joint),
            };
            let Some(end) = end.filter(|e| match *e {
                CapsuleEnd::Joint(k) => k < n && !short(j, k),
                CapsuleEnd::Beyond { from, .. } => from < n && !short(from, j),
            }) else {
                continue;
            };
            body.part[j] = Some(part);
            body.end[j] = Some(end);
            body.radius[j] = part.default_radius() * height;
        }
        body
    }

    pub fn len(&self) -> usize {
        self.part.len()
    }

    /// The same capsules in a world `k` times as large.
    pub fn scaled(mut self, k: f32) -> Self {
        if k.is_finite() && k > 0.0 {
            self.radius.iter_mut().for_each(|r| *r *= k);
            self.height *= k;
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.part.iter().all(Option::is_none)
    }

    /// The joints with a capsule of `part`.
    pub fn joints_of(&self, part: BodyPart) -> impl Iterator<Item = usize> + '_ {
        (0..self.len()).filter(move |&j| self.part[j] == Some(part))
    }

    /// Capsule `j`'s axis and radius at `positions` (world positions per joint), scaled
    /// by `scale` (the height there over the height the radii were fitted at).
    pub fn capsule(&self, j: usize, positions: &[Vec3], scale: f32) -> Option<(Vec3, Vec3, f32)> {
        let part = (*self.part.get(j)?)?;
        let (start, end) = self.bone(j, positions)?;
        let start = match part {
            BodyPart::LeftThigh | BodyPart::RightThigh => start.lerp(end, THIGH_TRIM),
            _ => start,
        };
        Some((start, end, self.radius[j] * scale))
    }

    /// Capsule `j`'s bone at `positions`: from its joint to its end, untrimmed.
    fn bone(&self, j: usize, positions: &[Vec3]) -> Option<(Vec3, Vec3)> {
        let start = *positions.get(j)?;
        let end = match (*self.end.get(j)?)? {
            CapsuleEnd::Joint(k) => *positions.get(k)?,
            CapsuleEnd::Beyond { from, share } => start + (start - *positions.get(from)?) * share,
        };
        Some((start, end))
    }

    /// Whether `point` lies within capsule `j`'s radius of its whole bone at `positions`
    /// (a thigh's top included): where a twist bone of the part sits, and a prop's bone
    /// (a backpack on the chest) does not.
    pub fn holds(&self, j: usize, point: Vec3, positions: &[Vec3]) -> bool {
        self.part.get(j).copied().flatten().is_some()
            && self.bone(j, positions).is_some_and(|(a, b)| {
                let (s, _) = super::distance::closest_points(a, b, point, point);
                a.lerp(b, s).distance(point) <= self.radius[j]
            })
    }

    /// The deepest contact of any `limb` capsule into any `other` capsule at `positions`.
    pub fn deepest(
        &self,
        limb: BodyPart,
        other: BodyPart,
        positions: &[Vec3],
        scale: f32,
    ) -> Option<(Contact, usize, usize)> {
        let mut best: Option<(Contact, usize, usize)> = None;
        for a in self.joints_of(limb) {
            let Some(ca) = self.capsule(a, positions, scale) else {
                continue;
            };
            for b in self.joints_of(other) {
                let Some(cb) = self.capsule(b, positions, scale) else {
                    continue;
                };
                let c = contact(ca, cb);
                if best.is_none_or(|(d, _, _)| c.depth > d.depth) {
                    best = Some((c, a, b));
                }
            }
        }
        best
    }

    /// The same capsules over other joint indices: `index[j]` is joint `j`'s new index
    /// (`None`: left out, with any capsule that needs it), `len` the new joint count.
    pub fn remapped(&self, index: &[Option<usize>], len: usize) -> Self {
        let mut out = Self {
            part: vec![None; len],
            end: vec![None; len],
            radius: vec![0.0; len],
            height: self.height,
        };
        let at = |j: usize| index.get(j).copied().flatten().filter(|&k| k < len);
        for j in 0..self.len() {
            let (Some(part), Some(end), Some(k)) = (self.part[j], self.end[j], at(j)) else {
                continue;
            };
            let end = match end {
                CapsuleEnd::Joint(e) => at(e).map(CapsuleEnd::Joint),
                CapsuleEnd::Beyond { from, share } => {
                    at(from).map(|from| CapsuleEnd::Beyond { from, share })
                }
            };
            if let Some(end) = end {
                out.part[k] = Some(part);
                out.end[k] = Some(end);
                out.radius[k] = self.radius[j];
            }
        }
        out
    }
}

/// The labelled bone a limb capsule runs to.
fn child_bone(bone: HumanBone) -> Option<HumanBone> {
    use HumanBone::*;
    Some(match bone {
        LeftUpperLeg => LeftLowerLeg,
        RightUpperLeg => RightLowerLeg,
        LeftUpperArm => LeftLowerArm,
        RightUpperArm => RightLowerArm,
        LeftLowerArm => LeftHand,
        RightLowerArm => RightHand,
        _ => return None,
    })
}

/// A hand's capsule runs to its middle finger's first joint, else to the child with the
/// most joints below it (a palm or finger base), else on past the wrist along the forearm.
fn hand_end(
    hand: usize,
    bone: HumanBone,
    parents: &[Option<usize>],
    labels: &[Option<HumanBone>],
    rest: &[Vec3],
    height: f32,
) -> Option<CapsuleEnd> {
    use HumanBone::*;
    let (middle, forearm) = match bone {
        LeftHand => (LeftMiddleProximal, LeftLowerArm),
        _ => (RightMiddleProximal, RightLowerArm),
    };
    let n = rest.len().min(parents.len()).min(labels.len());
    if let Some(m) = labels[..n].iter().position(|l| *l == Some(middle)) {
        return Some(CapsuleEnd::Joint(m));
    }
    let below = |c: usize| {
        (c..n)
            .filter(|&k| crate::skeleton::is_ancestor_in(parents, c, k))
            .count()
    };
    let child = (hand + 1..n)
        .filter(|&c| parents[c] == Some(hand))
        .filter(|&c| rest[c].distance(rest[hand]) > 0.02 * height)
        .max_by_key(|&c| below(c));
    if let Some(c) = child {
        return Some(CapsuleEnd::Joint(c));
    }
    let from = labels[..n].iter().position(|l| *l == Some(forearm))?;
    Some(CapsuleEnd::Beyond {
        from,
        share: HAND_SHARE,
    })
}

/// The share of a bone's skin a fitted capsule holds: the median distance. A torso is
/// wider than deep, and a round capsule at its 75th percentile held the arms of CesiumMan's
/// own walk 60 mm inside it; at the median, the capsule's radius lies between the half
/// breadth and the half depth, as the proportional radii do.
pub const PERCENTILE: f32 = 0.5;

/// A capsule's radius from the skin it moves: the `PERCENTILE` (median) of the distances from the
/// axis `a–b` of the `points` whose nearest axis point lies between its ends (the skin
/// past the ends belongs to the neighbouring bones). A robust figure: the few vertices of
/// a sleeve's cuff or a belt buckle move it little. `None` under 8 such points.
pub fn fit_radius(a: Vec3, b: Vec3, points: impl IntoIterator<Item = Vec3>) -> Option<f32> {
    let axis = b - a;
    let len2 = axis.length_squared();
    if len2 <= 0.0 || !len2.is_finite() {
        return None;
    }
    let mut d: Vec<f32> = points
        .into_iter()
        .filter_map(|p| {
            let t = (p - a).dot(axis) / len2;
            (0.0..=1.0).contains(&t).then(|| p.distance(a + axis * t))
        })
        .filter(|d| d.is_finite())
        .collect();
    if d.len() < 8 {
        return None;
    }
    d.sort_by(f32::total_cmp);
    let k = ((d.len() - 1) as f32 * PERCENTILE).round() as usize;
    Some(d[k])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A cylinder of radius 0.11 around a bone from (0, 1, 0) to (0, 1.5, 0): rings of
    /// vertices along it, and caps and a few stray vertices past its ends.
    #[test]
    fn a_cylinder_mesh_gives_its_radius() {
        let (a, b, r) = (Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.5, 0.0), 0.11);
        let mut points = Vec::new();
        for ring in 0..=10 {
            let y = 1.0 + 0.05 * ring as f32;
            for k in 0..24 {
                let t = k as f32 / 24.0 * std::f32::consts::TAU;
                points.push(Vec3::new(r * t.cos(), y, r * t.sin()));
            }
        }
        // Skin past the ends (the next bone's) and a few vertices far out (a buckle).
        points.extend((0..30).map(|k| Vec3::new(0.5, 0.9 - 0.01 * k as f32, 0.0)));
        points.extend((0..5).map(|k| Vec3::new(0.4, 1.2 + 0.01 * k as f32, 0.0)));
        let got = fit_radius(a, b, points).unwrap();
        assert!((got - r).abs() < 1e-5, "{got}");
        // A bone along X, tilted: the same.
        let turn = glam::Quat::from_rotation_z(1.0);
        let ring = (0..64).map(|k| {
            let t = k as f32 / 64.0 * std::f32::consts::TAU;
            turn * Vec3::new(0.03 * (k % 8) as f32, r * t.cos(), r * t.sin())
        });
        let got = fit_radius(Vec3::ZERO, turn * (Vec3::X * 0.3), ring).unwrap();
        assert!((got - r).abs() < 1e-5, "{got}");
        assert_eq!(fit_radius(a, b, [a, b]), None);
    }

    /// A stick figure: hips, spine, chest, neck; arms and legs; hands without fingers.
    fn figure() -> (Vec<Option<usize>>, Vec<Option<HumanBone>>, Vec<Vec3>) {
        use HumanBone::*;
        let joints = [
            (None, Hips, Vec3::new(0.0, 1.0, 0.0)),
            (Some(0), Spine, Vec3::new(0.0, 1.15, 0.0)),
            (Some(1), Chest, Vec3::new(0.0, 1.35, 0.0)),
            (Some(2), Neck, Vec3::new(0.0, 1.55, 0.0)),
            (Some(3), Head, Vec3::new(0.0, 1.75, 0.0)),
            (Some(2), LeftUpperArm, Vec3::new(0.2, 1.5, 0.0)),
            (Some(5), LeftLowerArm, Vec3::new(0.2, 1.2, 0.0)),
            (Some(6), LeftHand, Vec3::new(0.2, 0.95, 0.0)),
            (Some(0), LeftUpperLeg, Vec3::new(0.1, 0.95, 0.0)),
            (Some(8), LeftLowerLeg, Vec3::new(0.1, 0.5, 0.0)),
            (Some(9), LeftFoot, Vec3::new(0.1, 0.0, 0.0)),
            (Some(0), RightUpperLeg, Vec3::new(-0.1, 0.95, 0.0)),
            (Some(11), RightLowerLeg, Vec3::new(-0.1, 0.5, 0.0)),
        ];
        (
            joints.iter().map(|j| j.0).collect(),
            joints.iter().map(|j| Some(j.1)).collect(),
            joints.iter().map(|j| j.2).collect(),
        )
    }

    #[test]
    fn bones_give_capsules_in_proportion_to_the_height() {
        let (parents, labels, rest) = figure();
        let body =
            BodyCapsules::from_bones(&parents, &labels, &rest, BodyCapsules::height_of(&rest));
        assert!((body.height - 1.75).abs() < 1e-6);
        let torso: Vec<usize> = body.joints_of(BodyPart::Torso).collect();
        assert_eq!(torso, vec![0, 1, 2]);
        assert_eq!(body.end[2], Some(CapsuleEnd::Joint(3)));
        assert!((body.radius[2] - 0.07 * 1.75).abs() < 1e-6);
        // The hand continues its forearm for 0.4 of its length: 0.1 below the wrist.
        let (a, b, r) = body.capsule(7, &rest, 1.0).unwrap();
        assert!(a.abs_diff_eq(rest[7], 1e-6) && b.abs_diff_eq(Vec3::new(0.2, 0.85, 0.0), 1e-6));
        assert!((r - 0.035).abs() < 1e-6);
        // The thigh starts 0.3 down its bone.
        let (a, _, _) = body.capsule(8, &rest, 1.0).unwrap();
        assert!((a.y - (0.95 - 0.3 * 0.45)).abs() < 1e-6);
        // The left forearm 0.2 from the torso's axis, radii 0.1225 + 0.035: apart.
        let (c, limb, torso) = body
            .deepest(BodyPart::LeftForearm, BodyPart::Torso, &rest, 1.0)
            .unwrap();
        assert_eq!(limb, 6);
        assert!(
            torso <= 2 && (c.depth - (0.1575 - 0.2)).abs() < 1e-5,
            "{c:?}"
        );
        // Moved 0.1 in, it is 57.5 mm deep, and goes out along +X.
        let mut inside = rest.clone();
        for p in &mut inside[6..8] {
            p.x -= 0.1;
        }
        let (c, _, _) = body
            .deepest(BodyPart::LeftForearm, BodyPart::Torso, &inside, 1.0)
            .unwrap();
        assert!((c.depth - 0.0575).abs() < 1e-5 && c.normal.abs_diff_eq(Vec3::X, 1e-5));
    }

    #[test]
    fn a_capsule_holds_the_points_within_its_radius_of_its_whole_bone() {
        let (parents, labels, rest) = figure();
        let body =
            BodyCapsules::from_bones(&parents, &labels, &rest, BodyCapsules::height_of(&rest));
        // The chest's capsule (1.35 to 1.55, radius 0.1225): a twist bone on its axis and
        // a point just past its top are inside; a backpack 0.15 behind it is not.
        assert!(body.holds(2, Vec3::new(0.0, 1.45, 0.0), &rest));
        assert!(body.holds(2, Vec3::new(0.0, 1.65, 0.05), &rest));
        assert!(!body.holds(2, Vec3::new(0.0, 1.4, 0.15), &rest));
        // A thigh's top, trimmed from its capsule, is still its bone's: a twist bone at
        // the hip joint belongs to it.
        assert!(body.holds(8, rest[8] + Vec3::new(0.0, -0.01, 0.0), &rest));
        // A joint without a capsule holds nothing.
        assert!(!body.holds(4, rest[4], &rest));
    }

    #[test]
    fn remapping_drops_capsules_whose_joints_are_left_out() {
        let (parents, labels, rest) = figure();
        let body =
            BodyCapsules::from_bones(&parents, &labels, &rest, BodyCapsules::height_of(&rest));
        // Reversed order, the neck left out: the chest loses its capsule.
        let n = rest.len();
        let index: Vec<Option<usize>> = (0..n).map(|j| (j != 3).then(|| n - 1 - j)).collect();
        let out = body.remapped(&index, n);
        assert_eq!(out.part[n - 1], Some(BodyPart::Torso));
        assert_eq!(out.part[n - 1 - 2], None);
        assert_eq!(out.end[n - 1 - 6], Some(CapsuleEnd::Joint(n - 1 - 7)));
        let reversed: Vec<Vec3> = rest.iter().rev().copied().collect();
        let (a, b, _) = out.capsule(n - 1 - 7, &reversed, 1.0).unwrap();
        assert!(a.abs_diff_eq(rest[7], 1e-6) && b.y < a.y);
    }
}
