//! Ctrl+C stops the CLI's long work: exit code 130, one line on stderr, and the output file
//! as it was (absent, or the old one). A test hook slows each clip down, so the signal always
//! arrives mid-run: the test waits for the hook's line before sending it.

use crate::common::asset_path;
use std::io::Read;
use std::path::Path;
use std::process::Stdio;

/// Runs `retarget` onto `out`, sends SIGINT once it is retargeting; exit code and stderr.
fn interrupted_retarget(out: &Path) -> (Option<i32>, String) {
    let mut child = crate::common::studio()
        .args(["retarget", "--source"])
        .arg(asset_path("bvh/02_01.bvh"))
        .arg("--target")
        .arg(asset_path("gltf/RobotExpressive.glb"))
        .arg("--out")
        .arg(out)
        .env("RETARGET_STUDIO_TEST_SLOW_MS", "600000")
        .stderr(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let mut stderr = crate::common::interrupt_at_test_hook(&mut child);
    let status = child.wait().unwrap();
    let mut rest = String::new();
    stderr.read_to_string(&mut rest).unwrap();
    (status.code(), rest)
}

fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn ctrl_c_stops_a_retarget_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("walk.glb");
    let (code, stderr) = interrupted_retarget(&out);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "interrupted: stopped before writing anything"
    );
    assert!(files_in(dir.path()).is_empty(), "no output, no temp file");

    std::fs::write(&out, "the old export").unwrap();
    let (code, stderr) = interrupted_retarget(&out);
    assert_eq!(code, Some(130), "{stderr}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "the old export");
    assert_eq!(files_in(dir.path()), ["walk.glb"]);
}
