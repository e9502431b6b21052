//! The chain skeletons of a session's two sides (`core::chains`): built automatically,
//! saved in the project as the user edits them, and the automatic map over all four rules
//! (`core::automap`).

use super::{Session, SessionError, Side};
use crate::core::automap::{RigSide, automatic_map, leg_pairs};
use crate::core::chains::{BuildFrame, Chain, ChainSkeleton, build_deforming, pair_joints};
use crate::core::{BoneMap, BonePair, MapMethod, SideLabel};
use crate::io::project::ChainFile;
use glam::Vec3;

impl Side {
    /// World joint positions of the reference pose.
    pub fn reference_positions(&self) -> Vec<Vec3> {
        self.reference
            .world_matrices(self.skeleton())
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect()
    }

    /// The chain skeleton built from the reference pose's shape (characters face +Z once
    /// the session has turned them), on the joints the skin deforms with.
    pub fn auto_chains(&self) -> ChainSkeleton {
        let positions = self.reference_positions();
        let frame = BuildFrame {
            names: self.skeleton().names(),
            parents: self.skeleton().parents(),
            positions: &positions,
            forward: Vec3::Z,
        };
        // Twist bones ride on their limb bones (`core::retarget`): chains are read without
        // them, so a limb is the same chain with or without its twist leaves.
        let mut keep = self.deforming();
        let names = self.skeleton().names();
        for (j, name) in names.iter().enumerate() {
            if crate::core::humanoid::says_twist(name) {
                keep.get_or_insert_with(|| vec![true; names.len()])[j] = false;
            }
        }
        build_deforming(&frame, keep.as_deref())
    }

    /// Which joints the skin deforms with, where its weights say (`core::deform`), without
    /// the unweighted controls that carry body joints beside the labelled hips' line.
    pub fn deforming(&self) -> Option<Vec<bool>> {
        let weights = self.skin_weights()?;
        let mut keep = crate::core::profile::body_mask(self.skeleton(), &weights)?;
        let hips = self.labelled_joint(crate::core::HumanBone::Hips);
        if let Some(hips) = hips.filter(|_| self.is_humanoid()) {
            let parents = self.skeleton().parents();
            crate::core::deform::off_the_trunk(parents, &weights, hips, &mut keep);
        }
        Some(keep)
    }

    /// Each joint's vertex weight in the skin, where the side takes its body from the skin
    /// (`BodyJoints::Skin`, the default) and has one; `None` takes every joint alike.
    pub fn skin_weights(&self) -> Option<Vec<f32>> {
        match self.file.body {
            crate::io::project::BodyJoints::Skin => self.asset.joint_weights(self.skeleton_index),
            crate::io::project::BodyJoints::All => None,
        }
    }

    /// The project's chains if it has them, else the automatic ones.
    pub(super) fn load_chains(&mut self) -> Result<(), SessionError> {
        let Some(files) = &self.file.chains else {
            self.chains = self.auto_chains();
            return Ok(());
        };
        let mut chains = Vec::new();
        for f in files {
            let mut joints = Vec::new();
            for name in &f.joints {
                let j = self
                    .skeleton()
                    .find(name)
                    .ok_or_else(|| SessionError::JointMissing {
                        path: self.path.clone(),
                        role: "chain",
                        joint: name.clone(),
                    })?;
                joints.push(j);
            }
            if !joints.is_empty() {
                chains.push(Chain {
                    kind: f.kind,
                    joints,
                    tags: f.tags,
                });
            }
        }
        self.chains = ChainSkeleton { chains };
        Ok(())
    }

    /// Replaces the chains (an edit in the Skeleton view); the project keeps them.
    pub fn set_chains(&mut self, chains: ChainSkeleton) {
        self.chains = chains;
        self.file.chains = self.file_with_chains().chains;
    }

    /// The side's project settings with its chains written out.
    pub fn file_with_chains(&self) -> crate::io::project::SideFile {
        let names = self.skeleton().names();
        crate::io::project::SideFile {
            chains: Some(
                self.chains
                    .chains
                    .iter()
                    .map(|c| ChainFile {
                        kind: c.kind,
                        joints: c.joints.iter().map(|&j| names[j].clone()).collect(),
                        tags: c.tags,
                    })
                    .collect(),
            ),
            ..self.file.clone()
        }
    }

    fn rig<'a>(
        &'a self,
        positions: &'a [Vec3],
        labels: &'a [Option<SideLabel>],
        deforms: Option<&'a [bool]>,
    ) -> RigSide<'a> {
        RigSide {
            deforms,
            names: self.skeleton().names(),
            parents: self.skeleton().parents(),
            labels,
            chains: &self.chains,
            positions,
        }
    }
}

impl Session {
    /// The automatic map of the two sides: exact names, similar names, humanoid labels,
    /// chain tags, in that order for each target joint.
    pub fn automatic_map(&self) -> BoneMap {
        let (sp, tp) = (
            self.source.reference_positions(),
            self.target.reference_positions(),
        );
        let (sl, tl) = (self.source.map_labels(), self.target.map_labels());
        let (sd, td) = (self.source.deforming(), self.target.deforming());
        automatic_map(
            &self.source.rig(&sp, &sl, sd.as_deref()),
            &self.target.rig(&tp, &tl, td.as_deref()),
        )
    }

    /// Recomputes the leg chains the root motion stands on, after the map changed.
    pub fn refresh_legs(&mut self) {
        let (sp, tp) = (
            self.source.reference_positions(),
            self.target.reference_positions(),
        );
        let (sl, tl) = (self.source.map_labels(), self.target.map_labels());
        let (sd, td) = (self.source.deforming(), self.target.deforming());
        let legs = leg_pairs(
            &self.map,
            &self.source.rig(&sp, &sl, sd.as_deref()),
            &self.target.rig(&tp, &tl, td.as_deref()),
        );
        self.map.set_legs(legs);
    }

    /// The map with target chain `target` driven by source chain `source` (the user's
    /// override of a limb's source), joint by joint along the two chains; `None` unmaps it.
    pub fn map_with_chain_source(&self, target: usize, source: Option<usize>) -> BoneMap {
        let mut map = self.map.clone();
        let Some(tc) = self.target.chains.chains.get(target) else {
            return map;
        };
        for &t in &tc.joints {
            map.remove_target(t);
        }
        if let Some(sc) = source.and_then(|s| self.source.chains.chains.get(s)) {
            let (sp, tp) = (
                self.source.reference_positions(),
                self.target.reference_positions(),
            );
            for (s, t) in pair_joints((&sc.joints, &sp), (&tc.joints, &tp)) {
                map.insert(BonePair {
                    method: MapMethod::Hand,
                    ..BonePair::new(s, t)
                });
            }
        }
        map
    }

    /// The source chain that drives most of target chain `target`'s joints.
    pub fn chain_source(&self, target: usize) -> Option<usize> {
        let tc = self.target.chains.chains.get(target)?;
        let mut counts = vec![0usize; self.source.chains.chains.len()];
        for &t in &tc.joints {
            if let Some(p) = self.map.for_target(t)
                && let Some(c) = self.source.chains.chain_of(p.source)
            {
                counts[c] += 1;
            }
        }
        let (best, n) = counts.iter().enumerate().max_by_key(|(_, n)| **n)?;
        (*n > 0).then_some(best)
    }

    /// Target limbs, spine chains and the pelvis that no pair reaches.
    pub fn unmapped_target_chains(&self) -> Vec<usize> {
        crate::core::automap::unmapped_chains(&self.target.chains, &self.map)
    }
}
