//! The invariants of docs/design.md on real rigs, with variants made here.

use crate::common::load;
use crate::common::variants::{longer_legs, reoriented, scaled};
use glam::Vec3;
use retarget_studio::core::{
    BoneMap, BonePair, Clip, Pose, ReferencePose, RetargetClipOptions, Retargeter, Skeleton,
    TranslationMode,
};

fn bind_reference(s: &Skeleton) -> ReferencePose {
    ReferencePose::new(s, Pose::bind(s), &Default::default(), &[])
}

/// Joint-for-joint map for skeletons of one topology; `hips` gets the scaled translation.
fn same_topology_map(joints: usize, hips: usize) -> BoneMap {
    BoneMap::new(
        (0..joints)
            .map(|j| BonePair {
                translation: if j == hips {
                    TranslationMode::HipsScaled
                } else {
                    TranslationMode::None
                },
                ..BonePair::new(j, j)
            })
            .collect(),
    )
}

fn retarget(source: &Skeleton, clip: &Clip, target: &Skeleton, map: &BoneMap) -> Clip {
    let r = Retargeter::new(
        source,
        &bind_reference(source),
        target,
        &bind_reference(target),
        map,
    )
    .unwrap();
    r.retarget_clip(source, clip, target, &RetargetClipOptions::default())
        .unwrap()
        .clip
}

/// World joint positions of `clip` on `skeleton` at each of its key times.
fn world_frames(skeleton: &Skeleton, clip: &Clip) -> Vec<Vec<Vec3>> {
    let track = clip
        .tracks()
        .iter()
        .find_map(|t| t.rotation.as_ref())
        .unwrap();
    crate::common::positions_at(skeleton, clip, track.times())
}

fn max_distance(a: &[Vec<Vec3>], b: &[Vec<Vec3>]) -> f32 {
    assert_eq!(a.len(), b.len());
    a.iter()
        .zip(b)
        .flat_map(|(fa, fb)| fa.iter().zip(fb).map(|(p, q)| p.distance(*q)))
        .fold(0.0, f32::max)
}

fn figure_height(s: &Skeleton) -> f32 {
    let p = Pose::bind(s).world_positions(s);
    let (lo, hi) = p.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| {
        (lo.min(v.y), hi.max(v.y))
    });
    hi - lo
}

#[test]
fn identity_gives_back_the_same_local_transforms() {
    for (rel, clip_name) in [
        ("gltf/RobotExpressive.glb", "Dance"),
        ("bvh/02_01.bvh", "02_01"),
        ("gltf/CesiumMan.glb", "animation_0"),
    ] {
        let asset = load(rel);
        let s = &asset.skeletons[0];
        let clip = &asset.find_clip(clip_name).unwrap().clip;
        let out = retarget(s, clip, s, &BoneMap::identity(s.len()));
        let size = figure_height(s);
        for k in 0..clip.frame_count() {
            let t = clip.start_secs() + k as f32 / out.fps().unwrap();
            let (mut a, mut b) = (Pose::rest(s), Pose::rest(s));
            clip.sample(t, &mut a);
            out.sample(t, &mut b);
            for j in 0..s.len() {
                let dq = a.rotations[j].dot(b.rotations[j]).abs();
                assert!(
                    dq > 1.0 - 1e-5,
                    "{rel} joint {} frame {k}: rotation differs",
                    s.names()[j]
                );
                let dt = a.translations[j].distance(b.translations[j]);
                assert!(
                    dt < 1e-4 * size.max(1.0),
                    "{rel} joint {} frame {k}: translation off by {dt}",
                    s.names()[j]
                );
            }
        }
    }
}

#[test]
fn reoriented_target_gives_the_same_world_positions() {
    let asset = load("gltf/RobotExpressive.glb");
    let s = &asset.skeletons[0];
    let hips = s.find("Hips").unwrap();
    let map = same_topology_map(s.len(), hips);
    for clip_name in ["Dance", "Running", "Wave"] {
        let clip = &asset.find_clip(clip_name).unwrap().clip;
        for seed in [1, 2] {
            let turned = reoriented(s, seed);
            let plain = world_frames(s, &retarget(s, clip, s, &map));
            let other = world_frames(&turned, &retarget(s, clip, &turned, &map));
            let err = max_distance(&plain, &other);
            assert!(
                err < 1e-4 * figure_height(s),
                "{clip_name} seed {seed}: {err}"
            );
        }
    }
}

#[test]
fn scaled_target_gives_scaled_positions() {
    let asset = load("bvh/02_01.bvh");
    let s = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    let map = same_topology_map(s.len(), 0);
    let plain = world_frames(s, clip);
    for k in [0.5f32, 3.0] {
        let big = scaled(s, k);
        let out = world_frames(&big, &retarget(s, clip, &big, &map));
        let expected: Vec<Vec<Vec3>> = plain
            .iter()
            .map(|f| f.iter().map(|p| *p * k).collect())
            .collect();
        let err = max_distance(&expected, &out);
        assert!(err < 1e-4 * k * figure_height(s), "k={k}: {err}");
    }
}

