//! The joints' local transforms as the file holds them: the output unit and up axis, with
//! the skeleton's container (armature transform, unit or axis conversion) folded into its
//! top joints, so the skeleton's top joint is the file's root and no armature node is
//! written. Rotations become continuous Euler angles in FBX's default XYZ order.

#[cfg(test)]
use glam::DQuat;
use glam::{EulerRot, Mat4, Quat, Vec3};
use retarget_core::{Axis, Clip, Skeleton, Transform, Unit};
use std::f64::consts::{PI, TAU};

/// How our joints' numbers become the file's.
pub(super) struct FileFrame {
    parents: Vec<Option<usize>>,
    /// Per joint: its translation's factor to file units (the container's scale over the
    /// file unit, times the scale taken out of its top joint).
    lengths: Vec<f32>,
    /// Per joint: the uniform rest scale taken out of a top joint (1 elsewhere), its
    /// descendants' translations holding it instead: Blender's importer misplaces a
    /// skeleton whose top bone is scaled (a glTF whose root joint carries a 0.01).
    taken: Vec<f32>,
    /// Above the top joints: the container's rotation and translation, then the turn to the
    /// file's up axis, in file units.
    above_roots: Transform,
    /// Set when the container has non-uniform scale or shear: the whole matrix is baked
    /// into the top joints (their scale then holds the unit too).
    baked: Option<Mat4>,
    /// Our world (metres, +Y up) to the file's (its unit and up axis).
    file_from_world: Mat4,
}

impl FileFrame {
    /// `unit`, `up`: the file's; our world is metres, +Y up. `clips`: what will be written,
    /// whose top joints' scale must stay their rest's for it to be taken out.
    pub fn new(skeleton: &Skeleton, unit: Unit, up: Axis, clips: &[Clip]) -> Self {
        let turn = match up {
            // +Y goes to +Z, +Z to -Y: a right-handed turn about X.
            Axis::PosZ => Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
            _ => Quat::IDENTITY,
        };
        let metres = unit.metres();
        let file_from_world = Mat4::from_quat(turn) * Mat4::from_scale(Vec3::splat(1.0 / metres));
        let c = skeleton.container();
        let (scale, rotation, translation) = c.to_scale_rotation_translation();
        let rebuilt = Mat4::from_scale_rotation_translation(scale, rotation, translation);
        let tol = 1e-5
            * c.abs()
                .to_cols_array()
                .iter()
                .fold(1.0f32, |a, v| a.max(*v));
        let parents = skeleton.parents().to_vec();
        let n = parents.len();
        if !(uniform(scale) && rebuilt.abs_diff_eq(c, tol)) {
            return Self {
                parents,
                lengths: vec![1.0; n],
                taken: vec![1.0; n],
                above_roots: Transform::default(),
                baked: Some(file_from_world * c),
                file_from_world,
            };
        }
        let taken: Vec<f32> = (0..n)
            .map(|j| match parents[j] {
                None => scale_to_take(skeleton, clips, j),
                Some(_) => 1.0,
            })
            .collect();
        let mut lengths = vec![scale.x / metres; n];
        let mut top = vec![0; n];
        for j in 0..n {
            top[j] = parents[j].map_or(j, |p| top[p]);
            if parents[j].is_some() {
                lengths[j] *= taken[top[j]];
            }
        }
        Self {
            parents,
            lengths,
            taken,
            above_roots: Transform::new(turn * (translation / metres), turn * rotation, Vec3::ONE),
            baked: None,
            file_from_world,
        }
    }

    /// Our world (metres, +Y up, container included) to the file's world.
    pub fn file_from_world(&self) -> Mat4 {
        self.file_from_world
    }

    /// Joint-unit lengths of the container's frame to file units.
    pub fn base_length(&self) -> f32 {
        self.parents
            .iter()
            .position(Option::is_none)
            .map_or(1.0, |root| self.lengths[root])
    }

    /// Whether the container could not be written without scale on the top joints.
    pub fn bakes_container(&self) -> bool {
        self.baked.is_some()
    }

