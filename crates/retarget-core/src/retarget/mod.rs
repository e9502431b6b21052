//! The retargeter: built once from two skeletons, their reference poses and a bone map; then
//! each frame is one flat pass over caller-owned arrays with no allocation.
//!
//! Rotation (docs/design.md, "The retarget"): `Wt = Ws * Bs⁻¹ * Bt`, `Lt = Pt⁻¹ * Wt`, with
//! the real parent rotation `Pt` of this frame so unmapped bones in between keep their
//! reference pose.

mod arms;
mod carried;
mod clip;
mod fast;
mod finger_tails;
mod fit;
mod ik_bones;
mod keep_out;
mod keys;
mod legs;
mod live;
mod plan;
mod pose;
mod reach;
pub(crate) mod root;
mod settings;
mod still;
mod stride;
#[cfg(test)]
mod test_rigs;
mod twist;

pub use clip::{RetargetClipOptions, RetargetedClip, make_continuous};
pub use legs::options::{
    ContactSpans, LegOptions, Pole, PoleAt, contacts_to_spans, merged, spans_to_contacts,
};
pub use legs::plant::{PlantReport, SolveSettings};
pub use live::{PlantScratch, PlantTrack, PoseScratch};
pub use reach::{ReachChain, path_between};
pub use root::{Legs, common_ancestor, route_to_pelvis};
pub use stride::Stride;

use self::fast::{copies, fk, locals};
use self::plan::{FollowSolve, RotationSolve, SideReference, chain_to_root};
use self::root::RootSolve;
use crate::mapping::{BoneMap, TranslationMode};
use crate::pose::Pose;
use crate::reference::{ReferencePose, rotation_of};
use crate::skeleton::Skeleton;
use glam::{Affine3A, Quat, Vec3};
use std::sync::Arc;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RetargetError {
    #[error("the {side} reference pose has {got} joints but its skeleton has {expected}")]
    PoseSize {
        side: &'static str,
        got: usize,
        expected: usize,
    },
    #[error("the bone map names {side} joint {joint}, but that skeleton has {len} joints")]
    JointOutOfRange {
        side: &'static str,
        joint: usize,
        len: usize,
    },
    #[error(
        "the clip spans {secs} s: at {fps} fps that is {frames} frames, more than the \
         {MAX_FRAMES} a retarget writes"
    )]
    TooLong { secs: f32, fps: f32, frames: f64 },
    #[error(
        "the solved pose of target joint '{joint}' at {time} s is not finite or lies beyond \
         {:e} units: the source's numbers are too large to retarget",
        crate::skeleton::MAX_EXTENT / 1000.0
    )]
    Overflow { joint: String, time: f32 },
}

/// The most frames one retarget writes: 2.3 hours at 120 fps. A clip whose keys claim more
/// is a broken file, and sampling it would take all memory.
pub const MAX_FRAMES: usize = 1_000_000;

/// A target joint whose translation follows the source.
#[derive(Clone, Debug)]
struct TranslationSolve {
    target: usize,
    /// Source joints from the root down to the driving joint.
    source_chain: Vec<usize>,
    /// Target joints from the root down to the target joint's parent.
    target_chain: Vec<usize>,
    source_reference: Vec3,
    target_reference: Vec3,
    /// The reference local offsets from the parents (`copies`).
    source_rest: Vec3,
    target_rest: Vec3,
    /// The source joint's parent, where the target joint's parent is mapped from it: the
    /// joint then keeps its offset from its parent as the source's keeps its own (`copies`).
    source_parent: Option<usize>,
    /// Above a pelvis (an armature root whose bind and rest differ): solved before the
    /// pelvis, which hangs from it.
    above_pelvis: bool,
    /// Its solve in the parent's frame, where one applies (`copies`).
    local: Option<copies::LocalCopy>,
}