#[test]
fn round_trip_through_a_reoriented_scaled_copy() {
    let asset = load("gltf/RobotExpressive.glb");
    let a = &asset.skeletons[0];
    let clip = &asset.find_clip("Walking").unwrap().clip;
    let b = scaled(&reoriented(a, 7), 1.7);
    let map = same_topology_map(a.len(), a.find("Hips").unwrap());
    let there = retarget(a, clip, &b, &map);
    let back = retarget(&b, &there, a, &map);
    // Robot's IK foot targets translate and are not mapped for translation, so the
    // round trip is compared with the direct A → A result.
    let direct = world_frames(a, &retarget(a, clip, a, &map));
    let err = max_distance(&direct, &world_frames(a, &back));
    assert!(err < 1e-4 * figure_height(a), "{err}");
}

#[test]
fn longer_legs_keep_directions_and_scale_the_hips_height() {
    let asset = load("bvh/02_01.bvh");
    let s = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    let legs = [s.find("LeftUpLeg").unwrap(), s.find("RightUpLeg").unwrap()];
    let long = longer_legs(s, &legs, 1.3);
    let map = same_topology_map(s.len(), 0);
    let out = retarget(s, clip, &long, &map);
    let src = world_frames(s, clip);
    let dst = world_frames(&long, &out);
    let ground = |sk: &Skeleton| {
        Pose::bind(sk)
            .world_positions(sk)
            .iter()
            .map(|p| p.y)
            .fold(f32::MAX, f32::min)
    };
    let ratio = (Pose::bind(&long).world_positions(&long)[0].y - ground(&long))
        / (Pose::bind(s).world_positions(s)[0].y - ground(s));
    let (mut worst, mut sum, mut n) = (0.0f32, 0.0f32, 0);
    for (fs, ft) in src.iter().zip(&dst) {
        for j in 1..s.len() {
            let p = s.parents()[j].unwrap();
            let (ds, dt) = (fs[j] - fs[p], ft[j] - ft[p]);
            if ds.length() < 1e-6 {
                continue;
            }
            let angle = ds.angle_between(dt).to_degrees();
            worst = worst.max(angle);
            sum += angle;
            n += 1;
        }
        let expected_hips = ground(&long) + ratio * (fs[0].y - ground(s));
        assert!(
            (ft[0].y - expected_hips).abs() < 1e-4,
            "hips {} vs {expected_hips}",
            ft[0].y
        );
    }
    eprintln!(
        "longer legs: bone direction error mean {:.5}° max {:.5}°",
        sum / n as f32,
        worst
    );
    assert!(worst < 0.05, "max angle {worst}°");
    assert!(
        ratio > 1.2,
        "the hips stand higher on longer legs: ratio {ratio}"
    );
}

#[test]
fn output_rotation_keys_never_flip_sign() {
    let asset = load("bvh/05_06.bvh");
    let s = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    let out = retarget(s, clip, &reoriented(s, 3), &same_topology_map(s.len(), 0));
    let mut checked = 0;
    for tracks in out.tracks() {
        let r = tracks.rotation.as_ref().unwrap();
        for k in 1..r.key_count() {
            assert!(r.value(k).dot(r.value(k - 1)) >= 0.0);
            checked += 1;
        }
    }
    assert!(checked > 30_000, "{checked}");
}

/// The map a session would make: both skeletons labelled automatically, pairs by label.
fn automatic_map(source: &Skeleton, target: &Skeleton) -> BoneMap {
    use retarget_studio::core::profile::auto_label;
    use retarget_studio::core::{MapMethod, SideLabel};
    let labels = |s: &Skeleton| -> Vec<Option<SideLabel>> {
        auto_label(s, &Pose::bind(s))
            .into_iter()
            .map(|l| {
                l.map(|l| SideLabel {
                    bone: l.bone,
                    method: MapMethod::Name,
                    confidence: l.confidence,
                })
            })
            .collect()
    };
    BoneMap::from_labels(&labels(source), &labels(target))
}

#[test]
fn round_trip_through_renamed_copies_with_automatic_maps() {
    use crate::common::renames::{mixamo_name, unreal_name};
    use crate::common::variants::renamed;
    let asset = load("gltf/RobotExpressive.glb");
    let a = &asset.skeletons[0];
    let clip = &asset.find_clip("Wave").unwrap().clip;
    let mapped_there = automatic_map(a, a);
    let direct = world_frames(a, &retarget(a, clip, a, &mapped_there));
    for (convention, b) in [
        ("mixamo", renamed(a, mixamo_name)),
        ("unreal", renamed(a, unreal_name)),
    ] {
        let there_map = automatic_map(a, &b);
        let back_map = automatic_map(&b, a);
        assert!(
            there_map.len() >= 20,
            "{convention}: {} pairs",
            there_map.len()
        );
        let there = retarget(a, clip, &b, &there_map);
        let back = retarget(&b, &there, a, &back_map);
        // Joints the map leaves out (IK targets, fingers) stay at their reference, on both
        // paths alike; everything must agree with the direct A → A result.
        let err = max_distance(&direct, &world_frames(a, &back));
        assert!(err < 1e-4 * figure_height(a), "{convention}: {err}");
    }
}
