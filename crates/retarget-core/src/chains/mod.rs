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
    let sub = crate::deform::Subset::new(parents, keep);
    if sub.is_whole(parents.len()) {
        return build(frame);
    }
    let positions = sub.pick(frame.positions);
    let names = if frame.names.is_empty() {
        Vec::new()
    } else {
        sub.pick(frame.names)
    };
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
