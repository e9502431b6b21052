//! Rigify's trunk: one chain numbered `spine`, `spine.001` … `spine.006` (behind a `DEF-` or
//! other prefix) whose numbers are fixed by the human metarig: the hips, the spine, the chest,
//! the upper chest, the neck and the head. The numbers are not a place along the chain that
//! `spine_candidates` could read (the chain's first joint is the hips, its last the head), so
//! this convention is read whole or not at all.

use super::names::strip_namespace;
use super::tree::Tree;
use super::{Candidate, LabelMethod};
use crate::HumanBone;

/// The metarig's bone for each number; `spine.005`, the neck's upper half, gets none.
const TRUNK: [Option<HumanBone>; 7] = [
    Some(HumanBone::Hips),
    Some(HumanBone::Spine),
    Some(HumanBone::Chest),
    Some(HumanBone::UpperChest),
    Some(HumanBone::Neck),
    None,
    Some(HumanBone::Head),
];

/// A whole chain named by the convention is surer than any one name (a Rigify
/// `DEF-pelvis.L` says hips too).
const WHOLE_CHAIN: f32 = 0.95;

/// The number a trunk name carries under `prefix`: `DEF-spine` is 0, `DEF-spine.004` is 4.
fn trunk_number(name: &str) -> Option<(&str, usize)> {
    let name = strip_namespace(name);
    let (stem, number) = match name.rsplit_once('.') {
        Some((stem, digits)) if digits.len() == 3 && digits.bytes().all(|b| b.is_ascii_digit()) => {
            (stem, digits.parse().ok()?)
        }
        _ => (name, 0),
    };
    let prefix = stem.strip_suffix("spine")?;
    let prefixed = prefix.is_empty() || prefix.ends_with(['-', '_']);
    prefixed.then_some((prefix, number))
}

/// Labels of every chain `spine` … `spine.006` under one prefix whose joints each hang
/// from the one numbered before.
pub(super) fn trunk_candidates(names: &[String], tree: &Tree) -> Vec<Candidate> {
    let mut out = Vec::new();
    for (start, name) in names.iter().enumerate() {
        let Some((prefix, 0)) = trunk_number(name) else {
            continue;
        };
        let mut chain = vec![start];
        while chain.len() < TRUNK.len() {
            let last = chain[chain.len() - 1];
            let next = tree.children[last]
                .iter()
                .copied()
                .find(|&c| trunk_number(&names[c]) == Some((prefix, chain.len())));
            match next {
                Some(c) => chain.push(c),
                None => break,
            }
        }
        if chain.len() < TRUNK.len() {
            continue;
        }
        for (&joint, bone) in chain.iter().zip(TRUNK) {
            let Some(bone) = bone else { continue };
            out.push(Candidate {
                joint,
                bone,
                method: LabelMethod::Name,
                confidence: WHOLE_CHAIN,
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn tree(parents: &[Option<usize>]) -> Tree {
        let pos = (0..parents.len())
            .map(|i| Vec3::new(0.0, i as f32, 0.0))
            .collect();
        Tree::new(parents, pos)
    }

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn reads_the_numbers_behind_a_prefix() {
        assert_eq!(trunk_number("DEF-spine"), Some(("DEF-", 0)));
        assert_eq!(trunk_number("rig:DEF-spine.006"), Some(("DEF-", 6)));
        assert_eq!(trunk_number("spine.003"), Some(("", 3)));
        assert_eq!(trunk_number("spine_fk.001"), None);
        assert_eq!(trunk_number("tweak_spine"), Some(("tweak_", 0)));
        assert_eq!(trunk_number("Spine1"), None);
        assert_eq!(trunk_number("spine_03"), None);
    }

    #[test]
    fn a_whole_numbered_chain_gives_hips_to_head() {
        let n = names(&[
            "root",
            "DEF-spine",
            "DEF-spine.001",
            "DEF-spine.002",
            "DEF-spine.003",
            "DEF-spine.004",
            "DEF-spine.005",
            "DEF-spine.006",
        ]);
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(2),
            Some(3),
            Some(4),
            Some(5),
            Some(6),
        ];
        let got: Vec<(usize, HumanBone)> = trunk_candidates(&n, &tree(&parents))
            .iter()
            .map(|c| (c.joint, c.bone))
            .collect();
        use HumanBone::*;
        assert_eq!(
            got,
            [
                (1, Hips),
                (2, Spine),
                (3, Chest),
                (4, UpperChest),
                (5, Neck),
                (7, Head)
            ]
        );
    }

    #[test]
    fn a_broken_or_short_chain_says_nothing() {
        // `spine.003` hangs beside `spine.002`, not below it: not the metarig's trunk.
        let n = names(&["spine", "spine.001", "spine.002", "spine.003", "spine.004"]);
        let parents = [None, Some(0), Some(1), Some(1), Some(3)];
        assert!(trunk_candidates(&n, &tree(&parents)).is_empty());
        // Three numbered joints of a plain rig are placed by `spine_candidates` instead.
        let n = names(&["hips", "spine", "spine.001", "spine.002", "neck", "head"]);
        let parents = [None, Some(0), Some(1), Some(2), Some(3), Some(4)];
        assert!(trunk_candidates(&n, &tree(&parents)).is_empty());
    }
}
