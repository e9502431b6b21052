//! Turns sets of joint nodes (a skin, a VRM Animation's humanoid, the animated nodes) into
//! `Skeleton`s: the joints plus every node between them, in depth-first order, with what
//! sits above them folded into the container.

use super::hierarchy::Hierarchy;
use crate::error::Problem;
use glam::Mat4;
use retarget_core::{HumanBone, JointDef, Skeleton, Transform};
use std::collections::{BTreeSet, HashMap};

/// A skeleton under construction, with the node each joint came from.
pub(super) struct BuiltSkeleton {
    pub skeleton: Skeleton,
    /// glTF node index of each joint.
    pub nodes: Vec<usize>,
    /// Joint index of each glTF node that is in the skeleton.
    pub joint_of_node: HashMap<usize, usize>,
    /// `world_from_joint` in the bind pose, per joint.
    pub bind_worlds: Vec<Mat4>,
}

/// The nodes of a skeleton in depth-first order, and the node its roots hang from.
struct Closure {
    ordered: Vec<usize>,
    above_root: Option<usize>,
}

/// Every joint, every node on the way between joints, ordered so that parents come first.
/// Linear in the nodes it touches: a file may hold a chain of 100,000 nodes, and walking each
/// joint's whole path from the root would be quadratic in time and memory.
fn closure(h: &Hierarchy, joints: &BTreeSet<usize>) -> Closure {
    // The union of the joints' paths from the root: each walk stops at a node seen before.
    let mut union = BTreeSet::new();
    for &j in joints {
        let mut at = Some(j);
        while let Some(n) = at {
            if !union.insert(n) {
                break;
            }
            at = h.parents[n];
        }
    }
    let union_roots: Vec<usize> = union
        .iter()
        .copied()
        .filter(|&n| h.parents[n].is_none())
        .collect();
    // Lowest common ancestor: a joint itself (the usual case), a node above the joints, or
    // none when the joints live in separate trees. Down from the single root while the way
    // does not fork and no joint is passed.
    let lca = match union_roots.as_slice() {
        [root] => {
            let mut at = *root;
            loop {
                let mut below = h.children[at].iter().filter(|c| union.contains(c));
                match (joints.contains(&at), below.next(), below.next()) {
                    (false, Some(&only), None) => at = only,
                    _ => break Some(at),
                }
            }
        }
        _ => None,
    };
    let (included, above_root) = match lca {
        // The joint and what hangs below it; the nodes above are the container.
        Some(a) => {
            let mut kept = union;
            let mut at = if joints.contains(&a) {
                h.parents[a]
            } else {
                Some(a)
            };
            while let Some(n) = at {
                kept.remove(&n);
                at = h.parents[n];
            }
            let above = if joints.contains(&a) {
                h.parents[a]
            } else {
                Some(a)
            };
            (kept, above)
        }
        // Separate trees: each path from its top joint down.
        None => {
            let mut kept = BTreeSet::new();
            let mut stack: Vec<(usize, bool)> = union_roots
                .iter()
                .map(|&r| (r, joints.contains(&r)))
                .collect();
            while let Some((n, under_joint)) = stack.pop() {
                if under_joint {
                    kept.insert(n);
                }
                for &c in h.children[n].iter().filter(|c| union.contains(c)) {
                    stack.push((c, under_joint || joints.contains(&c)));
                }
            }
            (kept, None)
        }
    };
    let roots: Vec<usize> = included
        .iter()
        .copied()
        .filter(|&n| h.parents[n].is_none_or(|p| !included.contains(&p)))
        .collect();
    let mut ordered = Vec::with_capacity(included.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(n) = stack.pop() {
        ordered.push(n);
        for &c in h.children[n].iter().rev() {
            if included.contains(&c) {
                stack.push(c);
            }
        }
    }
    Closure {
        ordered,
        above_root,
    }
}

pub(super) struct SkeletonInput<'a> {
    pub name: String,
    pub joints: BTreeSet<usize>,
    /// Inverse bind matrices by node, where the file gives them.
    pub inverse_binds: HashMap<usize, Mat4>,
    /// The space the inverse bind matrices are expressed in (see `bind_space`).
    pub bind_space: Mat4,
    pub humanoid: &'a HashMap<usize, HumanBone>,
}

pub(super) fn build(h: &Hierarchy, input: SkeletonInput) -> Result<BuiltSkeleton, Problem> {
    let Closure {
        ordered,
        above_root,
    } = closure(h, &input.joints);
    let container = above_root.map_or(Mat4::IDENTITY, |n| h.worlds[n]);
    let joint_of_node: HashMap<usize, usize> =
        ordered.iter().enumerate().map(|(j, &n)| (n, j)).collect();
    let mut defs = Vec::with_capacity(ordered.len());
    let mut bind_worlds: Vec<Mat4> = Vec::with_capacity(ordered.len());
    for &node in &ordered {
        let parent = h.parents[node].and_then(|p| joint_of_node.get(&p).copied());
        // A root of a joint forest (no common ancestor) keeps its world transform as local.
        let rest = match (parent, above_root) {
            (None, None) => Transform::from_mat4(h.worlds[node]),
            _ => h.locals[node],
        };
        let parent_bind = parent.map_or(container, |p| bind_worlds[p]);
        let bind_world = match input.inverse_binds.get(&node) {
            Some(ibm) => input.bind_space * invert(*ibm, &h.names[node])?,
            None => parent_bind * rest.to_mat4(),
        };
        let bind = Transform::from_mat4(invert(parent_bind, &h.names[node])? * bind_world);
        bind_worlds.push(bind_world);
        defs.push(JointDef {
            name: h.names[node].clone(),
            parent,
            rest,
            bind,
            humanoid: input.humanoid.get(&node).copied(),
        });
    }
    let skeleton =
        Skeleton::new(input.name.clone(), container, defs).map_err(|source| Problem::Skeleton {
            skeleton: input.name,
            source,
        })?;
    Ok(BuiltSkeleton {
        skeleton,
        nodes: ordered,
        joint_of_node,
        bind_worlds,
    })
}

fn invert(m: Mat4, joint: &str) -> Result<Mat4, Problem> {
    let det = m.determinant();
    if !det.is_finite() || det.abs() < 1e-30 {
        return Err(Problem::BadData {
            what: format!("joint '{joint}'"),
            reason: "its bind matrix cannot be inverted (zero scale or NaN)".into(),
        });
    }
    Ok(m.inverse())
}
