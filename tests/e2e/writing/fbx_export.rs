//! FBX from the command line: `retarget --out x.fbx` and `batch --format fbx` write binary
//! FBX 7.4 that our FBX reader reads back with the same motion, in the unit and up axis
//! asked for; a bad output is refused before any work.

use crate::common::{asset_path, cli, cli_ok, key_times, positions_at};
use retarget_studio::core::Axis;
use retarget_studio::io::{Asset, ImportOptions};

fn reload(path: &std::path::Path) -> Asset {
    retarget_studio::io::load(path, &ImportOptions::default()).unwrap()
}

/// The largest distance (metres) between the joints of the two files' first clips, at the
/// first one's keys.
fn apart(a: &Asset, b: &Asset) -> f32 {
    let (ca, cb) = (&a.clips[0].clip, &b.clips[0].clip);
    let times = key_times(ca);
    let pa = positions_at(&a.skeletons[0], ca, &times);
    let pb = positions_at(&b.skeletons[0], cb, &times);
    pa.iter()
        .flatten()
        .zip(pb.iter().flatten())
        .map(|(p, q)| p.distance(*q))
        .fold(0.0, f32::max)
}

#[test]
fn a_walk_onto_each_target_kind_reads_back_from_fbx_as_from_glb() {
    let dir = tempfile::tempdir().unwrap();
    let walk = asset_path("bvh/02_01.bvh");
    for (n, target) in [
        "gltf/CesiumMan.glb",
        "fbx/RobotExpressive.fbx",
        "vrm/cryptovoxels.vrm",
    ]
    .into_iter()
    .enumerate()
    {
        let target = asset_path(target);
        let glb = dir.path().join(format!("{n}.glb"));
        let fbx = dir.path().join(format!("{n}.fbx"));
        let zup = dir.path().join(format!("{n}_z.fbx"));
        for (out, extra) in [
            (&glb, vec![]),
            (&fbx, vec![]),
            (&zup, vec!["--fbx-units", "cm", "--fbx-up", "z"]),
        ] {
            let mut args = vec!["retarget", "--source", walk.to_str().unwrap()];
            args.extend([
                "--target",
                target.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ]);
            args.extend(extra);
            let text = cli_ok(&args);
            assert!(text.contains("wrote"), "{text}");
        }
        let glb = reload(&glb);
        for fbx in [&fbx, &zup] {
            let read = reload(fbx);
            assert!(
                !read.meshes.is_empty(),
                "{}: the character's meshes",
                fbx.display()
            );
            let off = apart(&glb, &read);
            assert!(off < 1e-4, "{}: {off} m from the GLB", fbx.display());
        }
        assert_eq!(reload(&zup).up, Axis::PosZ, "the file says +Z up");
    }
}

#[test]
fn fbx_options_and_unwritable_outputs_are_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    let walk = asset_path("bvh/02_01.bvh");
    let robot = asset_path("gltf/RobotExpressive.glb");
    let run = |out: &str, extra: &[&str]| {
        let mut args = vec!["retarget", "--source", walk.to_str().unwrap()];
        args.extend(["--target", robot.to_str().unwrap(), "--out", out]);
        args.extend(extra);
        let o = cli(&args);
        (
            o.status.success(),
            String::from_utf8_lossy(&o.stderr).into_owned(),
        )
    };
    let glb = dir.path().join("a.glb");
    let (ok, err) = run(glb.to_str().unwrap(), &["--fbx-up", "z"]);
    assert!(
        !ok && err.contains("--fbx-up") && err.contains("a.glb"),
        "{err}"
    );
    let (ok, err) = run("x.fbx", &["--fbx-units", "in"]);
    assert!(!ok && err.contains("cm or m"), "{err}");
    // Checked before the files are read: with a source that does not exist either, the
    // output is what the error names.
    let missing = dir.path().join("no/such/folder/out.fbx");
    let o = cli(&[
        "retarget",
        "--source",
        "gone.bvh",
        "--target",
        robot.to_str().unwrap(),
        "--out",
        missing.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("out.fbx") && err.contains("no such file"),
        "{err}"
    );
    assert!(!err.contains("gone.bvh"), "{err}");
    let (ok, err) = run(dir.path().to_str().unwrap(), &[]);
    assert!(!ok, "{err}");
}

#[test]
fn a_batch_writes_fbx_named_as_its_glb_would_be() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let text = cli_ok(&[
        "batch",
        "--sources",
        asset_path("bvh/02_01.bvh").to_str().unwrap(),
        "--targets",
        asset_path("gltf/CesiumMan.glb").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--format",
        "fbx",
        "--fbx-units",
        "cm",
    ]);
    let written = out.join("02_01_on_CesiumMan.fbx");
    assert!(written.exists(), "{text}");
    let read = reload(&written);
    assert_eq!(read.unit, retarget_studio::core::Unit::Centimetre);
    assert_eq!(read.clips.len(), 1);
}
