//! The bone map: which source joint drives which target joint, and how.

use super::humanoid::HumanBone;
use serde::{Deserialize, Serialize};

/// How a target bone's rotation follows its source bone (see DESIGN.md, "The retarget").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RotationMode {
    /// The source's offset from its reference pose is applied to the target's reference pose.
    #[default]
    RestRelative,
    /// The target bone takes the source bone's world direction whatever the reference poses.
    Absolute,
}

/// What a target bone does with the source's translation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TranslationMode {
    /// Keeps the target's own reference translation.
    #[default]
    None,
    /// Moves by the source's displacement from its reference position, scaled by the ratio
    /// of the two bones' heights above the ground in the reference poses.
    HipsScaled,
    /// Moves by the source's displacement unscaled.
    Copy,
    /// Like `HipsScaled` but only up and down: the character stays over its reference spot
    /// (root motion removed, for game engines that drive it themselves).
    InPlace,
}

/// How a pair was made.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapMethod {
    /// From a VRM humanoid table.
    Table,
    /// From joint names.
    Name,
    /// From the skeleton's shape.
    Topology,
    /// Set by hand.
    #[default]
    Hand,
}

impl MapMethod {
    pub fn name(self) -> &'static str {
        match self {
            MapMethod::Table => "table",
            MapMethod::Name => "name",
            MapMethod::Topology => "topology",
            MapMethod::Hand => "hand",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct BonePair {
    pub source: usize,
    pub target: usize,
    pub rotation: RotationMode,
    pub translation: TranslationMode,
    /// The humanoid bone both sides were labelled with, if the pair came from labels.
    pub bone: Option<HumanBone>,
    /// The weaker of the two sides' methods and confidences.
    pub method: MapMethod,
    pub confidence: f32,
}

impl BonePair {
    pub fn new(source: usize, target: usize) -> Self {
        Self {
            source,
            target,
            rotation: RotationMode::RestRelative,
            translation: TranslationMode::None,
            bone: None,
            method: MapMethod::Hand,
            confidence: 1.0,
        }
    }
}

/// A labelled joint as a mapping side sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideLabel {
    pub bone: HumanBone,
    pub method: MapMethod,
    pub confidence: f32,
}

/// Pairs of joints, at most one source per target joint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoneMap {
    pairs: Vec<BonePair>,
}

impl BoneMap {
    pub fn new(pairs: Vec<BonePair>) -> Self {
        let mut map = Self::default();
        for p in pairs {
            map.insert(p);
        }
        map
    }

    /// Every joint onto itself, translations copied: retargeting onto the same skeleton
    /// must then give back the clip (invariant 1).
    pub fn identity(joints: usize) -> Self {
        Self::new(
            (0..joints)
                .map(|j| BonePair {
                    translation: TranslationMode::Copy,
                    ..BonePair::new(j, j)
                })
                .collect(),
        )
    }

    /// Pairs the joints that carry the same humanoid label on both sides (N rigs need N
    /// labellings, not N² maps). The hips get the scaled root translation.
    pub fn from_labels(source: &[Option<SideLabel>], target: &[Option<SideLabel>]) -> Self {
        let mut pairs = Vec::new();
        for (t, tl) in target.iter().enumerate() {
            let Some(tl) = tl else { continue };
            let Some(s) = source
                .iter()
                .position(|l| l.is_some_and(|l| l.bone == tl.bone))
            else {
                continue;
            };
            let sl = source[s].expect("position found a labelled joint");
            let weaker = if sl.confidence < tl.confidence {
                sl
            } else {
                *tl
            };
            pairs.push(BonePair {
                translation: if tl.bone == HumanBone::Hips {
                    TranslationMode::HipsScaled
                } else {
                    TranslationMode::None
                },
                bone: Some(tl.bone),
                method: weaker.method,
                confidence: weaker.confidence,
                ..BonePair::new(s, t)
            });
        }
        Self::new(pairs)
    }

