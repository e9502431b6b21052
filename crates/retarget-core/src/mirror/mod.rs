//! Mirroring across the character's sagittal plane (world X = 0, the character facing +Z):
//! twin bones swap their offsets from the reference pose, bones without a twin mirror their
//! own; the root's displacement flips in X. Mirroring twice gives back the pose.

pub mod twins;

pub use twins::twins_of;

use super::pose::Pose;
use super::reference::{ReferencePose, rotation_of, world_rotations_into};
use super::skeleton::Skeleton;
use glam::{Quat, Vec3};

/// The world rotation reflected across the YZ plane: `R·Q·R` with `R = diag(-1, 1, 1)`.
fn reflect(q: Quat) -> Quat {
    reflect_across(q, Vec3::X)
}

/// Each joint's twin: the joint with the opposite humanoid label, else itself. Always an
/// involution (`twin[twin[j]] == j`), which is what makes mirroring its own inverse.
pub fn twins(skeleton: &Skeleton) -> Vec<usize> {
    twins_by_labels(skeleton.humanoid())
}

/// As `twins`, from labels given per joint (a session's labels, which the file may not
/// carry: CesiumMan numbers its left elbow 3 and its right elbow 2).
pub fn twins_by_labels(labels: &[Option<crate::HumanBone>]) -> Vec<usize> {
    let mut twins: Vec<usize> = (0..labels.len()).collect();
    for (j, label) in labels.iter().enumerate() {
        let Some(bone) = label else { continue };
        if bone.twin() == *bone {
            continue;
        }
        if let Some(t) = labels.iter().position(|l| *l == Some(bone.twin()))
            && labels[t].map(|b| b.twin()) == Some(*bone)
        {
            twins[j] = t;
        }
    }
    twins
}

/// The container's rotation and every joint's world rotation in the reference pose.
fn reference_turns(skeleton: &Skeleton, reference: &ReferencePose) -> (Quat, Vec<Quat>) {
    let container = rotation_of(reference.container);
    let mut world = vec![Quat::IDENTITY; skeleton.len()];
    world_rotations_into(
        skeleton.parents(),
        container,
        &reference.locals.rotations,
        &mut world,
    );
    (container, world)
}

/// Mirrors `pose` (local) into `out`, given the reference the offsets are measured from.
pub fn mirror_pose(
    skeleton: &Skeleton,
    reference: &ReferencePose,
    twins: &[usize],
    pose: &Pose,
    out: &mut Pose,
) {
    let n = skeleton.len();
    let (container, reference_world) = reference_turns(skeleton, reference);
    let mut world = vec![Quat::IDENTITY; n];
    world_rotations_into(skeleton.parents(), container, &pose.rotations, &mut world);
    out.copy_from(pose);
    let mut mirrored_world = vec![Quat::IDENTITY; n];
    for j in 0..n {
        let from = twins[j];
        let delta = world[from] * reference_world[from].inverse();
        mirrored_world[j] = reflect(delta) * reference_world[j];
        let parent = skeleton.parents()[j].map_or(container, |p| mirrored_world[p]);
        out.rotations[j] = (parent.inverse() * mirrored_world[j]).normalize();
    }
    for (j, parent) in skeleton.parents().iter().enumerate() {
        if parent.is_none() {
            let flip = Vec3::new(-1.0, 1.0, 1.0);
            let d = pose.translations[j] - reference.locals.translations[j];
            // The root's displacement mirrors in world space, then returns to local.
            let inv = reference.container.inverse();
            let world_d = reference.container.transform_vector3(d) * flip;
            out.translations[j] = reference.locals.translations[j] + inv.transform_vector3(world_d);
        }
    }
}

/// The mirror plane's normal from the rig's symmetry: the mean direction from each joint to
/// its twin in the reference pose (world), or +X when nothing pairs.
pub fn symmetry_axis(world_positions: &[Vec3], twins: &[usize]) -> Vec3 {
    let mut sum = Vec3::ZERO;
    for (j, &t) in twins.iter().enumerate() {
        if t > j {
            let d = world_positions[t] - world_positions[j];
            let d = if sum.dot(d) < 0.0 { -d } else { d };
            sum += d;
        }
    }
    let axis = sum.try_normalize().unwrap_or(Vec3::X);
    // One sign for the same rig whichever side the labels start on.
    let k = axis.abs().max_element();
    if (axis.x.abs() == k && axis.x < 0.0)
        || (axis.y.abs() == k && axis.y < 0.0)
        || (axis.z.abs() == k && axis.z < 0.0)
    {
        -axis
    } else {
        axis
    }
}

