//! Root motion extracted to the root joint, read back from the GLB as an engine imports it:
//! the root travels on the ground under the pelvis and turns with it, and every other joint
//! moves exactly as in the export without extraction.

use crate::common::{key_times, walk_onto};
use glam::Vec3;
use retarget_studio::core::{Pose, Skeleton};
use retarget_studio::io::{Asset, ImportOptions};
use retarget_studio::session::{ExportFormat, ExportJob, Session, SessionError};
use std::path::Path;

fn export(session: &Session, out: &Path, extract_root: bool) -> Result<(), SessionError> {
    export_as(session, out, extract_root, false).map(|_| ())
}

fn export_as(
    session: &Session,
    out: &Path,
    extract_root: bool,
    add_root: bool,
) -> Result<Vec<String>, SessionError> {
    let format = ExportFormat::from_path(out, false).unwrap();
    let job = ExportJob {
        extract_root,
        add_root,
        ..ExportJob::to(format, out)
    };
    session.export(&job).map(|s| s.notes)
}

fn reload(path: &Path) -> Asset {
    retarget_studio::io::load(path, &ImportOptions::default()).unwrap()
}

/// World positions of every joint at every key time of the asset's first clip.
fn motion(asset: &Asset) -> (Skeleton, Vec<Vec<Vec3>>) {
    let clip = &asset.clips[0].clip;
    let s = asset.skeletons[asset.clips[0].skeleton].clone();
    let mut pose = Pose::rest(&s);
    let frames = key_times(clip)
        .into_iter()
        .map(|t| {
            pose = Pose::rest(&s);
            clip.sample(t, &mut pose);
            pose.world_positions(&s)
        })
        .collect();
    (s, frames)
}

#[test]
fn the_root_carries_the_walk_and_every_other_joint_moves_as_before() {
    let session = walk_onto("gltf/RobotExpressive.glb");
    let dir = tempfile::tempdir().unwrap();
    let (plain, extracted) = (dir.path().join("plain.glb"), dir.path().join("root.glb"));
    export(&session, &plain, false).unwrap();
    export(&session, &extracted, true).unwrap();
    let (s, before) = motion(&reload(&plain));
    let (s2, after) = motion(&reload(&extracted));
    assert_eq!(s.names(), s2.names());
    assert_eq!(before.len(), after.len());
    let (root, hips) = (s.find("Bone").unwrap(), s.find("Hips").unwrap());
    let height = {
        let p = Pose::rest(&s).world_positions(&s);
        p.iter().map(|v| v.y).fold(f32::MIN, f32::max)
            - p.iter().map(|v| v.y).fold(f32::MAX, f32::min)
    };
    for (f, (a, b)) in before.iter().zip(&after).enumerate() {
        for j in (0..s.len()).filter(|&j| j != root) {
            let moved = a[j].distance(b[j]);
            assert!(
                moved < 1e-4 * height,
                "frame {f}: {} moved {moved} (height {height})",
                s.names()[j]
            );
        }
        let (r, h) = (b[root], b[hips]);
        let apart = Vec3::new(r.x - h.x, 0.0, r.z - h.z).length();
        assert!(
            apart < 1e-4 * height,
            "frame {f}: the root is {apart} off the pelvis"
        );
        assert!(
            (r.y - after[0][root].y).abs() < 1e-4 * height,
            "frame {f}: the root leaves the ground"
        );
    }
    let travel = |frames: &[Vec<Vec3>]| {
        let (first, last) = (frames[0][root], frames[frames.len() - 1][root]);
        Vec3::new(last.x - first.x, 0.0, last.z - first.z).length()
    };
    assert!(
        travel(&after) > 0.5 * height,
        "the root travels: {}",
        travel(&after)
    );
    assert!(
        travel(&before) < 1e-4 * height,
        "without extraction the root stays"
    );
}

#[test]
fn a_rig_whose_hips_are_its_top_joint_is_refused_naming_the_file() {
    let session = walk_onto("gltf/CesiumMan.glb");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("root.glb");
    let e = export(&session, &out, true).unwrap_err().to_string();
    assert!(
        e.contains("CesiumMan.glb") && e.contains("no root joint above the hips"),
        "{e}"
    );
    assert!(e.contains("--add-root"), "says how to get one: {e}");
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn a_root_joint_added_at_the_origin_carries_the_walk_in_glb_and_fbx() {
    let session = walk_onto("gltf/CesiumMan.glb");
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("plain.glb");
    export(&session, &plain, false).unwrap();
    let (_, before) = motion(&reload(&plain));
    for file in ["root.glb", "root.fbx"] {
        let out = dir.path().join(file);
        let notes = export_as(&session, &out, true, true).unwrap();
        assert!(
            notes
                .iter()
                .any(|n| n.contains("root joint 'root' was added")),
            "{notes:?}"
        );
        let back = reload(&out);
        let (s, after) = motion(&back);
        assert_eq!(s.names()[0], "root");
        assert_eq!(s.len(), session.target.skeleton().len() + 1);
        assert!(!back.meshes.is_empty(), "{file}: the character's meshes");
        let hips = s.parents().iter().position(|p| *p == Some(0)).unwrap();
        let (first, last) = (after[0][0], after[after.len() - 1][0]);
        assert!(
            first.distance(last) > 0.5,
            "{file}: the root travels {first} to {last}"
        );
        for (frame, (a, b)) in after.iter().zip(&before).enumerate() {
            let under = b[hips - 1];
            assert!(a[0].y.abs() < 1e-3, "{file}: the root is on the ground");
            assert!(
                Vec3::new(a[0].x - under.x, 0.0, a[0].z - under.z).length() < 1e-3,
                "{file} frame {frame}: the root is under the pelvis"
            );
            for j in 1..s.len() {
                assert!(
                    a[j].distance(b[j - 1]) < 1e-4,
                    "{file} frame {frame}: joint {j} moved"
                );
            }
        }
    }
}
