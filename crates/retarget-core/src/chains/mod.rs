//! The chain skeleton of any rig: the crowd paper's "Golaem Skeleton" (its section 2). A
//! rig is cut into bone chains of four kinds: one pelvis, spine chains, limbs and effectors
//! (plus the joints above the pelvis and loose helpers). Each limb is
//! tagged with its body position (front/center/back, bottom/center/up, left/center/right)
//! and a limb type (grasper/leg/generic), so a fox, a four-armed biped or a robot can be
//! mapped onto each other by what their limbs are, not by what their joints are called.
//!
//! `build` is the paper's automatic creation; `matching` its automatic mapping by tag score.

mod build;
mod matching;
mod tags;

pub use build::{BuildFrame, build};

/// As `build`, on the skeleton the skin deforms with (`keep`, from `core::deform`): the
/// joints off it (controls, IK targets, poles) are helpers, one chain per run of single
/// children, so that a control hung inside an arm neither cuts the arm nor becomes a limb.
pub fn build_deforming(frame: &BuildFrame, keep: Option<&[bool]>) -> ChainSkeleton {
    let parents = frame.parents;
    let mut sub = crate::deform::Subset::new(parents, keep);
    if sub.is_whole(parents.len()) {
        return build(frame);
    }
    let positions = sub.pick(frame.positions);
    let names = if frame.names.is_empty() {
        Vec::new()
    } else {
        sub.pick(frame.names)
    };
    rehang_carried(&mut sub, parents, &positions);
    let inner = build(&BuildFrame {
        names: &names,
        parents: &sub.parents,
        positions: &positions,
        forward: frame.forward,
    });
    let mut chains: Vec<Chain> = inner
        .chains
        .into_iter()
        .map(|c| Chain {
            joints: c.joints.iter().map(|&k| sub.joints[k]).collect(),
            ..c
        })
        .collect();
    let mut kept = vec![false; parents.len()];
    sub.joints.iter().for_each(|&j| kept[j] = true);
    let mut child_count = vec![0usize; parents.len()];
    parents.iter().flatten().for_each(|&p| child_count[p] += 1);
    // The helper chain each dropped joint ends, while it can still grow.
    let mut open: std::collections::HashMap<usize, usize> = Default::default();
    for j in (0..parents.len()).filter(|&j| !kept[j]) {
        let grows = parents[j]
            .filter(|&p| child_count[p] == 1)
            .and_then(|p| open.remove(&p));
        let c = grows.unwrap_or_else(|| {
            chains.push(Chain {
                kind: ChainKind::Helper,
                joints: Vec::new(),
                tags: Tags::default(),
            });
            chains.len() - 1
        });
        chains[c].joints.push(j);
        open.insert(j, c);
    }
    ChainSkeleton { chains }
}

/// A kept joint whose parent was dropped and that has nothing kept above it but a top joint
/// (a Rigify `DEF-thigh.L` carried by the `torso` control, off the mask) hangs, for the
/// chains, from the kept bone it sits on: the nearest segment from an earlier kept joint to its first kept
/// child (or that joint alone), so the legs branch from the hips and the arms from the chest.
/// Nearest to a segment's far end, it hangs from the joint there; an armature root above
/// the body is no bone to hang from.
fn rehang_carried(sub: &mut crate::deform::Subset, parents: &[Option<usize>], pos: &[glam::Vec3]) {
    let n = sub.joints.len();
    let mut kept = vec![false; parents.len()];
    sub.joints.iter().for_each(|&j| kept[j] = true);
    // Carried: its own parent dropped, and nothing kept above it but a top joint.
    let carried: Vec<bool> = (0..n)
        .map(|k| {
            let dropped_parent = parents[sub.joints[k]].is_some_and(|p| !kept[p]);
            dropped_parent && sub.parents[k].is_none_or(|p| sub.parents[p].is_none())
        })
        .collect();
    (0..n)
        .filter(|&k| carried[k])
        .for_each(|k| sub.parents[k] = None);
    let mut child_count = vec![0usize; n];
    sub.parents
        .iter()
        .flatten()
        .for_each(|&p| child_count[p] += 1);
    // A top joint above the body (an armature root) carries none of it.
    let above_body =
        |a: usize, sub: &crate::deform::Subset| sub.parents[a].is_none() && child_count[a] == 1;
    let (lo, hi) = pos.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let tie = ((hi - lo) * 1e-3).max(f32::MIN_POSITIVE);
    let mut first_child: Vec<Option<usize>> = vec![None; n];
    let mut connected = vec![false; n];
    for k in 0..n {
        if carried[k] {
            let onto = (0..k)
                .filter(|&a| connected[a] && !above_body(a, sub))
                .map(|a| {
                    let b = first_child[a];
                    let (d, at_end) = segment_distance(pos[k], pos[a], b.map(|c| pos[c]));
                    (d, if at_end { b.unwrap_or(a) } else { a })
                })
                // Bones as near as makes no difference: the one nearest the root.
                .min_by(|x, y| {
                    (x.0 / tie)
                        .floor()
                        .total_cmp(&(y.0 / tie).floor())
                        .then(x.1.cmp(&y.1))
                });
            sub.parents[k] = onto.map(|(_, a)| a);
        }
        connected[k] = match sub.parents[k] {
            Some(p) => connected[p],
            None => !carried[k],
        };
        if let Some(p) = sub.parents[k]
            && first_child[p].is_none()
        {
            first_child[p] = Some(k);
        }
    }
}