/// A rotation reflected across the plane through the origin with unit normal `n`: the
/// rotation `R·Q·R`, `R = I − 2nnᵀ`, whose vector part is `2(v·n)n − v`.
pub fn reflect_across(q: Quat, n: Vec3) -> Quat {
    let v = Vec3::new(q.x, q.y, q.z);
    let r = n * (2.0 * v.dot(n)) - v;
    Quat::from_xyzw(r.x, r.y, r.z, q.w)
}

fn reflect_vector(v: Vec3, n: Vec3) -> Vec3 {
    v - n * (2.0 * v.dot(n))
}

/// How a clip is mirrored (after the mirroring article).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct MirrorSettings {
    /// The mirror plane's normal in the target's world; `None` finds it from the rig's
    /// symmetry (`symmetry_axis`).
    pub axis: Option<Vec3>,
    /// The hips' own rotation plane; `None` is the same plane.
    pub hips_axis: Option<Vec3>,
    /// Mirror the root motion's path (a walk curving left curves right); off keeps it.
    pub hips_translation: bool,
}

impl Default for MirrorSettings {
    fn default() -> Self {
        Self {
            axis: None,
            hips_axis: None,
            hips_translation: true,
        }
    }
}

/// Mirrors poses of one skeleton about its reference: each joint takes its twin's turn away
/// from the twin's reference turn, reflected, on top of its own reference turn (so twins
/// whose bind poses are not mirror images still mirror), and its twin's displacement,
/// reflected in the reference parents' frames. Built once per clip; `apply` allocates
/// nothing. An involution: mirrored twice, a pose comes back.
pub struct Mirror {
    parents: Vec<Option<usize>>,
    twins: Vec<usize>,
    normals: Vec<Vec3>,
    keep_translation: Vec<bool>,
    container: Quat,
    reference: Pose,
    reference_world: Vec<Quat>,
    /// The reference world linear map of each joint's parent (the container for roots).
    parent_linear: Vec<glam::Mat3>,
    parent_inverse: Vec<glam::Mat3>,
    world: Vec<Quat>,
    mirrored: Vec<Quat>,
}

impl Mirror {
    /// `hips`: the joint the hips settings apply to (the pelvis that carries root motion).
    pub fn new(
        skeleton: &Skeleton,
        reference: &ReferencePose,
        twins: Vec<usize>,
        hips: Option<usize>,
        settings: &MirrorSettings,
    ) -> Self {
        let n = skeleton.len();
        let worlds = reference.world_matrices(skeleton);
        let positions: Vec<Vec3> = worlds.iter().map(|m| m.w_axis.truncate()).collect();
        let axis = settings
            .axis
            .and_then(|a| a.try_normalize())
            .unwrap_or_else(|| symmetry_axis(&positions, &twins));
        let hips_axis = settings
            .hips_axis
            .and_then(|a| a.try_normalize())
            .unwrap_or(axis);
        let (container, reference_world) = reference_turns(skeleton, reference);
        let linear = |m: glam::Mat4| glam::Mat3::from_mat4(m);
        let parent_linear: Vec<glam::Mat3> = skeleton
            .parents()
            .iter()
            .map(|p| linear(p.map_or(reference.container, |p| worlds[p])))
            .collect();
        let parent_inverse = parent_linear.iter().map(|m| m.inverse()).collect();
        Self {
            parents: skeleton.parents().to_vec(),
            normals: (0..n)
                .map(|j| if Some(j) == hips { hips_axis } else { axis })
                .collect(),
            keep_translation: (0..n)
                .map(|j| Some(j) == hips && !settings.hips_translation)
                .collect(),
            twins,
            container,
            reference: reference.locals.clone(),
            reference_world,
            parent_linear,
            parent_inverse,
            world: vec![Quat::IDENTITY; n],
            mirrored: vec![Quat::IDENTITY; n],
        }
    }

    /// The plane's normal the limbs mirror across.
    pub fn axis(&self) -> Vec3 {
        self.normals.first().copied().unwrap_or(Vec3::X)
    }

    /// Writes the mirror image of `pose` into `out`.
    pub fn apply(&mut self, pose: &Pose, out: &mut Pose) {
        let mut scratch = MirrorScratch {
            world: std::mem::take(&mut self.world),
            mirrored: std::mem::take(&mut self.mirrored),
        };
        self.apply_with(pose, out, &mut scratch);
        self.world = scratch.world;
        self.mirrored = scratch.mirrored;
    }

