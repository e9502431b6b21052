//! The automatic map of any two rigs. Each target joint tries the rules in turn: the
//! exact name, the name with its conventions taken out (`names`), the humanoid label, and
//! the chain skeleton's limb tags. Each pair records the rule that made it and how sure it
//! is, so the same rig under other names maps whole, and a fox or a robot maps by shape.

pub mod names;

use crate::chains::{ChainKind, ChainSide, ChainSkeleton, match_chains, pair_joints};
use crate::humanoid::HumanBone;
use crate::mapping::{BoneMap, BonePair, LegPair, MapMethod, SideLabel, TranslationMode};
use crate::skeleton::is_ancestor_in;
use glam::Vec3;
use names::{NameKey, flat_key, loose_key, name_key};
use std::collections::HashMap;

/// One rig as the automatic map sees it.
pub struct RigSide<'a> {
    pub names: &'a [String],
    pub parents: &'a [Option<usize>],
    pub labels: &'a [Option<SideLabel>],
    pub chains: &'a ChainSkeleton,
    /// World joint positions in the reference pose.
    pub positions: &'a [Vec3],
    /// Which joints the skin deforms with (`core::deform`), where its weights say: a
    /// joint off it (a control, an IK target) pairs by its exact name only.
    pub deforms: Option<&'a [bool]>,
}

impl RigSide<'_> {
    fn label(&self, j: usize) -> Option<HumanBone> {
        self.labels
            .get(j)
            .copied()
            .flatten()
            .filter(|l| l.confidence >= 0.5)
            .map(|l| l.bone)
    }

    /// Whether joint `j` hangs apart from the body: the skin's weights put it off the
    /// skeleton they deform, and neither it nor any joint above or below it carries a
    /// humanoid label (UE's `ik_foot_root → ik_foot_l`, `ik_hand_gun`, a prop socket under
    /// the root). Paired by name, such a joint takes its source's translation: the file
    /// keys it to follow a foot or a hand.
    fn off_body(&self, j: usize) -> bool {
        if self.deforms.is_none() || self.deforms(j) {
            return false;
        }
        let labelled = |k: usize| self.label(k).is_some();
        let mut at = Some(j);
        while let Some(k) = at {
            if labelled(k) {
                return false;
            }
            at = self.parents[k];
        }
        !(j + 1..self.parents.len())
            .any(|k| labelled(k) && crate::skeleton::is_ancestor_in(self.parents, j, k))
    }

    /// Whether joint `j` hangs from a control that carries a limb's end but not the body
    /// (GDBot's knee pole `knee.L` under `foot_IK.L.001`, which holds `foot.L`): the rig
    /// moves it with that control, and a translation of its own would pull it off.
    fn on_limb_control(&self, j: usize) -> bool {
        let Some(p) = self.parents[j] else {
            return false;
        };
        let below = |k: usize| crate::skeleton::is_ancestor_in(self.parents, p, k);
        let holds_body = (0..self.parents.len()).any(|k| self.label(k).is_some() && below(k));
        let holds_hips = (0..self.parents.len())
            .any(|k| self.label(k) == Some(HumanBone::Hips) && (k == p || below(k)));
        holds_body && !holds_hips
    }

    /// Whether joint `j` is a twist or roll bone: named so, or lying inside a labelled limb
    /// segment, between its bone and the next. The retargeter gives such a joint its share
    /// of the limb's roll; paired by its place along a chain, it took a whole joint's turn.
    fn inside_limb_segment(&self, j: usize) -> bool {
        if crate::humanoid::says_twist(&self.names[j]) {
            return true;
        }
        let Some(p) = self.parents[j] else {
            return false;
        };
        let Some(next) = self.label(p).and_then(HumanBone::segment_end) else {
            return false;
        };
        let pos = self.positions;
        // On the segment's line (a twist bone), or on its way down the hierarchy off the
        // line (a three-segment leg's `LowerLeg` between the knee and the foot): the
        // segment's bone turns it; a chain pair would turn it again.
        let on_the_way = |e: usize| is_ancestor_in(self.parents, j, e);
        (0..self.names.len())
            .filter(|&e| self.label(e) == Some(next))
            .any(|e| {
                on_the_way(e) || crate::humanoid::along_segment(pos[p], pos[e], pos[j]).is_some()
            })
    }

    /// Whether joint `j` is on the skeleton the skin deforms with (all are, unknown).
    fn deforms(&self, j: usize) -> bool {
        self.deforms
            .is_none_or(|d| d.get(j).copied().unwrap_or(true))
    }

    fn chain_side(&self) -> ChainSide<'_> {
        ChainSide {
            chains: self.chains,
            parents: self.parents,
            positions: self.positions,
        }
    }
}

