//! Rotations solved in the parent's frame. The world solve turns each source joint's local
//! rotation into a world one, each target world rotation back into a local, and normalises:
//! three products a joint, most of a frame. Where a target joint and its parent are both
//! mapped (neither a pelvis the hip line turns) and the parent's source joint is an
//! ancestor of the joint's, their world rotations `Ws[sp]·Op` and `Ws[s]·Oj` differ by the
//! source's local rotations between the two:
//!
//! `Lt = Op⁻¹ · Ls[k₁] ⋯ Ls[s] · Oj`
//!
//! so neither side's world rotation is needed unless another solve reads it. Where both
//! offsets are the identity (one body, or two rigs whose rest frames agree, as CMU's do) the
//! source's local rotation is the target's. An unmapped joint keeps its reference local.
//!
//! The same holds for a copied translation whose target parent is solved that way (`copies`):
//! `Rp⁻¹·Rsp = Op⁻¹`, so the local offset is the source's, turned by `Op⁻¹`, scaled, and
//! moved by a constant where the two reference offsets differ.
//!
//! The plan depends on the rotation solves, so it is made again whenever they change (at
//! build and after each clip's fit, which tilts the feet).

use super::super::Retargeter;
use super::super::plan::RotationSolve;
use super::turns::Turns;
use glam::{Quat, Vec3};

/// The most source joints between a target joint's source and its parent's.
const MAX_PATH: usize = 3;

/// How one target joint's local rotation is found each frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::retarget) enum LocalSolve {
    /// From its world rotation (`RotationSolve`), under its parent's.
    World,
    /// A constant: an unmapped joint's reference local, normalised.
    Fixed(Quat),
    /// The source joint's local rotation, normalised.
    Copied(usize),
    /// `before · Ls[path[0]] ⋯ Ls[path[len-1]] · after`, normalised.
    Turned {
        path: [usize; MAX_PATH],
        len: usize,
        before: Quat,
        after: Quat,
    },
}

/// Which joints take which form, and the world rotations the other solves still read.
#[derive(Clone, Debug, Default)]
pub(in crate::retarget) struct LocalPlan {
    pub solves: Vec<LocalSolve>,
    /// The `Turned` joints of one source joint, batched.
    pub(super) turns: Turns,
    /// The other `Turned` joints: (target, path, its length, before, after).
    pub(super) long_turns: Vec<(usize, [usize; MAX_PATH], usize, Quat, Quat)>,
    /// The `Copied` joints: (target, source).
    pub(super) copied: Vec<(usize, usize)>,
    /// The `Fixed` joints: (target, local rotation).
    pub(super) fixed: Vec<(usize, Quat)>,
    /// The target joints whose world rotation the frame computes, parents first, and
    /// whether it is their solve (`World`) or read from them.
    pub(super) world_order: Vec<(usize, bool)>,
    /// The source joints whose world rotations the frame computes, parents first: on a
    /// frame whose copies take their local form (`copies`), and on another.
    pub source_world: [Vec<usize>; 2],
    /// On a rigid frame, the copied translations in constant form: (target, source joint).
    pub fixed_copies: Vec<(usize, usize, FixedCopy)>,
    /// On a rigid frame, the other translation solves (indices), above the pelvis and below.
    pub other_copies: [Vec<usize>; 2],
    /// On another frame, every translation solve, above the pelvis and below.
    pub all_copies: [Vec<usize>; 2],
}

/// A copied translation solved as a constant turn, scale and shift of the source's local
/// offset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::retarget) struct FixedCopy {
    /// `Op⁻¹`, unless it is the identity.
    pub turn: Option<Quat>,
    /// `k · cs / ct` (root motion scale, containers' scales).
    pub scale: f32,
    /// `Lt − Op⁻¹ · Ls · scale`, unless the two reference offsets agree.
    pub rest: Option<Vec3>,
}