/// What a retarget of one pair of rigs needs that no clip changes: built once from the rigs,
/// their reference poses, the map and the settings, and shared (an `Arc`) by every clip
/// fitted from it, as ozz shares its offline data between jobs.
#[derive(Clone)]
pub(super) struct Plan {
    source_parents: Vec<Option<usize>>,
    source_container: Affine3A,
    source_container_rotation: Quat,
    target_parents: Vec<Option<usize>>,
    target_container: Affine3A,
    target_container_rotation: Quat,
    target_reference: Pose,
    /// Fingers whose curl past the last paired joint is spread by share (`finger_tails`).
    finger_tails: Vec<finger_tails::FingerTail>,
    /// Unreal's IK bones, put on the target's hands and feet every frame (`ik_bones`).
    ik_bones: Vec<ik_bones::IkBone>,
    translations: Vec<TranslationSolve>,
    /// Per target joint, the root solve whose hip-line turn it takes: its pelvis, or the
    /// humanoid hips below it that carry both upper legs (looked up every frame).
    root_at: Vec<Option<usize>>,
    follows: Vec<FollowSolve>,
    /// Controls that carry followers, placed after them (`carried`).
    carried: Vec<FollowSolve>,
    same_rig: bool,
    feet: Vec<legs::feet::FootFit>,
    /// Target legs the feet planting moves.
    legs: Vec<legs::ik::LegIk>,
    solve: legs::plant::SolveSettings,
    /// Each target joint's twin, for mirroring, as the session finds them (labels, names,
    /// chains); `None`: by names alone (`twins_of`), found when a mirror is made.
    mirror_twins: Option<Vec<usize>>,
    /// Chains solved in absolute mode (`reach`).
    reach: Vec<reach::ReachChain>,
    /// The arms that keep the source's hand contacts (both arms mapped).
    arms: Option<arms::Arms>,
    /// Both bodies' capsules, for keeping limbs out of the target's (`keep_out`).
    keep_out: Option<keep_out::KeepOut>,
    /// The source's height in its reference pose (contacts are measured against it).
    source_height: f32,
    /// The target's height in its reference pose (a planted foot's slide scales by it).
    target_height: f32,
    /// Source joints the solves place in the world (the root motion's and the copied
    /// translations' chains), each once a frame (`fk::place`), parents first.
    source_placed: Vec<usize>,
    /// The same, on a frame whose copied translations take their local form.
    source_placed_rigid: Vec<usize>,
    /// The source container's origin, turn and uniform scale, when it scales uniformly:
    /// placed joints then go down quaternions where no joint scales (`fk::place_positions`).
    source_top: Option<(glam::Vec3A, Quat, f32)>,
    /// The containers' uniform scales when neither side stretches (`copies`).
    rigid: Option<(f32, f32)>,
    /// The solves share the target's world transforms (`fk::memo_is_exact`).
    target_memo: bool,
}

/// What a clip fits (`fit_clip`): the feet's neutral tilt, the floors the root motion
/// stands on, and the rotation plan they change. A fresh retargeter holds the reference
/// pose's fit.
#[derive(Clone)]
pub(super) struct Fit {
    rotations: Vec<RotationSolve>,
    roots: Vec<RootSolve>,
    /// Which joints are solved in their parent's frame (`locals`); made again whenever
    /// `rotations` change.
    locals: locals::LocalPlan,
    /// One body on both sides: (target, source) joints whose scale the clip keys, copied
    /// every frame (a squash-and-stretch leg comes back stretched).
    scales: Vec<(usize, usize)>,
}

/// A plan and one clip's fit. Cloning shares the plan and copies the fit (the runtime keeps
/// one per clip). It holds no scratch and no result: a pose's solve works in the caller's
/// [`PoseScratch`], and a clip's returns what it planted ([`RetargetedClip`]).
#[derive(Clone)]
pub struct Retargeter {
    plan: Arc<Plan>,
    fit: Fit,
}

fn check_map(map: &BoneMap, source: &Skeleton, target: &Skeleton) -> Result<(), RetargetError> {
    for p in map.pairs() {
        for (side, joint, len) in [
            ("source", p.source, source.len()),
            ("target", p.target, target.len()),
        ] {
            if joint >= len {
                return Err(RetargetError::JointOutOfRange { side, joint, len });
            }
        }
    }
    Ok(())
}

