//! Edits of the chain skeletons, as the Skeleton tab makes them: a side's chains replaced
//! (tags, chain ends), a target chain's source overridden, the chains rebuilt, the map made
//! again from the chains. Also where a chain's ends may move (`start_choices`,
//! `end_choices`), so the editor offers only moves that keep every chain whole: each chain
//! a path down the hierarchy, no joint in two chains, no chain emptied.

use super::{Session, SessionError, SideRole};
use crate::core::chains::{
    Chain, ChainSide, ChainSkeleton, Lateral, depth_word, height_word, lateral_word, match_chains,
    pair_joints,
};
use crate::core::{BoneMap, BonePair, MapMethod, TranslationMode};

impl Session {
    /// Replaces a side's chains once they are checked against its skeleton.
    pub(super) fn set_side_chains(
        &mut self,
        side: SideRole,
        chains: &ChainSkeleton,
    ) -> Result<String, SessionError> {
        let s = self.side_mut(side);
        check_chains(chains, s.skeleton().parents()).map_err(|problem| {
            SessionError::BadChains {
                side: side.name(),
                problem,
            }
        })?;
        let label = change_label(side, &s.chains, chains, s.skeleton().names());
        s.set_chains(chains.clone());
        Ok(label)
    }

    /// Target chain `target` driven by source chain `source` (`None` unmaps it); joints
    /// whose source stays keep their pair as it was.
    pub(super) fn set_chain_source(
        &mut self,
        target: usize,
        source: Option<usize>,
    ) -> Result<String, SessionError> {
        let bad = |problem: String| SessionError::BadChains {
            side: "target",
            problem,
        };
        let tnames = self.target.chains.names();
        let tname = tnames
            .get(target)
            .ok_or_else(|| bad(format!("there is no target chain {target}")))?;
        let snames = self.source.chains.names();
        let sname = match source {
            Some(s) => Some(
                snames
                    .get(s)
                    .ok_or_else(|| bad(format!("there is no source chain {s}")))?,
            ),
            None => None,
        };
        let joints = self.target.chains.chains[target].joints.clone();
        let new = self.map_with_chain_source(target, source);
        self.map = kept_where_unchanged(&self.map, new, &joints);
        Ok(match sname {
            Some(s) => format!("Map chain {s} -> {tname}"),
            None => format!("Unmap chain {tname}"),
        })
    }

    /// The side's chains as `auto_chains` builds them from its reference pose.
    pub(super) fn rebuild_chains(&mut self, side: SideRole) -> String {
        let s = self.side_mut(side);
        let chains = s.auto_chains();
        s.set_chains(chains);
        format!("Rebuild {} chains", side.name())
    }

    /// Each target chain the matcher pairs (limbs, effectors, spine, pelvis) driven by its
    /// best-scoring source chain, joint by joint; pairs whose source stays are untouched.
    pub(super) fn remap_from_chains(&mut self) -> String {
        let (sp, tp) = (
            self.source.reference_positions(),
            self.target.reference_positions(),
        );
        let matches = match_chains(
            &ChainSide {
                chains: &self.source.chains,
                parents: self.source.skeleton().parents(),
                positions: &sp,
            },
            &ChainSide {
                chains: &self.target.chains,
                parents: self.target.skeleton().parents(),
                positions: &tp,
            },
        );
        let mut map = self.map.clone();
        for m in &matches {
            let (sc, tc) = (
                &self.source.chains.chains[m.source],
                &self.target.chains.chains[m.target],
            );
            let mut new = map.clone();
            for &t in &tc.joints {
                new.remove_target(t);
            }
            for (s, t) in pair_joints((&sc.joints, &sp), (&tc.joints, &tp)) {
                let label = |side: &super::Side, j: usize| {
                    side.labels.get(j).copied().flatten().map(|l| l.bone)
                };
                let bone = label(&self.target, t).filter(|b| label(&self.source, s) == Some(*b));
                new.insert(BonePair {
                    bone,
                    method: MapMethod::Chain,
                    confidence: m.score.clamp(0.0, 1.0),
                    ..BonePair::new(s, t)
                });
            }
            map = kept_where_unchanged(&map, new, &tc.joints);
        }
        self.map = map;
        format!("Re-map {} chains from their tags", matches.len())
    }
}