impl FixedCopy {
    #[inline]
    pub fn solve(&self, source_local: Vec3) -> Vec3 {
        let t = match self.turn {
            Some(q) => q * source_local * self.scale,
            None => source_local * self.scale,
        };
        match self.rest {
            Some(r) => t + r,
            None => t,
        }
    }
}

/// Whether `q` turns by no more than float noise (either sign).
fn is_identity(q: Quat) -> bool {
    Vec3::new(q.x, q.y, q.z).length_squared() <= 1e-12
}

impl Retargeter {
    /// Works out the local forms from the rotation solves (see the module's doc).
    pub(in crate::retarget) fn plan_locals(&mut self) {
        self.plan_with(true);
    }

    /// The plan, with the local forms or (`false`, to test them against) without.
    fn plan_with(&mut self, local_forms: bool) {
        let n = self.plan.target_parents.len();
        let solves: Vec<LocalSolve> = (0..n)
            .map(|j| match local_forms {
                true => self.local_solve(j),
                false => LocalSolve::World,
            })
            .collect();
        let k = self.fit.roots.first().map_or(1.0, |r| r.scale);
        let rigid = self.plan.rigid;
        let parent_offset = |p: usize, sp: usize| match self.fit.rotations[p] {
            RotationSolve::Mapped { source, offset }
                if source == sp && self.plan.root_at[p].is_none() =>
            {
                Some(offset)
            }
            _ => None,
        };
        let fixed: Vec<Option<FixedCopy>> = self
            .plan
            .translations
            .iter()
            .map(|t| {
                let (c, (cs, ct)) = (t.local.filter(|_| local_forms)?, rigid?);
                let op = parent_offset(c.target_parent, c.source_parent)?;
                let (target_rest, source_rest) = c.rests();
                let (turn, scale) = (op.inverse(), k * cs / ct);
                let rest = target_rest - turn * source_rest * scale;
                Some(FixedCopy {
                    turn: (!is_identity(op)).then_some(turn),
                    scale,
                    rest: (rest.length() > 1e-6 * target_rest.length() + 1e-12).then_some(rest),
                })
            })
            .collect();
        let fixed_copies = (self.plan.translations.iter().zip(&fixed))
            .filter_map(|(t, f)| Some((t.target, *t.source_chain.last()?, (*f)?)))
            .collect();
        let copies = |above: bool, all: bool| {
            (0..fixed.len())
                .filter(|&i| all || fixed[i].is_none())
                .filter(|&i| self.plan.translations[i].above_pelvis == above)
                .collect()
        };
        let other_copies = [copies(true, false), copies(false, false)];
        let all_copies = [copies(true, true), copies(false, true)];
        let (target_world, source_world) = self.world_needs(&solves, &fixed);
        let mut plan = LocalPlan {
            source_world,
            fixed_copies,
            other_copies,
            all_copies,
            ..LocalPlan::default()
        };
        let mut turns = Vec::new();
        for (j, solve) in solves.iter().enumerate() {
            match *solve {
                LocalSolve::World => {}
                LocalSolve::Fixed(q) => plan.fixed.push((j, q)),
                LocalSolve::Copied(s) => plan.copied.push((j, s)),
                LocalSolve::Turned {
                    path,
                    len: 1,
                    before,
                    after,
                } => turns.push((j, path[0], before, after)),
                LocalSolve::Turned {
                    path,
                    len,
                    before,
                    after,
                } => plan.long_turns.push((j, path, len, before, after)),
            }
            if target_world[j] {
                plan.world_order.push((j, *solve == LocalSolve::World));
            }
        }
        plan.turns = Turns::new(&turns);
        plan.solves = solves;
        self.fit.locals = plan;
    }

