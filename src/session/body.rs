//! The body capsules of a session's sides (`core::body`): radii fitted to the skin the
//! file carries, else in proportion to the height; what the penetration measure and the
//! keep-out pass read.

use super::body_memo::BodyKey;
use super::{Session, Side};
use crate::core::body::{BodyCapsules, BodyPart, CapsuleEnd, PAIRS, fit_radius};
use crate::core::quality::{Motion, Pair, PenetrationFigures, Report, penetration};
use crate::core::{HumanBone, Pose, Retargeter};
use crate::io::SkinnedMesh;
use glam::{Mat4, Vec3};

/// A fitted radius further than this factor from the proportional one is a skin weighted
/// otherwise than the bone (a prop, a cape): the proportional radius stands.
const FIT_RANGE: f32 = 3.0;

/// The uniform scale of a world-to-world matrix.
fn scale_of(m: Mat4) -> f32 {
    m.determinant().abs().cbrt()
}

impl Side {
    /// The humanoid label of each joint.
    pub fn human_labels(&self) -> Vec<Option<HumanBone>> {
        self.labels.iter().map(|l| l.map(|l| l.bone)).collect()
    }

    /// The body's capsules in the file's world, at its bind pose: each labelled bone's,
    /// its radius fitted to the vertices it weights most (`core::body::fit_radius`).
    /// Fitted once per skin, labels and height (`body_memo`).
    pub fn body_capsules(&self) -> BodyCapsules {
        let s = self.skeleton();
        let world = Pose::bind(s).world_matrices(s);
        let labels = self.human_labels();
        // Standing: the reference pose (a bind pose may lie along +X, as LAFAN1's does).
        let height = BodyCapsules::height_of(&self.reference.locals.world_positions(s));
        let key = BodyKey::new(labels.clone(), height, &world, &self.skinned_meshes());
        (self.body_memo).get(key, || self.fit_capsules(&world, &labels, height))
    }

    /// The meshes skinned to this side's skeleton.
    fn skinned_meshes(&self) -> Vec<&SkinnedMesh> {
        let meshes = self.asset.meshes.iter();
        meshes
            .filter(|m| m.skeleton == self.skeleton_index)
            .collect()
    }

    fn fit_capsules(
        &self,
        world: &[Mat4],
        labels: &[Option<HumanBone>],
        height: f32,
    ) -> BodyCapsules {
        let s = self.skeleton();
        let at: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
        let mut body = BodyCapsules::from_bones(s.parents(), labels, &at, height);
        let points = self.skin_by_capsule(&body, labels, world);
        for (j, p) in points.into_iter().enumerate() {
            let Some((a, b, r)) = body.capsule(j, &at, 1.0) else {
                continue;
            };
            if let Some(fit) =
                fit_radius(a, b, p).filter(|f| *f < r * FIT_RANGE && *f > r / FIT_RANGE)
            {
                body.radius[j] = fit;
            }
        }
        body
    }

    /// Per capsule joint, the bind-pose vertices whose strongest weight is on it, or on an
    /// unlabelled joint below it that lies inside its capsule at the proportional radius,
    /// as its way down does (a twist bone). Vertices of other labelled bones (fingers, the
    /// neck, the head) are not its skin, nor those of a bone that leaves the body part (a
    /// prop's: Godette's backpack, hung from her chest, took her chest's radius from 0.08
    /// to 0.12 of her height, and her arms read as inside it).
    fn skin_by_capsule(
        &self,
        body: &BodyCapsules,
        labels: &[Option<HumanBone>],
        world: &[Mat4],
    ) -> Vec<Vec<Vec3>> {
        let parents = self.skeleton().parents();
        let n = parents.len();
        let at: Vec<Vec3> = world.iter().map(|m| m.w_axis.truncate()).collect();
        // Parents come before their children: each joint's owner from its parent's.
        let mut owner: Vec<Option<usize>> = vec![None; n];
        for j in 0..n {
            owner[j] = if body.part[j].is_some() {
                Some(j)
            } else if labels[j].is_some() {
                None
            } else {
                parents[j]
                    .filter(|&p| p < j)
                    .and_then(|p| owner[p])
                    .filter(|&o| body.holds(o, at[j], &at))
            };
        }
        let mut points = vec![Vec::new(); n];
        for mesh in self.skinned_meshes() {
            for prim in &mesh.primitives {
                for (v, p) in prim.positions.iter().enumerate() {
                    let (Some(js), Some(ws)) = (prim.joints.get(v), prim.weights.get(v)) else {
                        continue;
                    };
                    let k = (0..4).max_by(|&a, &b| ws[a].total_cmp(&ws[b])).unwrap_or(0);
                    let d = usize::from(js[k]);
                    let (Some(o), Some(ibm)) =
                        (owner.get(d).copied().flatten(), mesh.inverse_bind.get(d))
                    else {
                        continue;
                    };
                    if ws[k] > 0.0 {
                        points[o].push((world[d] * *ibm).transform_point3(*p));
                    }
                }
            }
        }
        points
    }

    /// The capsules in the world of this side's reference pose (its container, edits
    /// included), as the retargeter places it.
    fn body_in_reference(&self) -> BodyCapsules {
        let k = scale_of(self.reference.container) / scale_of(self.skeleton().container());
        self.body_capsules().scaled(k)
    }
}

