//! The runtime on real files: the compiled sampler gives `Clip::sample`'s poses bit
//! for bit on every bundled clip (BVH, glTF, VRMA, FBX; STEP, LINEAR and CUBICSPLINE
//! tracks) in any order of times; `retarget_clip` through it gives the frame-by-frame
//! solve's keys; and a crowd instance at a clip's frame times gives `retarget_clip`'s
//! pose, with planting and mirroring as the solve settings say.

use crate::common::{BVH_ASSETS, GLTF_ASSETS, asset_path, load};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::retarget::PoseScratch;
use retarget_studio::core::{
    Clip, CompiledClip, Cursor, Interpolation, JointTracks, Pose, RetargetClipOptions, Skeleton,
    Track,
};
use retarget_studio::io::ImportOptions;
use retarget_studio::runtime::{Crowd, Flags, Output, RigOptions, RigPair};
use retarget_studio::session::Session;
use std::sync::Arc;

/// Times a player might ask for: forward at 60 fps past both ends, a loop back, steps
/// backwards, far jumps, every key exactly.
fn playback_times(clip: &Clip) -> Vec<f32> {
    let (a, d) = (clip.start_secs(), clip.duration_secs());
    let mut t: Vec<f32> = (0..=((d + 0.2) * 60.0) as usize)
        .map(|k| a - 0.1 + k as f32 / 60.0)
        .collect();
    t.extend([
        a,
        a + d * 0.5,
        a + d * 0.25,
        a - 5.0,
        a + d + 5.0,
        a + d,
        a + d * 0.75,
    ]);
    t.extend((0..50).map(|k| a + d - k as f32 * d / 70.0));
    if let Some(fps) = clip.fps() {
        t.extend((0..clip.frame_count()).map(|k| a + k as f32 / fps));
    }
    t
}

fn same_samples(rel: &str, clip: &Clip, skeleton: &Skeleton) {
    let compiled = CompiledClip::new(clip);
    let mut cursor = Cursor::new(&compiled);
    let rest = Pose::rest(skeleton);
    for t in playback_times(clip) {
        let (mut want, mut got) = (rest.clone(), rest.clone());
        clip.sample(t, &mut want);
        compiled.sample(t, &mut cursor, &mut got);
        assert_eq!(got, want, "{rel} '{}' at {t} s", clip.name);
    }
}

/// Every interpolation on a real rig (the bundled files key LINEAR only).
fn every_interpolation(s: &Skeleton) -> Clip {
    let mut tracks = vec![JointTracks::default(); s.len()];
    let times = vec![0.0, 0.5, 0.5, 1.25];
    let q = |x: f32| Quat::from_euler(glam::EulerRot::XYZ, x, 0.3 - x, 0.1);
    let tangent = |k: f32| Quat::from_xyzw(0.1 * k, -0.05, 0.02 * k, 0.0);
    let cubic = (0..4)
        .flat_map(|k| [tangent(k as f32), q(0.2 * k as f32), tangent(-(k as f32))])
        .collect();
    tracks[1].rotation =
        Some(Track::new(times.clone(), cubic, Interpolation::CubicSpline).unwrap());
    let steps = (0..4).map(|k| Vec3::splat(k as f32 * 0.1)).collect();
    tracks[0].translation = Some(Track::new(times.clone(), steps, Interpolation::Step).unwrap());
    let lin = (0..4).map(|k| q(-0.3 * k as f32)).collect();
    tracks[2].rotation = Some(Track::new(times, lin, Interpolation::Linear).unwrap());
    Clip::new("every interpolation", tracks, None)
}

