//! What characters of one (source, target) pair share: built once, read by every thread.

use crate::clip::Clip;
use crate::mirror::Mirror;
use crate::pose::Pose;
use crate::retarget::{PlantTrack, RetargetClipOptions, RetargetError, Retargeter};
use crate::sampler::CompiledClip;
use crate::skeleton::Skeleton;
use glam::{Affine3A, Mat4};

/// How a [`RigPair`] is built.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RigOptions {
    /// Precompute each clip's planted feet so instances can ask for leg IK
    /// ([`super::Flags::IK`]). Costs one clip-level solve per clip at build time.
    pub ik: bool,
    /// The rate the plants are precomputed at (`None`: each clip's own).
    pub fps: Option<f32>,
}

impl Default for RigOptions {
    fn default() -> Self {
        Self {
            ik: true,
            fps: None,
        }
    }
}

/// One clip as the runtime plays it.
pub(super) struct ClipRig {
    pub compiled: CompiledClip,
    /// The pair's plan fitted to this clip (feet tilt, floors), as `retarget_clip` fits
    /// its copy: the plan is shared, the fit is this clip's.
    pub solver: Retargeter,
    pub plants: Option<PlantTrack>,
}

/// The shared data of a (source, target) pair and its clips; wrap it in an `Arc` and
/// give it to as many [`super::Crowd`]s as need it.
pub struct RigPair {
    pub(super) source: Skeleton,
    pub(super) target: Skeleton,
    /// The source's rest pose, under every sampled frame (untracked joints keep it).
    pub(super) source_rest: Pose,
    pub(super) clips: Vec<ClipRig>,
    pub(super) mirror: Mirror,
    /// The target's container as the solve has it (world from skeleton).
    pub(super) container: Mat4,
    pub(super) inverse_bind: Vec<Mat4>,
    /// Most key-time groups of any clip (each instance's cursor is sized for it).
    pub(super) max_groups: usize,
}

impl RigPair {
    /// Builds the pair from a retargeter of `source` onto `target` (for instance
    /// `Session::retargeter`, whose solve settings it keeps) and the source clips the
    /// instances will play.
    pub fn new(
        retargeter: &Retargeter,
        source: &Skeleton,
        target: &Skeleton,
        clips: &[Clip],
        options: RigOptions,
    ) -> Result<Self, RetargetError> {
        let clip_options = RetargetClipOptions { fps: options.fps };
        // One plan for every clip (the settings set once, before any clip shares it); each
        // clip keeps only its fit.
        let mut plan = retargeter.clone();
        let mut settings = *plan.solve_settings();
        settings.plant_feet = options.ik;
        plan.set_solve(settings);
        let clips = clips
            .iter()
            .map(|clip| {
                let solver = plan.fitted_to(source, clip);
                let plants = if options.ik {
                    solver.plant_track(source, clip, target, &clip_options)?
                } else {
                    None
                };
                Ok(ClipRig {
                    compiled: CompiledClip::new(clip),
                    solver,
                    plants,
                })
            })
            .collect::<Result<Vec<_>, RetargetError>>()?;
        let container = retargeter.target_container();
        let mut bind_world = vec![Mat4::IDENTITY; target.len()];
        Pose::bind(target).world_matrices_under(target, container, &mut bind_world);
        Ok(Self {
            source: source.clone(),
            target: target.clone(),
            source_rest: Pose::rest(source),
            max_groups: clips
                .iter()
                .map(|c| c.compiled.group_count())
                .max()
                .unwrap_or(0),
            clips,
            mirror: retargeter.mirror(target),
            container,
            inverse_bind: bind_world
                .iter()
                .map(|m| Mat4::from(Affine3A::from_mat4(*m).inverse()))
                .collect(),
        })
    }

    pub fn source(&self) -> &Skeleton {
        &self.source
    }

    pub fn target(&self) -> &Skeleton {
        &self.target
    }

    /// Matrices an update writes per instance.
    pub fn target_len(&self) -> usize {
        self.target.len()
    }

    pub fn clip_count(&self) -> usize {
        self.clips.len()
    }

    /// Clip `clip`'s compiled form (its span, rate, key-time groups).
    pub fn clip(&self, clip: usize) -> &CompiledClip {
        &self.clips[clip].compiled
    }

    /// Clip `clip`'s planted feet, when it was built with IK and plants any.
    pub fn plants(&self, clip: usize) -> Option<&PlantTrack> {
        self.clips[clip].plants.as_ref()
    }

    /// The retargeter fitted to clip `clip`.
    pub fn solver(&self, clip: usize) -> &Retargeter {
        &self.clips[clip].solver
    }

    /// Bytes of the shared clip data on the heap (compiled clips and plants).
    pub fn clip_heap_bytes(&self) -> usize {
        self.clips
            .iter()
            .map(|c| c.compiled.heap_bytes() + c.plants.as_ref().map_or(0, PlantTrack::heap_bytes))
            .sum()
    }
}
