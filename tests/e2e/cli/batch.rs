//! `retarget-studio batch`: every clip of every source onto every target, on the real files,
//! with its failures listed and its exit codes (0 all written, 1 some failed).

use crate::common::asset_path;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};
use std::process::Output;

fn batch(args: &[&str]) -> Output {
    crate::common::studio()
        .arg("batch")
        .args(args)
        .output()
        .unwrap()
}

fn p(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// A folder holding copies of `assets` files (a source folder for `--sources`).
fn folder_of(assets: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for a in assets {
        let from = asset_path(a);
        std::fs::copy(&from, dir.path().join(from.file_name().unwrap())).unwrap();
    }
    dir
}

/// The sources in `sources` onto the robot, into `out`.
fn onto_the_robot(sources: &Path, out: &Path) -> Output {
    let robot = asset_path("gltf/RobotExpressive.glb");
    batch(&[
        "--sources",
        p(sources),
        "--targets",
        p(&robot),
        "--out",
        p(out),
    ])
}

const SOURCES: [&str; 2] = ["bvh/02_01.bvh", "gltf/CesiumMan.glb"];

/// Two sources (a folder) onto two targets (a pattern and a file), into `out`.
fn two_by_two(out: &Path, sources: &Path, extra: &[&str]) -> Output {
    let robot = asset_path("gltf/RobotExpressive.glb");
    // A pattern (the bundled VRM folder also holds a skinless one).
    let vrm_pattern = format!("{}/crypto*.vrm", asset_path("vrm").display());
    let mut args = vec![
        "--sources",
        p(sources),
        "--targets",
        p(&robot),
        &vrm_pattern,
        "--out",
        p(out),
    ];
    args.extend_from_slice(extra);
    batch(&args)
}

#[test]
fn two_sources_onto_two_targets_write_every_clip_and_read_back() {
    let sources = folder_of(&SOURCES);
    let out = tempfile::tempdir().unwrap();
    let o = two_by_two(
        out.path(),
        sources.path(),
        &["--quiet", "--json", "-j", "1"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.stderr.is_empty(), "--quiet: nothing on stderr");
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(summary["totals"]["files_written"], 4, "{summary}");
    assert_eq!(summary["totals"]["clips"], 2, "{summary}");
    let expected = [
        (
            "02_01_on_RobotExpressive.glb",
            0,
            "gltf/RobotExpressive.glb",
        ),
        ("02_01_on_cryptovoxels.glb", 0, "vrm/cryptovoxels.vrm"),
        (
            "CesiumMan_animation_0_on_RobotExpressive.glb",
            1,
            "gltf/RobotExpressive.glb",
        ),
        (
            "CesiumMan_animation_0_on_cryptovoxels.glb",
            1,
            "vrm/cryptovoxels.vrm",
        ),
    ];
    for (name, source, target) in expected {
        let file = out.path().join(name);
        let written = retarget_studio::io::load(&file, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(written.clips.len(), 1, "{name}: one clip");
        let session = Session::automatic(
            &asset_path(SOURCES[source]),
            &asset_path(target),
            &ImportOptions::default(),
        )
        .unwrap();
        let frames = session.retarget_clip(None, None).unwrap().frame_count();
        assert_eq!(written.clips[0].clip.frame_count(), frames, "{name}");
        let row = summary["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["file"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} in the summary: {summary}"));
        assert_eq!(row["frames"], frames, "{row}");
        assert_eq!(row["status"], "written", "{row}");
        assert!(row["quality_passed"].is_boolean(), "judged: {row}");
    }
}

#[test]
fn bad_files_are_listed_and_the_others_still_written() {
    let sources = folder_of(&["bvh/02_01.bvh", "vrm/cryptovoxels.vrm"]);
    let broken = sources.path().join("broken.bvh");
    std::fs::write(&broken, "not a bvh at all").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = onto_the_robot(sources.path(), out.path());
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "some failed:\n{text}");
    assert!(
        out.path().join("02_01_on_RobotExpressive.glb").is_file(),
        "{text}"
    );
    let failed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("failed (2)"))
        .collect();
    assert!(
        failed
            .iter()
            .any(|l| l.contains("broken.bvh") && l.contains("HIERARCHY")),
        "the unreadable file, in words:\n{text}"
    );
    assert!(
        failed
            .iter()
            .any(|l| l.contains("cryptovoxels.vrm") && l.contains("no clip")),
        "the file without clips:\n{text}"
    );
    assert_eq!(std::fs::read_dir(out.path()).unwrap().count(), 1, "{text}");
}

#[test]
fn two_threads_write_the_same_bytes_as_one() {
    let sources = folder_of(&SOURCES);
    let (one, two) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    for (dir, jobs) in [(&one, "1"), (&two, "2")] {
        let o = two_by_two(dir.path(), sources.path(), &["-q", "-j", jobs]);
        assert_eq!(o.status.code(), Some(0), "-j {jobs}");
    }
    let files = |dir: &Path| -> Vec<PathBuf> {
        let mut f: Vec<PathBuf> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        f.sort();
        f
    };
    let (a, b) = (files(one.path()), files(two.path()));
    assert_eq!(a.len(), 4);
    assert_eq!(
        a.iter().map(|f| f.file_name()).collect::<Vec<_>>(),
        b.iter().map(|f| f.file_name()).collect::<Vec<_>>()
    );
    for (x, y) in a.iter().zip(&b) {
        assert!(
            std::fs::read(x).unwrap() == std::fs::read(y).unwrap(),
            "{} differs between -j 1 and -j 2",
            x.display()
        );
    }
}