/// Joints by key, only where the key names one joint of the side, among the joints the
/// skin deforms with (`body`) or among the others: a `c.hips` control does not take the
/// name of the hips, and a renamed pole target still finds its pole.
fn unique_keys(
    side: &RigSide,
    body: bool,
    key: impl Fn(&str) -> Option<NameKey>,
) -> HashMap<NameKey, usize> {
    let mut seen: HashMap<NameKey, Option<usize>> = HashMap::new();
    for (j, n) in side.names.iter().enumerate() {
        if side.deforms(j) != body {
            continue;
        }
        if let Some(k) = key(n) {
            seen.entry(k).and_modify(|e| *e = None).or_insert(Some(j));
        }
    }
    seen.into_iter()
        .filter_map(|(k, v)| Some((k, v?)))
        .collect()
}

/// Pairs by name: exact, then normalised, then run together (case and separators gone),
/// then normalised without a trailing number.
fn name_pairs(source: &RigSide, target: &RigSide) -> Vec<Option<(usize, MapMethod, f32)>> {
    let exact: HashMap<&str, usize> = {
        let mut m = HashMap::new();
        for (j, n) in source.names.iter().enumerate() {
            m.entry(n.as_str()).or_insert(j);
        }
        m
    };
    let strict = |n: &str| Some(name_key(n));
    let loose = |n: &str| loose_key(n);
    let flat = |n: &str| Some(flat_key(n));
    let tables = |body: bool| {
        (
            unique_keys(source, body, strict),
            unique_keys(target, body, strict),
            unique_keys(source, body, loose),
            unique_keys(target, body, loose),
            (
                unique_keys(source, body, flat),
                unique_keys(target, body, flat),
            ),
        )
    };
    let (body, others) = (tables(true), tables(false));
    let mut out = vec![None; target.names.len()];
    for (t, name) in target.names.iter().enumerate() {
        let (s_strict, t_strict, s_loose, t_loose, (s_flat, t_flat)) =
            if target.deforms(t) { &body } else { &others };
        // Names that collide across conventions (CMU's `Spine1` is a chest) give way to
        // labels that disagree.
        // So do a pelvis and a root beside the pelvis: MakeHuman's `Root` carries the body
        // where an Unreal `root` lies on the floor under it; and a pelvis and a limb or
        // spine beside it (a horse's `Hips` is a branch of its `Body` the legs do not hang
        // from).
        let agrees = |s: usize| {
            let labels = match (source.label(s), target.label(t)) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            let kind = |side: &RigSide, j: usize| {
                side.chains.chain_of(j).map(|c| side.chains.chains[c].kind)
            };
            let places = !matches!(
                (kind(source, s), kind(target, t)),
                (Some(ChainKind::Root), Some(ChainKind::Pelvis))
                    | (Some(ChainKind::Pelvis), Some(ChainKind::Root))
                    | (
                        Some(ChainKind::Pelvis),
                        Some(ChainKind::Limb | ChainKind::Spine)
                    )
                    | (
                        Some(ChainKind::Limb | ChainKind::Spine),
                        Some(ChainKind::Pelvis)
                    )
            );
            labels && places
        };
        let by_key =
            |sk: &HashMap<NameKey, usize>, tk: &HashMap<NameKey, usize>, k: Option<NameKey>| {
                let k = k?;
                (tk.get(&k) == Some(&t))
                    .then(|| sk.get(&k).copied())
                    .flatten()
            };
        out[t] = if let Some(&s) = exact.get(name.as_str()).filter(|&&s| agrees(s)) {
            Some((s, MapMethod::ExactName, 1.0))
        } else if let Some(s) = by_key(s_strict, t_strict, strict(name)).filter(|&s| agrees(s)) {
            Some((s, MapMethod::SimilarName, 0.9))
        } else if let Some(s) = by_key(s_flat, t_flat, flat(name)).filter(|&s| agrees(s)) {
            Some((s, MapMethod::SimilarName, 0.85))
        } else {
            // One side numbered (`Torso_1`), the other not: either side's loose key against
            // the other's full one.
            by_key(s_strict, t_loose, loose(name))
                .or_else(|| by_key(s_loose, t_strict, strict(name)))
                .filter(|&s| agrees(s))
                .map(|s| (s, MapMethod::SimilarName, 0.75))
        };
    }
    out
}

