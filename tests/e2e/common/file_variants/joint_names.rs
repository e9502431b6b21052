//! Joints renamed as real pipelines rename them: a namespace or `mixamorig:` prefix, Unity's
//! `Model_`, lower case, separators dropped, another side marker, a numeric suffix. Only
//! the skin joints are renamed; animation channels target nodes by index, so the motion
//! is unchanged, and a VRM humanoid table (node indices) stays right.

use super::glb::Glb;
use super::node_edit::node_name;
use serde_json::Value;
use std::collections::HashSet;

/// A renaming a real pipeline produces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameStyle {
    /// `Fox:b_Hip_01`: a DCC namespace (the argument, without the colon).
    Namespace(&'static str),
    /// `mixamorig:b_Hip_01`.
    MixamoPrefix,
    /// `Model_b_Hip_01` (an FBX model name through some Unity exports).
    ModelPrefix,
    /// `b_hip_01`.
    LowerCase,
    /// `Foot.L` → `FootL`, `b_Hip_01` → `bHip01`: `.`, `_`, `-` and spaces removed.
    NoSeparators,
    /// The side marker (`.L`, `_L`, `_l`, `L_`, `l_`, `Left…`, a lone `L` token) rewritten.
    Sides(SideMarker),
    /// `Torso` → `Torso_1`.
    NumericSuffix,
}

/// How a renamed joint says its side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideMarker {
    /// `Foot.L` (Blender).
    DotUpper,
    /// `foot_l` style suffix (Unreal): `Foot_l`.
    UnderscoreLower,
    /// `LeftFoot` (Mixamo, VRM).
    Word,
    /// `l_Foot` (Maya, some game rigs).
    PrefixLower,
}

impl NameStyle {
    /// Every style, with `Fox` as the namespace and each side marker once.
    pub const ALL: [NameStyle; 10] = [
        NameStyle::Namespace("Fox"),
        NameStyle::MixamoPrefix,
        NameStyle::ModelPrefix,
        NameStyle::LowerCase,
        NameStyle::NoSeparators,
        NameStyle::Sides(SideMarker::DotUpper),
        NameStyle::Sides(SideMarker::UnderscoreLower),
        NameStyle::Sides(SideMarker::Word),
        NameStyle::Sides(SideMarker::PrefixLower),
        NameStyle::NumericSuffix,
    ];

    /// The new name of a joint called `old`.
    pub fn apply(self, old: &str) -> String {
        match self {
            NameStyle::Namespace(ns) => format!("{ns}:{old}"),
            NameStyle::MixamoPrefix => format!("mixamorig:{old}"),
            NameStyle::ModelPrefix => format!("Model_{old}"),
            NameStyle::LowerCase => old.to_lowercase(),
            NameStyle::NoSeparators => old.chars().filter(|c| !is_separator(*c)).collect(),
            NameStyle::Sides(marker) => match split_side(old) {
                Some((side, base)) => with_side(marker, side, &base),
                None => old.to_owned(),
            },
            NameStyle::NumericSuffix => format!("{old}_1"),
        }
    }
}

fn is_separator(c: char) -> bool {
    matches!(c, '.' | '_' | '-' | ' ')
}

/// Left or right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Left,
    Right,
}

/// The side a name marks and the name without its marker (and the separator that tied the
/// marker on), or `None` for a centre joint. Markers are tokens between separators: `L`,
/// `R`, `l`, `r`, `Left`, `Right`, `left`, `right`, or `Left`/`Right` starting a CamelCase
/// token (`LeftUpLeg`, `b_LeftLeg01_015`).
pub fn split_side(name: &str) -> Option<(Side, String)> {
    for (start, end) in tokens(name) {
        let t = &name[start..end];
        let side = match t {
            "L" | "l" | "Left" | "left" => Some(Side::Left),
            "R" | "r" | "Right" | "right" => Some(Side::Right),
            _ => None,
        };
        if let Some(side) = side {
            // Drop the token and one separator next to it (before it, else after it).
            let (cut_from, cut_to) = if start > 0 {
                (start - 1, end)
            } else if end < name.len() {
                (start, end + 1)
            } else {
                (start, end)
            };
            return Some((side, format!("{}{}", &name[..cut_from], &name[cut_to..])));
        }
        for (word, side) in [("Left", Side::Left), ("Right", Side::Right)] {
            if let Some(rest) = t.strip_prefix(word)
                && rest.starts_with(|c: char| c.is_ascii_uppercase() || c.is_ascii_digit())
            {
                return Some((
                    side,
                    format!("{}{}", &name[..start], &name[start + word.len()..]),
                ));
            }
        }
    }
    None
}

/// Byte ranges of the tokens between separators.
fn tokens(name: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in name.char_indices() {
        match (is_separator(c), start) {
            (true, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, name.len()));
    }
    out
}

fn with_side(marker: SideMarker, side: Side, base: &str) -> String {
    let (upper, lower, word) = match side {
        Side::Left => ("L", "l", "Left"),
        Side::Right => ("R", "r", "Right"),
    };
    match marker {
        SideMarker::DotUpper => format!("{base}.{upper}"),
        SideMarker::UnderscoreLower => format!("{base}_{lower}"),
        SideMarker::Word => format!("{word}{base}"),
        SideMarker::PrefixLower => format!("{lower}_{base}"),
    }
}

/// Every skin joint renamed `f(old)` (an unnamed joint is `node_<index>` to `f`), names kept
/// distinct by appending `_2`, `_3`, … where `f` makes two equal.
pub fn renamed_with(glb: &[u8], f: impl Fn(&str) -> String) -> Vec<u8> {
    let mut g = Glb::parse(glb);
    rename_joints_with(&mut g, f);
    g.to_bytes()
}

/// The (old, new) names `renamed_with` writes, in node order.
pub fn renames_with(glb: &[u8], f: impl Fn(&str) -> String) -> Vec<(String, String)> {
    rename_joints_with(&mut Glb::parse(glb), f)
}

/// `renamed_with` in one of the canned styles.
pub fn renamed_as(glb: &[u8], style: NameStyle) -> Vec<u8> {
    renamed_with(glb, |n| style.apply(n))
}

fn rename_joints_with(g: &mut Glb, f: impl Fn(&str) -> String) -> Vec<(String, String)> {
    let mut taken = HashSet::new();
    let mut pairs = Vec::new();
    for n in g.skin_joints() {
        let old = node_name(g, n);
        let first = f(&old);
        let mut new = first.clone();
        let mut k = 1;
        while !taken.insert(new.clone()) {
            k += 1;
            new = format!("{first}_{k}");
        }
        g.json["nodes"][n]["name"] = Value::from(new.clone());
        pairs.push((old, new));
    }
    pairs
}