impl Retargeter {
    pub fn new(
        source: &Skeleton,
        source_reference: &ReferencePose,
        target: &Skeleton,
        target_reference: &ReferencePose,
        map: &BoneMap,
    ) -> Result<Self, RetargetError> {
        for (side, pose, skel) in [
            ("source", source_reference, source),
            ("target", target_reference, target),
        ] {
            if pose.locals.len() != skel.len() {
                return Err(RetargetError::PoseSize {
                    side,
                    got: pose.locals.len(),
                    expected: skel.len(),
                });
            }
        }
        check_map(map, source, target)?;
        let map = &root::route_to_pelvis(map, source, target);
        let source_world = source_reference.world_matrices(source);
        let target_world = target_reference.world_matrices(target);
        let src_ref = SideReference::new(source_world.clone());
        let tgt_ref = SideReference::new(target_world.clone());
        let rotations = plan::rotation_solves(source, target, map, &src_ref, &tgt_ref);
        let mut follows = plan::follow_solves(source, target, map, &tgt_ref, &rotations);
        let carried = carried::carried_solves(target, map, &follows, &tgt_ref);
        carried::keep_hung_followers(target, &mut follows, &carried, &tgt_ref);
        let feet = foot_fits(map, &rotations, &src_ref);
        let tgt_height = target_reference.height(&tgt_ref.world);
        let src_height = source_reference.height(&src_ref.world);
        let moved = |p: &&crate::BonePair| p.translation != TranslationMode::None;
        let roots = map
            .pairs()
            .iter()
            .filter(moved)
            .filter(|p| p.translation != TranslationMode::Copy)
            .map(|p| RootSolve::new(p, map, (source, &source_world), (target, &target_world)))
            .collect::<Vec<_>>();
        let mut root_at = vec![None; target.len()];
        for (k, r) in roots.iter().enumerate() {
            root_at[r.hip_carrier()] = Some(k);
        }
        let translations: Vec<TranslationSolve> = map
            .pairs()
            .iter()
            .filter(|p| p.translation == TranslationMode::Copy)
            .map(|p| {
                let mut target_chain = chain_to_root(target.parents(), p.target);
                target_chain.pop();
                let source_parent = source.parents()[p.source].filter(|&sp| {
                    let tp = target.parents()[p.target];
                    tp.and_then(|tp| map.for_target(tp))
                        .is_some_and(|q| q.source == sp)
                });
                TranslationSolve {
                    above_pelvis: roots
                        .iter()
                        .any(|r| target.is_ancestor(p.target, r.pelvis())),
                    target: p.target,
                    source_chain: chain_to_root(source.parents(), p.source),
                    target_chain,
                    source_reference: src_ref.positions[p.source],
                    target_reference: tgt_ref.positions[p.target],
                    source_rest: source_reference.locals.translations[p.source],
                    target_rest: target_reference.locals.translations[p.target],
                    source_parent,
                    local: None,
                }
            })
            .collect();
        let mut translations = translations;
        let mut roots = roots;
        for r in &mut roots {
            r.hips_move = r.hips_moved_by(|j| translations.iter().any(|t| t.target == j));
        }
        let locals = copies::local_copies(&translations, target.parents());
        for (t, local) in translations.iter_mut().zip(locals) {
            t.local = local;
        }
        let placed_by = |local_copies: bool| {
            let copied = translations
                .iter()
                .filter(move |t| !(local_copies && t.local.is_some()));
            fk::joints_of(
                source.len(),
                (roots.iter().flat_map(|r| r.source_chains().iter()))
                    .chain(copied.map(|t| &t.source_chain))
                    .map(|c| &c[..]),
            )
        };
        let (source_placed, source_placed_rigid) = (placed_by(false), placed_by(true));
        let source_container = Affine3A::from_mat4(source_reference.container);
        let target_container = Affine3A::from_mat4(target_reference.container);
        // Only a retargeter with local copies checks each frame for rigidity.
        let rigid =
            copies::rigid_scales(source_container, target_container, &target_reference.locals)
                .filter(|_| translations.iter().any(|t| t.local.is_some()));
        let legs = legs::ik::legs(map, target, &tgt_ref, source.parents(), &rotations);
        let arms = arms::Arms::new(map, (source, &src_ref), (target, &tgt_ref), &rotations);
        // A pelvis placed again after the joints below it (`RootSolve::settle`) would leave
        // their memoized worlds behind.
        let target_memo = fk::memo_is_exact(&translations, &roots, &follows, target.len())
            && !roots.iter().any(|r| r.hips_move)
            && carried.is_empty();
        let plan = Plan {
            source_parents: source.parents().to_vec(),
            source_container,
            source_container_rotation: rotation_of(source_reference.container),
            target_parents: target.parents().to_vec(),
            target_container,
            target_container_rotation: rotation_of(target_reference.container),
            target_reference: target_reference.locals.clone(),
            translations,
            root_at,
            follows,
            carried,
            same_rig: false,
            legs,
            solve: legs::plant::SolveSettings::frame_by_frame(),
            mirror_twins: None,
            reach: Vec::new(),
            arms,
            keep_out: None,
            finger_tails: finger_tails::finger_tails(
                source,
                &source_world,
                target,
                &target_world,
                map,
                &target_reference.locals,
            ),
            ik_bones: ik_bones::ik_bones(source, target, map, &tgt_ref),
            feet,
            source_height: src_height.max(1e-6),
            target_height: tgt_height.max(1e-6),
            source_placed,
            source_placed_rigid,
            source_top: copies::uniform_scale(source_container).map(|c| {
                let turn = rotation_of(source_reference.container);
                (source_container.translation, turn, c)
            }),
            rigid,
            target_memo,
        };
        let mut retargeter = Self {
            plan: Arc::new(plan),
            fit: Fit {
                rotations,
                roots,
                locals: locals::LocalPlan::default(),
                scales: Vec::new(),
            },
        };
        retargeter.plan_locals();
        Ok(retargeter)
    }

