//! Limb tags from world positions (the paper: "determined based on the world position of
//! each limb relatively to each other"; legs are the limbs close to the ground). A limb is
//! tagged against the others too: a side is a pair's (a bent head or a tail swung aside has
//! no twin), and limbs hung at a leg pair's height that hang down are legs (a horse whose
//! hind legs end at the hock, its hooves IK targets elsewhere).

use super::build::BuildFrame;
use super::{Depth, Height, Lateral, LimbType, Tags};
use glam::Vec3;

/// The frame limbs are tagged in: the pelvis, the character's axes, the floor and size, and
/// every limb's tags decided together.
pub(super) struct Tagger<'a> {
    positions: &'a [Vec3],
    names: &'a [String],
    parents: &'a [Option<usize>],
    pelvis: Vec3,
    forward: Vec3,
    left: Vec3,
    size: f32,
    floor: f32,
    /// Vertical extent: heights are judged against it (a robot's arm span is not its height).
    tall: f32,
    /// Midway between the front-most and back-most limb attachments.
    mid_depth: f32,
    /// The limbs' tags, by first joint.
    settled: Vec<(usize, Tags)>,
}

/// One limb: its joints, the joint it hangs from and the effectors hung from its end.
pub(super) struct LimbInput<'s> {
    pub joints: &'s [usize],
    pub attach: usize,
    pub effectors: usize,
}

/// What a limb's shape says alone, before the others are weighed.
struct Reading {
    tags: Tags,
    /// Its side from where it lies, not from its names.
    placed_side: Lateral,
    named: bool,
    /// Its last joint near the floor.
    grounded: bool,
    /// Its tip well below its first joint.
    hangs: bool,
    count: usize,
    length: f32,
    /// Its joints' mean, and that mean mirrored across the body's midplane.
    mean: Vec3,
    mirrored: Vec3,
    along: f32,
    /// Height of its first joint (a hip, a shoulder).
    start_y: f32,
    effectors: usize,
}