    /// [`Self::apply`] with the caller's scratch (from [`MirrorScratch::new`]), so one
    /// mirror serves many threads. Allocates nothing.
    pub fn apply_with(&self, pose: &Pose, out: &mut Pose, scratch: &mut MirrorScratch) {
        let MirrorScratch { world, mirrored } = scratch;
        world_rotations_into(&self.parents, self.container, &pose.rotations, world);
        out.copy_from(pose);
        for j in 0..self.parents.len() {
            let from = self.twins[j];
            let delta = world[from] * self.reference_world[from].inverse();
            mirrored[j] = reflect_across(delta, self.normals[j]) * self.reference_world[j];
            let parent = self.parents[j].map_or(self.container, |p| mirrored[p]);
            out.rotations[j] = (parent.inverse() * mirrored[j]).normalize();
            if self.keep_translation[j] {
                continue;
            }
            let d = pose.translations[from] - self.reference.translations[from];
            let world_d = reflect_vector(self.parent_linear[from] * d, self.normals[j]);
            out.translations[j] = self.reference.translations[j] + self.parent_inverse[j] * world_d;
        }
    }
}

/// A thread's working memory for [`Mirror::apply_with`].
#[derive(Clone, Debug, Default)]
pub struct MirrorScratch {
    world: Vec<Quat>,
    mirrored: Vec<Quat>,
}

impl MirrorScratch {
    pub fn new(mirror: &Mirror) -> Self {
        let n = mirror.parents.len();
        Self {
            world: vec![Quat::IDENTITY; n],
            mirrored: vec![Quat::IDENTITY; n],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reflect_twice_is_identity_and_keeps_x_rotations() {
        let q = Quat::from_euler(glam::EulerRot::XYZ, 0.3, -0.7, 1.1);
        assert!(reflect(reflect(q)).abs_diff_eq(q, 1e-7));
        // A turn about X (a nod) is its own mirror; a turn about Y reverses.
        let nod = Quat::from_rotation_x(0.5);
        assert!(reflect(nod).abs_diff_eq(nod, 1e-7));
        assert!(reflect(Quat::from_rotation_y(0.5)).abs_diff_eq(Quat::from_rotation_y(-0.5), 1e-6));
    }

    use crate::skeleton::JointDef;
    use crate::transform::Transform;

    /// A pelvis with two legs whose binds are not mirror images (the right leg turned and
    /// offset differently) under a turned, scaled container.
    fn lopsided() -> (Skeleton, ReferencePose) {
        let t = |x: f32, y: f32, z: f32, q: Quat| Transform::new(Vec3::new(x, y, z), q, Vec3::ONE);
        let defs = vec![
            JointDef::new("hips", None, t(0.0, 1.0, 0.0, Quat::IDENTITY)),
            JointDef::new(
                "leg.L",
                Some(0),
                t(0.1, -0.1, 0.0, Quat::from_rotation_z(0.2)),
            ),
            JointDef::new("shin.L", Some(1), t(0.0, -0.45, 0.0, Quat::IDENTITY)),
            JointDef::new(
                "leg.R",
                Some(0),
                t(-0.12, -0.08, 0.01, Quat::from_rotation_x(0.4)),
            ),
            JointDef::new(
                "shin.R",
                Some(3),
                t(0.0, -0.47, 0.0, Quat::from_rotation_y(0.3)),
            ),
        ];
        let container = glam::Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Vec3::ZERO,
        );
        let s = Skeleton::new("lopsided", container, defs).unwrap();
        let r = ReferencePose::new(&s, Pose::bind(&s), &Default::default(), &[]);
        (s, r)
    }

    #[test]
    fn mirrored_twice_a_pose_comes_back() {
        let (s, r) = lopsided();
        let twins = twins_of(&s, None, None);
        assert_eq!(twins, vec![0, 3, 4, 1, 2]);
        let mut m = Mirror::new(&s, &r, twins, Some(0), &MirrorSettings::default());
        let mut pose = Pose::bind(&s);
        for (j, q) in pose.rotations.iter_mut().enumerate() {
            *q =
                (Quat::from_euler(glam::EulerRot::XYZ, 0.3 * j as f32, -0.5, 0.2) * *q).normalize();
        }
        pose.translations[0] += Vec3::new(0.3, -0.1, 0.7);
        let (mut once, mut twice) = (Pose::bind(&s), Pose::bind(&s));
        m.apply(&pose, &mut once);
        m.apply(&once, &mut twice);
        let (a, b) = (pose.world_positions(&s), twice.world_positions(&s));
        for (p, q) in a.iter().zip(&b) {
            assert!(p.distance(*q) < 1e-5, "{p} vs {q}");
        }
        // Once, the left shin goes where the right one went, across the plane.
        let axis = m.axis();
        let mirrored = once.world_positions(&s);
        let reference = Pose::bind(&s).world_positions(&s);
        let moved = |w: &[Vec3], j: usize| w[j] - reference[j];
        let want = reflect_vector(moved(&a, 4), axis);
        assert!(
            (moved(&mirrored, 2) - want).length() < 0.05,
            "{} vs {want}",
            moved(&mirrored, 2)
        );
    }
}
