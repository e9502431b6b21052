//! An FBX's declared unit checked against its body: a humanoid drawn in metres in a file
//! that says centimetres (a 1.6 cm person) is read in the unit its body says.

use crate::asset::Reading;
use glam::{Mat4, Vec3};
use retarget_core::{Pose, Skeleton, Unit};

/// The declared unit stands unless it makes the body's foot-to-head path this many times
/// too short or too long for a person (a doll of 15 cm and a giant of 15 m keep it).
const IMPOSSIBLE: f32 = 10.0;

/// The unit the body says, when the declared one makes an impossible person: the
/// skeleton's container rescaled to it, with the evidence and the declared unit as
/// runner-up. `declared` is the unit the file states; the container already holds it
/// (with any scale of the nodes above the joints).
pub(super) fn read_by_body(skeleton: &mut Skeleton, declared: Unit) -> Option<(Unit, Reading)> {
    let labels: Vec<_> = retarget_core::profile::auto_label(skeleton, &Pose::rest(skeleton))
        .iter()
        .map(|l| l.map(|l| l.bone))
        .collect();
    let path = retarget_core::units::body_path(skeleton, &labels)?;
    let scale = container_scale(skeleton.container())?;
    // A node above the joints that scales them (an armature scaled by 3) sized the figure
    // on purpose, and a file written back could not say it in a unit: only joints plainly
    // in the declared unit are weighed.
    if (scale / declared.metres() - 1.0).abs() > 1e-3 || scaled_above_hips(skeleton, &labels) {
        return None;
    }
    let person = |metres: f32| (metres / PERSON_PATH_M).ln().abs();
    if person(path * scale) <= IMPOSSIBLE.ln() {
        return None;
    }
    let by_body = Unit::from_body_path(path);
    let factor = by_body.unit.metres() / scale;
    // The body's unit must make a person where the declared one could not.
    if person(path * by_body.unit.metres()) > 2f32.ln() {
        return None;
    }
    skeleton.set_container(skeleton.container() * Mat4::from_scale(Vec3::splat(factor)));
    let evidence = format!(
        "declared {}, which makes the body {:.3} m from foot to head: read by the body ({})",
        declared.name(),
        path * scale,
        by_body.evidence
    );
    Some((
        by_body.unit,
        Reading {
            evidence,
            runner_up: Some(declared.name().to_owned()),
        },
    ))
}

/// Whether a joint above the hips scales them (Mixamo's `CharacterArmature`, scaled by 100
/// over a rig in metres, read as a joint because the clip moves it): the body is sized by
/// it, not by the unit.
fn scaled_above_hips(skeleton: &Skeleton, labels: &[Option<retarget_core::HumanBone>]) -> bool {
    let hips = labels
        .iter()
        .position(|l| *l == Some(retarget_core::HumanBone::Hips));
    let Some(parent) = hips.and_then(|h| skeleton.parents()[h]) else {
        return false;
    };
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    Pose::rest(skeleton).world_matrices_under(skeleton, Mat4::IDENTITY, &mut world);
    container_scale(world[parent]).is_none_or(|s| (s - 1.0).abs() > 1e-3)
}

/// An adult's foot-to-head length along the bones (`units::from_body_path`'s).
const PERSON_PATH_M: f32 = 1.5;

/// The container's uniform scale (the unit conversion and any scaled node above the
/// joints); `None` when it is not uniform (then the joints' numbers are not one unit).
fn container_scale(container: Mat4) -> Option<f32> {
    let (scale, _, _) = container.to_scale_rotation_translation();
    let uniform = (scale.max_element() - scale.min_element()).abs() <= 1e-4 * scale.max_element();
    (uniform && scale.x.is_finite() && scale.x > 0.0).then_some(scale.x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use retarget_core::{JointDef, Transform};

    /// A stick person 1.5 file units from foot to head, under a container of `scale`.
    fn person(scale: f32) -> Skeleton {
        let joint = |name: &str, parent: Option<usize>, t: [f32; 3]| {
            let rest = Transform {
                translation: Vec3::from(t),
                rotation: Quat::IDENTITY,
                scale: Vec3::ONE,
            };
            JointDef::new(name, parent, rest)
        };
        let defs = vec![
            joint("Hips", None, [0.0, 0.9, 0.0]),
            joint("Spine", Some(0), [0.0, 0.2, 0.0]),
            joint("Chest", Some(1), [0.0, 0.2, 0.0]),
            joint("Neck", Some(2), [0.0, 0.15, 0.0]),
            joint("Head", Some(3), [0.0, 0.1, 0.0]),
            joint("LeftUpperLeg", Some(0), [0.1, -0.05, 0.0]),
            joint("LeftLowerLeg", Some(5), [0.0, -0.4, 0.0]),
            joint("LeftFoot", Some(6), [0.0, -0.4, 0.0]),
            joint("RightUpperLeg", Some(0), [-0.1, -0.05, 0.0]),
            joint("RightLowerLeg", Some(8), [0.0, -0.4, 0.0]),
            joint("RightFoot", Some(9), [0.0, -0.4, 0.0]),
            joint("LeftUpperArm", Some(2), [0.15, 0.1, 0.0]),
            joint("LeftLowerArm", Some(11), [0.25, 0.0, 0.0]),
            joint("LeftHand", Some(12), [0.25, 0.0, 0.0]),
            joint("RightUpperArm", Some(2), [-0.15, 0.1, 0.0]),
            joint("RightLowerArm", Some(14), [-0.25, 0.0, 0.0]),
            joint("RightHand", Some(15), [-0.25, 0.0, 0.0]),
        ];
        Skeleton::new("person", Mat4::from_scale(Vec3::splat(scale)), defs).unwrap()
    }

    #[test]
    fn a_person_drawn_in_metres_in_a_centimetre_file_is_read_in_metres() {
        let mut s = person(0.01);
        let (unit, reading) = read_by_body(&mut s, Unit::Centimetre).expect("read by the body");
        assert_eq!(unit, Unit::Metre, "{}", reading.evidence);
        assert_eq!(reading.runner_up.as_deref(), Some("cm"));
        assert!((container_scale(s.container()).unwrap() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn a_possible_person_keeps_the_declared_unit() {
        // A person, a doll of 37 cm, a giant of 12 m, and a person in centimetres under an
        // armature scaled by 3 (its author sized it: 4.5 cm).
        let cases = [
            (1.0, Unit::Metre),
            (0.25, Unit::Metre),
            (8.0, Unit::Metre),
            (0.03, Unit::Centimetre),
        ];
        for (scale, unit) in cases {
            let mut s = person(scale);
            assert!(read_by_body(&mut s, unit).is_none(), "{unit:?}");
            assert_eq!(container_scale(s.container()), Some(scale));
        }
    }
}
