//! Which joint mirrors which (the mirroring article's twins), by three rules in turn: the
//! humanoid labels (`leftHand` ↔ `rightHand`), the names with their side marker swapped
//! (`Foot.L` ↔ `Foot.R`, `mixamorig:LeftArm` ↔ `mixamorig:RightArm`), and the chain skeleton
//! (a fox's `b_LeftUpperArm_09` ↔ `b_RightUpperArm_06`: the limbs whose tags differ only
//! left for right, joint for joint). Always an involution, so mirroring twice is nothing.

use crate::HumanBone;
use crate::automap::names::{Mark, name_key};
use crate::chains::{ChainSkeleton, Lateral};
use crate::skeleton::Skeleton;
use std::collections::HashMap;

/// Each joint's twin (itself when it has none). `labels`: per joint, when the caller knows
/// more than the file's own table (a session's labels); else the skeleton's.
pub fn twins_of(
    skeleton: &Skeleton,
    labels: Option<&[Option<HumanBone>]>,
    chains: Option<&ChainSkeleton>,
) -> Vec<usize> {
    let mut twins = match labels {
        Some(l) if l.len() == skeleton.len() => super::twins_by_labels(l),
        _ => super::twins(skeleton),
    };
    by_names(skeleton, &mut twins);
    if let Some(chains) = chains {
        by_chains(chains, &mut twins);
    }
    twins
}

/// Pairs `a` and `b` when both are still without a twin.
fn pair(twins: &mut [usize], a: usize, b: usize) {
    if a != b && twins[a] == a && twins[b] == b {
        twins[a] = b;
        twins[b] = a;
    }
}

fn by_names(skeleton: &Skeleton, twins: &mut [usize]) {
    let keys: Vec<_> = skeleton.names().iter().map(|n| name_key(n)).collect();
    let mut index: HashMap<(Mark, &str), usize> = HashMap::new();
    for (j, k) in keys.iter().enumerate() {
        if let Some(side) = k.side {
            index.entry((side, k.stem.as_str())).or_insert(j);
        }
    }
    for (j, k) in keys.iter().enumerate() {
        if k.side == Some(Mark::Left)
            && let Some(&t) = index.get(&(Mark::Right, k.stem.as_str()))
        {
            pair(twins, j, t);
        }
    }
}

fn by_chains(chains: &ChainSkeleton, twins: &mut [usize]) {
    let all = &chains.chains;
    for (a, ca) in all.iter().enumerate() {
        if ca.tags.lateral != Lateral::Left {
            continue;
        }
        let twin = all.iter().enumerate().find(|(b, cb)| {
            *b != a
                && cb.tags.lateral == Lateral::Right
                && cb.kind == ca.kind
                && cb.tags.depth == ca.tags.depth
                && cb.tags.height == ca.tags.height
                && cb.tags.limb == ca.tags.limb
                && cb.joints.len() == ca.joints.len()
        });
        if let Some((_, cb)) = twin {
            for (&x, &y) in ca.joints.iter().zip(&cb.joints) {
                pair(twins, x, y);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;
    use glam::{Mat4, Vec3};

    fn named(names: &[&str]) -> Skeleton {
        let t = Transform::from_translation(Vec3::Y);
        let defs = names
            .iter()
            .enumerate()
            .map(|(i, n)| JointDef::new(*n, (i > 0).then_some(0), t))
            .collect();
        Skeleton::new("s", Mat4::IDENTITY, defs).unwrap()
    }

    #[test]
    fn names_with_swapped_side_markers_are_twins() {
        let s = named(&[
            "Body",
            "Foot.L",
            "Foot.R",
            "mixamorig:LeftArm",
            "mixamorig:RightArm",
            "tail",
        ]);
        let t = twins_of(&s, None, None);
        assert_eq!(t, vec![0, 2, 1, 4, 3, 5]);
        for (j, &k) in t.iter().enumerate() {
            assert_eq!(t[k], j, "an involution");
        }
    }

    #[test]
    fn a_fox_s_legs_are_twins_by_their_chains() {
        use crate::chains::{BuildFrame, build};
        let (names, parents, pos) = crate::chains::testkit::fox_like();
        // Names that say nothing of a side (`joint_12`): only the chains can tell.
        let defs = (0..names.len())
            .map(|j| {
                let local = pos[j] - parents[j].map_or(Vec3::ZERO, |p| pos[p]);
                JointDef::new(
                    format!("joint_{j}"),
                    parents[j],
                    Transform::from_translation(local),
                )
            })
            .collect();
        let s = Skeleton::new("fox", Mat4::IDENTITY, defs).unwrap();
        let chains = build(&BuildFrame {
            names: &[],
            parents: &parents,
            positions: &pos,
            forward: Vec3::Z,
        });
        assert!(
            twins_of(&s, None, None)
                .iter()
                .enumerate()
                .all(|(j, &t)| j == t)
        );
        let t = twins_of(&s, None, Some(&chains));
        let mirrored = (0..s.len()).filter(|&j| t[j] != j).count();
        assert!(mirrored >= 8, "four legs pair joint for joint: {t:?}");
        for (j, &k) in t.iter().enumerate() {
            assert_eq!(t[k], j);
        }
    }
}
