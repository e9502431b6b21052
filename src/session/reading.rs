//! How each side's file was read, for the editor's Reading section: unit, up, facing, the
//! joints taken as the body and which chain is which limb, each with its evidence and the
//! runner-up where one was weighed; and the choice of another reading (a BVH's unit and
//! up, an FBX's unit), which reads the file again.

use super::{Session, SessionError, Side, SideRole};
use crate::core::chains::{ChainKind, Lateral};
use crate::core::{Axis, Unit};
use crate::io::asset::{Format, Provenance, Reading};
use crate::io::project::BodyJoints;

/// One reading: what was taken, how, why, and what came next.
#[derive(Clone, Debug, PartialEq)]
pub struct Choice {
    pub value: String,
    /// "declared", "detected", "override" or "assumed".
    pub how: &'static str,
    pub evidence: Option<String>,
    pub runner_up: Option<String>,
}

/// What was read of one side's file.
#[derive(Clone, Debug, PartialEq)]
pub struct SideReading {
    pub unit: Choice,
    pub up: Choice,
    /// Which way it faced and the turn that made it face +Z ("as read" when none).
    pub facing: String,
    /// Joints in all, and those taken as the body (the skin's, without controls); `None`
    /// when no skin says (a BVH).
    pub joints: usize,
    pub body_joints: Option<usize>,
    /// Each limb chain as read: its name, its ends and its side.
    pub limbs: Vec<LimbReading>,
    /// The user may pick another unit: a BVH's (its format declares none) or an FBX's (a
    /// declaration and a body that both mislead).
    pub unit_choosable: bool,
    /// Which joints are taken as the body, and whether the side has a skin to say (the
    /// user may then take every joint instead).
    pub body: BodyJoints,
    pub body_choosable: bool,
    /// The user may pick another up axis: a BVH's (its format declares none) or an FBX's
    /// (a declaration that misleads).
    pub up_choosable: bool,
}

/// One limb chain as read, and whether its side is in doubt.
#[derive(Clone, Debug, PartialEq)]
pub struct LimbReading {
    /// Its index among the side's chains.
    pub chain: usize,
    /// Its name (tags: place, side, kind) and its first and last joints.
    pub name: String,
    pub ends: String,
    pub lateral: Lateral,
    /// Another limb of the same place and kind is read on the same side (a dog's two front
    /// legs both "left"): one of them is the other side's.
    pub shares_side: bool,
}

fn choice(value: String, how: Provenance, reading: Option<&Reading>) -> Choice {
    Choice {
        value,
        how: how.name(),
        evidence: reading.map(|r| r.evidence.clone()),
        runner_up: reading.and_then(|r| r.runner_up.clone()),
    }
}

/// `side`'s reading as its file was read.
pub fn side_reading(side: &Side) -> SideReading {
    let a = &side.asset;
    let mut unit = choice(
        a.unit.name().to_owned(),
        a.unit_source,
        a.readings.unit.as_ref(),
    );
    if let Some(declared) = a.readings.declared_unit {
        unit.runner_up
            .get_or_insert_with(|| declared.name().to_owned());
    }
    let up = choice(a.up.name().to_owned(), a.up_source, a.readings.up.as_ref());
    let facing = super::read_facing(side)
        .and_then(|f| f.note())
        .unwrap_or_else(|| "faces +Z as read: not turned".to_owned());
    let names = side.skeleton().names();
    let chain_names = side.chains.names();
    let chains = &side.chains.chains;
    let limbs = (chains.iter().zip(chain_names).enumerate())
        .filter(|(_, (c, _))| c.kind == ChainKind::Limb)
        .map(|(i, (c, name))| LimbReading {
            chain: i,
            name,
            ends: format!("{} … {}", names[c.start()], names[c.end()]),
            lateral: c.tags.lateral,
            shares_side: c.tags.lateral != Lateral::Center
                && chains
                    .iter()
                    .enumerate()
                    .any(|(k, o)| k != i && o.kind == c.kind && o.tags == c.tags),
        })
        .collect();
    SideReading {
        unit,
        up,
        facing,
        joints: side.skeleton().len(),
        body_joints: body_joints(side),
        limbs,
        unit_choosable: matches!(a.format, Format::Bvh | Format::Fbx),
        up_choosable: matches!(a.format, Format::Bvh | Format::Fbx),
        body: side.file.body,
        body_choosable: a.joint_weights(side.skeleton_index).is_some(),
    }
}

