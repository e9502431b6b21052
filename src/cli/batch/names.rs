//! Output file names: `<source>_<clip>_on_<target>.glb`, each part sanitised, the clip left
//! out when it only repeats the source's name (a BVH's one clip is named after its file):
//! `02_01_on_RobotExpressive.glb`. Names are given out in the run's fixed order; a name
//! already given (compared without case, as macOS and Windows do) or naming an input file
//! gets `-2`, `-3`, ... so that one run never writes over its own outputs or inputs.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Longest part kept, in characters: three parts stay well within a file name's 255 bytes.
const MAX_PART: usize = 60;

/// ASCII letters, digits and `-` kept; every other run of characters (spaces, `|`, dots,
/// slashes, accents) becomes one `_`; empty becomes `clip`.
pub fn sanitise(s: &str) -> String {
    let mut out = String::new();
    for c in s.chars() {
        if c.is_ascii_alphanumeric() || c == '-' {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let mut out: String = out.trim_matches('_').chars().take(MAX_PART).collect();
    if out.is_empty() {
        out.push_str("clip");
    }
    out
}

/// A file's name without its extension, sanitised.
pub fn file_part(path: &Path) -> String {
    sanitise(&path.file_stem().unwrap_or_default().to_string_lossy())
}

/// The name an output would have before collisions are resolved (no extension).
pub fn base_name(source: &Path, clip: &str, target: &Path) -> String {
    let (s, c, t) = (file_part(source), sanitise(clip), file_part(target));
    if c.eq_ignore_ascii_case(&s) {
        format!("{s}_on_{t}")
    } else {
        format!("{s}_{c}_on_{t}")
    }
}

/// Hands out output paths in `dir`, each different from the others and from the inputs.
pub struct Namer {
    dir: PathBuf,
    taken: HashSet<String>,
    /// The outputs' extension: `glb` or `fbx`.
    extension: &'static str,
}

impl Namer {
    /// `inputs`: files of the run that an output must not replace.
    pub fn new(dir: &Path, inputs: &[PathBuf], extension: &'static str) -> Self {
        let dir_abs = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
        let taken = inputs
            .iter()
            .filter(|p| {
                let parent = p.parent().and_then(|d| std::fs::canonicalize(d).ok());
                parent.as_deref() == Some(dir_abs.as_path())
            })
            .filter_map(|p| p.file_name())
            .map(|n| n.to_string_lossy().to_lowercase())
            .collect();
        Self {
            dir: dir.to_path_buf(),
            taken,
            extension,
        }
    }

    /// `base.glb`, or `base-2.glb`, `base-3.glb`, ... when taken (or `.fbx`).
    pub fn claim(&mut self, base: &str) -> PathBuf {
        let ext = self.extension;
        let mut name = format!("{base}.{ext}");
        let mut k = 2;
        while !self.taken.insert(name.to_lowercase()) {
            name = format!("{base}-{k}.{ext}");
            k += 1;
        }
        self.dir.join(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_are_sanitised_and_a_repeated_clip_left_out() {
        assert_eq!(
            sanitise("RobotArmature|Idle_RobotArmature"),
            "RobotArmature_Idle_RobotArmature"
        );
        assert_eq!(sanitise("  Take 001 "), "Take_001");
        assert_eq!(sanitise("../..//"), "clip");
        assert_eq!(sanitise("Gehen à droite"), "Gehen_droite");
        assert_eq!(sanitise(&"x".repeat(300)).len(), MAX_PART);
        let robot = Path::new("a/RobotExpressive.glb");
        assert_eq!(
            base_name(Path::new("bvh/02_01.bvh"), "02_01", robot),
            "02_01_on_RobotExpressive"
        );
        assert_eq!(
            base_name(Path::new("Fox.glb"), "Walk", robot),
            "Fox_Walk_on_RobotExpressive"
        );
    }

    #[test]
    fn collisions_get_numbers_and_inputs_are_never_named() {
        let dir = tempfile::tempdir().unwrap();
        let input = dir.path().join("Walk_on_Robot.glb");
        let mut namer = Namer::new(dir.path(), std::slice::from_ref(&input), "glb");
        assert_eq!(
            namer.claim("walk_on_robot"),
            dir.path().join("walk_on_robot-2.glb")
        );
        assert_eq!(
            namer.claim("Fox_on_Robot"),
            dir.path().join("Fox_on_Robot.glb")
        );
        assert_eq!(
            namer.claim("fox_on_robot"),
            dir.path().join("fox_on_robot-2.glb")
        );
        assert_eq!(
            namer.claim("fox_on_robot"),
            dir.path().join("fox_on_robot-3.glb")
        );
    }
}
