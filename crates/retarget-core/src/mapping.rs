//! The bone map: which source joint drives which target joint, and how.

use super::humanoid::HumanBone;
use serde::{Deserialize, Serialize};

/// How a target bone's rotation follows its source bone (see docs/design.md, "The retarget").
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

/// How a pair was made: the rule `core::automap` used, or the way its humanoid labels were
/// found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MapMethod {
    /// Both joints have the same name.
    ExactName,
    /// The names agree once case, separators, side markers and prefixes are taken out.
    SimilarName,
    /// Humanoid label from a VRM humanoid table.
    Table,
    /// Humanoid label from joint names.
    Name,
    /// Humanoid label from the skeleton's shape.
    Topology,
    /// From the chain skeletons' limb tags (`core::chains`).
    Chain,
    /// Set by hand.
    #[default]
    Hand,
}

impl MapMethod {
    pub fn name(self) -> &'static str {
        match self {
            MapMethod::ExactName => "exact name",
            MapMethod::SimilarName => "similar name",
            MapMethod::Table => "table",
            MapMethod::Name => "name",
            MapMethod::Topology => "topology",
            MapMethod::Chain => "chain",
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

/// A leg of a rig without humanoid legs, top to foot on each side.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LegPair {
    pub source: Vec<usize>,
    pub target: Vec<usize>,
}

/// Pairs of joints, at most one source per target joint.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoneMap {
    pairs: Vec<BonePair>,
    /// Legs found by chain tags where no humanoid legs are mapped (a fox): the root
    /// motion's floor and scale come from them. Rebuilt from the chain skeletons on load.
    legs: Vec<LegPair>,
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

    pub fn set_legs(&mut self, legs: Vec<LegPair>) {
        self.legs = legs;
    }

    pub fn legs(&self) -> &[LegPair] {
        &self.legs
    }

    pub fn pairs(&self) -> &[BonePair] {
        &self.pairs
    }

    pub fn for_target(&self, target: usize) -> Option<&BonePair> {
        self.pairs.iter().find(|p| p.target == target)
    }

    /// The pair labelled `bone` (the hips' pair, say).
    pub fn for_bone(&self, bone: crate::HumanBone) -> Option<&BonePair> {
        self.pairs.iter().find(|p| p.bone == Some(bone))
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
