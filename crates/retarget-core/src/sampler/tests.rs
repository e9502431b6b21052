use super::*;
use crate::clip::{Interpolation, JointTracks};
use glam::Vec4;

/// Four joints: shared times across three tracks, a STEP track, a CUBICSPLINE track with
/// its own times, repeated key times (a zero-length step), and one untracked joint.
fn mixed_clip() -> Clip {
    let shared: Vec<f32> = (0..40).map(|k| 0.25 + k as f32 / 30.0).collect();
    let q = |k: usize| Quat::from_euler(glam::EulerRot::XYZ, 0.1 * k as f32, -0.07 * k as f32, 0.3);
    let lin_q = Track::new(
        shared.clone(),
        (0..40).map(q).collect(),
        Interpolation::Linear,
    )
    .unwrap();
    let lin_v = Track::new(
        shared.clone(),
        (0..40)
            .map(|k| Vec3::new(k as f32, 1.0, -0.5 * k as f32))
            .collect(),
        Interpolation::Linear,
    )
    .unwrap();
    let step = Track::new(
        shared.clone(),
        (0..40)
            .map(|k| Vec3::splat(1.0 + 0.01 * k as f32))
            .collect(),
        Interpolation::Step,
    )
    .unwrap();
    let cubic_times = vec![0.0, 0.3, 0.3, 0.9, 1.7];
    let tangent = |k: usize| Quat::from_vec4(Vec4::new(0.1, -0.2, 0.05 * k as f32, 0.0));
    let cubic = Track::new(
        cubic_times,
        (0..5)
            .flat_map(|k| [tangent(k), q(3 * k), tangent(k + 1)])
            .collect(),
        Interpolation::CubicSpline,
    )
    .unwrap();
    let tracks = vec![
        JointTracks {
            translation: Some(lin_v),
            rotation: Some(lin_q.clone()),
            scale: Some(step),
        },
        JointTracks {
            rotation: Some(cubic),
            ..Default::default()
        },
        JointTracks {
            rotation: Some(lin_q),
            ..Default::default()
        },
        JointTracks::default(),
    ];
    Clip::new("mixed", tracks, None)
}

fn rest() -> Pose {
    Pose {
        translations: vec![Vec3::new(9.0, 9.0, 9.0); 4],
        rotations: vec![Quat::from_rotation_y(0.5); 4],
        scales: vec![Vec3::splat(2.0); 4],
    }
}

#[test]
fn identical_times_share_a_group_and_blocks_split_by_interpolation() {
    let c = CompiledClip::new(&mixed_clip());
    assert_eq!(c.group_count(), 2);
    assert_eq!(
        (c.translations.len(), c.rotations.len(), c.scales.len()),
        (1, 2, 1)
    );
    assert_eq!(c.joint_count(), 4);
}

/// Forward at 60 fps past the end, a loop back, backwards steps, far jumps, exact keys,
/// the repeated key, out of range both sides, NaN.
fn awkward_times() -> Vec<f32> {
    let mut times: Vec<f32> = (0..150).map(|k| -0.1 + k as f32 / 60.0).collect();
    times.extend([
        0.3,
        0.3,
        0.2999,
        0.25,
        0.25 + 5.0 / 30.0,
        -7.0,
        1e9,
        0.9,
        0.5,
        0.4,
        0.3001,
    ]);
    times.extend((0..40).map(|k| 1.6 - k as f32 / 45.0));
    times.extend([f32::NAN, 0.7, f32::INFINITY, f32::NEG_INFINITY, 0.71]);
    times
}

#[test]
fn any_order_of_times_samples_bit_for_bit_as_the_clip() {
    let clip = mixed_clip();
    let c = CompiledClip::new(&clip);
    let mut cursor = Cursor::new(&c);
    for t in awkward_times() {
        let (mut want, mut got) = (rest(), rest());
        clip.sample(t, &mut want);
        c.sample(t, &mut cursor, &mut got);
        assert_eq!(got, want, "t = {t}");
    }
}

#[test]
fn the_reader_groups_shared_times_and_runs_by_layout() {
    let clip = mixed_clip();
    let r = TrackReader::new(&clip);
    assert_eq!(r.cursor().cursor.spans().len(), 2, "two key-time groups");
    let [translations, rotations, scales] = r.layout();
    assert_eq!(translations, vec![(0, 1, vec![0])]);
    // Joints 0 and 2 linear on the shared times; joint 1 cubic (three values a key) on
    // its own.
    assert_eq!(rotations, vec![(0, 1, vec![0, 2]), (1, 3, vec![1])]);
    assert_eq!(scales, vec![(0, 1, vec![0])], "STEP holds one value a key");
}

#[test]
fn the_reader_samples_bit_for_bit_as_the_clip_and_some_joints_alone() {
    let clip = mixed_clip();
    let r = TrackReader::new(&clip);
    let (mut all, mut some) = (r.cursor(), r.cursor());
    let wanted = [false, true, true, false];
    // The shared keys forward, as a clip resampled at its own rate reads them (past two
    // windows read ahead), and backwards; then the awkward times.
    let keys: Vec<f32> = (0..40).map(|k| 0.25 + k as f32 / 30.0).collect();
    let times = keys.iter().chain(keys.iter().rev()).copied();
    for t in times.chain(awkward_times()) {
        let (mut want, mut got) = (rest(), rest());
        clip.sample(t, &mut want);
        r.sample(t, &mut all, &mut got);
        assert_eq!(got, want, "t = {t}");
        let mut part = rest();
        r.sample_some(t, &mut some, &mut part, &wanted);
        let untouched = rest();
        for (j, &wanted) in wanted.iter().enumerate() {
            let from = if wanted { &want } else { &untouched };
            assert_eq!(
                part.translations[j], from.translations[j],
                "t = {t}, joint {j}"
            );
            assert_eq!(part.rotations[j], from.rotations[j], "t = {t}, joint {j}");
            assert_eq!(part.scales[j], from.scales[j], "t = {t}, joint {j}");
        }
    }
}

#[test]
fn the_cursor_finds_the_partition_point_from_anywhere() {
    let times = [0.0, 0.1, 0.1, 0.1, 0.5, 0.6, 2.0];
    for from in 0..=times.len() + 2 {
        for t in [
            -1.0,
            0.0,
            0.05,
            0.1,
            0.3,
            0.5,
            0.55,
            0.6,
            1.0,
            2.0,
            3.0,
            f32::NAN,
        ] {
            let want = times.partition_point(|&k| k <= t);
            assert_eq!(cursor::seek(&times, from, t), want, "from {from} t {t}");
        }
    }
}
