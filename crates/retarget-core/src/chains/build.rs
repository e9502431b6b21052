//! Automatic creation of a chain skeleton (the paper's four steps): the tree is cut into
//! segments at its branches; leaf segments are limbs (short ones hung from a limb's end are
//! its effectors); the pelvis is the lowest joint carrying every limb; the segments between
//! it and the limbs are spine; above it is root.

use super::tags::{Tagger, tag_limb};
use super::{Chain, ChainKind, ChainSkeleton, Depth, Lateral, LimbType, Tags};
use crate::skeleton::is_ancestor_in;
use glam::Vec3;

/// Where the rig stands: world joint positions of its reference pose, and its facing.
pub struct BuildFrame<'a> {
    pub parents: &'a [Option<usize>],
    pub positions: &'a [Vec3],
    /// Horizontal direction the character faces (+Z for a glTF or characterized rig).
    pub forward: Vec3,
    /// Joint names, or none: a side a limb's names say outweighs where it lies (a galloping
    /// dog's first frame, a rig read facing the wrong way).
    pub names: &'a [String],
}

/// A run of joints with one child each, ended by a leaf or a branch.
struct Segment {
    joints: Vec<usize>,
    parent: Option<usize>,
    children: Vec<usize>,
    /// Bone lengths summed from the joint it hangs from to its end.
    length: f32,
    /// Farthest any joint below its start lies from the joint it hangs from.
    extent: f32,
    /// Farthest any of its own joints lies from its first (a finger's length, not its
    /// palm's offset from the wrist).
    reach: f32,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    Limb,
    Effector,
    Helper,
    Trunk,
}

fn segments(frame: &BuildFrame) -> Vec<Segment> {
    let (parents, pos) = (frame.parents, frame.positions);
    let n = parents.len();
    let mut children = vec![Vec::new(); n];
    for (j, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            children[p].push(j);
        }
    }
    let mut seg_of = vec![usize::MAX; n];
    let mut segs: Vec<Segment> = Vec::new();
    for j in 0..n {
        let starts = match parents[j] {
            None => true,
            Some(p) => children[p].len() != 1,
        };
        if !starts {
            continue;
        }
        let parent = parents[j].map(|p| seg_of[p]);
        let anchor = parents[j].map_or(pos[j], |p| pos[p]);
        let mut joints = vec![j];
        while let [only] = children[*joints.last().unwrap()][..] {
            joints.push(only);
        }
        let mut length = 0.0;
        let mut prev = anchor;
        for &k in &joints {
            length += pos[k].distance(prev);
            prev = pos[k];
        }
        let index = segs.len();
        for &k in &joints {
            seg_of[k] = index;
        }
        if let Some(p) = parent {
            segs[p].children.push(index);
        }
        segs.push(Segment {
            joints,
            parent,
            children: Vec::new(),
            length,
            extent: 0.0,
            reach: 0.0,
        });
    }
    // Extents, children first (segments are made in topological order).
    for s in (0..segs.len()).rev() {
        let first = segs[s].joints[0];
        let anchor = parents[first].map_or(pos[first], |p| pos[p]);
        let own = segs[s]
            .joints
            .iter()
            .map(|&k| pos[k].distance(anchor))
            .fold(0.0, f32::max);
        let below = segs[s]
            .children
            .iter()
            .flat_map(|&c| segs[c].joints.iter())
            .map(|&k| pos[k].distance(anchor))
            .fold(0.0, f32::max);
        let deeper = segs[s]
            .children
            .iter()
            .map(|&c| segs[c].extent + pos[segs[c].joints[0]].distance(anchor))
            .fold(0.0, f32::max);
        segs[s].extent = own.max(below).max(deeper);
        segs[s].reach = segs[s]
            .joints
            .iter()
            .map(|&k| pos[k].distance(pos[first]))
            .fold(0.0, f32::max);
    }
    segs
}

/// The figure's size: its largest extent along any axis (a fox is longer than tall).
pub(super) fn rig_size(pos: &[Vec3]) -> f32 {
    let (lo, hi) = pos.iter().fold(
        (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)),
        |(lo, hi), p| (lo.min(*p), hi.max(*p)),
    );
    (hi - lo).max_element().max(1e-6)
}

