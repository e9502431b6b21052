//! Small rigs for the chain tests: a biped with two-fingered hands and an IK pole, and a
//! fox-like quadruped with a tail. Both stand on y = 0 and face +Z (left is +X).

use super::ChainSkeleton;
use glam::Vec3;

pub type Rig = (Vec<String>, Vec<Option<usize>>, Vec<Vec3>);

fn rig(joints: &[(&str, Option<&str>, [f32; 3])]) -> Rig {
    let names: Vec<String> = joints.iter().map(|j| j.0.to_string()).collect();
    let parents = joints
        .iter()
        .map(|j| {
            j.1.map(|p| names.iter().position(|n| n == p).expect("parent"))
        })
        .collect();
    let pos = joints.iter().map(|j| Vec3::from(j.2)).collect();
    (names, parents, pos)
}

/// `x` mirrored for the right side.
fn sided(
    out: &mut Vec<(String, Option<String>, [f32; 3])>,
    list: &[(&str, &str, [f32; 3])],
    shared: &[&str],
) {
    for (side, sign) in [("l", 1.0), ("r", -1.0)] {
        for (name, parent, p) in list {
            let parent = if shared.contains(parent) {
                parent.to_string()
            } else {
                format!("{side}_{parent}")
            };
            out.push((
                format!("{side}_{name}"),
                Some(parent),
                [p[0] * sign, p[1], p[2]],
            ));
        }
    }
}

fn finish(list: Vec<(String, Option<String>, [f32; 3])>) -> Rig {
    let borrowed: Vec<(&str, Option<&str>, [f32; 3])> = list
        .iter()
        .map(|(n, p, x)| (n.as_str(), p.as_deref(), *x))
        .collect();
    rig(&borrowed)
}

pub fn biped() -> Rig {
    let mut j: Vec<(String, Option<String>, [f32; 3])> = vec![
        ("root".into(), None, [0.0, 0.0, 0.0]),
        ("hips".into(), Some("root".into()), [0.0, 1.0, 0.0]),
        ("spine".into(), Some("hips".into()), [0.0, 1.2, 0.0]),
        ("chest".into(), Some("spine".into()), [0.0, 1.4, 0.0]),
        ("neck".into(), Some("chest".into()), [0.0, 1.55, 0.0]),
        ("head".into(), Some("neck".into()), [0.0, 1.7, 0.0]),
        ("pole".into(), Some("root".into()), [0.1, 0.5, 0.5]),
    ];
    sided(
        &mut j,
        &[
            ("thigh", "hips", [0.1, 0.95, 0.0]),
            ("shin", "thigh", [0.1, 0.5, 0.0]),
            ("foot", "shin", [0.1, 0.05, 0.0]),
            ("toe", "foot", [0.1, 0.0, 0.1]),
            ("shoulder", "chest", [0.05, 1.5, 0.0]),
            ("arm", "shoulder", [0.2, 1.5, 0.0]),
            ("forearm", "arm", [0.5, 1.5, 0.0]),
            ("hand", "forearm", [0.75, 1.5, 0.0]),
            ("f1", "hand", [0.85, 1.5, 0.02]),
            ("f1b", "f1", [0.9, 1.5, 0.02]),
            ("f2", "hand", [0.85, 1.5, -0.02]),
        ],
        &["hips", "chest"],
    );
    finish(j)
}

pub fn fox_like() -> Rig {
    let mut j: Vec<(String, Option<String>, [f32; 3])> = vec![
        ("root".into(), None, [0.0, 0.0, 0.0]),
        ("hip".into(), Some("root".into()), [0.0, 0.5, -0.3]),
        ("spine1".into(), Some("hip".into()), [0.0, 0.52, 0.0]),
        ("spine2".into(), Some("spine1".into()), [0.0, 0.55, 0.3]),
        ("neck".into(), Some("spine2".into()), [0.0, 0.7, 0.45]),
        ("head".into(), Some("neck".into()), [0.0, 0.8, 0.55]),
        ("tail1".into(), Some("hip".into()), [0.0, 0.5, -0.4]),
        ("tail2".into(), Some("tail1".into()), [0.0, 0.45, -0.6]),
        ("tail3".into(), Some("tail2".into()), [0.0, 0.4, -0.8]),
    ];
    for (side, sign) in [("l", 1.0f32), ("r", -1.0)] {
        for (limb, parent, z) in [("front", "spine2", 0.3f32), ("back", "hip", -0.3)] {
            let names = [
                format!("{limb}_{side}"),
                format!("{limb}_{side}2"),
                format!("{limb}_{side}3"),
            ];
            let heights = [0.45, 0.2, 0.0];
            for k in 0..3 {
                let parent = if k == 0 {
                    parent.to_string()
                } else {
                    names[k - 1].clone()
                };
                j.push((
                    names[k].clone(),
                    Some(parent),
                    [0.08 * sign, heights[k], z + 0.02 * k as f32],
                ));
            }
        }
    }
    finish(j)
}

/// Chains as (kind, first joint's name) for messages.
pub fn names_of(cs: &ChainSkeleton, names: &[String]) -> Vec<String> {
    cs.chains
        .iter()
        .map(|c| format!("{:?}:{}", c.kind, names[c.start()]))
        .collect()
}