    /// Joint `joint`'s local transform `local` as written.
    pub fn local(&self, joint: usize, local: &Transform) -> Transform {
        let is_root = self.parents[joint].is_none();
        if let Some(m) = self.baked {
            return match is_root {
                true => Transform::from_mat4(m * local.to_mat4()),
                false => *local,
            };
        }
        let t = local.translation * self.lengths[joint];
        let scale = local.scale / self.taken[joint];
        if !is_root {
            return Transform::new(t, local.rotation, scale);
        }
        let a = &self.above_roots;
        Transform::new(
            a.translation + a.rotation * t,
            (a.rotation * local.rotation).normalize(),
            scale,
        )
    }
}

fn uniform(scale: Vec3) -> bool {
    (scale.max_element() - scale.min_element()).abs() <= 1e-5 * scale.abs().max_element()
        && scale.min_element() > 0.0
}

/// Top joint `j`'s rest scale when it is uniform, not 1, and no clip moves it away; else 1.
fn scale_to_take(skeleton: &Skeleton, clips: &[Clip], j: usize) -> f32 {
    let rest = skeleton.rest()[j].scale;
    if !uniform(rest) || (rest.x - 1.0).abs() < 1e-6 {
        return 1.0;
    }
    let steady = clips.iter().all(|c| {
        c.tracks()
            .get(j)
            .and_then(|t| t.scale.as_ref())
            .is_none_or(|s| {
                s.values()
                    .iter()
                    .all(|v| v.abs_diff_eq(rest, 1e-5 * rest.x))
            })
    });
    if steady { rest.x } else { 1.0 }
}

/// Angles `[x, y, z]` in degrees with `R = Rz(z) · Ry(y) · Rx(x)` (FBX's `eEulerXYZ`). With
/// `previous`, of the two angle triples that give the rotation (and their whole turns) the
/// one nearest the previous frame's is chosen: no curve jumps by 180° or 360°.
pub(super) fn euler_xyz(q: Quat, previous: Option<[f64; 3]>) -> [f64; 3] {
    let q = q.as_dquat().normalize();
    let (z, y, x) = q.to_euler(EulerRot::ZYX);
    let first = [x, y, z];
    let Some(prev) = previous.map(|p| p.map(f64::to_radians)) else {
        return first.map(f64::to_degrees);
    };
    let second = [x + PI, PI - y, z + PI];
    let a = unwrap_near(first, prev);
    let b = unwrap_near(second, prev);
    let best = if distance(b, prev) < distance(a, prev) {
        b
    } else {
        a
    };
    best.map(f64::to_degrees)
}

fn unwrap_near(angles: [f64; 3], prev: [f64; 3]) -> [f64; 3] {
    std::array::from_fn(|i| angles[i] - ((angles[i] - prev[i]) / TAU).round() * TAU)
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    (0..3).map(|i| (a[i] - b[i]).abs()).sum()
}

