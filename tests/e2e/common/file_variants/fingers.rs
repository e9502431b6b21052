//! Hands posed otherwise at rest, as rigs come: fingers that rest curled, palms turned 90°
//! about the forearm. The new rest is also the bind (each skin's inverse binds remade from
//! it), so the reference pose the product reads is the changed one.

use super::glb::Glb;
use super::labels::human_bones;
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::HumanBone;

/// Each labelled finger joint (not the thumbs) bent `degrees` toward the ground at rest,
/// about the horizontal axis across the finger: fingers that rest curled.
pub fn curled_fingers(glb: &[u8], degrees: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let labels = human_bones(&g);
    let mut fingers: Vec<usize> = labels
        .iter()
        .filter(|(_, b)| is_finger(**b))
        .map(|(&n, _)| n)
        .collect();
    assert!(!fingers.is_empty(), "no labelled fingers");
    fingers.sort_by_key(|&n| depth(&g, n));
    for n in fingers {
        let world = g.world(n);
        let child = g.json["nodes"][n]["children"][0].as_u64();
        let along = child.map_or(world.x_axis.truncate(), |c| {
            world.transform_vector3(g.node_trs(c as usize).0)
        });
        let Some(axis) = along.cross(Vec3::NEG_Y).try_normalize() else {
            continue;
        };
        turn_at_rest(&mut g, n, Quat::from_axis_angle(axis, degrees.to_radians()));
    }
    rebind_at_rest(&mut g);
    g.to_bytes()
}

/// Each labelled hand turned `degrees` about its forearm's axis at rest: a palm that faces
/// forward (or back) where the source's faces down.
pub fn turned_palms(glb: &[u8], degrees: f32) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let labels = human_bones(&g);
    for (hand, arm) in [
        (HumanBone::LeftHand, HumanBone::LeftLowerArm),
        (HumanBone::RightHand, HumanBone::RightLowerArm),
    ] {
        let find = |b| labels.iter().find(|(_, l)| **l == b).map(|(&n, _)| n);
        let (Some(h), Some(a)) = (find(hand), find(arm)) else {
            continue;
        };
        let along = g.world(h).w_axis.truncate() - g.world(a).w_axis.truncate();
        let axis = along.try_normalize().expect("a forearm with a length");
        turn_at_rest(&mut g, h, Quat::from_axis_angle(axis, degrees.to_radians()));
    }
    rebind_at_rest(&mut g);
    g.to_bytes()
}

fn is_finger(b: HumanBone) -> bool {
    let name = b.as_str();
    ["Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| name.contains(f))
}

fn depth(g: &Glb, mut n: usize) -> usize {
    let parents = g.parents();
    let mut d = 0;
    while let Some(p) = parents[n] {
        d += 1;
        n = p;
    }
    d
}

/// Turns node `n` by the world rotation `turn` about its own origin, in its rest transform.
fn turn_at_rest(g: &mut Glb, n: usize, turn: Quat) {
    let parent = g.parents()[n].map_or(Mat4::IDENTITY, |p| g.world(p));
    let (_, parent_rot, _) = parent.to_scale_rotation_translation();
    let (t, r, s) = g.node_trs(n);
    let (_, world_rot, _) = g.world(n).to_scale_rotation_translation();
    let local = (parent_rot.inverse() * turn * world_rot).normalize();
    debug_assert!(r.is_normalized());
    g.set_node_trs(n, (t, local, s));
}

/// Every skin bound where its joints now rest.
fn rebind_at_rest(g: &mut Glb) {
    let worlds: Vec<Mat4> = (0..g.node_count()).map(|n| g.world(n)).collect();
    g.map_skins(|_, joints, _| {
        joints
            .iter()
            .map(|&j| super::node_edit::affine(worlds[j].inverse()))
            .collect()
    });
}

/// Each finger whose first joint is named in `firsts` with a joint more: its first bone
/// split in two (`creatures::split_bone`; the new joint rests straight and is not keyed).
pub fn one_finger_joint_more(glb: &[u8], firsts: &[&str]) -> Vec<u8> {
    by_name(glb, firsts, &|b, j| super::creatures::split_bone(b, j, 2))
}

/// Each finger whose first joint is named in `firsts` with a joint fewer: its last joint
/// (and its tip) cut off (`creatures::shorten_chain`, weights to the joint before).
pub fn one_finger_joint_fewer(glb: &[u8], firsts: &[&str]) -> Vec<u8> {
    by_name(glb, firsts, &|b, j| {
        let chain = super::creatures::chain_from(&Glb::parse(b), j);
        // A tip joint (`_End`) is not a phalanx: keep one joint fewer of the rest.
        let tips = chain
            .iter()
            .filter(|&&n| super::node_edit::node_name(&Glb::parse(b), n).ends_with("_End"))
            .count();
        super::creatures::shorten_chain(b, j, chain.len() - tips - 1, 1.0)
    })
}

/// `edit` applied to each joint named in `names`, found by name in each step (an edit
/// renumbers nodes).
fn by_name(glb: &[u8], names: &[&str], edit: &dyn Fn(&[u8], usize) -> Vec<u8>) -> Vec<u8> {
    names.iter().fold(glb.to_vec(), |bytes, name| {
        let j = super::node_edit::joint_named(&Glb::parse(&bytes), name, |n| n == *name);
        edit(&bytes, j)
    })
}

/// Every finger and thumb joint (a name holding `Finger`, `Thumb`, `Index`, `Middle`,
/// `Ring`, `Little` or `Pinky`) renamed `j_<node>`, and the VRM humanoid table's finger
/// entries removed: fingers the product can find only by the skeleton's shape.
pub fn unnamed_fingers(glb: &[u8]) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    let digit = |n: &str| {
        [
            "Finger", "Thumb", "Index", "Middle", "Ring", "Little", "Pinky",
        ]
        .iter()
        .any(|d| n.contains(d))
    };
    for n in 0..g.node_count() {
        let name = super::node_edit::node_name(&g, n);
        if digit(&name) {
            g.json["nodes"][n]["name"] = serde_json::Value::from(format!("j_{n}"));
        }
    }
    let finger_bone = |b: &str| {
        ["Thumb", "Index", "Middle", "Ring", "Little"]
            .iter()
            .any(|d| b.contains(d))
    };
    if let Some(bones) = g.json["extensions"]["VRM"]["humanoid"]["humanBones"].as_array_mut() {
        bones.retain(|b| !b["bone"].as_str().is_some_and(finger_bone));
    }
    if let Some(bones) = g.json["extensions"]["VRMC_vrm"]["humanoid"]["humanBones"].as_object_mut()
    {
        bones.retain(|k, _| !finger_bone(k));
    }
    g.to_bytes()
}
