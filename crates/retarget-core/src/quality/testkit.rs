//! Synthetic motions with known answers for the quality tests: a two-legged stick figure,
//! 1.75 m tall at frame 0, walking along +Z at 0.8 m/s, 30 fps, with planted feet.
//!
//! Each foot's 30-frame cycle: 18 stance frames (cycle frames 0..=17, the foot still) and 12
//! swing frames. The left foot's cycle starts at clip frame 0, the right's 15 frames earlier.
//! Knees come from two-bone IK, so every bone keeps its length.

use super::motion::{FootPair, Motion, SegmentPair, Spec};
use glam::{Quat, Vec3};
use std::f32::consts::PI;

pub const HIPS: usize = 0;
pub const L_HIP: usize = 3;
pub const L_KNEE: usize = 4;
pub const L_FOOT: usize = 5;
pub const R_HIP: usize = 6;
pub const R_FOOT: usize = 8;
pub const L_ELBOW: usize = 10;
pub const L_HAND: usize = 11;
pub const R_ELBOW: usize = 13;
pub const R_HAND: usize = 14;

const NAMES: [&str; 15] = [
    "hips",
    "spine",
    "head",
    "upper_leg.L",
    "lower_leg.L",
    "foot.L",
    "upper_leg.R",
    "lower_leg.R",
    "foot.R",
    "upper_arm.L",
    "lower_arm.L",
    "hand.L",
    "upper_arm.R",
    "lower_arm.R",
    "hand.R",
];
const PARENTS: [Option<usize>; 15] = [
    None,
    Some(0),
    Some(1),
    Some(0),
    Some(3),
    Some(4),
    Some(0),
    Some(6),
    Some(7),
    Some(1),
    Some(9),
    Some(10),
    Some(1),
    Some(12),
    Some(13),
];

pub const FPS: f32 = 30.0;
pub const SPEED: f32 = 0.8;
pub const HIP_Y: f32 = 0.9;
pub const ANKLE_Y: f32 = 0.08;
const THIGH: f32 = 0.45;
const SHIN: f32 = 0.42;

/// The walk's knobs; `Walk::default()` is the source clip.
pub struct Walk {
    pub frames: usize,
    /// Root motion removed: the feet slide back under a still pelvis.
    pub in_place: bool,
    /// Metres each foot slides forward over each stance.
    pub slide: f32,
}

impl Default for Walk {
    fn default() -> Self {
        Self {
            frames: 48,
            in_place: false,
            slide: 0.0,
        }
    }
}

fn hip_z(frame: f32) -> f32 {
    SPEED * frame / FPS
}

impl Walk {
    /// Where a foot is at clip frame `i`, its cycle starting `offset` frames before frame 0.
    fn foot(&self, x: f32, offset: usize, i: usize) -> Vec3 {
        let (k, c) = ((i + offset) / 30, (i + offset) % 30);
        let stance_z = |k: usize| hip_z(30.0 * k as f32 - offset as f32 + 8.5);
        if c < 18 {
            let z = stance_z(k) + self.slide * c as f32 / 17.0;
            return Vec3::new(x, ANKLE_Y, z);
        }
        let s = (c as f32 - 17.0) / 13.0;
        let z = (stance_z(k) + self.slide) * (1.0 - s) + stance_z(k + 1) * s;
        Vec3::new(x, ANKLE_Y + 0.12 * (PI * s).sin(), z)
    }

    pub fn motion(&self) -> Motion {
        let positions = (0..self.frames).map(|i| self.frame(i)).collect();
        Motion {
            times: (0..self.frames).map(|i| i as f32 / FPS).collect(),
            names: NAMES.iter().map(|n| n.to_string()).collect(),
            parents: PARENTS.to_vec(),
            positions,
        }
    }

    fn frame(&self, i: usize) -> Vec<Vec3> {
        let z = hip_z(i as f32);
        let at = |x: f32, y: f32| Vec3::new(x, y, z);
        let (l_hip, r_hip) = (at(0.1, HIP_Y), at(-0.1, HIP_Y));
        let (l_foot, r_foot) = (self.foot(0.1, 0, i), self.foot(-0.1, 15, i));
        let swing = 0.3 * (2.0 * PI * i as f32 / 30.0).sin();
        let (l_shoulder, r_shoulder) = (at(0.2, 1.5), at(-0.2, 1.5));
        let (l_elbow, r_elbow) = (arm(l_shoulder, swing, 0.28), arm(r_shoulder, -swing, 0.28));
        let mut joints = vec![
            at(0.0, HIP_Y),
            at(0.0, 1.3),
            at(0.0, 1.83),
            l_hip,
            knee(l_hip, l_foot),
            l_foot,
            r_hip,
            knee(r_hip, r_foot),
            r_foot,
            l_shoulder,
            l_elbow,
            arm(l_elbow, swing + 0.2, 0.25),
            r_shoulder,
            r_elbow,
            arm(r_elbow, -swing + 0.2, 0.25),
        ];
        if self.in_place {
            joints.iter_mut().for_each(|p| p.z -= z);
        }
        joints
    }
}