/// Pairs from the chain skeletons, joint by joint along each pair of chains. A target chain
/// that names or labels already reach in part keeps the source chain of the same kind they chose (a robot's
/// thumb whose first joint is `Thumb.R` ← `RThumb` continues on the source's thumb); the
/// others take the source chain their tags match.
fn chain_pairs(
    source: &RigSide,
    target: &RigSide,
    known: &[Option<usize>],
) -> Vec<Option<(usize, f32)>> {
    let mut out = vec![None; target.names.len()];
    let matched = match_chains(&source.chain_side(), &target.chain_side());
    for (tc_index, tc) in target.chains.chains.iter().enumerate() {
        let mut votes: HashMap<usize, usize> = HashMap::new();
        for &t in &tc.joints {
            // Only a chain of the same kind continues it: a robot's palm labelled as the
            // hand must not pull its finger onto the source's arm.
            if let Some(c) = known[t].and_then(|s| source.chains.chain_of(s))
                && source.chains.chains[c].kind == tc.kind
            {
                *votes.entry(c).or_default() += 1;
            }
        }
        let by_votes = votes.into_iter().max_by_key(|&(c, n)| (n, usize::MAX - c));
        if by_votes.is_none()
            && let Some(twin) = twin_of(target, tc_index, known)
        {
            // A copy of a limb names and labels reached (the lower arms of a four-armed
            // biped): joint for joint as its twin.
            for (&t, &tw) in tc.joints.iter().zip(&target.chains.chains[twin].joints) {
                if let Some(s) = known[tw].or(out[tw].map(|(s, _)| s)) {
                    out[t] = Some((s, 0.7));
                }
            }
            continue;
        }
        let (sc_index, score) = match by_votes {
            Some((c, _)) => (c, 0.8),
            None => match matched.iter().find(|m| m.target == tc_index) {
                Some(m) => (m.source, m.score),
                None => continue,
            },
        };
        let sc = &source.chains.chains[sc_index];
        for (s, t) in pair_joints(
            (&sc.joints, source.positions),
            (&tc.joints, target.positions),
        ) {
            out[t] = Some((s, (0.3 + 0.5 * score).min(0.8)));
        }
    }
    out
}

/// Another target chain of the same kind, side, limb type and length that names or labels
/// reached, coming earlier in the hierarchy (its height may differ: the copy hangs lower).
fn twin_of(target: &RigSide, chain: usize, known: &[Option<usize>]) -> Option<usize> {
    let c = &target.chains.chains[chain];
    target.chains.chains.iter().enumerate().position(|(i, o)| {
        i < chain
            && o.kind == c.kind
            && matches!(c.kind, ChainKind::Limb | ChainKind::Effector)
            && o.tags.lateral == c.tags.lateral
            && o.tags.limb == c.tags.limb
            && o.joints.len() == c.joints.len()
            && o.joints.iter().any(|&j| known[j].is_some())
    })
}