/// The joints taken as the body: the skin's deforming joints without the controls; every
/// joint where the skin weights them all; `None` without a skin.
fn body_joints(side: &Side) -> Option<usize> {
    let weights = side.asset.joint_weights(side.skeleton_index)?;
    Some(match side.deforming() {
        Some(mask) => mask.iter().filter(|&&d| d).count(),
        None => weights.len(),
    })
}

impl Session {
    /// Target joints the skin is bound to that the map leaves still: neither they nor any
    /// joint above them is mapped, so they stay where the file put them while the body
    /// moves away, and the mesh between tears. Empty when nothing is mapped.
    pub fn still_skinned_joints(&self) -> Vec<usize> {
        let side = &self.target;
        let Some(weights) = side.asset.joint_weights(side.skeleton_index) else {
            return Vec::new();
        };
        if self.map.is_empty() {
            return Vec::new();
        }
        let parents = side.skeleton().parents();
        let mut moved = vec![false; parents.len()];
        for j in 0..parents.len() {
            let mapped = self.map.for_target(j).is_some();
            moved[j] = mapped || parents[j].is_some_and(|p| moved[p]);
        }
        let total: f32 = weights.iter().sum();
        (0..parents.len())
            .filter(|&j| !moved[j] && weights[j] > 1e-3 * total.max(1e-6))
            .collect()
    }

    /// Side `role` read again from `file` with the pose edits and chains that stood on the
    /// old reading dropped, and its pose set up automatically, as on load.
    fn read_again(
        &mut self,
        role: SideRole,
        file: crate::io::project::SideFile,
    ) -> Result<(), SessionError> {
        let file = crate::io::project::SideFile {
            container: Default::default(),
            bone_offsets: Vec::new(),
            chains: None,
            ..file
        };
        *self.side_mut(role) = Side::from_file(role, file)?;
        self.automatic_pose(role)
    }

    /// Side `role` read again with `body` as the joints taken as the body (the skin's, or
    /// every joint), its pose set up and the map made again automatically: the labels,
    /// chains and pairs all stand on which joints are the body.
    pub(super) fn set_body_joints(
        &mut self,
        role: SideRole,
        body: BodyJoints,
    ) -> Result<String, SessionError> {
        let old = self.side_mut(role).file.clone();
        self.read_again(role, crate::io::project::SideFile { body, ..old })?;
        self.map = self.automatic_map();
        self.refresh_legs();
        let taken = match body {
            BodyJoints::Skin => "the skin's joints",
            BodyJoints::All => "every joint",
        };
        Ok(format!("{} body: {taken} (map made again)", role.title()))
    }

