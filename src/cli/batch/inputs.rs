//! The files a batch reads: `--sources`/`--targets` name folders, glob patterns or files.
//! A folder or a pattern stands for the files of a readable kind in it; the list is sorted so
//! that a run's outputs (and their names) do not depend on the order the disk returns.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};

/// The extensions `io::load` reads as characters or clips.
pub const KINDS: [&str; 5] = ["glb", "gltf", "vrm", "bvh", "fbx"];

fn readable_kind(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| KINDS.iter().any(|k| e.eq_ignore_ascii_case(k)))
}

fn is_pattern(arg: &str) -> bool {
    arg.contains(['*', '?', '['])
}

/// The files that `args` (of the option `--{option}`) name, sorted, each once. A folder
/// gives its files of a readable kind (not its subfolders'); a pattern the files of a
/// readable kind it matches; a file itself, whatever its kind (the run reports it if it
/// cannot be read).
pub fn resolve(option: &str, args: &[String]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for arg in args {
        let found = resolve_one(arg).with_context(|| format!("--{option} {arg}"))?;
        if found.is_empty() {
            bail!(
                "--{option} {arg}: no files of a readable kind (.{}) there",
                KINDS.join(" .")
            );
        }
        files.extend(found);
    }
    files.sort();
    files.dedup();
    Ok(files)
}

fn resolve_one(arg: &str) -> anyhow::Result<Vec<PathBuf>> {
    let path = Path::new(arg);
    if path.is_dir() {
        let mut files = Vec::new();
        for entry in std::fs::read_dir(path).context("cannot list the folder")? {
            let entry = entry.context("cannot list the folder")?;
            let p = entry.path();
            if p.is_file() && readable_kind(&p) {
                files.push(p);
            }
        }
        return Ok(files);
    }
    if path.is_file() {
        return Ok(vec![path.to_path_buf()]);
    }
    if !is_pattern(arg) {
        bail!("no such file or folder");
    }
    let mut files = Vec::new();
    for entry in glob::glob(arg).context("not a valid pattern")? {
        let p = entry.context("cannot read a folder the pattern goes through")?;
        if p.is_file() && readable_kind(&p) {
            files.push(p);
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(dir: &Path, name: &str) -> PathBuf {
        let p = dir.join(name);
        std::fs::write(&p, "x").unwrap();
        p
    }

    #[test]
    fn folders_and_patterns_give_readable_files_sorted_once() {
        let dir = tempfile::tempdir().unwrap();
        let b = touch(dir.path(), "b.BVH");
        let a = touch(dir.path(), "a.glb");
        touch(dir.path(), "notes.txt");
        std::fs::create_dir(dir.path().join("sub.glb")).unwrap();
        let folder = dir.path().to_str().unwrap().to_owned();
        assert_eq!(
            resolve("sources", std::slice::from_ref(&folder)).unwrap(),
            [a.clone(), b.clone()]
        );
        let pattern = format!("{folder}/*");
        assert_eq!(
            resolve("sources", &[pattern, folder]).unwrap(),
            [a.clone(), b.clone()],
            "each file once"
        );
        let txt = format!("{}/notes.txt", dir.path().display());
        assert_eq!(
            resolve("sources", &[txt]).unwrap().len(),
            1,
            "a file is taken as named"
        );
    }

    #[test]
    fn nothing_to_read_is_an_error_naming_the_option() {
        let dir = tempfile::tempdir().unwrap();
        touch(dir.path(), "notes.txt");
        let empty = format!("{}/*.bvh", dir.path().display());
        let e = resolve("targets", &[empty]).unwrap_err();
        assert!(format!("{e:#}").contains("--targets"), "{e:#}");
        let missing = format!("{}/missing", dir.path().display());
        let e = resolve("sources", &[missing]).unwrap_err();
        assert!(format!("{e:#}").contains("no such file"), "{e:#}");
    }
}