/// The map of `source` onto `target` by all four rules.
pub fn automatic_map(source: &RigSide, target: &RigSide) -> BoneMap {
    let mut by_name = name_pairs(source, target);
    let by_label = BoneMap::from_labels(source.labels, target.labels);
    // Alike names on two humanoids whose labels tell the name's joint is another bone: the
    // labels pair (a Quaternius character's `LowerLeg.L` is the shin; the mech's is its
    // leg's third segment below `MidLeg.L`, and its `Foot.L` an IK control beside the
    // leg's `FootBack.L`).
    for (t, pair) in by_name.iter_mut().enumerate() {
        let told_apart = |&(s, ..): &(usize, MapMethod, f32)| {
            target.label(t).is_some_and(|b| source.label(s) != Some(b))
                && by_label.for_target(t).is_some()
        };
        if pair.as_ref().is_some_and(told_apart) {
            *pair = None;
        }
    }
    let known: Vec<Option<usize>> = (0..target.names.len())
        .map(|t| {
            by_name[t]
                .map(|p| p.0)
                .or_else(|| by_label.for_target(t).map(|p| p.source))
        })
        .collect();
    let by_chain = chain_pairs(source, target, &known);
    // Per source joint, the target joints names or labels give it (looked up per step of a
    // source path: a scan of every target joint per step made a 5,000-joint chain cubic).
    let mut known_targets = vec![Vec::new(); source.names.len()];
    for (t, s) in known.iter().enumerate() {
        if let Some(s) = *s {
            known_targets[s].push(t);
        }
    }
    let mut pairs = Vec::new();
    for t in 0..target.names.len() {
        let pair = if let Some((s, method, confidence)) = by_name[t] {
            let bone = target.label(t).filter(|b| source.label(s) == Some(*b));
            BonePair {
                bone,
                method,
                confidence,
                ..BonePair::new(s, t)
            }
        } else if let Some(p) = by_label.for_target(t) {
            p.clone()
        } else if let Some((s, confidence)) = by_chain[t]
            .filter(|_| !target.inside_limb_segment(t))
            .filter(|&(s, _)| source.deforms(s) == target.deforms(t))
            .filter(|&(s, _)| below_mapped_parent(&pairs, source.parents, target.parents, s, t))
            .filter(|&(s, _)| {
                !past_another_branch(target, &known, &known_targets, &pairs, source.parents, s, t)
            })
            .filter(|&(s, _)| !drives_a_descendant(&known, target.parents, s, t))
            .filter(|&(s, _)| {
                !below_a_descendants_source(&known, source.parents, target.parents, s, t)
            })
        {
            BonePair {
                method: MapMethod::Chain,
                confidence,
                ..BonePair::new(s, t)
            }
        } else {
            continue;
        };
        pairs.push(pair);
    }
    let mut map = BoneMap::new(pairs);
    set_translations(&mut map, source, target);
    map.set_legs(leg_pairs(&map, source, target));
    map
}

/// Whether a name or label already pairs source joint `s` with a joint below target joint
/// `t`: a chain pair would turn `t` by it too, and the joint below twice (the kaiju's
/// `Back_Leg_Pelvis_L` above the thigh that takes the source's thigh).
fn drives_a_descendant(
    known: &[Option<usize>],
    target_parents: &[Option<usize>],
    s: usize,
    t: usize,
) -> bool {
    (0..known.len()).any(|d| known[d] == Some(s) && is_ancestor_in(target_parents, t, d))
}

/// Whether source joint `s` hangs below the source a name or label gave a joint below target
/// joint `t`: the pair would put the source's order upside down (Roblox's face joints under
/// its `Head` continue its spine chain, and a neck above the head took the tongue and swung
/// with it, stretching the head's bone).
fn below_a_descendants_source(
    known: &[Option<usize>],
    source_parents: &[Option<usize>],
    target_parents: &[Option<usize>],
    s: usize,
    t: usize,
) -> bool {
    (0..known.len()).any(|d| {
        known[d].is_some_and(|k| is_ancestor_in(source_parents, k, s))
            && is_ancestor_in(target_parents, t, d)
    })
}

/// Whether the source's path from the source of target joint `t`'s nearest mapped ancestor
/// down to `s` passes a joint that names or labels give to a target joint off `t`'s own
/// line: that branch is another limb's. A VRoid skirt hung from the shin took Mixamo's toe
/// end past the foot and toes (its shin then turned 25° off), a bust under the chest the
/// forearm past the shoulder and upper arm. A copy of a limb (a four-armed variant's lower
/// arms: the same kind, side and length as a limb names reached) takes its twin's joints.
fn past_another_branch(
    target: &RigSide,
    known: &[Option<usize>],
    known_targets: &[Vec<usize>],
    pairs: &[BonePair],
    source_parents: &[Option<usize>],
    s: usize,
    t: usize,
) -> bool {
    let copy = target
        .chains
        .chain_of(t)
        .is_some_and(|c| twin_of(target, c, known).is_some());
    if copy {
        return false;
    }
    let target_parents = target.parents;
    let Some(anchor) = nearest_mapped_source(pairs, target_parents, t) else {
        return false;
    };
    let mut on_path = source_parents[s];
    while let Some(k) = on_path.filter(|&k| k != anchor) {
        let elsewhere = known_targets[k]
            .iter()
            .any(|&d| d != t && !is_ancestor_in(target_parents, d, t));
        if elsewhere {
            return true;
        }
        on_path = source_parents[k];
    }
    false
}

/// Whether source joint `s` hangs at or below the source of target joint `t`'s nearest
/// mapped ancestor, so a chain pair never reaches back up the source (a robot's leg chain
/// ends at its knee; CesiumMan's toe, under a foot mapped to the robot's IK foot, must not
/// take the knee).
fn below_mapped_parent(
    pairs: &[BonePair],
    source_parents: &[Option<usize>],
    target_parents: &[Option<usize>],
    s: usize,
    t: usize,
) -> bool {
    nearest_mapped_source(pairs, target_parents, t)
        .is_none_or(|anchor| s == anchor || is_ancestor_in(source_parents, anchor, s))
}

