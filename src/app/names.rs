//! Bone names as the panels show them: a namespace prefix (`mixamorig:`, any FBX
//! namespace, Blender's `Armature|`) left out where the names stay unique without it, so a
//! narrow column shows "LeftUpLeg", not "mixam…UpL…". Files, maps and projects keep the
//! full names. Paths are shown tidied the same way.

use std::collections::HashMap;

/// `name` without its namespace prefixes: what follows the last `|`, then the last `:`.
/// A name that would be left empty is kept whole.
pub fn without_namespace(name: &str) -> &str {
    let after_bar = name.rsplit('|').next().unwrap_or(name);
    let short = after_bar.rsplit(':').next().unwrap_or(after_bar);
    if short.trim().is_empty() { name } else { short }
}

/// Each name as shown: without its namespace unless another name of the skeleton is the
/// same without it (two armatures' `Hips` stay told apart).
pub fn shown_names(names: &[String]) -> Vec<&str> {
    let mut count: HashMap<&str, usize> = HashMap::with_capacity(names.len());
    for name in names {
        *count.entry(without_namespace(name)).or_default() += 1;
    }
    names
        .iter()
        .map(|name| {
            let short = without_namespace(name);
            if count[short] == 1 {
                short
            } else {
                name.as_str()
            }
        })
        .collect()
}

/// `text` with the arrows the editor's fonts lack (the quality report names limb segments
/// `LeftUpperLeg→LeftLowerLeg`; the guide says File ▸ Open) written with glyphs they have.
pub fn drawable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains(['→', '←', '▸']) {
        text.replace('→', " > ")
            .replace('←', " < ")
            .replace('▸', ">")
            .into()
    } else {
        text.into()
    }
}

/// A path as shown: `.` and `a/..` steps taken out (`/a/../../b` reads `/b`), without
/// touching the disk. What is opened stays the path as given.
pub fn tidy_path(path: &std::path::Path) -> std::path::PathBuf {
    use std::path::Component;
    let mut out: Vec<Component> = Vec::new();
    for part in path.components() {
        match part {
            Component::CurDir => {}
            Component::ParentDir => match out.last() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(part),
            },
            _ => out.push(part),
        }
    }
    if out.is_empty() {
        return std::path::PathBuf::from(".");
    }
    out.iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owned(names: &[&str]) -> Vec<String> {
        names.iter().map(|n| n.to_string()).collect()
    }

    #[test]
    fn namespaces_are_left_out_of_the_shown_names() {
        let names = owned(&[
            "mixamorig:Hips",
            "mixamorig1:LeftUpLeg",
            "Armature|mixamorig:Spine",
            "Character1_Ctrl:Head",
            "Root",
            "odd:",
        ]);
        assert_eq!(
            shown_names(&names),
            ["Hips", "LeftUpLeg", "Spine", "Head", "Root", "odd:"]
        );
    }

    #[test]
    fn shown_paths_lose_their_dot_steps() {
        use std::path::Path;
        assert_eq!(
            tidy_path(Path::new("/a/../../b/./c.fbx")),
            Path::new("/b/c.fbx")
        );
        assert_eq!(tidy_path(Path::new("../x/../y.bvh")), Path::new("../y.bvh"));
        assert_eq!(tidy_path(Path::new("p/q/..")), Path::new("p"));
    }

    #[test]
    fn names_that_would_collide_keep_their_namespace() {
        let names = owned(&["a:Hips", "b:Hips", "a:Spine"]);
        assert_eq!(shown_names(&names), ["a:Hips", "b:Hips", "Spine"]);
    }
}