fn classify(segs: &[Segment], parents: &[Option<usize>], size: f32) -> Vec<Class> {
    let mut class = vec![Class::Trunk; segs.len()];
    for s in (0..segs.len()).rev() {
        let seg = &segs[s];
        let hangs_from_root = parents[seg.joints[0]].is_some_and(|p| parents[p].is_none());
        class[s] = if seg.children.is_empty() {
            if seg.parent.is_none() {
                Class::Trunk
            } else if (hangs_from_root && (seg.joints.len() == 1 || seg.reach < 0.1 * size))
                || (seg.joints.len() == 1 && seg.extent < 0.1 * size)
            {
                // IK targets and poles hung from the root (with an `_end` marker, as
                // Blender's FBX export adds), and tiny leaves.
                Class::Helper
            } else {
                Class::Limb
            }
        } else {
            let ends = seg.children.iter().all(|&c| {
                let child = &segs[c];
                child.children.is_empty()
                    && child.reach < 0.25 * size
                    && (child.joints.len() == 1 || child.reach < 0.5 * seg.length)
            });
            if ends && segs[s].parent.is_some() {
                Class::Limb
            } else {
                Class::Trunk
            }
        };
        if class[s] == Class::Limb && !seg.children.is_empty() {
            for &c in &seg.children {
                class[c] = Class::Effector;
            }
        }
    }
    class
}

/// The chain skeleton of a rig, built from its shape alone.
pub fn build(frame: &BuildFrame) -> ChainSkeleton {
    let parents = frame.parents;
    if parents.is_empty() {
        return ChainSkeleton::default();
    }
    let size = rig_size(frame.positions);
    let segs = segments(frame);
    let class = classify(&segs, parents, size);
    let attach = |s: usize| {
        let first = segs[s].joints[0];
        parents[first].unwrap_or(first)
    };
    let limbs: Vec<usize> = (0..segs.len())
        .filter(|&s| class[s] == Class::Limb)
        .collect();
    let pelvis = if limbs.is_empty() {
        // No limb at all (a single chain, a prop): the first real joint carries the rest.
        segs.iter()
            .find(|s| s.length > 0.0 || !s.children.is_empty())
            .map_or(0, |s| s.joints[0])
    } else {
        let points: Vec<usize> = limbs.iter().map(|&s| attach(s)).collect();
        crate::skeleton::common_ancestor_in(parents, &points).unwrap_or(0)
    };
    let mut chains = Vec::new();
    let effectors_of = |s: usize| {
        segs[s]
            .children
            .iter()
            .filter(|&&c| class[c] == Class::Effector)
            .count()
    };
    // A limb hung beside the body (not below the pelvis) is a helper.
    let inside = |s: usize| {
        let first = segs[s].joints[0];
        first == pelvis || is_ancestor_in(parents, pelvis, first)
    };
    let inputs: Vec<super::tags::LimbInput> = limbs
        .iter()
        .filter(|&&s| inside(s))
        .map(|&s| super::tags::LimbInput {
            joints: &segs[s].joints,
            attach: attach(s),
            effectors: effectors_of(s),
        })
        .collect();
    let tagger = Tagger::new(frame, pelvis, &inputs);
    for (s, seg) in segs.iter().enumerate() {
        match class[s] {
            Class::Trunk => trunk_chains(seg, pelvis, parents, &mut chains),
            Class::Helper => chains.push(plain(ChainKind::Helper, seg.joints.clone())),
            Class::Limb | Class::Effector => {
                let kind = if class[s] == Class::Limb {
                    ChainKind::Limb
                } else {
                    ChainKind::Effector
                };
                if !inside(s) {
                    chains.push(plain(ChainKind::Helper, seg.joints.clone()));
                    continue;
                }
                chains.push(Chain {
                    kind,
                    tags: tag_limb(&tagger, &seg.joints, effectors_of(s)),
                    joints: seg.joints.clone(),
                });
            }
        }
    }
    trunk_between_legs(&mut chains, frame, &tagger, pelvis);
    ChainSkeleton { chains }
}