    /// Reads side `role` again with `unit` and `up` (`None`: as detected) and sets its pose
    /// up automatically, as on load; the map is kept (the file's joints are the same).
    pub(super) fn set_reading(
        &mut self,
        role: SideRole,
        unit: Option<Unit>,
        up: Option<Axis>,
    ) -> Result<String, SessionError> {
        let old = self.side_mut(role).file.clone();
        self.read_again(role, crate::io::project::SideFile { unit, up, ..old })?;
        let said = |v: Option<&'static str>| v.unwrap_or("detected");
        Ok(format!(
            "{} read in {} with {} up",
            role.title(),
            said(unit.map(Unit::name)),
            said(up.map(Axis::name))
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::Edit;
    use crate::session::{walk_on_cesium, walk_onto};

    /// The BVH's unit and up are open to choice with their evidence; the glTF's are
    /// declared and fixed; both name their limbs.
    #[test]
    fn each_side_says_what_was_read_and_how() {
        let s = walk_on_cesium();
        let (src, tgt) = (side_reading(&s.source), side_reading(&s.target));
        assert!(src.unit_choosable && src.up_choosable);
        assert!(!tgt.unit_choosable && !tgt.up_choosable);
        assert_eq!(tgt.unit.how, "declared");
        assert!(src.unit.evidence.is_some(), "{src:?}");
        assert!(
            src.limbs.len() >= 4 && tgt.limbs.len() >= 4,
            "{src:?} {tgt:?}"
        );
        assert!(tgt.body_joints.is_some() && src.body_joints.is_none());
    }

    /// The side's reference pose from its lowest joint to its highest.
    fn standing_height(side: &Side) -> f32 {
        let p = side.reference_positions();
        let ys = p.iter().map(|v| v.y);
        ys.clone().fold(f32::MIN, f32::max) - ys.fold(f32::MAX, f32::min)
    }

    /// Another unit reads the file again (the body is that much taller), the map is kept,
    /// and undoing it (restoring the snapshot) reads it as before.
    #[test]
    fn another_unit_reads_the_file_again_and_undo_puts_it_back() {
        let mut s = walk_on_cesium();
        let before = s.edit_state();
        let height = |s: &Session| standing_height(&s.source);
        let h0 = height(&s);
        let edit = Edit::SetReading {
            side: SideRole::Source,
            unit: Some(Unit::Centimetre),
            up: None,
        };
        let label = s.apply_edit(&edit).unwrap();
        assert!(label.contains("cm"), "{label}");
        assert_eq!(s.source.file.unit, Some(Unit::Centimetre));
        assert_eq!(s.map, before.map);
        let ratio = height(&s) / h0;
        assert!(
            (ratio - 0.01 / Unit::CmuAsf.metres()).abs() < 0.01 * ratio,
            "{ratio}"
        );
        s.restore(before).unwrap();
        assert!((height(&s) - h0).abs() < 1e-4 * h0);
    }

    /// An FBX target's unit picked over its declaration: the figure scales by their ratio,
    /// the Reading section says "override" with the declared unit as runner-up, the map is
    /// kept, and the project reopens it in the picked unit.
    #[test]
    fn an_fbx_unit_picked_scales_the_target_and_is_kept_in_the_project() {
        let mut s = walk_onto("fbx/CesiumMan.fbx");
        let read = side_reading(&s.target);
        assert!(read.unit_choosable && read.up_choosable, "{read:?}");
        let map = s.map.clone();
        let declared = s.target.asset.unit;
        let picked = if declared == Unit::Metre {
            Unit::Centimetre
        } else {
            Unit::Metre
        };
        let height = |s: &Session| standing_height(&s.target);
        let h0 = height(&s);
        let edit = Edit::SetReading {
            side: SideRole::Target,
            unit: Some(picked),
            up: None,
        };
        s.apply_edit(&edit).unwrap();
        let ratio = height(&s) / h0;
        let expected = picked.metres() / declared.metres();
        assert!((ratio / expected - 1.0).abs() < 1e-3, "{ratio} {expected}");
        assert_eq!(s.map, map);
        let now = side_reading(&s.target);
        assert_eq!(now.unit.how, "override");
        assert_eq!(now.unit.runner_up.as_deref(), Some(declared.name()));
        let reopened = Session::from_project_file(s.to_project()).unwrap();
        assert_eq!(reopened.target.asset.unit, picked);
        assert!((height(&reopened) / height(&s) - 1.0).abs() < 1e-4);
    }

    /// An FBX target's up axis picked over its declaration: the figure read lying (+Z up
    /// over a +Y file) stands as tall along the world's Z as it stood along Y; the Reading
    /// section says "override" with the declared axis as runner-up; the project keeps it.
    #[test]
    fn an_fbx_up_picked_turns_the_target_and_is_kept_in_the_project() {
        use crate::core::Axis;
        let mut s = walk_onto("fbx/CesiumMan.fbx");
        let declared = s.target.asset.up;
        assert_eq!(declared, Axis::PosY, "CesiumMan's FBX declares +Y");
        let bind_extent = |s: &Session, axis: usize| {
            let sk = s.target.skeleton();
            let p = crate::core::Pose::bind(sk).world_positions(sk);
            let v = p.iter().map(|q| q[axis]);
            v.clone().fold(f32::MIN, f32::max) - v.fold(f32::MAX, f32::min)
        };
        let tall = bind_extent(&s, 1);
        s.apply_edit(&Edit::SetReading {
            side: SideRole::Target,
            unit: None,
            up: Some(Axis::PosZ),
        })
        .unwrap();
        assert_eq!(s.target.asset.up, Axis::PosZ);
        assert!(
            (bind_extent(&s, 2) / tall - 1.0).abs() < 1e-3,
            "the figure lies along Z"
        );
        let now = side_reading(&s.target);
        assert_eq!(now.up.how, "override");
        assert_eq!(now.up.runner_up.as_deref(), Some(declared.name()));
        let reopened = Session::from_project_file(s.to_project()).unwrap();
        assert_eq!(reopened.target.asset.up, Axis::PosZ);
    }

    /// The body taken from every joint instead of the skin's (the knight's IK feet are
    /// controls the skin leaves out): the side is read again with no skin mask, the map
    /// made again, the project keeps the choice, and undo takes the skin's again.
    #[test]
    fn every_joint_taken_as_the_body_reads_the_side_again_and_undo_puts_the_skin_back() {
        use crate::io::project::BodyJoints;
        let mut s = walk_onto("gltf/ik_controls/quaternius_knight_ikfeet_swapped_thumbs.glb");
        let read = side_reading(&s.target);
        assert!(
            read.body_choosable && read.body == BodyJoints::Skin,
            "{read:?}"
        );
        let mask = s.target.deforming().expect("the knight's skin says");
        assert!(mask.iter().any(|d| !d), "its IK controls are not the body");
        let before = s.edit_state();
        let label = s
            .apply_edit(&Edit::SetBodyJoints {
                side: SideRole::Target,
                body: BodyJoints::All,
            })
            .unwrap();
        assert!(label.contains("every joint"), "{label}");
        assert_eq!(side_reading(&s.target).body, BodyJoints::All);
        assert!(s.target.deforming().is_none());
        assert!(!s.map.is_empty());
        let reopened = Session::from_project_file(s.to_project()).unwrap();
        assert_eq!(reopened.target.file.body, BodyJoints::All);
        assert!(reopened.target.deforming().is_none());
        s.restore(before).unwrap();
        assert_eq!(s.target.file.body, BodyJoints::Skin);
        assert_eq!(s.target.deforming(), Some(mask));
    }

    /// A skin bound to a joint the map leaves still is named: CesiumMan's skin on its
    /// root-most joint with every pair removed but one leg's.
    #[test]
    fn joints_left_still_under_the_skin_are_named() {
        let mut s = walk_on_cesium();
        assert!(s.still_skinned_joints().is_empty());
        let keep = s
            .target
            .labelled_joint(crate::core::HumanBone::LeftUpperLeg)
            .unwrap();
        let pairs: Vec<_> = s
            .map
            .pairs()
            .iter()
            .filter(|p| p.target == keep)
            .cloned()
            .collect();
        s.map = crate::core::BoneMap::new(pairs);
        let still = s.still_skinned_joints();
        assert!(!still.is_empty());
        assert!(!still.contains(&keep));
    }
}