/// The source of target joint `t`'s nearest ancestor that `pairs` maps.
fn nearest_mapped_source(
    pairs: &[BonePair],
    target_parents: &[Option<usize>],
    t: usize,
) -> Option<usize> {
    let mut at = target_parents[t];
    while let Some(p) = at {
        if let Some(pair) = pairs.iter().find(|q| q.target == p) {
            return Some(pair.source);
        }
        at = target_parents[p];
    }
    None
}

/// The pelvis (the humanoid hips where both sides have them) carries the scaled root
/// motion; a leaf hung from a root on both sides (an IK target or pole) copies its motion.
fn set_translations(map: &mut BoneMap, source: &RigSide, target: &RigSide) {
    let hips = map
        .pairs()
        .iter()
        .find(|p| p.bone == Some(HumanBone::Hips))
        .map(|p| p.target);
    let pelvis = hips.or_else(|| {
        let t = target.chains.pelvis()?;
        let s = source.chains.pelvis()?;
        map.for_target(t)
            .filter(|p| p.source == s)
            .map(|p| p.target)
    });
    let root_parent = |side: &RigSide, j: usize| {
        side.parents[j]
            .filter(|&p| side.parents[p].is_none())
            .map(|p| side.names[p].clone())
    };
    let pairs: Vec<BonePair> = map.pairs().to_vec();
    for p in pairs {
        let translation = if Some(p.target) == pelvis {
            TranslationMode::HipsScaled
        } else {
            let leaf = !target.parents.contains(&Some(p.target));
            let s_root = root_parent(source, p.source);
            let hung = s_root.is_some() && root_parent(target, p.target).is_some();
            let detached = source.off_body(p.source)
                && target.off_body(p.target)
                && !target.on_limb_control(p.target);
            if (leaf && hung || detached) && !under_own_source(map, target.parents, &p) {
                TranslationMode::Copy
            } else {
                continue;
            }
        };
        map.insert(BonePair { translation, ..p });
    }
}

/// Whether the target joint of `pair` hangs below a joint the map drives from the same
/// source joint (GDBot's `foot_IK.L` under `foot_IK.L.001`, both paired with the robot's
/// `l-LEGCONTROL`): the parent already takes that joint's motion, and the child copying it
/// again would move it off its parent by the whole displacement.
fn under_own_source(map: &BoneMap, target_parents: &[Option<usize>], pair: &BonePair) -> bool {
    let mut at = target_parents[pair.target];
    while let Some(p) = at {
        if let Some(above) = map.for_target(p) {
            return above.source == pair.source;
        }
        at = target_parents[p];
    }
    false
}

/// Without humanoid legs, the target's leg chains and the source joints their top and
/// foot map from: the root motion's floor and scale (a fox stands on four feet).
pub fn leg_pairs(map: &BoneMap, source: &RigSide, target: &RigSide) -> Vec<LegPair> {
    if map
        .pairs()
        .iter()
        .any(|p| p.bone == Some(HumanBone::LeftUpperLeg))
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for leg in target.chains.legs() {
        let (Some(top), Some(foot)) = (map.for_target(leg.start()), map.for_target(leg.end()))
        else {
            continue;
        };
        let Some(source_path) = path_down(source.parents, top.source, foot.source) else {
            continue;
        };
        out.push(LegPair {
            source: source_path,
            target: leg.joints.clone(),
        });
    }
    out
}

/// Joints from `top` down to `bottom`, if `bottom` lies below `top`.
fn path_down(parents: &[Option<usize>], top: usize, bottom: usize) -> Option<Vec<usize>> {
    let mut path = vec![bottom];
    while *path.last()? != top {
        path.push(parents[*path.last()?]?);
    }
    path.reverse();
    Some(path)
}

/// Chains `build` found on a side that the map could not use: limbs whose joints no pair
/// reaches (the report and the editor mark them).
pub fn unmapped_chains(chains: &ChainSkeleton, map: &BoneMap) -> Vec<usize> {
    chains
        .chains
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            matches!(
                c.kind,
                ChainKind::Limb | ChainKind::Pelvis | ChainKind::Spine
            )
        })
        .filter(|(_, c)| c.joints.iter().all(|&j| map.for_target(j).is_none()))
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests;