    /// The plan to change (settings, before any clip is fitted from it): copied first if a
    /// fitted clone still shares it.
    fn plan_mut(&mut self) -> &mut Plan {
        Arc::make_mut(&mut self.plan)
    }

    /// Target foot joints the planting can move.
    pub fn planted_feet(&self) -> impl Iterator<Item = usize> + '_ {
        self.plan.legs.iter().map(|l| l.foot())
    }

    /// The target joint that carries the body (the pole directions' frame), if found.
    pub fn pelvis(&self) -> Option<usize> {
        self.fit.roots.first().map(|r| r.pelvis())
    }

    /// The target figure's height (world units), which the solver scales by.
    pub fn target_height(&self) -> f32 {
        self.plan.target_height
    }

    pub fn target_reference(&self) -> &Pose {
        &self.plan.target_reference
    }

    /// The target's container (world from skeleton) that the solve places it under.
    pub fn target_container(&self) -> glam::Mat4 {
        glam::Mat4::from(self.plan.target_container)
    }

    pub fn source_len(&self) -> usize {
        self.plan.source_parents.len()
    }

    pub fn target_len(&self) -> usize {
        self.plan.target_parents.len()
    }
}

impl Retargeter {
    /// Sets the height the target's feet stand at (default: its reference pose's feet).
    pub fn set_target_floor(&mut self, floor: f32) {
        for r in &mut self.fit.roots {
            r.target_floor = floor;
        }
    }

    /// Where the source stands on the floor when its reference pose says nothing about it
    /// (a reference read from the motion, whose zero pose may sit anywhere): the hip point
    /// over this spot maps to the target's own spot.
    pub fn set_source_spot(&mut self, x: f32, z: f32) {
        for r in &mut self.fit.roots {
            r.set_source_spot(x, z);
        }
    }

    /// Where the target stands when its reference pose is a frame of its own motion (a BVH
    /// whose zero pose lies along +X): the source's spot maps to this one, not to where that
    /// frame stood (which put a walk onto itself twice as far from the origin).
    pub fn set_target_spot(&mut self, x: f32, z: f32) {
        for r in &mut self.fit.roots {
            r.set_target_spot(x, z);
        }
    }

    /// One character on both sides: its feet stand where the clip has them, so the
    /// retarget gives the clip back.
    pub fn set_same_rig(&mut self, same: bool) {
        self.plan_mut().same_rig = same;
    }

    /// Target joints that the root motion moves (for export: these get translation keys).
    pub fn moving_joints(&self) -> impl Iterator<Item = usize> + '_ {
        self.plan
            .translations
            .iter()
            .map(|t| t.target)
            .chain(self.fit.roots.iter().map(|r| r.target))
            .chain(
                self.plan
                    .follows
                    .iter()
                    .filter(|f| f.keep.is_none())
                    .map(|f| f.target),
            )
            .chain(
                self.plan
                    .carried
                    .iter()
                    .filter(|f| f.hang.is_none())
                    .map(|f| f.target),
            )
            .chain(self.plan.legs.iter().filter_map(|l| l.moved_foot()))
            .chain(self.ik_bone_joints())
    }
}

/// The mapped feet, whose neutral tilt each clip fits.
fn foot_fits(
    map: &BoneMap,
    rotations: &[RotationSolve],
    src_ref: &SideReference,
) -> Vec<legs::feet::FootFit> {
    use crate::HumanBone::{LeftFoot, RightFoot};
    map.pairs()
        .iter()
        .filter(|p| matches!(p.bone, Some(LeftFoot | RightFoot)))
        .filter_map(|p| {
            let RotationSolve::Mapped {
                source: foot,
                offset,
            } = rotations[p.target]
            else {
                return None;
            };
            Some(legs::feet::FootFit {
                target: p.target,
                source_foot: foot,
                source_reference: src_ref.rotations[foot],
                offset,
            })
        })
        .collect()
}