impl Session {
    /// Limb chain `chain` of `side` read as on the `lateral` side (the Reading section's
    /// left and right): a twin limb (the same kind, height, depth and limb type) read on
    /// that side takes this one's old side, so a pair read mirrored swaps; then every
    /// target chain is driven by the source chain its tags now match (`remap_from_chains`).
    /// One edit, undone as one.
    pub(super) fn set_limb_side(
        &mut self,
        side: SideRole,
        chain: usize,
        lateral: Lateral,
    ) -> Result<String, SessionError> {
        let chains = &self.side_mut(side).chains;
        let Some(picked) = chains.chains.get(chain) else {
            return Err(SessionError::BadChains {
                side: side.name(),
                problem: format!("there is no chain {chain}"),
            });
        };
        let old = picked.tags.lateral;
        let twin = |c: &Chain| {
            c.kind == picked.kind
                && c.tags.height == picked.tags.height
                && c.tags.depth == picked.tags.depth
                && c.tags.limb == picked.tags.limb
        };
        let mut edited = chains.clone();
        for (i, c) in edited.chains.iter_mut().enumerate() {
            if i == chain {
                c.tags.lateral = lateral;
            } else if twin(&chains.chains[i]) && c.tags.lateral == lateral && old != lateral {
                c.tags.lateral = old;
            }
        }
        let name = chains.names()[chain].clone();
        self.side_mut(side).set_chains(edited);
        self.remap_from_chains();
        let word = lateral_word(lateral).unwrap_or("the middle");
        Ok(format!("{} {name} read as {word}", side.title()))
    }
}

/// `new` with, on `joints`, the old pair back wherever the source is the same, and the
/// pelvis's scaled root motion kept where its source changed.
fn kept_where_unchanged(old: &BoneMap, mut new: BoneMap, joints: &[usize]) -> BoneMap {
    for &t in joints {
        let (Some(before), Some(after)) = (old.for_target(t), new.for_target(t)) else {
            continue;
        };
        let pair = if before.source == after.source {
            before.clone()
        } else if before.translation == TranslationMode::HipsScaled {
            BonePair {
                translation: TranslationMode::HipsScaled,
                ..after.clone()
            }
        } else {
            continue;
        };
        new.insert(pair);
    }
    new
}

/// Why `chains` cannot stand on a skeleton with these parents, if it cannot.
pub fn check_chains(chains: &ChainSkeleton, parents: &[Option<usize>]) -> Result<(), String> {
    let mut owner = vec![None; parents.len()];
    for (i, c) in chains.chains.iter().enumerate() {
        if c.joints.is_empty() {
            return Err(format!("chain {} has no joint", i + 1));
        }
        for (k, &j) in c.joints.iter().enumerate() {
            if j >= parents.len() {
                return Err(format!(
                    "chain {} names joint {j}, which is not there",
                    i + 1
                ));
            }
            if let Some(other) = owner[j].replace(i) {
                return Err(format!(
                    "joint {j} is in chains {} and {}",
                    other + 1,
                    i + 1
                ));
            }
            if k > 0 && parents[j] != Some(c.joints[k - 1]) {
                return Err(format!(
                    "chain {} is not a path down the hierarchy at joint {j}",
                    i + 1
                ));
            }
        }
    }
    Ok(())
}

/// Joints `chain` may start at, top first: ancestors it can take (each free, or the last
/// joint of a chain that keeps at least one), then its own joints.
pub fn start_choices(
    chains: &ChainSkeleton,
    parents: &[Option<usize>],
    chain: usize,
) -> Vec<usize> {
    let Some(c) = chains.chains.get(chain) else {
        return Vec::new();
    };
    let mut taken = vec![0usize; chains.chains.len()];
    let mut up = Vec::new();
    let mut at = parents.get(c.start()).copied().flatten();
    while let Some(p) = at {
        if !take(chains, &mut taken, p, |o, n| o.joints.len() - 1 - n) {
            break;
        }
        up.push(p);
        at = parents[p];
    }
    up.reverse();
    up.extend(&c.joints);
    up
}

/// Joints `chain` may end at, top first: its own joints, then the joints below its end
/// while each has one child only (each free, or the first joint of a chain that keeps at
/// least one).
pub fn end_choices(chains: &ChainSkeleton, parents: &[Option<usize>], chain: usize) -> Vec<usize> {
    let Some(c) = chains.chains.get(chain) else {
        return Vec::new();
    };
    let mut taken = vec![0usize; chains.chains.len()];
    let mut out = c.joints.clone();
    let mut at = c.end();
    loop {
        let mut children = (0..parents.len()).filter(|&j| parents[j] == Some(at));
        let (Some(child), None) = (children.next(), children.next()) else {
            break;
        };
        if !take(chains, &mut taken, child, |_, n| n) {
            break;
        }
        out.push(child);
        at = child;
    }
    out
}