/// The rotation the angles stand for, as a reader of the file composes it.
#[cfg(test)]
pub(super) fn quat_from_xyz(degrees: [f64; 3]) -> DQuat {
    let [x, y, z] = degrees.map(f64::to_radians);
    DQuat::from_rotation_z(z) * DQuat::from_rotation_y(y) * DQuat::from_rotation_x(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use retarget_core::JointDef;

    fn same(a: DQuat, b: DQuat) -> bool {
        a.normalize().dot(b.normalize()).abs() > 1.0 - 1e-12
    }

    #[test]
    fn euler_round_trips_through_gimbal_lock() {
        let cases = [
            [20.0, -60.0, 110.0],
            [-170.0, 10.0, 179.0],
            [30.0, 90.0, -20.0],
            [30.0, -90.0, -20.0],
            [0.0, 89.9999, 45.0],
        ];
        for degrees in cases {
            let q = quat_from_xyz(degrees).as_quat();
            for prev in [None, Some([0.0; 3]), Some([500.0, -300.0, 200.0])] {
                let back = euler_xyz(q, prev);
                assert!(
                    same(quat_from_xyz(back), q.as_dquat()),
                    "{degrees:?} with {prev:?} gave {back:?}"
                );
            }
        }
    }

    #[test]
    fn a_spin_through_many_turns_never_jumps() {
        let mut prev = None;
        for k in 0..3000 {
            let t = k as f32 * 0.01;
            let q = Quat::from_rotation_y(t * 2.0) * Quat::from_rotation_x((t * 0.7).sin() * 2.0);
            let e = euler_xyz(q, prev);
            assert!(same(quat_from_xyz(e), q.as_dquat()), "frame {k}");
            if let Some(p) = prev {
                for i in 0..3 {
                    assert!((e[i] - p[i]).abs() < 10.0, "frame {k}: {p:?} to {e:?}");
                }
            }
            prev = Some(e);
        }
    }

    fn skeleton(container: Mat4) -> Skeleton {
        let root = Transform::new(
            Vec3::new(0.0, 90.0, 5.0),
            Quat::from_rotation_y(0.4),
            Vec3::ONE,
        );
        let child = Transform::new(
            Vec3::new(0.0, 40.0, 0.0),
            Quat::from_rotation_x(0.3),
            Vec3::ONE,
        );
        Skeleton::new(
            "rig",
            container,
            vec![
                JointDef::new("hips", None, root),
                JointDef::new("spine", Some(0), child),
            ],
        )
        .unwrap()
    }

    /// World positions in the file's frame, read back as a reader composes the locals.
    fn file_worlds(s: &Skeleton, frame: &FileFrame) -> Vec<Vec3> {
        let mut worlds: Vec<Mat4> = Vec::new();
        for j in 0..s.len() {
            let parent = s.parents()[j];
            let local = frame.local(j, &s.rest()[j]).to_mat4();
            worlds.push(parent.map_or(local, |p| worlds[p] * local));
        }
        worlds.iter().map(|m| m.w_axis.truncate()).collect()
    }

    #[test]
    fn a_scaled_top_joint_gives_its_scale_to_its_descendants_lengths() {
        // VALID's export: no armature, the root joint carries 0.01 and a turn.
        let root = Transform::new(
            Vec3::new(0.6, 0.9, -1.7),
            Quat::from_rotation_x(2.28),
            Vec3::splat(0.01),
        );
        let child = Transform::from_translation(Vec3::new(0.0, 40.0, 3.0));
        let s = Skeleton::new(
            "valid",
            Mat4::IDENTITY,
            vec![
                JointDef::new("Hips", None, root),
                JointDef::new("Spine", Some(0), child),
            ],
        )
        .unwrap();
        let ours = retarget_core::Pose::rest(&s).world_positions(&s);
        let frame = FileFrame::new(&s, Unit::Metre, Axis::PosY, &[]);
        assert_eq!(
            frame.local(0, &s.rest()[0]).scale,
            Vec3::ONE,
            "no scale on the root"
        );
        for (file, ours) in file_worlds(&s, &frame).iter().zip(&ours) {
            assert!(file.distance(*ours) < 1e-5, "{file} vs {ours}");
        }
    }

    #[test]
    fn every_container_lands_in_the_file_unit_and_up_axis() {
        let containers = [
            Mat4::from_scale(Vec3::splat(0.01)),
            Mat4::from_scale_rotation_translation(
                Vec3::splat(0.01),
                Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
                Vec3::new(0.3, 0.0, -1.0),
            ),
            Mat4::from_scale(Vec3::new(0.01, 0.02, 0.01)),
        ];
        for c in containers {
            let s = skeleton(c);
            let ours = retarget_core::Pose::rest(&s).world_positions(&s);
            for (unit, up) in [(Unit::Centimetre, Axis::PosY), (Unit::Metre, Axis::PosZ)] {
                let frame = FileFrame::new(&s, unit, up, &[]);
                let turn = match up {
                    Axis::PosZ => Quat::from_rotation_x(std::f32::consts::FRAC_PI_2),
                    _ => Quat::IDENTITY,
                };
                for (file, ours) in file_worlds(&s, &frame).iter().zip(&ours) {
                    let expected = turn * (*ours / unit.metres());
                    assert!(
                        file.distance(expected) < 1e-3 * expected.length().max(1.0),
                        "{c:?} in {unit:?} {up:?}: {file} vs {expected}"
                    );
                }
                // The children keep their own rotation: an engine's skeleton asset matches.
                assert_eq!(frame.local(1, &s.rest()[1]).rotation, s.rest()[1].rotation);
            }
        }
    }
}