    /// Target joint `j`'s local form.
    fn local_solve(&self, j: usize) -> LocalSolve {
        if self.plan.root_at[j].is_some() {
            return LocalSolve::World;
        }
        let (oj, s) = match self.fit.rotations[j] {
            RotationSolve::Keep => {
                return LocalSolve::Fixed(self.plan.target_reference.rotations[j].normalize());
            }
            RotationSolve::Mapped { source, offset } => (offset, source),
            RotationSolve::Between { .. } | RotationSolve::Twist(_) => return LocalSolve::World,
        };
        let parent = self.plan.target_parents[j];
        let parent_solve = parent.map(|p| (self.fit.rotations[p], self.plan.root_at[p]));
        let Some((
            RotationSolve::Mapped {
                source: sp,
                offset: op,
            },
            None,
        )) = parent_solve
        else {
            return LocalSolve::World;
        };
        // The source joints below `sp` down to `s`, top first.
        let mut path = [0; MAX_PATH];
        let mut len = 0;
        let mut at = s;
        while at != sp {
            if len == MAX_PATH {
                return LocalSolve::World;
            }
            path[len] = at;
            len += 1;
            match self.plan.source_parents[at] {
                Some(up) => at = up,
                None => return LocalSolve::World,
            }
        }
        path[..len].reverse();
        if len == 1 && is_identity(op) && is_identity(oj) {
            return LocalSolve::Copied(s);
        }
        LocalSolve::Turned {
            path,
            len,
            before: op.inverse(),
            after: oj,
        }
    }

    /// The world rotations the frame computes: each side's joints read by a world solve, a
    /// copied translation's local form (on a rigid frame), or the placed source joints'
    /// positions, with their ancestors. The source's: on a rigid frame, and on another.
    fn world_needs(
        &self,
        solves: &[LocalSolve],
        fixed: &[Option<FixedCopy>],
    ) -> (Vec<bool>, [Vec<usize>; 2]) {
        let mut target = vec![false; self.plan.target_parents.len()];
        let mut source = vec![false; self.plan.source_parents.len()];
        for (j, solve) in solves.iter().enumerate() {
            if *solve != LocalSolve::World {
                continue;
            }
            target[j] = true;
            if let Some(p) = self.plan.target_parents[j] {
                target[p] = true;
            }
            match self.fit.rotations[j] {
                RotationSolve::Mapped { source: s, .. } => source[s] = true,
                RotationSolve::Between {
                    low_source,
                    high_source,
                    ..
                } => {
                    source[low_source] = true;
                    source[high_source] = true;
                }
                RotationSolve::Twist(twist) => twist.sources().for_each(|s| source[s] = true),
                RotationSolve::Keep => {}
            }
        }
        let (mut rigid, mut other) = (source.clone(), source);
        for (t, f) in self.plan.translations.iter().zip(fixed) {
            if let (Some(c), None) = (t.local, f) {
                target[c.target_parent] = true;
                rigid[c.source_parent] = true;
            }
        }
        for (marked, placed) in [
            (&mut rigid, &self.plan.source_placed_rigid),
            (&mut other, &self.plan.source_placed),
        ] {
            for &j in placed {
                if let Some(p) = self.plan.source_parents[j] {
                    marked[p] = true;
                }
            }
            close_upwards(marked, &self.plan.source_parents);
        }
        close_upwards(&mut target, &self.plan.target_parents);
        let order = |m: &[bool]| (0..m.len()).filter(|&j| m[j]).collect();
        (target, [order(&rigid), order(&other)])
    }
}