impl Session {
    /// Gives the retargeter both bodies' capsules when the keep-out pass is on.
    pub(super) fn set_body(&self, r: &mut Retargeter) {
        if !self.solve.settings.keep_out {
            return;
        }
        r.set_body(
            (self.source.skeleton(), self.source.body_in_reference()),
            (self.target.skeleton(), self.target.body_in_reference()),
            &self.target.human_labels(),
        );
    }

    /// The capsules of `side` over the joints of `m` (by name), with the bind pose's
    /// joint positions there, seen through `frame` (a world-to-world matrix).
    fn body_over(side: &Side, m: &Motion, frame: Mat4) -> Option<(BodyCapsules, Vec<Vec3>)> {
        let s = side.skeleton();
        let index: Vec<Option<usize>> = s.names().iter().map(|n| m.joint(n)).collect();
        let body = side.body_capsules().remapped(&index, m.joints());
        if !PAIRS
            .iter()
            .any(|(l, o)| body.deepest(*l, *o, &m.positions[0], 1.0).is_some())
        {
            return None;
        }
        let world = Pose::bind(s).world_positions(s);
        let mut bind = vec![Vec3::ZERO; m.joints()];
        for (j, k) in index.iter().enumerate() {
            if let Some(k) = k {
                bind[*k] = frame.transform_point3(world[j]);
            }
        }
        Some((body.scaled(scale_of(frame)), bind))
    }

    /// Adds the penetration measure to `report`: the source `a` (seen through `frames.0`) on
    /// its capsules, the output `b` (through `frames.1`) on the target's. Nothing where
    /// either side has no pair of capsules to measure (a fox).
    pub(super) fn judge_penetration(
        &self,
        report: &mut Report,
        a: &Motion,
        b: &Motion,
        frames: (Mat4, Mat4),
    ) {
        let (Some((sa, ba)), Some((sb, bb))) = (
            Self::body_over(&self.source, a, frames.0),
            Self::body_over(&self.target, b, frames.1),
        ) else {
            return;
        };
        let pair: Pair<PenetrationFigures> = Pair {
            source: penetration(a, &sa, &ba),
            target: penetration(b, &sb, &bb),
        };
        report.add_penetration(pair);
    }
}

/// One capsule by joint names, for a reader of the exported files (`scripts/judge-matrix.py`).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NamedCapsule {
    pub part: BodyPart,
    pub joint: String,
    /// The far end's joint; `None` with `beyond`.
    pub end: Option<String>,
    /// A hand with no finger joint: on past `joint` along the bone from this joint, for
    /// `share` of that bone.
    pub beyond: Option<(String, f32)>,
    pub radius: f32,
}

/// A figure's capsules by name, as the penetration measure takes them.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct NamedBody {
    /// The figure's height the depths are scaled by (mm at 1.75 m: `1750 / height`).
    pub height: f32,
    pub capsules: Vec<NamedCapsule>,
    /// Each pair's depth (`core::body::PAIRS` order) in the bind pose, mm at 1.75 m, that
    /// the measure counts from (`None`: the pair is missing).
    pub bind_mm: Vec<Option<f64>>,
    /// `PAIRS` by part: (limb, other).
    pub pairs: Vec<(BodyPart, BodyPart)>,
}

impl Session {
    /// Both figures' capsules by joint name, in the worlds `check` measures them in (the
    /// source seen in the target file's world): `None` for a side without a pair.
    pub fn named_bodies(&self) -> (Option<NamedBody>, Option<NamedBody>) {
        let frame =
            self.target.file.container.matrix().inverse() * self.source.file.container.matrix();
        (
            named(&self.source, frame),
            named(&self.target, Mat4::IDENTITY),
        )
    }
}

fn named(side: &Side, frame: Mat4) -> Option<NamedBody> {
    let s = side.skeleton();
    let names = s.names();
    let body = side.body_capsules().scaled(scale_of(frame));
    let bind: Vec<Vec3> = Pose::bind(s)
        .world_positions(s)
        .iter()
        .map(|p| frame.transform_point3(*p))
        .collect();
    let mm = 1750.0 / f64::from(body.height.max(1e-9));
    let bind_mm: Vec<Option<f64>> = PAIRS
        .iter()
        .map(|(l, o)| {
            body.deepest(*l, *o, &bind, 1.0)
                .map(|c| f64::from(c.0.depth) * mm)
        })
        .collect();
    if bind_mm.iter().all(Option::is_none) {
        return None;
    }
    let capsules = (0..body.len())
        .filter_map(|j| {
            let (part, end) = (body.part[j]?, body.end[j]?);
            let (end, beyond) = match end {
                CapsuleEnd::Joint(k) => (Some(names[k].clone()), None),
                CapsuleEnd::Beyond { from, share } => (None, Some((names[from].clone(), share))),
            };
            Some(NamedCapsule {
                part,
                joint: names[j].clone(),
                end,
                beyond,
                radius: body.radius[j],
            })
        })
        .collect();
    Some(NamedBody {
        height: body.height,
        capsules,
        bind_mm,
        pairs: PAIRS.to_vec(),
    })
}
