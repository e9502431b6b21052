//! Variants of real rigs made in the tests: the same character with other local axes,
//! another scale, other names or longer legs.

use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::{JointDef, Skeleton, Transform};

/// A small deterministic random source (no extra crate).
pub struct Lcg(pub u64);

impl Lcg {
    pub fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }

    pub fn rotation(&mut self) -> Quat {
        let axis = Vec3::new(
            self.next_f32() - 0.5,
            self.next_f32() - 0.5,
            self.next_f32() - 0.5,
        );
        Quat::from_axis_angle(axis.normalize_or(Vec3::Y), (self.next_f32() - 0.5) * 6.0)
    }
}

/// Each joint's local axes turned by a random rotation `Q_j`, children and bind compensated,
/// so that every joint's world position is unchanged (world' = world · Q_j).
pub fn reoriented(skeleton: &Skeleton, seed: u64) -> Skeleton {
    let mut rng = Lcg(seed);
    let q: Vec<Quat> = (0..skeleton.len()).map(|_| rng.rotation()).collect();
    let turn = |t: Transform, parent: Option<usize>, j: usize| {
        let qp_inv = parent.map_or(Quat::IDENTITY, |p| q[p].inverse());
        Transform::new(
            qp_inv * t.translation,
            (qp_inv * t.rotation * q[j]).normalize(),
            t.scale,
        )
    };
    let defs = skeleton
        .joint_defs()
        .into_iter()
        .enumerate()
        .map(|(j, d)| JointDef {
            rest: turn(d.rest, d.parent, j),
            bind: turn(d.bind, d.parent, j),
            ..d
        })
        .collect();
    Skeleton::new(
        format!("{} reoriented", skeleton.name),
        skeleton.container(),
        defs,
    )
    .unwrap()
}

/// The same skeleton under a container scaled by `k`.
pub fn scaled(skeleton: &Skeleton, k: f32) -> Skeleton {
    let mut s = skeleton.clone();
    s.set_container(Mat4::from_scale(Vec3::splat(k)) * skeleton.container());
    s
}

/// Joint names rewritten by `rename` (labels cleared, so names must carry the mapping).
pub fn renamed(skeleton: &Skeleton, rename: impl Fn(&str) -> String) -> Skeleton {
    let defs = skeleton
        .joint_defs()
        .into_iter()
        .map(|d| JointDef {
            name: rename(&d.name),
            humanoid: None,
            ..d
        })
        .collect();
    Skeleton::new(
        format!("{} renamed", skeleton.name),
        skeleton.container(),
        defs,
    )
    .unwrap()
}

/// Every joint below `upper_legs` moved `factor` times further from its parent.
pub fn longer_legs(skeleton: &Skeleton, upper_legs: &[usize], factor: f32) -> Skeleton {
    let below = |mut j: usize| {
        while let Some(p) = skeleton.parents()[j] {
            if upper_legs.contains(&p) {
                return true;
            }
            j = p;
        }
        false
    };
    let defs = skeleton
        .joint_defs()
        .into_iter()
        .enumerate()
        .map(|(j, mut d)| {
            if below(j) {
                d.rest.translation *= factor;
                d.bind.translation *= factor;
            }
            d
        })
        .collect();
    Skeleton::new(
        format!("{} long legs", skeleton.name),
        skeleton.container(),
        defs,
    )
    .unwrap()
}