/// How far `p` lies from the segment `a`–`b` (from `a` alone without `b`), and whether
/// its nearest point is `b` itself.
fn segment_distance(p: glam::Vec3, a: glam::Vec3, b: Option<glam::Vec3>) -> (f32, bool) {
    let Some(b) = b else {
        return (p.distance(a), false);
    };
    let ab = b - a;
    let t = if ab.length_squared() > 0.0 {
        ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0)
    } else {
        0.0
    };
    (p.distance(a + ab * t), t >= 1.0)
}

pub use matching::{ChainMatch, Side as ChainSide, match_chains, pair_joints};

use serde::{Deserialize, Serialize};

/// What a chain is in the body.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChainKind {
    /// Joints above the pelvis (armature, scene roots): they carry no motion of the body.
    Root,
    /// The lowest joint that carries every limb.
    Pelvis,
    /// Joints between the pelvis and the limbs.
    Spine,
    /// Arms, legs, necks, tails, wings.
    Limb,
    /// The extremities of a limb: fingers, toes, jaws, ears.
    Effector,
    /// Joints outside the body: IK targets and poles, props, tiny leaves.
    Helper,
}

/// Front / center / back, along the character's facing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Depth {
    Front,
    #[default]
    Center,
    Back,
}

/// Bottom / center / up, against the pelvis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Height {
    Bottom,
    #[default]
    Center,
    Up,
}

/// The character's left / center / right.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Lateral {
    Left,
    #[default]
    Center,
    Right,
}

/// What a limb does: legs stand on the floor, graspers hold, the rest is generic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LimbType {
    Grasper,
    Leg,
    #[default]
    Generic,
}

/// A limb's tags (the paper's figure 6: a horse's right front leg is F, B, R, leg).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Tags {
    pub depth: Depth,
    pub height: Height,
    pub lateral: Lateral,
    pub limb: LimbType,
}

/// One bone chain.
#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub kind: ChainKind,
    /// From the chain's start (nearest the pelvis) to its end; each joint is the parent of
    /// the next.
    pub joints: Vec<usize>,
    pub tags: Tags,
}

impl Chain {
    pub fn start(&self) -> usize {
        self.joints[0]
    }

    pub fn end(&self) -> usize {
        *self.joints.last().expect("a chain has joints")
    }
}

/// Every chain of one rig. Chains never share a joint; joints in no chain are none (the
/// automatic build covers the whole skeleton).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChainSkeleton {
    pub chains: Vec<Chain>,
}

impl ChainSkeleton {
    /// The pelvis joint, if the rig has one.
    pub fn pelvis(&self) -> Option<usize> {
        self.chains
            .iter()
            .find(|c| c.kind == ChainKind::Pelvis)
            .map(Chain::start)
    }

    /// The chain holding `joint`.
    pub fn chain_of(&self, joint: usize) -> Option<usize> {
        self.chains.iter().position(|c| c.joints.contains(&joint))
    }

    /// Leg limbs, for the floor and the root motion's scale.
    pub fn legs(&self) -> impl Iterator<Item = &Chain> {
        self.chains
            .iter()
            .filter(|c| c.kind == ChainKind::Limb && c.tags.limb == LimbType::Leg)
    }

    pub fn limbs(&self) -> impl Iterator<Item = &Chain> {
        self.chains.iter().filter(|c| c.kind == ChainKind::Limb)
    }