impl<'a> Tagger<'a> {
    pub fn new(frame: &BuildFrame<'a>, pelvis: usize, limbs: &[LimbInput]) -> Self {
        let pos = frame.positions;
        let forward = Vec3::new(frame.forward.x, 0.0, frame.forward.z)
            .try_normalize()
            .unwrap_or(Vec3::Z);
        let left = Vec3::Y.cross(forward);
        let (lo, hi) = pos.iter().fold(
            (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
            |(lo, hi), p| (lo.min(*p), hi.max(*p)),
        );
        let origin = pos[pelvis];
        let depths: Vec<f32> = limbs
            .iter()
            .map(|l| (pos[l.joints[0]] - origin).dot(forward))
            .collect();
        let (dlo, dhi) = depths
            .iter()
            .fold((f32::MAX, f32::MIN), |(a, b), d| (a.min(*d), b.max(*d)));
        let mut t = Self {
            positions: pos,
            names: frame.names,
            parents: frame.parents,
            pelvis: origin,
            forward,
            left,
            size: (hi - lo).max_element().max(1e-6),
            floor: lo.y,
            tall: (hi.y - lo.y).max(1e-6),
            mid_depth: if depths.is_empty() {
                0.0
            } else {
                (dlo + dhi) * 0.5
            },
            settled: Vec::new(),
        };
        let readings: Vec<Reading> = limbs.iter().map(|l| t.read(l)).collect();
        t.settled = limbs
            .iter()
            .zip(settle(&t, readings))
            .map(|(l, tags)| (l.joints[0], tags))
            .collect();
        t
    }

    /// How far forward joint `j` lies, along the character's facing.
    pub(super) fn depth(&self, j: usize) -> f32 {
        self.positions[j].dot(self.forward)
    }

    /// A limb's tags from its own shape and names.
    fn read(&self, limb: &LimbInput) -> Reading {
        let (pos, joints) = (self.positions, limb.joints);
        let mean = joints.iter().map(|&j| pos[j]).sum::<Vec3>() / joints.len().max(1) as f32;
        let start = pos[joints[0]];
        let last = *joints.last().expect("limbs have joints");
        let end = pos[last];
        let side = (mean - self.pelvis).dot(self.left);
        let placed_side = if side > 0.025 * self.size {
            Lateral::Left
        } else if side < -0.025 * self.size {
            Lateral::Right
        } else {
            Lateral::Center
        };
        let named = named_side(self.names, joints);
        let lateral = named.unwrap_or(placed_side);
        let along = (start - self.pelvis).dot(self.forward) - self.mid_depth;
        let depth = if along > 0.1 * self.size {
            Depth::Front
        } else if along < -0.1 * self.size {
            Depth::Back
        } else {
            Depth::Center
        };
        // A leaf bone's end is nowhere in the file: take it as long as the bone before it.
        let leaf = !self.parents.contains(&Some(last));
        let tip = match joints {
            [.., before, _] if leaf => end + (end - pos[*before]),
            _ => end,
        };
        let attach = pos[limb.attach];
        let grounded_tip = tip.y - self.floor < 0.1 * self.tall;
        let hangs = tip.y < start.y - 0.25 * self.tall;
        // Where the limb reaches: legs end well below the pelvis (a robot's leg may end at its
        // knee, its foot an IK target hung from the root), arms in the T-pose above it; a
        // leg whose last bone reaches the floor from high on the body (a horse's) too.
        let rise = end.y.min(mean.y) - self.pelvis.y;
        let lift = end.y.max(mean.y) - self.pelvis.y;
        let height = if rise < -0.15 * self.tall || (grounded_tip && hangs) {
            Height::Bottom
        } else if lift > 0.1 * self.tall {
            Height::Up
        } else {
            Height::Center
        };
        let grounded = end.y - self.floor < 0.1 * self.tall;
        let mut prev = attach;
        let length = joints
            .iter()
            .map(|&j| {
                let d = pos[j].distance(prev);
                prev = pos[j];
                d
            })
            .sum();
        let tags = Tags {
            depth,
            height,
            lateral,
            limb: limb_type(height, lateral, grounded, limb.effectors),
        };
        Reading {
            tags,
            placed_side,
            named: named.is_some(),
            grounded,
            hangs,
            count: joints.len(),
            length,
            mean,
            mirrored: mean - 2.0 * side * self.left,
            along,
            start_y: start.y,
            effectors: limb.effectors,
        }
    }
}

/// A leg comes in a left-right pair or stands on the floor; a drooping tail does neither.
fn limb_type(height: Height, lateral: Lateral, grounded: bool, effectors: usize) -> LimbType {
    if height == Height::Bottom && (lateral != Lateral::Center || grounded) {
        LimbType::Leg
    } else if effectors >= 2 || (lateral != Lateral::Center && height != Height::Bottom) {
        LimbType::Grasper
    } else {
        LimbType::Generic
    }
}

/// The tags of every limb weighed against the others: a side no name gives needs a twin on
/// the other side (as many joints within one, as long within a third, as far forward, and
/// lying where it would mirrored, within half its length: a gallop's legs swing apart);
/// then a pair that hangs down from the height a leg pair hangs from, ahead of or behind it,
/// is a leg pair too.
fn settle(t: &Tagger, mut limbs: Vec<Reading>) -> Vec<Tags> {
    let opposite = |a: Lateral, b: Lateral| {
        matches!(
            (a, b),
            (Lateral::Left, Lateral::Right) | (Lateral::Right, Lateral::Left)
        )
    };
    let twin = |limbs: &[Reading], i: usize| {
        let a = &limbs[i];
        (0..limbs.len()).find(|&k| {
            let b = &limbs[k];
            k != i
                && opposite(a.tags.lateral, b.tags.lateral)
                && a.count.abs_diff(b.count) <= 1
                && (a.length / b.length.max(1e-6)).clamp(1e-3, 1e3).ln().abs() < 1.35f32.ln()
                && (a.along - b.along).abs() < 0.15 * t.size
                && a.mirrored.distance(b.mean) < 0.5 * a.length.max(b.length)
        })
    };
    let unpaired: Vec<usize> = (0..limbs.len())
        .filter(|&i| !limbs[i].named && limbs[i].placed_side != Lateral::Center)
        .filter(|&i| twin(&limbs, i).is_none())
        .collect();
    for i in unpaired {
        let l = &mut limbs[i];
        l.tags.lateral = Lateral::Center;
        l.tags.limb = limb_type(l.tags.height, Lateral::Center, l.grounded, l.effectors);
    }
    let legs: Vec<(f32, f32)> = limbs
        .iter()
        .filter(|l| l.tags.limb == LimbType::Leg && l.tags.lateral != Lateral::Center)
        .map(|l| (l.start_y, l.along))
        .collect();
    let promoted: Vec<usize> = (0..limbs.len())
        .filter(|&i| {
            let l = &limbs[i];
            l.tags.limb != LimbType::Leg
                && l.tags.lateral != Lateral::Center
                && l.hangs
                && twin(&limbs, i).is_some_and(|k| limbs[k].hangs)
                && legs.iter().any(|&(y, along)| {
                    (y - l.start_y).abs() < 0.1 * t.tall && (along - l.along).abs() > 0.2 * t.size
                })
        })
        .collect();
    for i in promoted {
        limbs[i].tags.height = Height::Bottom;
        limbs[i].tags.limb = LimbType::Leg;
    }
    limbs.into_iter().map(|l| l.tags).collect()
}

/// The tags of the limb `joints` (settled with the others when it is one of the limbs the
/// tagger was made with; an effector alone) with `effectors` extremities.
pub(super) fn tag_limb(t: &Tagger, joints: &[usize], effectors: usize) -> Tags {
    if let Some((_, tags)) = t.settled.iter().find(|(first, _)| *first == joints[0]) {
        return *tags;
    }
    let attach = t.parents[joints[0]].unwrap_or(joints[0]);
    t.read(&LimbInput {
        joints,
        attach,
        effectors,
    })
    .tags
}

/// The side every joint name of a limb that says one agrees on (`FrontLeg.L`, `LeftUpLeg`),
/// or `None` when none says or they disagree.
fn named_side(names: &[String], joints: &[usize]) -> Option<Lateral> {
    let mut said = joints
        .iter()
        .filter_map(|&j| names.get(j))
        .filter_map(|n| crate::profile::side_of_name(n));
    let first = said.next()?;
    said.all(|s| s == first)
        .then_some(if first { Lateral::Left } else { Lateral::Right })
}

#[cfg(test)]
mod tests {
    use super::super::testkit::fox_like;
    use super::super::{BuildFrame, Chain, ChainKind, ChainSkeleton, Lateral, LimbType, build};
    use glam::Vec3;