#[test]
fn the_compiled_sampler_gives_every_bundled_clip_bit_for_bit() {
    let mut clips = 0;
    let fbx = [
        "fbx/RobotExpressive.fbx",
        "fbx/Fox.fbx",
        "fbx/CesiumMan.fbx",
    ];
    for rel in BVH_ASSETS.iter().chain(GLTF_ASSETS).chain(&fbx) {
        let asset = load(rel);
        for c in &asset.clips {
            same_samples(rel, &c.clip, &asset.skeletons[c.skeleton]);
            clips += 1;
        }
        if rel.ends_with(".vrm") {
            let s = &asset.skeletons[0];
            same_samples(rel, &every_interpolation(s), s);
        }
    }
    assert!(clips >= 10, "{clips} clips");
}

fn walk_onto(target: &std::path::Path) -> Session {
    let source = asset_path("bvh/01_01.bvh");
    Session::automatic(&source, target, &ImportOptions::default()).unwrap()
}

fn assert_poses_near(got: &Pose, want: &Pose, what: &str) {
    for j in 0..want.len() {
        let (a, b) = (got.rotations[j], want.rotations[j]);
        assert!(
            a.dot(b).abs() > 1.0 - 1e-6,
            "{what}: joint {j} turns {a} vs {b}"
        );
        let (a, b) = (got.translations[j], want.translations[j]);
        assert!(
            a.distance(b) < 1e-4 * (1.0 + b.length()),
            "{what}: joint {j} at {a} vs {b}"
        );
    }
}

/// The output clip's pose at key `k` (its keys are the solved poses).
fn key_pose(clip: &Clip, target: &Skeleton, k: usize) -> Pose {
    let mut pose = Pose::rest(target);
    for (j, tracks) in clip.tracks().iter().enumerate() {
        if let Some(t) = &tracks.rotation {
            pose.rotations[j] = t.value(k);
        }
        if let Some(t) = &tracks.translation {
            pose.translations[j] = t.value(k);
        }
        if let Some(t) = &tracks.scale {
            pose.scales[j] = t.value(k);
        }
    }
    pose
}

#[test]
fn retarget_clip_through_the_compiled_sampler_keys_the_frame_by_frame_solve() {
    let mut s = walk_onto(&asset_path("gltf/RobotExpressive.glb"));
    s.solve.settings.plant_feet = false;
    let (source, target) = (s.source.skeleton(), s.target.skeleton());
    let clip = s.source.clips()[0].clone();
    let r = s.retargeter().unwrap();
    let out = r
        .retarget_clip(source, &clip, target, &RetargetClipOptions::default())
        .unwrap()
        .clip;
    // The old path: `Clip::sample` per frame, one binary search per track.
    let mut old = s.retargeter().unwrap();
    old.fit_clip(source, &clip);
    let times = out.tracks()[0].rotation.as_ref().unwrap().times().to_vec();
    let (mut src, mut dst) = (Pose::rest(source), Pose::rest(target));
    let mut scratch = PoseScratch::new(&old);
    for (k, &t) in times.iter().enumerate().step_by(7) {
        src.copy_from(&Pose::rest(source));
        clip.sample(t, &mut src);
        old.retarget_pose(&src, &mut dst, &mut scratch);
        assert_poses_near(&key_pose(&out, target, k), &dst, &format!("frame {k}"));
    }
}

