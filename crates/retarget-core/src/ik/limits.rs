//! Joint limits for what IK adds: a cone about the bone's reference direction (swing) and a
//! twist range about the bone itself, both measured from the joint's reference rotation.
//! Defaults come from the humanoid profile: a knee swings far but hardly twists, a hip
//! swings less and twists more.

use crate::HumanBone;
use glam::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// One joint's limits, in degrees from its reference rotation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct JointLimit {
    /// Largest swing of the bone away from its reference direction.
    pub cone_deg: f32,
    /// Twist range about the bone (min ≤ 0 ≤ max).
    pub twist_min_deg: f32,
    pub twist_max_deg: f32,
}

impl JointLimit {
    pub const fn new(cone_deg: f32, twist_deg: f32) -> Self {
        Self {
            cone_deg,
            twist_min_deg: -twist_deg,
            twist_max_deg: twist_deg,
        }
    }

    /// The limit with usable numbers (a project may hold anything): a finite cone of 0 to
    /// 180°, a twist range holding 0, each end within ±180°; `None` when nothing is usable.
    pub fn sanitized(self) -> Option<Self> {
        let ok = [self.cone_deg, self.twist_min_deg, self.twist_max_deg]
            .iter()
            .all(|v| v.is_finite());
        ok.then(|| Self {
            cone_deg: self.cone_deg.clamp(0.0, 180.0),
            twist_min_deg: self.twist_min_deg.clamp(-180.0, 0.0),
            twist_max_deg: self.twist_max_deg.clamp(0.0, 180.0),
        })
    }

    /// The humanoid profile's default for `bone`, `None` for bones IK does not move.
    pub fn humanoid_default(bone: HumanBone) -> Option<Self> {
        use HumanBone::*;
        Some(match bone {
            LeftUpperLeg | RightUpperLeg => Self::new(120.0, 45.0),
            LeftLowerLeg | RightLowerLeg => Self::new(155.0, 15.0),
            LeftFoot | RightFoot => Self::new(60.0, 25.0),
            LeftUpperArm | RightUpperArm => Self::new(150.0, 90.0),
            LeftLowerArm | RightLowerArm => Self::new(155.0, 30.0),
            LeftHand | RightHand => Self::new(80.0, 45.0),
            _ => return None,
        })
    }

    /// The limit widened to let `rotation` through: IK never bends a joint past its limit,
    /// nor past where the source's own motion already took it.
    pub fn widened_to(self, reference: Quat, rotation: Quat, bone: Vec3) -> Self {
        let (swing, twist) = swing_twist_deg(reference.inverse() * rotation, bone);
        Self {
            cone_deg: self.cone_deg.max(swing),
            twist_min_deg: self.twist_min_deg.min(twist),
            twist_max_deg: self.twist_max_deg.max(twist),
        }
    }

    /// `rotation` (a local rotation) held within the limit about `reference`, for a bone that
    /// points along `bone` in the joint's own space.
    pub fn clamp(&self, reference: Quat, rotation: Quat, bone: Vec3) -> Quat {
        let Some(axis) = bone.try_normalize() else {
            return rotation;
        };
        let relative = reference.inverse() * rotation;
        let (swing, twist) = split(relative, axis);
        let twist_angle = signed_angle(twist, axis).clamp(
            self.twist_min_deg.to_radians(),
            self.twist_max_deg.to_radians(),
        );
        let swing_angle = swing.angle_between(Quat::IDENTITY);
        let cone = self.cone_deg.to_radians();
        let swing = if swing_angle > cone {
            Quat::IDENTITY.slerp(swing, cone / swing_angle)
        } else {
            swing
        };
        (reference * swing * Quat::from_axis_angle(axis, twist_angle)).normalize()
    }
}

/// Swing and twist of `relative` about `bone`, in degrees (twist signed).
pub fn swing_twist_deg(relative: Quat, bone: Vec3) -> (f32, f32) {
    let Some(axis) = bone.try_normalize() else {
        return (0.0, 0.0);
    };
    let (swing, twist) = split(relative, axis);
    (
        swing.angle_between(Quat::IDENTITY).to_degrees(),
        signed_angle(twist, axis).to_degrees(),
    )
}

/// `q = swing · twist`, the twist about `axis`.
fn split(q: Quat, axis: Vec3) -> (Quat, Quat) {
    let along = axis * Vec3::new(q.x, q.y, q.z).dot(axis);
    let raw = Quat::from_xyzw(along.x, along.y, along.z, q.w);
    let twist = if raw.length_squared() > 1e-12 {
        raw.normalize()
    } else {
        Quat::IDENTITY
    };
    ((q * twist.inverse()).normalize(), twist)
}

fn signed_angle(twist: Quat, axis: Vec3) -> f32 {
    let angle = twist.angle_between(Quat::IDENTITY);
    let sign = Vec3::new(twist.x, twist.y, twist.z).dot(axis) * twist.w;
    if sign < 0.0 { -angle } else { angle }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_swing_past_the_cone_stops_at_its_edge_and_twist_at_its_range() {
        let limit = JointLimit::new(30.0, 10.0);
        let bone = Vec3::NEG_Y;
        let bent = Quat::from_rotation_x(60f32.to_radians()) * Quat::from_rotation_y(0.5);
        let held = limit.clamp(Quat::IDENTITY, bent, bone);
        let (swing, twist) = swing_twist_deg(held, bone);
        assert!((swing - 30.0).abs() < 0.01, "swing {swing}");
        assert!((twist.abs() - 10.0).abs() < 0.01, "twist {twist}");
        // Within the limits nothing changes.
        let small = Quat::from_rotation_x(0.2);
        assert!(
            limit
                .clamp(Quat::IDENTITY, small, bone)
                .angle_between(small)
                < 1e-3
        );
    }

    #[test]
    fn a_limit_widens_to_what_the_source_already_does() {
        let limit = JointLimit::new(30.0, 10.0);
        let source = Quat::from_rotation_x(50f32.to_radians());
        let wide = limit.widened_to(Quat::IDENTITY, source, Vec3::NEG_Y);
        assert!(
            wide.clamp(Quat::IDENTITY, source, Vec3::NEG_Y)
                .angle_between(source)
                < 1e-3
        );
        assert!(JointLimit::humanoid_default(HumanBone::Head).is_none());
        // A project's nonsense is refused or brought into range, never a panic later.
        assert!(JointLimit::new(f32::NAN, 10.0).sanitized().is_none());
        let odd = JointLimit {
            cone_deg: 400.0,
            twist_min_deg: 20.0,
            twist_max_deg: -5.0,
        };
        let fixed = odd.sanitized().unwrap();
        assert_eq!(
            (fixed.cone_deg, fixed.twist_min_deg, fixed.twist_max_deg),
            (180.0, 0.0, 0.0)
        );
        let _ = fixed.clamp(Quat::IDENTITY, source, Vec3::NEG_Y);
        let knee = JointLimit::humanoid_default(HumanBone::LeftLowerLeg).unwrap();
        assert!(knee.cone_deg > knee.twist_max_deg);
    }
}
