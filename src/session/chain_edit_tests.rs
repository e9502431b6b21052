//! The chain edits on a real creature: Fox.glb onto itself.

use super::chain_edits::{check_chains, end_choices, start_choices, with_end, with_start};
use super::{Edit, Session, SideRole};
use crate::core::chains::{Depth, LimbType};
use crate::io::ImportOptions;
use std::path::PathBuf;

fn fox_on_fox() -> Session {
    let fox = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/gltf/Fox.glb");
    Session::automatic(&fox, &fox, &ImportOptions::default()).unwrap()
}

/// The chain holding the joint named `name` on `side`.
fn chain_with(session: &Session, side: SideRole, name: &str) -> usize {
    let s = match side {
        SideRole::Source => &session.source,
        SideRole::Target => &session.target,
    };
    s.chains.chain_of(s.skeleton().find(name).unwrap()).unwrap()
}

fn source_of(session: &Session, target: &str) -> Option<String> {
    let t = session.target.skeleton().find(target).unwrap();
    let p = session.map.for_target(t)?;
    Some(session.source.skeleton().names()[p.source].clone())
}

#[test]
fn a_hind_leg_driven_by_a_front_leg_and_undo_brings_it_back() {
    let mut s = fox_on_fox();
    let hind = chain_with(&s, SideRole::Target, "b_LeftLeg01_015");
    let front = chain_with(&s, SideRole::Source, "b_LeftUpperArm_09");
    let before = s.edit_state();
    let label = s
        .apply_edit(&Edit::SetChainSource {
            target_chain: hind,
            source_chain: Some(front),
        })
        .unwrap();
    assert!(label.starts_with("Map chain "), "{label}");
    // Four target joints along three source joints: the ends pair with the ends.
    assert_eq!(
        source_of(&s, "b_LeftLeg01_015").unwrap(),
        "b_LeftUpperArm_09"
    );
    assert_eq!(source_of(&s, "b_LeftFoot02_018").unwrap(), "b_LeftHand_011");
    let arm = &s.source.chains.chains[front].joints;
    for &t in &s.target.chains.chains[hind].joints {
        let p = s.map.for_target(t).unwrap();
        assert!(
            arm.contains(&p.source),
            "every hind-leg joint follows the arm"
        );
    }
    assert_eq!(s.chain_source(hind), Some(front));
    // The other legs are untouched.
    assert_eq!(
        source_of(&s, "b_RightLeg01_019").unwrap(),
        "b_RightLeg01_019"
    );

    s.restore(before.clone()).unwrap();
    assert_eq!(s.map, before.map);
    assert_eq!(
        source_of(&s, "b_LeftFoot02_018").unwrap(),
        "b_LeftFoot02_018"
    );

    s.apply_edit(&Edit::SetChainSource {
        target_chain: hind,
        source_chain: None,
    })
    .unwrap();
    assert_eq!(source_of(&s, "b_LeftLeg01_015"), None);
    assert!(s.unmapped_target_chains().contains(&hind));
}

#[test]
fn an_edited_tag_is_saved_read_back_and_undone() {
    let mut s = fox_on_fox();
    let hind = chain_with(&s, SideRole::Target, "b_LeftLeg01_015");
    let before = s.edit_state();
    let mut chains = s.target.chains.clone();
    chains.chains[hind].tags.depth = Depth::Front;
    chains.chains[hind].tags.limb = LimbType::Leg;
    let label = s
        .apply_edit(&Edit::SetChains {
            side: SideRole::Target,
            chains: chains.clone(),
        })
        .unwrap();
    assert!(label.contains("front"), "{label}");
    assert_eq!(s.target.chains, chains);

    let back = Session::from_project_file(s.to_project()).unwrap();
    assert_eq!(
        back.target.chains, chains,
        "the project keeps the edited tags"
    );
    assert_eq!(back.target.chains.chains[hind].tags.depth, Depth::Front);

    s.restore(before.clone()).unwrap();
    assert_eq!(s.target.chains, before.target_chains);
    assert_ne!(s.target.chains, chains);
}

#[test]
fn chains_that_share_a_joint_are_refused_and_nothing_changes() {
    let mut s = fox_on_fox();
    let before = s.edit_state();
    let mut chains = s.target.chains.clone();
    let stolen = chains.chains[0].joints[0];
    chains.chains[1].joints.insert(0, stolen);
    let err = s
        .apply_edit(&Edit::SetChains {
            side: SideRole::Target,
            chains,
        })
        .unwrap_err();
    assert!(err.to_string().contains("target chains"), "{err}");
    assert_eq!(s.edit_state(), before);
}

