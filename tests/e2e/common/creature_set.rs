//! The creature variants the mapping of non-humanoids is measured on: Fox renamed in every
//! pipeline's style, with other bone axes, ×0.01 and ×100, legs ×1.3, its spine split into
//! three, its tail shortened, an extra scene node on top; and RobotExpressive renamed as met
//! on real files.

use crate::common::file_variants::glb::Glb;
use crate::common::file_variants::node_edit::{joint_named, joints_named};
use crate::common::file_variants::{
    NameStyle, extra_root_node, longer_limbs, renamed_as, renamed_with, reoriented, rescaled,
    shorten_chain, split_bone,
};

/// A variant: its label, bytes, and whether it is the same body (the retarget must give
/// the source's motion back, joint for joint).
pub struct Variant {
    pub label: String,
    pub bytes: Vec<u8>,
    pub same_body: bool,
}

fn v(label: &str, bytes: Vec<u8>, same_body: bool) -> Variant {
    Variant {
        label: label.to_owned(),
        bytes,
        same_body,
    }
}

/// Fox and its variants (the first is Fox itself).
pub fn fox_variants(fox: &[u8]) -> Vec<Variant> {
    let g = Glb::parse(fox);
    let spine = joint_named(&g, "spine", |n| n.contains("Spine01"));
    let tail = joint_named(&g, "tail", |n| n.contains("Tail01"));
    let legs = joints_named(&g, |n| n.contains("UpperArm") || n.contains("Leg01"));
    let mut out = vec![
        v("", fox.to_vec(), true),
        v("reoriented", reoriented(fox, 7), true),
        v("x0.01", rescaled(fox, 0.01), true),
        v("x100", rescaled(fox, 100.0), true),
        v("extra-root", extra_root_node(fox), true),
        v("spine-split", split_bone(fox, spine, 3), true),
        v("short-tail", shorten_chain(fox, tail, 2, 0.6), false),
        v("long-legs", longer_limbs(fox, &legs, 1.3), false),
    ];
    for (label, style) in [
        ("namespace", NameStyle::Namespace("Fox")),
        ("no-separators", NameStyle::NoSeparators),
        ("numbered", NameStyle::NumericSuffix),
        ("lower-case", NameStyle::LowerCase),
    ] {
        out.push(v(label, renamed_as(fox, style), true));
    }
    out
}

/// The robot renamed as met on real files: `Foot.L` → `FootL`, `Torso` → `Torso_1`, and an
/// extra scene node.
pub fn robot_renamed(robot: &[u8]) -> Vec<u8> {
    let renamed = renamed_with(robot, |n| {
        if n.contains('.') {
            n.replace('.', "")
        } else {
            format!("{n}_1")
        }
    });
    extra_root_node(&renamed)
}