    /// Pairs each target joint the labels left unmapped with the source joint of exactly
    /// its name (the same rig on both sides: fingers, helpers and props then follow too).
    /// A leaf joint hung from a root of the same name (an IK target or pole) takes the
    /// source's translation as well, since its place is its motion.
    pub fn add_same_names(
        &mut self,
        source: (&[String], &[Option<usize>]),
        target: (&[String], &[Option<usize>]),
    ) {
        for (t, name) in target.0.iter().enumerate() {
            let Some(s) = source.0.iter().position(|n| n == name) else {
                continue;
            };
            let labelled = self.for_target(t).cloned();
            if labelled.as_ref().is_some_and(|p| p.source != s) {
                continue;
            }
            let root_parent = |(names, parents): (&[String], &[Option<usize>]), j: usize| {
                parents[j]
                    .filter(|&p| parents[p].is_none())
                    .map(|p| names[p].clone())
            };
            let leaf = !target.1.contains(&Some(t));
            let hung_from_root =
                leaf && root_parent(source, s).is_some_and(|p| Some(p) == root_parent(target, t));
            let pair = labelled.unwrap_or(BonePair {
                method: MapMethod::Name,
                confidence: 0.9,
                ..BonePair::new(s, t)
            });
            if hung_from_root && pair.translation == TranslationMode::None {
                self.insert(BonePair {
                    translation: TranslationMode::Copy,
                    ..pair
                });
            } else {
                self.insert(pair);
            }
        }
    }

    pub fn pairs(&self) -> &[BonePair] {
        &self.pairs
    }

    pub fn for_target(&self, target: usize) -> Option<&BonePair> {
        self.pairs.iter().find(|p| p.target == target)
    }

    pub fn for_target_mut(&mut self, target: usize) -> Option<&mut BonePair> {
        self.pairs.iter_mut().find(|p| p.target == target)
    }

    /// Adds or replaces the pair of `pair.target`.
    pub fn insert(&mut self, pair: BonePair) {
        match self.pairs.iter_mut().find(|p| p.target == pair.target) {
            Some(slot) => *slot = pair,
            None => self.pairs.push(pair),
        }
        self.pairs.sort_by_key(|p| p.target);
    }

    pub fn remove_target(&mut self, target: usize) -> Option<BonePair> {
        let i = self.pairs.iter().position(|p| p.target == target)?;
        Some(self.pairs.remove(i))
    }

    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn label(bone: HumanBone, confidence: f32) -> Option<SideLabel> {
        Some(SideLabel {
            bone,
            method: MapMethod::Name,
            confidence,
        })
    }

    #[test]
    fn labels_pair_up_and_hips_carry_translation() {
        let src = [
            label(HumanBone::Hips, 1.0),
            None,
            label(HumanBone::Head, 0.6),
        ];
        let tgt = [
            None,
            label(HumanBone::Head, 0.9),
            label(HumanBone::Hips, 0.8),
            label(HumanBone::LeftHand, 1.0),
        ];
        let map = BoneMap::from_labels(&src, &tgt);
        assert_eq!(map.len(), 2);
        let head = map.for_target(1).unwrap();
        assert_eq!((head.source, head.confidence), (2, 0.6));
        let hips = map.for_target(2).unwrap();
        assert_eq!(hips.translation, TranslationMode::HipsScaled);
        assert!(map.for_target(3).is_none(), "no source hand: unmapped");
    }

    #[test]
    fn insert_replaces_and_keeps_target_order() {
        let mut map = BoneMap::new(vec![BonePair::new(0, 5), BonePair::new(1, 2)]);
        map.insert(BonePair::new(7, 5));
        assert_eq!(
            map.pairs()
                .iter()
                .map(|p| (p.source, p.target))
                .collect::<Vec<_>>(),
            [(1, 2), (7, 5)]
        );
        assert!(map.remove_target(2).is_some());
        assert_eq!(map.len(), 1);
    }
}