    fn built(parents: &[Option<usize>], pos: &[Vec3]) -> ChainSkeleton {
        build(&BuildFrame {
            names: &[],
            parents,
            positions: pos,
            forward: Vec3::Z,
        })
    }

    fn chain_from<'c>(cs: &'c ChainSkeleton, names: &[String], start: &str) -> &'c Chain {
        cs.chains
            .iter()
            .find(|c| names[c.start()] == start)
            .unwrap_or_else(|| panic!("no chain starts at {start}"))
    }

    /// A gallop's first frame: the head bent to the left and the tail swung to the left.
    /// Neither has a twin on the other side, so neither is a left limb; the legs keep theirs.
    #[test]
    fn a_head_or_tail_swung_aside_has_no_side_without_a_twin() {
        let (names, parents, mut pos) = fox_like();
        let at = |n: &str| names.iter().position(|x| x == n).unwrap();
        for (joint, dx) in [
            ("neck", 0.06),
            ("head", 0.12),
            ("tail2", 0.05),
            ("tail3", 0.1),
        ] {
            pos[at(joint)].x += dx;
        }
        let cs = built(&parents, &pos);
        for start in ["neck", "tail1"] {
            let c = chain_from(&cs, &names, start);
            assert_eq!(c.tags.lateral, Lateral::Center, "{start}: {:?}", c.tags);
            assert_ne!(c.tags.limb, LimbType::Leg, "{start}: {:?}", c.tags);
        }
        assert_eq!(
            chain_from(&cs, &names, "front_l").tags.lateral,
            Lateral::Left
        );
        assert_eq!(
            chain_from(&cs, &names, "back_r").tags.lateral,
            Lateral::Right
        );
        assert_eq!(cs.legs().count(), 4);
    }

    /// A horse as Quaternius rigs it: the legs, neck, tail and a back run (`hips … torso`)
    /// all hang from a `body` joint low in the belly; each leg ends at its hock, its hoof an
    /// IK target elsewhere. The front legs' last bones reach the floor, so they are legs; the
    /// hind pair hangs from the same height behind them, so it is too; the back run between
    /// them is the spine.
    #[test]
    fn a_horse_whose_legs_end_at_the_hock_stands_on_four_legs_with_its_spine_between() {
        let mut joints: Vec<(String, Option<usize>, Vec3)> = [
            ("root", None, [0.0, 0.0, 0.0]),
            ("body", Some(0), [0.0, 2.3, 0.0]),
            ("hips", Some(1), [0.0, 4.0, -1.5]),
            ("torso", Some(2), [0.0, 3.9, 0.0]),
            ("neck", Some(1), [0.0, 4.1, 1.8]),
            ("head", Some(4), [0.0, 6.2, 3.5]),
            ("tail1", Some(1), [0.0, 3.7, -2.4]),
            ("tail2", Some(6), [0.0, 4.8, -2.7]),
        ]
        .iter()
        .map(|(n, p, x)| (n.to_string(), *p, Vec3::from(*x)))
        .collect();
        let legs = [
            (
                "front",
                1.9,
                [[0.3, 3.15, 0.0], [0.9, 3.15, 0.0], [0.9, 1.68, 0.2]],
            ),
            (
                "back",
                -2.2,
                [[0.3, 3.15, 0.0], [0.8, 3.15, 0.0], [0.8, 2.26, -0.6]],
            ),
        ];
        for (limb, z, bones) in legs {
            for (side, sign) in [("l", 1.0f32), ("r", -1.0)] {
                for (k, [x, y, dz]) in bones.iter().enumerate() {
                    let parent = if k == 0 { 1 } else { joints.len() - 1 };
                    let at = Vec3::new(x * sign, *y, z + dz);
                    joints.push((format!("{limb}{k}_{side}"), Some(parent), at));
                }
            }
        }
        let names: Vec<String> = joints.iter().map(|j| j.0.clone()).collect();
        let parents: Vec<Option<usize>> = joints.iter().map(|j| j.1).collect();
        let pos: Vec<Vec3> = joints.iter().map(|j| j.2).collect();
        let cs = built(&parents, &pos);
        assert_eq!(names[cs.pelvis().unwrap()], "body");
        for start in ["front0_l", "front0_r", "back0_l", "back0_r"] {
            let c = chain_from(&cs, &names, start);
            assert_eq!(c.tags.limb, LimbType::Leg, "{start}: {:?}", c.tags);
        }
        assert_eq!(
            chain_from(&cs, &names, "front0_l").tags.lateral,
            Lateral::Left
        );
        assert_eq!(chain_from(&cs, &names, "hips").kind, ChainKind::Spine);
        assert_eq!(chain_from(&cs, &names, "tail1").kind, ChainKind::Limb);
        assert_eq!(chain_from(&cs, &names, "neck").kind, ChainKind::Limb);
    }
}
