//! Controls that carry followed joints. A rig exported with its control rig hangs body
//! joints from controls beside the body (Rigify's `DEF-thigh.L` under `torso` → `ORG-spine`,
//! a Godot foot under its `foot_IK` target): the follows place those joints where their limbs
//! take them, and the controls above them go along, each kept where it sat by the nearest
//! joint the solve places, so no bone of the file (control to body joint) stretches. A
//! control hung at a fixed offset from another carried one keeps it: its parent turns.

use super::plan::{FollowSolve, Hang, SideReference, chain_to_root};
use crate::mapping::{BoneMap, TranslationMode};
use crate::skeleton::Skeleton;

/// One follow per joint the map does not place (unmapped, or paired for its turn alone)
/// above a follower that holds no other placed joint, parents first.
pub(super) fn carried_solves(
    target: &Skeleton,
    map: &BoneMap,
    follows: &[FollowSolve],
    tgt_ref: &SideReference,
) -> Vec<FollowSolve> {
    let n = target.len();
    let parents = target.parents();
    let mapped = |j: usize| map.for_target(j).is_some();
    // Joints the map places. A control under no body joint paired for its turn alone
    // (GDBot's `foot_IK.L.001` under `root`, with the robot's `l-LEGCONTROL`, and the
    // `foot_IK.L` beside its foot) sits where its parent puts it, as an unmapped one does:
    // it may be carried, and holds nothing in place. A joint of the body paired so (a neck
    // paired by chain under the chest) stays placed.
    let labelled = |j: usize| map.for_target(j).is_some_and(|p| p.bone.is_some());
    let mut in_body = vec![false; n];
    for j in 0..n {
        if let Some(p) = parents[j].filter(|&p| p < j) {
            in_body[j] = in_body[p] || labelled(p);
        }
    }
    let pinned = |j: usize| {
        map.for_target(j).is_some_and(|p| {
            p.bone.is_some() || p.translation != TranslationMode::None || in_body[j]
        })
    };
    let mut followed = vec![false; n];
    follows.iter().for_each(|f| followed[f.target] = true);
    // Joints that hold a joint the solve places through the hierarchy (the pelvis under
    // the armature's root): moving them would move it, so they stay.
    let mut holds = vec![false; n];
    for j in (0..n).rev() {
        if pinned(j) && !followed[j] {
            holds[j] = true;
        }
        if holds[j]
            && !followed[j]
            && let Some(p) = parents[j].filter(|&p| p < j)
        {
            holds[p] = true;
        }
    }
    let mut carrier = vec![false; n];
    for f in follows {
        let mut at = parents[f.target];
        while let Some(p) = at {
            if !pinned(p) && !holds[p] {
                carrier[p] = true;
            }
            at = parents[p];
        }
    }
    if !carrier.iter().any(|&c| c) {
        return Vec::new();
    }
    // Joints no carrier lies above: the carriers' moves leave them where the solve put them.
    let mut free = vec![true; n];
    for j in 0..n {
        if let Some(p) = parents[j].filter(|&p| p < j) {
            free[j] = free[p] && !carrier[p];
        }
    }
    let anchor_of = |j: usize| {
        let f = follows.iter().find(|f| f.target == j)?;
        f.anchor_chain.last().copied()
    };
    // A follower stands in for its anchor (its place is fixed there, whatever carries it).
    let settle = |mut j: usize| {
        for _ in 0..n {
            if free[j] {
                return Some(j);
            }
            j = anchor_of(j)?;
        }
        None
    };
    let mut anchors: Vec<usize> = (0..n)
        .filter(|&j| mapped(j) && !carrier[j] && (free[j] || followed[j]))
        .collect();
    let mut out = Vec::new();
    for c in (0..n).filter(|&c| carrier[c]) {
        let here = tgt_ref.positions[c];
        let d = |a: usize| tgt_ref.positions[a].distance_squared(here);
        anchors.sort_by(|&a, &b| d(a).total_cmp(&d(b)).then(a.cmp(&b)));
        let Some(anchor) = anchors.iter().find_map(|&a| settle(a)) else {
            continue;
        };
        let offset = tgt_ref.world[anchor].inverse().transform_point3(here);
        let mut parent_chain = chain_to_root(parents, c);
        parent_chain.pop();
        // A control hung from another carried control at a fixed offset (Rigify's
        // `MCH-spine.001` 0.19 from `torso`, `MCH-spine` under `spine_fk.001`) is a rigid
        // child: moved on its own to its anchor's place it would stretch the bone from its
        // parent as the anchors bend apart. It keeps its offset, and its parent, which
        // nothing else turns, turns with its own anchor and then to point it there (where
        // all its carried children sit at one place; two apart, the shoulders' mechanisms on
        // `ORG-spine.003`, would each point it its own way: it turns with its anchor alone).
        let rest_of = |j: usize, p: usize| {
            tgt_ref.world[p]
                .inverse()
                .transform_point3(tgt_ref.positions[j])
        };
        let hang = parents[c]
            .filter(|&p| carrier[p] && !mapped(p))
            .and_then(|p| {
                let above = out.iter().find(|f: &&FollowSolve| f.target == p)?;
                let at = rest_of(c, p);
                let reach = at.length().max(1e-6);
                let aim = target
                    .children(p)
                    .filter(|&k| carrier[k])
                    .all(|k| rest_of(k, p).distance(at) <= 1e-3 * reach);
                let a = *above.anchor_chain.last()?;
                Some(Hang {
                    rest: at,
                    kept: kept_below(target, &carrier, p),
                    anchor_chain: above.anchor_chain.clone(),
                    on_anchor: (tgt_ref.rotations[a].inverse() * tgt_ref.rotations[p]).normalize(),
                    aim,
                })
            });
        out.push(FollowSolve {
            target: c,
            anchor_chain: chain_to_root(parents, anchor),
            offset,
            parent_chain,
            hang,
            keep: None,
        });
    }
    out
}

/// Followers whose parent is a carried control kept at its offset (`Hang`): Rigify's
/// `DEF-thigh.L` under `ORG-spine`, `shoulder.L` under `ORG-spine.003`. Each is a rigid child
/// of its parent in the file, and the parent turns with the follower's anchor, so it keeps
/// its offset as well rather than stretch the bone by reaching for the anchor alone.
pub(super) fn keep_hung_followers(
    target: &Skeleton,
    follows: &mut [FollowSolve],
    carried: &[FollowSolve],
    tgt_ref: &SideReference,
) {
    let parents = target.parents();
    let hung = |j: usize| carried.iter().any(|c| c.target == j && c.hang.is_some());
    for f in follows {
        if let Some(p) = parents[f.target].filter(|&p| hung(p)) {
            f.keep = Some(
                tgt_ref.world[p]
                    .inverse()
                    .transform_point3(tgt_ref.positions[f.target]),
            );
        }
    }
}

/// The joints not carried whose parent is `p` or a carried joint below it through carried
/// joints only, each with the chain from the root to its parent.
fn kept_below(target: &Skeleton, carrier: &[bool], p: usize) -> Vec<(usize, Vec<usize>)> {
    let parents = target.parents();
    let mut out = Vec::new();
    let mut stack = vec![p];
    while let Some(at) = stack.pop() {
        for k in target.children(at) {
            if carrier[k] {
                stack.push(k);
            } else {
                out.push((k, chain_to_root(parents, at)));
            }
        }
    }
    out
}