/// A crowd of one instance per listed frame of the walk on `target`, at those frames'
/// times, compared with `retarget_clip` under the same settings.
fn crowd_matches_retarget_clip(target: &std::path::Path, plant: bool, mirror: bool) -> usize {
    let target_rel = target.display();
    let mut s = walk_onto(target);
    s.solve.settings.plant_feet = plant;
    s.solve.settings.mirror = mirror;
    let (source, target) = (s.source.skeleton(), s.target.skeleton());
    let clip = s.source.clips()[0].clone();
    let retargeter = s.retargeter().unwrap();
    let out = retargeter
        .retarget_clip(source, &clip, target, &RetargetClipOptions::default())
        .unwrap()
        .clip;
    let options = RigOptions {
        ik: plant,
        fps: None,
    };
    let rig = Arc::new(RigPair::new(&retargeter, source, target, &[clip], options).unwrap());
    let times = out.tracks()[0].rotation.as_ref().unwrap().times().to_vec();
    let mut crowd = Crowd::new(rig.clone());
    let mut flags = Flags::default();
    flags.set(Flags::IK, plant);
    flags.set(Flags::MIRROR, mirror);
    let frames: Vec<usize> = (0..times.len()).step_by(13).collect();
    for &k in &frames {
        crowd.spawn(0, times[k], Mat4::IDENTITY, flags);
    }
    let mut matrices = vec![Mat4::ZERO; crowd.output_len()];
    crowd.update(0.0, Output::World, &mut matrices);
    for (i, &k) in frames.iter().enumerate() {
        let what = format!("{target_rel} frame {k} plant {plant} mirror {mirror}");
        assert_poses_near(&crowd.pose(i), &key_pose(&out, target, k), &what);
    }
    rig.plants(0).map_or(0, |p| p.planted_frames())
}

#[test]
fn a_crowd_at_the_clip_s_frames_poses_as_retarget_clip() {
    let robot = asset_path("gltf/RobotExpressive.glb");
    assert_eq!(crowd_matches_retarget_clip(&robot, false, false), 0);
    let planted = crowd_matches_retarget_clip(&robot, true, false);
    assert!(planted > 100, "{planted} planted frames");
    crowd_matches_retarget_clip(&asset_path("vrm/cryptovoxels.vrm"), true, true);
}

/// Twist bones inside the thighs and shins follow the legs the runtime plants, as
/// `retarget_clip`'s do after its planting pass.
#[test]
fn a_crowd_turns_the_twist_bones_of_the_legs_it_plants() {
    use crate::common::file_variants::twist::{TwistLayout, twist_bones};
    let dir = tempfile::tempdir().unwrap();
    let vrm = std::fs::read(asset_path("vrm/cryptovoxels.vrm")).unwrap();
    let (bytes, added) = twist_bones(&vrm, TwistLayout::Inside);
    assert!(added.len() >= 8, "{} twist bones", added.len());
    let path = dir.path().join("cryptovoxels_twist_inside.glb");
    std::fs::write(&path, bytes).unwrap();
    let planted = crowd_matches_retarget_clip(&path, true, false);
    assert!(planted > 100, "{planted} planted frames");
}

#[test]
fn low_detail_skips_ik_and_an_instance_stays_within_4_kb() {
    let s = walk_onto(&asset_path("gltf/RobotExpressive.glb"));
    let (source, target) = (s.source.skeleton(), s.target.skeleton());
    let clip = s.source.clips()[0].clone();
    let r = s.retargeter().unwrap();
    let rig = Arc::new(RigPair::new(&r, source, target, &[clip], RigOptions::default()).unwrap());
    let mut crowd = Crowd::new(rig);
    let mut moved = 0;
    for k in 0..40 {
        let t = k as f32 * 0.5;
        crowd.spawn(0, t, Mat4::IDENTITY, Flags::LOOP);
        crowd.spawn(
            0,
            t,
            Mat4::IDENTITY,
            Flags::LOOP | Flags::IK | Flags::LOW_DETAIL,
        );
        crowd.spawn(0, t, Mat4::IDENTITY, Flags::LOOP | Flags::IK);
    }
    let mut out = vec![Mat4::ZERO; crowd.output_len()];
    crowd.update(1.0 / 60.0, Output::World, &mut out);
    for k in 0..40 {
        let pose = |i: usize| crowd.pose(i);
        assert_eq!(pose(3 * k), pose(3 * k + 1), "low detail: no IK");
        moved += usize::from(pose(3 * k) != pose(3 * k + 2));
    }
    let i = crowd.instances();
    assert!(moved > 10, "IK moved {moved} of 40");
    let bytes = size_of_val(&i[0]) + i[0].heap_bytes();
    assert!(bytes <= 4096, "{bytes} bytes per instance");
}