#[test]
fn an_arm_can_start_higher_and_a_leg_end_sooner() {
    let s = fox_on_fox();
    let (parents, names) = (s.target.skeleton().parents(), s.target.skeleton().names());
    let find = |n: &str| s.target.skeleton().find(n).unwrap();
    let arm = chain_with(&s, SideRole::Target, "b_RightUpperArm_06");
    let starts: Vec<&str> = start_choices(&s.target.chains, parents, arm)
        .iter()
        .map(|&j| names[j].as_str())
        .collect();
    // The spine's last joint can be taken; its first cannot (the spine would be empty).
    assert_eq!(
        starts,
        [
            "b_Spine02_03",
            "b_RightUpperArm_06",
            "b_RightForeArm_07",
            "b_RightHand_08"
        ]
    );
    let moved = with_start(&s.target.chains, parents, arm, find("b_Spine02_03")).unwrap();
    check_chains(&moved, parents).unwrap();
    let spine = chain_with(&s, SideRole::Target, "b_Spine01_02");
    assert_eq!(moved.chains[spine].joints, [find("b_Spine01_02")]);
    assert_eq!(moved.chains[arm].joints.len(), 4);

    let leg = chain_with(&s, SideRole::Target, "b_LeftLeg01_015");
    let shorter = with_end(&s.target.chains, parents, leg, find("b_LeftFoot01_017")).unwrap();
    check_chains(&shorter, parents).unwrap();
    assert_eq!(shorter.chains[leg].joints.len(), 3);
    assert_eq!(
        shorter.chain_of(find("b_LeftFoot02_018")),
        None,
        "left free"
    );
    // The freed toe can be taken back: one child below the end.
    let ends = end_choices(&shorter, parents, leg);
    assert_eq!(ends.last(), Some(&find("b_LeftFoot02_018")));
    assert!(with_end(&shorter, parents, leg, find("b_Head_05")).is_none());
}

#[test]
fn rebuild_and_remap_undo_the_overrides() {
    let mut s = fox_on_fox();
    let auto = s.map.clone();
    let hind = chain_with(&s, SideRole::Target, "b_LeftLeg01_015");
    let front = chain_with(&s, SideRole::Source, "b_LeftUpperArm_09");
    let mut chains = s.target.chains.clone();
    chains.chains[hind].tags.depth = Depth::Front;
    s.apply_edit(&Edit::SetChains {
        side: SideRole::Target,
        chains,
    })
    .unwrap();
    s.apply_edit(&Edit::RebuildChains {
        side: SideRole::Target,
    })
    .unwrap();
    assert_eq!(s.target.chains, s.target.auto_chains());

    s.apply_edit(&Edit::SetChainSource {
        target_chain: hind,
        source_chain: Some(front),
    })
    .unwrap();
    let label = s.apply_edit(&Edit::RemapChains).unwrap();
    assert!(label.starts_with("Re-map"), "{label}");
    // Both sides have the same chains and tags: every chain is driven by its twin again.
    for p in auto.pairs() {
        assert_eq!(s.map.for_target(p.target).map(|q| q.source), Some(p.source));
    }
    // Pairs whose source never changed keep how they were made.
    let neck = s.target.skeleton().find("b_Neck_04").unwrap();
    assert_eq!(s.map.for_target(neck), auto.for_target(neck));
}

/// The Reading section's left and right: the fox's left front leg read as its right one
/// swaps its twin to the left, the legs are driven crosswise, the project keeps the
/// reading, and undo brings both back.
#[test]
fn a_limb_read_on_the_other_side_swaps_its_twin_and_the_map_follows() {
    use crate::core::chains::Lateral;
    let mut s = fox_on_fox();
    let left = chain_with(&s, SideRole::Target, "b_LeftUpperArm_09");
    let right = chain_with(&s, SideRole::Target, "b_RightUpperArm_06");
    let lateral = |s: &Session, c: usize| s.target.chains.chains[c].tags.lateral;
    assert_eq!(
        (lateral(&s, left), lateral(&s, right)),
        (Lateral::Left, Lateral::Right)
    );
    let before = s.edit_state();
    let label = s
        .apply_edit(&Edit::SetLimbSide {
            side: SideRole::Target,
            chain: left,
            lateral: Lateral::Right,
        })
        .unwrap();
    assert!(label.contains("right"), "{label}");
    assert_eq!(
        (lateral(&s, left), lateral(&s, right)),
        (Lateral::Right, Lateral::Left)
    );
    assert_eq!(
        source_of(&s, "b_LeftUpperArm_09").as_deref(),
        Some("b_RightUpperArm_06")
    );
    assert_eq!(
        source_of(&s, "b_RightUpperArm_06").as_deref(),
        Some("b_LeftUpperArm_09")
    );
    let saved = s.to_project();
    let reopened = Session::from_project_file(saved).unwrap();
    assert_eq!(
        reopened.target.chains.chains[left].tags.lateral,
        Lateral::Right
    );
    s.restore(before).unwrap();
    assert_eq!(
        (lateral(&s, left), lateral(&s, right)),
        (Lateral::Left, Lateral::Right)
    );
    assert_eq!(
        source_of(&s, "b_LeftUpperArm_09").as_deref(),
        Some("b_LeftUpperArm_09")
    );
}