/// Whether `joint` can be taken from its chain (free joints always can): it must be the
/// joint at `place(chain, taken so far)` and leave the chain one joint at least.
fn take(
    chains: &ChainSkeleton,
    taken: &mut [usize],
    joint: usize,
    place: impl Fn(&Chain, usize) -> usize,
) -> bool {
    let Some(o) = chains.chain_of(joint) else {
        return true;
    };
    let chain = &chains.chains[o];
    let n = taken[o];
    if n + 1 >= chain.joints.len() || chain.joints[place(chain, n)] != joint {
        return false;
    }
    taken[o] += 1;
    true
}

/// The chains with `chain` starting at `joint` (one of `start_choices`): joints above it
/// are taken from their chains, or joints dropped from its top are left in no chain.
pub fn with_start(
    chains: &ChainSkeleton,
    parents: &[Option<usize>],
    chain: usize,
    joint: usize,
) -> Option<ChainSkeleton> {
    let choices = start_choices(chains, parents, chain);
    let k = choices.iter().position(|&j| j == joint)?;
    Some(resized(chains, chain, choices[k..].to_vec()))
}

/// The chains with `chain` ending at `joint` (one of `end_choices`): joints below its end
/// are taken from their chains, or joints dropped from its bottom are left in no chain.
pub fn with_end(
    chains: &ChainSkeleton,
    parents: &[Option<usize>],
    chain: usize,
    joint: usize,
) -> Option<ChainSkeleton> {
    let choices = end_choices(chains, parents, chain);
    let k = choices.iter().position(|&j| j == joint)?;
    Some(resized(chains, chain, choices[..=k].to_vec()))
}

/// `chain` with `joints`, the ones it gains taken from their chains.
fn resized(chains: &ChainSkeleton, chain: usize, joints: Vec<usize>) -> ChainSkeleton {
    let c = &chains.chains[chain];
    let added: Vec<usize> = joints
        .iter()
        .copied()
        .filter(|j| !c.joints.contains(j))
        .collect();
    replaced(chains, chain, joints, &added)
}

/// `chains` with `chain`'s joints replaced and `added` removed from the chains they were in.
fn replaced(
    chains: &ChainSkeleton,
    chain: usize,
    joints: Vec<usize>,
    added: &[usize],
) -> ChainSkeleton {
    let mut out = chains.clone();
    for (i, c) in out.chains.iter_mut().enumerate() {
        if i == chain {
            c.joints = joints.clone();
        } else {
            c.joints.retain(|j| !added.contains(j));
        }
    }
    out
}

/// The tags in words ("front bottom left leg"); "center" where a tag says nothing.
pub fn tags_text(c: &Chain) -> String {
    let t = &c.tags;
    let mut words: Vec<&str> = [
        depth_word(t.depth),
        height_word(t.height),
        lateral_word(t.lateral),
    ]
    .into_iter()
    .flatten()
    .collect();
    if words.is_empty() {
        words.push("center");
    }
    words.push(match t.limb {
        crate::core::chains::LimbType::Grasper => "grasper",
        crate::core::chains::LimbType::Leg => "leg",
        crate::core::chains::LimbType::Generic => "generic",
    });
    words.join(" ")
}

/// An undo label naming the first chain that changed and how.
fn change_label(
    side: SideRole,
    old: &ChainSkeleton,
    new: &ChainSkeleton,
    names: &[String],
) -> String {
    let side = side.title();
    let old_names = old.names();
    let changed = old.chains.iter().zip(&new.chains).position(|(a, b)| a != b);
    match changed {
        Some(i) if old.chains.len() == new.chains.len() => {
            let (a, b) = (&old.chains[i], &new.chains[i]);
            if a.tags != b.tags {
                format!("{side} chain {}: {}", old_names[i], tags_text(b))
            } else {
                format!(
                    "{side} chain {}: {} … {}",
                    old_names[i],
                    names[b.start()],
                    names[b.end()]
                )
            }
        }
        _ => format!("{side} chains"),
    }
}