/// A centre branch of the pelvis that lies wholly between the front and hind legs'
/// shoulders and hips is the body's spine, not a limb (the Quaternius horse hangs its legs,
/// neck and tail from `Body` and runs `Hips … Torso` along its back beside them).
fn trunk_between_legs(chains: &mut [Chain], frame: &BuildFrame, tagger: &Tagger, pelvis: usize) {
    let depth = |j: usize| tagger.depth(j);
    let legs = |d: Depth| {
        chains
            .iter()
            .filter(|c| c.kind == ChainKind::Limb && c.tags.limb == LimbType::Leg)
            .filter(|c| c.tags.lateral != Lateral::Center && c.tags.depth == d)
            .map(|c| depth(c.start()))
            .collect::<Vec<f32>>()
    };
    let (front, back) = (legs(Depth::Front), legs(Depth::Back));
    if front.len() < 2 || back.len() < 2 {
        return;
    }
    let lo = back.iter().copied().fold(f32::MIN, f32::max);
    let hi = front.iter().copied().fold(f32::MAX, f32::min);
    for c in chains.iter_mut().filter(|c| {
        c.kind == ChainKind::Limb
            && c.joints.len() >= 2
            && c.tags.lateral == Lateral::Center
            && c.tags.limb == LimbType::Generic
            && frame.parents[c.start()] == Some(pelvis)
            && c.joints.iter().all(|&j| (lo..hi).contains(&depth(j)))
    }) {
        c.kind = ChainKind::Spine;
        c.tags = Tags::default();
    }
}

fn plain(kind: ChainKind, joints: Vec<usize>) -> Chain {
    Chain {
        kind,
        joints,
        tags: Tags::default(),
    }
}

