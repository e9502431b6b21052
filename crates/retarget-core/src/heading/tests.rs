use super::*;
use crate::chains::{BuildFrame, build};
use crate::{Interpolation, JointDef, JointTracks, Track, Transform};

/// A four-legged figure facing `facing` (horizontal), Y up: a body along its facing, a head
/// in front, a tail behind, legs hanging. Its clip moves the root `travel` lengths along
/// `heading` over a second (none: it walks on the spot).
fn quadruped(facing: Vec3, heading: Vec3, travel: f32) -> (Skeleton, Clip) {
    let turn = Quat::from_rotation_arc(Vec3::X, facing);
    let j = |name: &str, parent: Option<usize>, offset: Vec3| {
        JointDef::new(name, parent, Transform::from_translation(turn * offset))
    };
    let mut joints = vec![
        j("root", None, Vec3::ZERO),
        j("pelvis", Some(0), Vec3::Y),
        j("spine", Some(1), Vec3::X * 0.5),
        j("chest", Some(2), Vec3::X * 0.5),
        j("neck", Some(3), Vec3::new(0.2, 0.2, 0.0)),
        j("skull", Some(4), Vec3::new(0.2, 0.1, 0.0)),
        j("tail", Some(1), Vec3::new(-0.4, -0.1, 0.0)),
        j("tail_tip", Some(6), Vec3::new(-0.4, -0.2, 0.0)),
    ];
    for (k, (parent, side)) in [(1, 1.0), (1, -1.0), (3, 1.0), (3, -1.0)]
        .iter()
        .enumerate()
    {
        let base = joints.len();
        joints.push(j(
            &format!("leg{k}"),
            Some(*parent),
            Vec3::new(0.0, -0.1, 0.2 * side),
        ));
        joints.push(j(
            &format!("shin{k}"),
            Some(base),
            Vec3::new(0.0, -0.45, 0.0),
        ));
        joints.push(j(
            &format!("foot{k}"),
            Some(base + 1),
            Vec3::new(0.05, -0.45, 0.0),
        ));
    }
    let skeleton = Skeleton::new("quadruped", Mat4::IDENTITY, joints).unwrap();
    let length = 1.6;
    let mut tracks = vec![JointTracks::default(); skeleton.len()];
    tracks[0].translation = Some(
        Track::new(
            vec![0.0, 1.0],
            vec![Vec3::ZERO, heading * travel * length],
            Interpolation::Linear,
        )
        .unwrap(),
    );
    (skeleton, Clip::new("walk", tracks, Some(30.0)))
}

fn read(skeleton: &Skeleton, clip: &Clip, labels: &[Option<HumanBone>]) -> Option<ForwardReading> {
    let rest = Pose::rest(skeleton);
    let positions = rest.world_positions(skeleton);
    let chains = build(&BuildFrame {
        names: &[],
        parents: skeleton.parents(),
        positions: &positions,
        forward: Vec3::Z,
    });
    let line = body_line(&chains, skeleton.parents(), skeleton.names(), labels);
    read_forward(skeleton, Mat4::IDENTITY, &rest, Some(clip), line)
}

fn facing(yaw_deg: f32) -> Vec3 {
    Quat::from_rotation_y(yaw_deg.to_radians()) * Vec3::Z
}

#[test]
fn a_creature_that_walks_along_x_faces_x_and_turns_to_face_z() {
    let (skeleton, clip) = quadruped(Vec3::X, Vec3::X, 2.0);
    let reading = read(&skeleton, &clip, &vec![None; skeleton.len()]).unwrap();
    assert!(
        reading.forward.abs_diff_eq(Vec3::X, 1e-4),
        "{}",
        reading.describe()
    );
    assert!(matches!(reading.evidence, ForwardEvidence::Travel { lengths } if lengths > 1.0));
    assert!((reading.turn() * Vec3::X).abs_diff_eq(Vec3::Z, 1e-5));
    assert_eq!(reading.body_says, None);
}

#[test]
fn on_the_spot_its_head_end_against_its_tail_says_forward_in_any_facing() {
    for yaw in [90.0, -90.0, 180.0, 45.0, 0.0, 30.0] {
        let (skeleton, clip) = quadruped(facing(yaw), Vec3::X, 0.0);
        let reading = read(&skeleton, &clip, &vec![None; skeleton.len()])
            .unwrap_or_else(|| panic!("{yaw}°: no reading"));
        assert!(
            matches!(&reading.evidence, ForwardEvidence::BodyLine { tail, .. } if tail == "pelvis"),
            "{yaw}°: {}",
            reading.describe()
        );
        let faced = reading.turn() * facing(yaw);
        assert!(
            faced.abs_diff_eq(Vec3::Z, 1e-4),
            "{yaw}°: faces {faced} after the turn"
        );
    }
}

