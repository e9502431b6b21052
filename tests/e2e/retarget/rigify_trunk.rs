//! A Rigify export with its whole control rig: the `DEF-spine` … `DEF-spine.006` trunk hangs
//! from the root beside the `torso` control, which carries the `DEF-` legs and arms through
//! `ORG-`/`MCH-` joints. The control was read as the pelvis and the trunk as a helper (two
//! leg lengths high, 40° off); a walk left the controls, and the bones from them to the
//! body joints they carry, stretched by the distance walked.

use crate::common::{walk_onto_corpus, worst_bone_change};
use retarget_studio::core::HumanBone;

const RIGIFY: &str = "sets/gltf/rigify_stickman_full_rig.glb";

/// The trunk's numbers name hips to head; the chains' pelvis is the weighted hips, and
/// nothing maps onto the `torso` control.
#[test]
fn the_rigify_trunk_reads_hips_to_head_and_the_torso_control_is_no_pelvis() {
    let Some(session) = walk_onto_corpus(RIGIFY) else {
        return;
    };
    let t = &session.target;
    let s = t.skeleton();
    let bone = |name: &str| t.labels[s.find(name).unwrap()].map(|l| l.bone);
    assert_eq!(bone("DEF-spine"), Some(HumanBone::Hips));
    assert_eq!(bone("DEF-spine.003"), Some(HumanBone::UpperChest));
    assert_eq!(bone("DEF-spine.006"), Some(HumanBone::Head));
    assert!(t.is_humanoid());
    let pelvis = t.chains.pelvis().map(|j| s.names()[j].as_str());
    assert_eq!(pelvis, Some("DEF-spine"));
    let torso = s.find("torso").unwrap();
    assert!(
        session.map.for_target(torso).is_none(),
        "torso is a control"
    );
}

/// The bones from a control to the body joint it carries (`ORG-spine` → `DEF-thigh.L`,
/// `ORG-shoulder.L` → `DEF-upper_arm.L`) and the body's own keep their lengths.
#[test]
fn a_walk_onto_rigify_carries_the_controls_with_the_body() {
    let Some(session) = walk_onto_corpus(RIGIFY) else {
        return;
    };
    let s = session.target.skeleton();
    let parents = s.parents();
    let (worst, at) = worst_bone_change(&session, |j, p| {
        parents[p].is_some() && s.names()[j].starts_with("DEF-")
    });
    // Before: 3.5 heights (the legs and arms walked away from their controls).
    assert!(
        worst < 1e-3,
        "{at} moved {worst:.2e} of the height off its parent"
    );
}

/// The mechanism joints between the `torso` control and the body joints it carries hang at
/// fixed offsets from their parents (`MCH-spine.001` 0.19 from `torso`, `MCH-spine` 0.12 from
/// `spine_fk.001`): carried to their anchors one by one, they stretched those bones as the
/// spine bent (0.188 → 0.133); turned instead, every bone under a control keeps its length.
#[test]
fn a_walk_onto_rigify_keeps_the_mechanism_bones_rigid() {
    let Some(session) = walk_onto_corpus(RIGIFY) else {
        return;
    };
    let s = session.target.skeleton();
    let torso = s.find("torso").unwrap();
    let (worst, at) = worst_bone_change(&session, |_, p| p == torso || s.is_ancestor(torso, p));
    assert!(
        worst < 1e-3,
        "{at} moved {worst:.2e} of the height off its parent"
    );
}