/// A trunk segment split at the pelvis: root above it, spine below, helpers beside.
fn trunk_chains(seg: &Segment, pelvis: usize, parents: &[Option<usize>], out: &mut Vec<Chain>) {
    if let Some(k) = seg.joints.iter().position(|&j| j == pelvis) {
        if k > 0 {
            out.push(plain(ChainKind::Root, seg.joints[..k].to_vec()));
        }
        out.push(plain(ChainKind::Pelvis, vec![pelvis]));
        if k + 1 < seg.joints.len() {
            out.push(plain(ChainKind::Spine, seg.joints[k + 1..].to_vec()));
        }
        return;
    }
    let first = seg.joints[0];
    let kind = if is_ancestor_in(parents, first, pelvis) {
        ChainKind::Root
    } else if is_ancestor_in(parents, pelvis, first) {
        ChainKind::Spine
    } else {
        ChainKind::Helper
    };
    out.push(plain(kind, seg.joints.clone()));
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{biped, fox_like, names_of};
    use super::super::{ChainKind, Depth, Height, Lateral, LimbType};
    use super::*;

    #[test]
    fn a_biped_has_pelvis_spine_four_limbs_and_fingers() {
        let (names, parents, pos) = biped();
        let cs = build(&BuildFrame {
            names: &[],
            parents: &parents,
            positions: &pos,
            forward: Vec3::Z,
        });
        let pelvis = cs.pelvis().unwrap();
        assert_eq!(names[pelvis], "hips");
        let limbs: Vec<_> = cs.limbs().collect();
        assert_eq!(limbs.len(), 5, "{:?}", names_of(&cs, &names));
        let arm = limbs
            .iter()
            .find(|c| names[c.start()] == "l_shoulder")
            .unwrap();
        assert_eq!(arm.tags.limb, LimbType::Grasper);
        assert_eq!(arm.tags.lateral, Lateral::Left);
        assert_eq!(arm.tags.height, Height::Up);
        let leg = limbs
            .iter()
            .find(|c| names[c.start()] == "r_thigh")
            .unwrap();
        assert_eq!(
            (leg.tags.limb, leg.tags.lateral, leg.tags.height),
            (LimbType::Leg, Lateral::Right, Height::Bottom)
        );
        let effectors = cs
            .chains
            .iter()
            .filter(|c| c.kind == ChainKind::Effector)
            .count();
        assert_eq!(effectors, 4, "two fingers on each hand");
        let spine: Vec<_> = cs
            .chains
            .iter()
            .filter(|c| c.kind == ChainKind::Spine)
            .collect();
        assert_eq!(spine.len(), 1);
        assert_eq!(names[spine[0].end()], "chest");
        let pole = cs.chain_of(names.iter().position(|n| n == "pole").unwrap());
        assert_eq!(cs.chains[pole.unwrap()].kind, ChainKind::Helper);
    }

    #[test]
    fn an_ik_target_with_an_end_marker_is_still_a_helper() {
        // Blender's FBX export adds `_end` leaves to every bone, IK targets included.
        let (mut names, mut parents, mut pos) = biped();
        let pole = names.iter().position(|n| n == "pole").unwrap();
        names.push("pole_end".into());
        parents.push(Some(pole));
        pos.push(pos[pole] + Vec3::Z * 0.05);
        let cs = build(&BuildFrame {
            names: &[],
            parents: &parents,
            positions: &pos,
            forward: Vec3::Z,
        });
        let c = &cs.chains[cs.chain_of(pole).unwrap()];
        assert_eq!((c.kind, c.joints.len()), (ChainKind::Helper, 2));
        assert_eq!(
            names[cs.pelvis().unwrap()],
            "hips",
            "the pelvis stays the hips"
        );
    }

    #[test]
    fn a_limbs_side_comes_from_its_names_where_they_say_one() {
        // Read as facing +X while it faces +Z: by where they lie, both front legs are on
        // one side and both hind legs on the other.
        let (names, parents, pos) = fox_like();
        let sides = |given: &[String]| {
            let cs = build(&BuildFrame {
                names: given,
                parents: &parents,
                positions: &pos,
                forward: Vec3::X,
            });
            ["front_l", "front_r", "back_l", "back_r"].map(|start| {
                let chain = cs.chains.iter().find(|c| names[c.start()] == start);
                chain.expect("a leg chain").tags.lateral
            })
        };
        let by_place = sides(&[]);
        assert_eq!(by_place[0], by_place[1], "by place alone: {by_place:?}");
        assert_eq!(
            sides(&names),
            [Lateral::Left, Lateral::Right, Lateral::Left, Lateral::Right]
        );
    }

    #[test]
    fn a_quadruped_has_front_and_back_legs_and_a_tail() {
        let (names, parents, pos) = fox_like();
        let cs = build(&BuildFrame {
            names: &[],
            parents: &parents,
            positions: &pos,
            forward: Vec3::Z,
        });
        assert_eq!(names[cs.pelvis().unwrap()], "hip");
        let tag = |start: &str| {
            let c = cs
                .chains
                .iter()
                .find(|c| names[c.start()] == start)
                .unwrap();
            (c.kind, c.tags.limb, c.tags.depth, c.tags.lateral)
        };
        use ChainKind::Limb;
        assert_eq!(
            tag("front_l"),
            (Limb, LimbType::Leg, Depth::Front, Lateral::Left)
        );
        assert_eq!(
            tag("back_r"),
            (Limb, LimbType::Leg, Depth::Back, Lateral::Right)
        );
        assert_eq!(
            tag("tail1"),
            (Limb, LimbType::Generic, Depth::Back, Lateral::Center)
        );
        assert_eq!(
            tag("neck"),
            (Limb, LimbType::Generic, Depth::Front, Lateral::Center)
        );
        assert_eq!(cs.legs().count(), 4);
        assert_eq!(names[cs.chains[0].start()], "root");
        assert_eq!(cs.chains[0].kind, ChainKind::Root);
    }

    #[test]
    fn a_single_chain_is_all_spine_and_an_empty_rig_has_nothing() {
        let parents = [None, Some(0), Some(1)];
        let pos = [Vec3::ZERO, Vec3::Y, Vec3::Y * 2.0];
        let cs = build(&BuildFrame {
            names: &[],
            parents: &parents,
            positions: &pos,
            forward: Vec3::Z,
        });
        let covered: usize = cs.chains.iter().map(|c| c.joints.len()).sum();
        assert_eq!(covered, 3, "every joint is in a chain");
        assert!(cs.limbs().next().is_none());
        let empty = build(&BuildFrame {
            names: &[],
            parents: &[],
            positions: &[],
            forward: Vec3::Z,
        });
        assert!(empty.chains.is_empty());
    }
}