    /// A readable, stable name per chain: its kind and tags, numbered where two agree
    /// ("leg front left", "grasper up left 2", "spine 1", "pelvis").
    pub fn names(&self) -> Vec<String> {
        let base: Vec<String> = self.chains.iter().map(chain_label).collect();
        base.iter()
            .enumerate()
            .map(|(i, b)| {
                let same = base.iter().filter(|o| *o == b).count();
                if same == 1 {
                    b.clone()
                } else {
                    let k = base[..=i].iter().filter(|o| *o == b).count();
                    format!("{b} {k}")
                }
            })
            .collect()
    }
}

fn chain_label(c: &Chain) -> String {
    match c.kind {
        ChainKind::Limb | ChainKind::Effector => {
            let t = &c.tags;
            let mut words = vec![match (c.kind, t.limb) {
                (ChainKind::Effector, _) => "effector",
                (_, LimbType::Leg) => "leg",
                (_, LimbType::Grasper) => "grasper",
                (_, LimbType::Generic) => "limb",
            }];
            words.extend(depth_word(t.depth));
            words.extend(height_word(t.height));
            words.extend(lateral_word(t.lateral));
            words.join(" ")
        }
        other => kind_name(other).to_string(),
    }
}

pub fn kind_name(kind: ChainKind) -> &'static str {
    match kind {
        ChainKind::Root => "root",
        ChainKind::Pelvis => "pelvis",
        ChainKind::Spine => "spine",
        ChainKind::Limb => "limb",
        ChainKind::Effector => "effector",
        ChainKind::Helper => "helper",
    }
}

pub fn depth_word(d: Depth) -> Option<&'static str> {
    match d {
        Depth::Front => Some("front"),
        Depth::Center => None,
        Depth::Back => Some("back"),
    }
}

pub fn height_word(h: Height) -> Option<&'static str> {
    match h {
        Height::Bottom => Some("bottom"),
        Height::Center => None,
        Height::Up => Some("up"),
    }
}

pub fn lateral_word(l: Lateral) -> Option<&'static str> {
    match l {
        Lateral::Left => Some("left"),
        Lateral::Center => None,
        Lateral::Right => Some("right"),
    }
}

#[cfg(test)]
pub(crate) mod testkit;

#[cfg(test)]
mod carried_tests {
    use super::*;
    use glam::Vec3;

    /// Legs carried by a control beside the hips (off the mask) branch from the hips.
    #[test]
    fn legs_carried_by_a_control_hang_from_the_hips() {
        let joints: [(Option<usize>, [f32; 3]); 17] = [
            (None, [0.0, 0.0, 0.0]),        // 0 root
            (Some(0), [0.0, 1.0, 0.0]),     // 1 hips
            (Some(1), [0.0, 1.3, 0.0]),     // 2 spine
            (Some(2), [0.0, 1.6, 0.0]),     // 3 head
            (Some(0), [0.0, 1.0, 0.0]),     // 4 torso control
            (Some(4), [0.1, 0.95, 0.0]),    // 5 l_thigh
            (Some(5), [0.1, 0.5, 0.0]),     // 6 l_shin
            (Some(6), [0.1, 0.05, 0.05]),   // 7 l_foot
            (Some(4), [-0.1, 0.95, 0.0]),   // 8 r_thigh
            (Some(8), [-0.1, 0.5, 0.0]),    // 9 r_shin
            (Some(9), [-0.1, 0.05, 0.05]),  // 10 r_foot
            (Some(2), [0.2, 1.45, 0.0]),    // 11 l_arm
            (Some(11), [0.5, 1.45, 0.0]),   // 12 l_forearm
            (Some(12), [0.75, 1.45, 0.0]),  // 13 l_hand
            (Some(2), [-0.2, 1.45, 0.0]),   // 14 r_arm
            (Some(14), [-0.5, 1.45, 0.0]),  // 15 r_forearm
            (Some(15), [-0.75, 1.45, 0.0]), // 16 r_hand
        ];
        let parents: Vec<Option<usize>> = joints.iter().map(|j| j.0).collect();
        let positions: Vec<Vec3> = joints.iter().map(|j| Vec3::from(j.1)).collect();
        let mut keep = vec![true; joints.len()];
        keep[4] = false;
        let cs = build_deforming(
            &BuildFrame {
                names: &[],
                parents: &parents,
                positions: &positions,
                forward: Vec3::Z,
            },
            Some(&keep),
        );
        assert_eq!(cs.pelvis(), Some(1));
        let starts: Vec<usize> = cs.limbs().map(|c| c.start()).collect();
        assert!(starts.contains(&5) && starts.contains(&8), "{starts:?}");
    }
}