/// The files in `dir`, sorted, with their bytes.
fn written(dir: &Path) -> Vec<(std::ffi::OsString, Vec<u8>)> {
    let mut f: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| {
            (
                p.file_name().unwrap().to_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    f.sort();
    f
}

#[test]
fn shards_together_write_exactly_the_files_of_one_run() {
    let sources = folder_of(&SOURCES);
    let (whole, sharded) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let o = two_by_two(whole.path(), sources.path(), &["-q"]);
    assert_eq!(o.status.code(), Some(0));
    let mut made = Vec::new();
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let o = two_by_two(
            sharded.path(),
            sources.path(),
            &["-q", "--json", "--shard", &shard],
        );
        assert_eq!(o.status.code(), Some(0), "shard {shard}");
        let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(json["shard"], serde_json::json!({"k": k, "n": 3}));
        let outputs = json["outputs"].as_array().unwrap();
        assert!(!outputs.is_empty(), "shard {shard} made nothing");
        made.extend(outputs.iter().map(|r| r["file"].clone()));
    }
    let (a, b) = (written(whole.path()), written(sharded.path()));
    assert_eq!(a.len(), 4);
    assert_eq!(made.len(), 4, "each output in one shard: {made:?}");
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(a == b, "a sharded file differs from the whole run's");
    let o = batch(&[
        "--sources",
        "x",
        "--targets",
        "y",
        "--out",
        "z",
        "--shard",
        "4/3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("K/N"));
}

#[test]
fn usage_errors_exit_2_and_name_the_option() {
    let out = tempfile::tempdir().unwrap();
    let empty = tempfile::tempdir().unwrap();
    let robot = asset_path("gltf/RobotExpressive.glb");
    let o = batch(&[
        "--sources",
        p(empty.path()),
        "--targets",
        p(&robot),
        "--out",
        p(out.path()),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--sources") && err.contains("no files"),
        "{err}"
    );
}

#[test]
fn ctrl_c_keeps_the_outputs_written_and_starts_no_more() {
    use std::io::Read;
    use std::process::Stdio;
    let sources = folder_of(&SOURCES);
    let out = tempfile::tempdir().unwrap();
    // The test hook waits after each output until Ctrl+C: the signal comes after the first.
    let mut child = crate::common::studio()
        .args(["batch", "-j", "1", "--sources"])
        .arg(sources.path())
        .arg("--targets")
        .arg(asset_path("gltf/RobotExpressive.glb"))
        .arg("--out")
        .arg(out.path())
        .env("RETARGET_STUDIO_TEST_SLOW_MS", "600000")
        .stderr(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let _stderr = crate::common::interrupt_at_test_hook(&mut child);
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    let status = child.wait().unwrap();
    assert_eq!(status.code(), Some(130), "{stdout}");
    assert!(
        stdout.contains("interrupted: the 1 file(s) above are whole; 1 output(s) were not started"),
        "{stdout}"
    );
    let written: Vec<PathBuf> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(
        written.len(),
        1,
        "one whole output, no temp file: {written:?}"
    );
    retarget_studio::io::load(&written[0], &ImportOptions::default()).unwrap();
}

#[test]
fn a_project_applies_to_the_pairs_it_fits_and_the_others_are_automatic() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("walk_robot.ron");
    let robot = asset_path("gltf/RobotExpressive.glb");
    let mapped = crate::common::studio()
        .args(["map", "-q", "--source"])
        .arg(asset_path("bvh/02_01.bvh"))
        .arg("--target")
        .arg(&robot)
        .arg("--out")
        .arg(&project)
        .output()
        .unwrap();
    assert!(mapped.status.success());
    let out = dir.path().join("out");
    let vrm = asset_path("vrm/cryptovoxels.vrm");
    let o = batch(&[
        "--sources",
        p(&asset_path("bvh/02_01.bvh")),
        "--targets",
        p(&robot),
        p(&vrm),
        "--project",
        p(&project),
        "--out",
        p(&out),
        "--json",
    ]);
    assert_eq!(o.status.code(), Some(0));
    let summary: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let setup = |name: &str| {
        summary["outputs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["file"].as_str().unwrap().ends_with(name))
            .map(|r| r["setup"].clone())
    };
    assert_eq!(setup("02_01_on_RobotExpressive.glb").unwrap(), "project");
    assert_eq!(setup("02_01_on_cryptovoxels.glb").unwrap(), "automatic");
    let notes = summary["notes"].to_string();
    assert!(
        notes.contains("cryptovoxels.vrm") && notes.contains("does not fit"),
        "{notes}"
    );
}

#[test]
fn a_batch_of_only_bad_files_says_it_did_no_work() {
    let sources = tempfile::tempdir().unwrap();
    std::fs::write(sources.path().join("broken.bvh"), "not a bvh at all").unwrap();
    let out = tempfile::tempdir().unwrap();
    let o = onto_the_robot(sources.path(), out.path());
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("(0.00 s of work"), "{text}");
    assert!(!text.contains("-0.00"), "a negative zero:\n{text}");
}
