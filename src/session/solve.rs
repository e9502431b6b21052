//! The session's clip-level solve: feet planting and mirroring settings, and what the
//! planting found on a clip (the editor draws its contacts as bars under the timeline).

use super::{Session, SessionError};
use crate::core::contacts::FootContact;
use crate::core::retarget::{Pole, PoleAt, Retargeter};

/// One planted target foot and the source contacts that plant it (output frames).
#[derive(Clone, Debug, PartialEq)]
pub struct FootContacts {
    pub foot: String,
    pub contacts: Vec<FootContact>,
}

impl super::Side {
    /// Which joint mirrors which: this side's labels, then names, then chains.
    pub fn twins(&self) -> Vec<usize> {
        let labels: Vec<_> = self.labels.iter().map(|l| l.map(|l| l.bone)).collect();
        crate::core::mirror::twins_of(self.skeleton(), Some(&labels), Some(&self.chains))
    }
}

impl Session {
    /// A pole by name as the solver takes it (a joint this rig lacks: as solved).
    pub(super) fn pole_at(&self, pole: &Pole) -> PoleAt {
        let t = self.target.skeleton();
        match pole {
            Pole::Solved => PoleAt::Solved,
            Pole::Joint(name) => t.find(name).map_or(PoleAt::Solved, PoleAt::Joint),
            Pole::Direction(d) => PoleAt::Direction(*d),
        }
    }

    /// Hands the retargeter the contacts drawn for clip `clip` (feet's and hands'), or none
    /// (detected).
    pub(super) fn set_clip_contacts(&self, r: &mut Retargeter, clip: &str) {
        let t = self.target.skeleton();
        for foot in r.planted_feet().collect::<Vec<_>>() {
            let name = &t.names()[foot];
            let spans = self.solve.drawn_contacts(clip, name).map(<[_]>::to_vec);
            r.set_contact_spans(foot, spans);
        }
        self.set_clip_hand_contacts(r, clip);
    }

    /// Hands the retargeter how clip `clip` covers ground. The readers' containers put each
    /// side's world in metres; a container scaled by the user (matched heights) scales it.
    pub(super) fn set_clip_stride(&self, r: &mut Retargeter, clip: &str) {
        let metres = |s: &super::Side| 1.0 / s.file.container.scale;
        let metres = (metres(&self.source), metres(&self.target));
        r.set_stride(self.solve.stride(clip), metres);
    }

    /// The target feet the planting moves, by name, in the solver's order.
    pub fn planted_feet(&self) -> Result<Vec<String>, SessionError> {
        Ok(self.solve_legs()?.0)
    }

    /// The planted feet and the pelvis-frame forward, from one solver (the Solve tab asks
    /// for both once per edit, and building the solver is the cost).
    pub fn solve_legs(&self) -> Result<(Vec<String>, Option<glam::Vec3>), SessionError> {
        let r = self.retargeter()?;
        let names = self.target.skeleton().names();
        let feet = r.planted_feet().map(|f| names[f].clone()).collect();
        Ok((feet, self.forward_in(r.pelvis())))
    }

    /// The target's twist bones with their shares of the limb's roll (set by hand, else
    /// their places along the limb), by name.
    pub fn twist_bones(&self) -> Vec<(String, f32)> {
        let Ok(r) = self.retargeter() else {
            return Vec::new();
        };
        let names = self.target.skeleton().names();
        r.twist_bones()
            .map(|(j, w)| (names[j].clone(), w))
            .collect()
    }

    /// The target's forward (+Z, which both sides face) in its pelvis's frame at the
    /// reference pose: the pole direction that bends knees forward.
    pub fn pelvis_forward(&self) -> Option<glam::Vec3> {
        self.forward_in(self.retargeter().ok()?.pelvis())
    }

    fn forward_in(&self, pelvis: Option<usize>) -> Option<glam::Vec3> {
        let pelvis = pelvis?;
        let world = self.target.reference.world_matrices(self.target.skeleton());
        world[pelvis]
            .inverse()
            .transform_vector3(glam::Vec3::Z)
            .try_normalize()
    }

    /// The target joints of the chain that holds `foot`, from its top down to the foot.
    pub fn leg_joints(&self, foot: &str) -> Vec<String> {
        let t = self.target.skeleton();
        let Some(j) = t.find(foot) else {
            return Vec::new();
        };
        let chains = &self.target.chains;
        let Some(chain) = chains.chain_of(j).map(|c| &chains.chains[c]) else {
            return vec![foot.to_owned()];
        };
        let end = chain.joints.iter().position(|&k| k == j).unwrap_or(0);
        chain.joints[..=end]
            .iter()
            .map(|&k| t.names()[k].clone())
            .collect()
    }

    /// The reach chains of `reach`, under `map`: each named joint's chain from its top down
    /// to it, reaching for the source joint mapped onto it. Names that are not a mapped
    /// joint of a chain are left out.
    pub fn reach_chains(
        &self,
        map: &crate::core::BoneMap,
    ) -> Vec<crate::core::retarget::ReachChain> {
        let t = self.target.skeleton();
        self.solve
            .reach
            .iter()
            .filter_map(|name| {
                let end = t.find(name)?;
                let chain = &self.target.chains.chains[self.target.chains.chain_of(end)?];
                let joints = crate::core::retarget::path_between(t.parents(), chain.start(), end)?;
                let source_end = map.for_target(end)?.source;
                Some(crate::core::retarget::ReachChain { joints, source_end })
            })
            .collect()
    }

    /// The contacts the planting uses on clip `name`, per target foot, with the output's
    /// frame rate; empty when planting is off or the rig has no legs to plant.
    pub fn foot_contacts(&self, name: Option<&str>) -> Result<Vec<FootContacts>, SessionError> {
        let mut r = self.retargeter()?;
        let output = self.retarget_clip_by(&mut r, name, None)?;
        let names = self.target.skeleton().names();
        Ok(output
            .plant
            .contacts
            .iter()
            .map(|(foot, contacts)| FootContacts {
                foot: names[*foot].clone(),
                contacts: contacts.clone(),
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_walk_plants_both_feet_in_turn() {
        let mut s = crate::session::walk_on_cesium();
        let feet = s.foot_contacts(None).unwrap();
        assert_eq!(feet.len(), 2);
        for f in &feet {
            assert!(f.contacts.len() >= 3, "{}: {:?}", f.foot, f.contacts);
        }
        s.solve.settings.plant_feet = false;
        assert!(s.foot_contacts(None).unwrap().is_empty());
    }
}