/// The end of a segment hanging from `from`, swung forward by `angle` in the sagittal plane.
fn arm(from: Vec3, angle: f32, length: f32) -> Vec3 {
    from + length * Vec3::new(0.0, -angle.cos(), angle.sin())
}

/// Two-bone IK with the knee bent forward.
fn knee(hip: Vec3, foot: Vec3) -> Vec3 {
    let d = hip.distance(foot);
    let u = (foot - hip) / d;
    let a = (THIGH * THIGH - SHIN * SHIN + d * d) / (2.0 * d);
    let h = (THIGH * THIGH - a * a).max(0.0).sqrt();
    hip + a * u + h * u.cross(Vec3::X).normalize()
}

/// Every position changed by `f(frame, joint, position)`.
pub fn edited(m: &Motion, f: impl Fn(usize, usize, Vec3) -> Vec3) -> Motion {
    let mut out = m.clone();
    for (i, frame) in out.positions.iter_mut().enumerate() {
        for (j, p) in frame.iter_mut().enumerate() {
            *p = f(i, j, *p);
        }
    }
    out
}

/// The whole motion raised by `dy` metres.
pub fn lifted(m: &Motion, dy: f32) -> Motion {
    edited(m, |_, _, p| p + Vec3::Y * dy)
}

/// The whole motion turned about the world Y axis by `degrees`.
pub fn turned(m: &Motion, degrees: f32) -> Motion {
    let q = Quat::from_rotation_y(degrees.to_radians());
    edited(m, |_, _, p| q * p)
}

/// Frame 0 alone: the character's own rest pose.
pub fn rest(m: &Motion) -> Motion {
    let mut out = m.clone();
    out.times.truncate(1);
    out.positions.truncate(1);
    out
}

/// The spec for a motion against a copy of itself (same joints on both sides).
pub fn spec() -> Spec {
    let seg = |name: &str, from: usize, to: usize| SegmentPair {
        name: name.into(),
        a: (from, to),
        b: (from, to),
    };
    Spec {
        hips_a: (L_HIP, R_HIP),
        hips_b: (L_HIP, R_HIP),
        feet: vec![
            FootPair {
                a: L_FOOT,
                b: L_FOOT,
            },
            FootPair {
                a: R_FOOT,
                b: R_FOOT,
            },
        ],
        segments: vec![
            seg("upper_arm.L", 9, L_ELBOW),
            seg("lower_arm.L", L_ELBOW, L_HAND),
            seg("upper_arm.R", 12, R_ELBOW),
            seg("lower_arm.R", R_ELBOW, R_HAND),
            seg("upper_leg.L", L_HIP, L_KNEE),
            seg("lower_leg.L", L_KNEE, L_FOOT),
            seg("upper_leg.R", R_HIP, 7),
            seg("lower_leg.R", 7, R_FOOT),
        ],
        same_rig: Vec::new(),
        free: Vec::new(),
    }
}

/// The straight hip-to-foot distance of each leg at frame 0, from the walk's design: the left
/// foot has just landed 8.5 frames of travel ahead of its hip, the right is 6.5 frames behind.
pub fn legs_at_frame_0() -> (f64, f64) {
    let drop = f64::from(HIP_Y - ANKLE_Y);
    let ahead = f64::from(SPEED) * 8.5 / 30.0;
    let behind = f64::from(SPEED) * 6.5 / 30.0;
    (drop.hypot(ahead), drop.hypot(behind))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_walk_is_1_75_m_tall_and_keeps_its_bones() {
        let m = Walk::default().motion();
        assert!((m.height(0) - 1.75).abs() < 1e-6);
        for (j, p) in PARENTS.iter().enumerate() {
            let Some(p) = *p else { continue };
            let first = m.positions[0][j].distance(m.positions[0][p]);
            for frame in &m.positions {
                assert!((frame[j].distance(frame[p]) - first).abs() < 1e-5, "{j}");
            }
        }
        let (l, r) = legs_at_frame_0();
        assert!((m.at(0, L_HIP).distance(m.at(0, L_FOOT)) - l).abs() < 1e-6);
        assert!((m.at(0, R_HIP).distance(m.at(0, R_FOOT)) - r).abs() < 1e-6);
    }
}