#[test]
fn travel_in_any_direction_wins_over_the_body_line_and_says_so() {
    for yaw in [90.0, -90.0, 180.0, 45.0] {
        let (skeleton, clip) = quadruped(facing(yaw), facing(yaw), 1.0);
        let reading = read(&skeleton, &clip, &vec![None; skeleton.len()]).unwrap();
        assert!(matches!(reading.evidence, ForwardEvidence::Travel { .. }));
        assert!(
            (reading.turn() * facing(yaw)).abs_diff_eq(Vec3::Z, 1e-4),
            "{yaw}°"
        );
    }
    // Walking backwards: the travel is read, and the body line's disagreement is reported.
    let (skeleton, clip) = quadruped(Vec3::X, Vec3::NEG_X, 1.0);
    let reading = read(&skeleton, &clip, &vec![None; skeleton.len()]).unwrap();
    assert!(reading.forward.abs_diff_eq(Vec3::NEG_X, 1e-4));
    assert_eq!(
        reading.body_says,
        Some(Axis::PosX),
        "{}",
        reading.describe()
    );
    assert!(reading.describe().contains("body line would say +X"));
}

#[test]
fn a_short_sway_is_no_travel_and_a_near_axis_facing_snaps_to_it() {
    let (skeleton, clip) = quadruped(facing(94.0), Vec3::Z, 0.2);
    let reading = read(&skeleton, &clip, &vec![None; skeleton.len()]).unwrap();
    assert!(matches!(reading.evidence, ForwardEvidence::BodyLine { .. }));
    assert_eq!(reading.yaw_deg(), 90.0, "{}", reading.describe());
    assert!(reading.describe().starts_with("forward is +X"));
}

#[test]
fn the_head_is_found_by_label_then_name_then_the_spine_end() {
    let (skeleton, clip) = quadruped(Vec3::X, Vec3::X, 0.0);
    let named = |labels: &[Option<HumanBone>]| match read(&skeleton, &clip, labels)?.evidence {
        ForwardEvidence::BodyLine { head, .. } => Some(head),
        _ => None,
    };
    let mut labels = vec![None; skeleton.len()];
    assert_eq!(named(&labels).as_deref(), Some("neck"), "by name");
    labels[5] = Some(HumanBone::Head);
    assert_eq!(named(&labels).as_deref(), Some("skull"), "by label");
}

#[test]
fn an_upright_body_on_the_spot_says_nothing() {
    // A biped: its spine stands, so the line from pelvis to head has no heading.
    let j = |name: &str, parent: Option<usize>, offset: Vec3| {
        JointDef::new(name, parent, Transform::from_translation(offset))
    };
    let mut joints = vec![
        j("hips", None, Vec3::Y),
        j("spine", Some(0), Vec3::Y * 0.3),
        j("head", Some(1), Vec3::Y * 0.4),
    ];
    for (k, side) in [1.0f32, -1.0].iter().enumerate() {
        let base = joints.len();
        joints.push(j(&format!("thigh{k}"), Some(0), Vec3::X * 0.1 * side));
        joints.push(j(&format!("shin{k}"), Some(base), Vec3::NEG_Y * 0.45));
        joints.push(j(
            &format!("foot{k}"),
            Some(base + 1),
            Vec3::new(0.0, -0.45, 0.1),
        ));
        joints.push(j(&format!("arm{k}"), Some(1), Vec3::X * 0.2 * side));
        joints.push(j(&format!("hand{k}"), Some(base + 3), Vec3::X * 0.5 * side));
    }
    let skeleton = Skeleton::new("biped", Mat4::IDENTITY, joints).unwrap();
    let clip = Clip::new(
        "idle",
        vec![JointTracks::default(); skeleton.len()],
        Some(30.0),
    );
    assert_eq!(read(&skeleton, &clip, &vec![None; skeleton.len()]), None);
}

#[test]
fn a_clip_that_turns_the_body_on_the_spot_leaves_the_facing_its_stance_says() {
    // A death that rolls the body a quarter turn about the vertical: over the clip its body
    // line points 45° off on average; the pose it stands in faces +X.
    let (skeleton, mut clip) = quadruped(Vec3::X, Vec3::X, 0.0);
    let turned = Quat::from_rotation_y(90f32.to_radians());
    let mut tracks = vec![JointTracks::default(); skeleton.len()];
    tracks[1].rotation = Some(
        Track::new(
            vec![0.0, 1.0],
            vec![Quat::IDENTITY, turned],
            Interpolation::Linear,
        )
        .unwrap(),
    );
    clip = Clip::new(clip.name.clone(), tracks, Some(30.0));
    let reading = read(&skeleton, &clip, &vec![None; skeleton.len()]).unwrap();
    assert!(
        reading.forward.abs_diff_eq(Vec3::X, 1e-4),
        "{}",
        reading.describe()
    );
    assert!(
        matches!(
            reading.evidence,
            ForwardEvidence::BodyLine { frames: None, .. }
        ),
        "{}",
        reading.describe()
    );
    assert!(reading.describe().contains("in the pose it stands in"));
}