/// Marks every ancestor of a marked joint (`parents`: parents before children).
fn close_upwards(marked: &mut [bool], parents: &[Option<usize>]) {
    for j in (0..marked.len()).rev() {
        if let (true, Some(p)) = (marked[j], parents[j]) {
            marked[p] = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LocalSolve;
    use crate::HumanBone::{self, *};
    use crate::mapping::{BoneMap, BonePair, TranslationMode};
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::Retargeter;
    use crate::skeleton::{JointDef, Skeleton};
    use crate::transform::Transform;
    use glam::{EulerRot, Quat, Vec3};

    /// `(name, parent, offset)` joints; every joint's rest turned by `turn(j)`.
    fn skeleton(
        joints: &[(&str, Option<usize>, [f32; 3])],
        turn: impl Fn(usize) -> Quat,
    ) -> Skeleton {
        let defs = joints
            .iter()
            .enumerate()
            .map(|(j, (name, parent, t))| {
                JointDef::new(
                    *name,
                    *parent,
                    Transform::new(Vec3::from(*t), turn(j), Vec3::ONE),
                )
            })
            .collect();
        Skeleton::new("rig", crate::retarget::test_rigs::container(), defs).unwrap()
    }

    /// CMU-like mocap: hip joints between the hips and the legs, a chest in the spine.
    fn mocap() -> Skeleton {
        let leg = |side: f32, at: usize| {
            [
                ("hip_joint", Some(1), [0.1 * side, 0.0, 0.0]),
                ("up", Some(at), [0.0, -0.05, 0.0]),
                ("knee", Some(at + 1), [0.0, -0.45, 0.0]),
                ("foot", Some(at + 2), [0.0, -0.45, 0.0]),
                ("toe", Some(at + 3), [0.0, -0.05, 0.1]),
            ]
        };
        let mut joints = vec![
            ("root", None, [0.0, 0.0, 0.0]),
            ("hips", Some(0), [0.0, 1.0, 0.0]),
            ("spine", Some(1), [0.0, 0.1, 0.0]),
            ("chest", Some(2), [0.0, 0.2, 0.0]),
            ("neck", Some(3), [0.0, 0.2, 0.0]),
        ];
        joints.extend(leg(1.0, 5));
        joints.extend(leg(-1.0, 10));
        skeleton(&joints, |_| Quat::IDENTITY)
    }

    /// A game rig: no hip joints or chest, unmapped leaves, every bone's axes turned.
    fn game_rig() -> Skeleton {
        let leg = |side: f32, at: usize| {
            [
                ("up", Some(1), [0.12 * side, -0.05, 0.0]),
                ("knee", Some(at), [0.0, -0.5, 0.0]),
                ("foot", Some(at + 1), [0.0, -0.5, 0.0]),
                ("toe", Some(at + 2), [0.0, -0.05, 0.12]),
            ]
        };
        let mut joints = vec![
            ("root", None, [0.0, 0.0, 0.0]),
            ("hips", Some(0), [0.0, 1.1, 0.0]),
            ("spine", Some(1), [0.0, 0.12, 0.0]),
            ("neck", Some(2), [0.0, 0.45, 0.0]),
            ("head", Some(3), [0.0, 0.2, 0.0]),
        ];
        joints.extend(leg(1.0, 5));
        joints.extend(leg(-1.0, 9));
        skeleton(&joints, |j| {
            Quat::from_euler(EulerRot::XYZ, 0.4 * j as f32, -0.3, 0.2 * (j % 3) as f32)
        })
    }

    fn reference(s: &Skeleton) -> ReferencePose {
        ReferencePose::new(s, Pose::rest(s), &Default::default(), &[])
    }

    /// A posed source frame: every joint turned, the hips moved.
    fn posed(s: &Skeleton) -> Pose {
        let mut pose = Pose::rest(s);
        for j in 0..s.len() {
            let k = j as f32;
            pose.rotations[j] = Quat::from_euler(EulerRot::XYZ, 0.3 * k, -0.2, 0.1 * k);
        }
        pose.translations[1] += Vec3::new(0.1, -0.05, 0.2);
        pose
    }

    /// Both forms solve `source` the same, within float noise.
    fn assert_same(local: Retargeter, source: &Pose, target: &Skeleton) {
        let mut world = local.clone();
        world.plan_with(false);
        let (mut a, mut b) = (Pose::rest(target), Pose::rest(target));
        crate::retarget::test_rigs::solve(&local, source, &mut a);
        crate::retarget::test_rigs::solve(&world, source, &mut b);
        for j in 0..target.len() {
            let (x, y) = (a.rotations[j], b.rotations[j]);
            let same = x.abs_diff_eq(y, 1e-5) || x.abs_diff_eq(-y, 1e-5);
            assert!(same, "joint {j}: {x} against {y}");
            let (x, y) = (a.translations[j], b.translations[j]);
            assert!(
                x.abs_diff_eq(y, 1e-5 * (1.0 + y.length())),
                "joint {j}: {x} against {y}"
            );
        }
    }

    /// Mocap onto a game rig: the pelvis and the joints under it take the world solve (the
    /// hip line turns it); the knees, feet, toes and neck (over a chest the rig lacks) turn
    /// their sources' locals; the unmapped leaves keep their reference; and the frame
    /// solves as the world solve does.
    #[test]
    fn local_forms_solve_as_the_world_solve_does() {
        let (from, to) = (mocap(), game_rig());
        let bones: [(usize, usize, Option<HumanBone>); 11] = [
            (1, 1, Some(Hips)),
            (2, 2, Some(Spine)),
            (4, 3, Some(Neck)),
            (6, 5, Some(LeftUpperLeg)),
            (7, 6, Some(LeftLowerLeg)),
            (8, 7, Some(LeftFoot)),
            (9, 8, Some(LeftToes)),
            (11, 9, Some(RightUpperLeg)),
            (12, 10, Some(RightLowerLeg)),
            (13, 11, Some(RightFoot)),
            (14, 12, Some(RightToes)),
        ];
        let pairs = bones
            .iter()
            .map(|&(s, t, bone)| BonePair {
                bone,
                translation: match bone {
                    Some(Hips) => TranslationMode::HipsScaled,
                    _ => TranslationMode::None,
                },
                ..BonePair::new(s, t)
            })
            .collect();
        let map = BoneMap::new(pairs);
        let r = Retargeter::new(&from, &reference(&from), &to, &reference(&to), &map).unwrap();
        let kinds: Vec<&str> = r
            .fit
            .locals
            .solves
            .iter()
            .map(|s| match s {
                LocalSolve::World => "world",
                LocalSolve::Fixed(_) => "fixed",
                LocalSolve::Copied(_) => "copied",
                LocalSolve::Turned { len: 2, .. } => "turned 2",
                LocalSolve::Turned { .. } => "turned",
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "fixed", "world", "world", "turned", "fixed", "world", "turned", "turned",
                "turned", "world", "turned", "turned", "turned"
            ]
        );
        assert_same(r, &posed(&from), &to);
    }

    /// One body with other bone axes, copying every translation: rotations and translations
    /// take their constant forms, and solve as the world solve does. (A larger copy has no
    /// constant form without a root motion that scales.)
    #[test]
    fn copied_translations_take_their_constant_form() {
        let from = mocap();
        // Each joint's axes turned by `q(j)`, the body unchanged: `L' = q(p)⁻¹ L q(j)`,
        // `t' = q(p)⁻¹ t`.
        let q = |j: usize| Quat::from_rotation_z(0.3 * j as f32);
        let up = |j: usize| from.parents()[j].map_or(Quat::IDENTITY, |p| q(p).inverse());
        let defs = (0..from.len())
            .map(|j| {
                let t = Transform::new(up(j) * from.rest()[j].translation, up(j) * q(j), Vec3::ONE);
                JointDef::new(from.names()[j].as_str(), from.parents()[j], t)
            })
            .collect();
        let to = Skeleton::new("rig", from.container(), defs).unwrap();
        let mut map = BoneMap::identity(from.len());
        for j in 0..from.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let r = Retargeter::new(&from, &reference(&from), &to, &reference(&to), &map).unwrap();
        let fixed = r.fit.locals.fixed_copies.len();
        assert_eq!(fixed, from.len() - 1, "every joint under the root");
        // Turned by the parent's axes, except under the root, whose axes are the source's.
        for &(t, _, c) in &r.fit.locals.fixed_copies {
            assert_eq!(c.turn.is_some(), from.parents()[t] != Some(0), "joint {t}");
        }
        assert_same(r, &posed(&from), &to);
    }
}
