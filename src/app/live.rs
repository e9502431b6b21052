//! The live retarget behind the right viewport: rebuilt when the document changes (with the
//! clip's planted feet, found once, so the view shows what an export writes), then one
//! allocation-free solve per drawn frame.

use crate::core::retarget::{PlantScratch, PlantTrack, PoseScratch, RetargetClipOptions};
use crate::core::{Curve, Pose, Retargeter};
use crate::io::morph_weights::morph_weights_into;
use crate::session::Session;

pub struct LiveRetarget {
    revision: u64,
    clip: String,
    retargeter: Retargeter,
    /// The solve's working memory, made once.
    scratch: PoseScratch,
    /// The clip's planted feet, found once per clip and edit, so the view shows what an
    /// export writes (`None`: nothing planted); and the planting's working memory.
    plants: Option<PlantTrack>,
    plant_scratch: PlantScratch,
    source_rest: Pose,
    pub source_pose: Pose,
    pub target_pose: Pose,
    /// What each viewport stands its character on (source, target); see `floor`.
    pub grounds: [super::floor::Ground; 2],
    /// The joint each viewport's camera follows: the hips, or the root without them.
    pub followed: [usize; 2],
    /// The source clip's curves renamed onto the target's weights by the curve map, made
    /// once per clip and edit (the map is part of the document).
    target_curves: Vec<Curve>,
    /// Each side's meshes' morph weights at the time last solved (source, target), in the
    /// order the viewport draws them (the meshes on the side's skeleton).
    pub morphs: [Vec<Vec<f32>>; 2],
    /// The curve values the morphs were last made from (source, target): unchanged values
    /// (a paused clip, a clip without curves) make nothing again.
    curve_values: [Vec<f32>; 2],
    /// Scratch of the solve: the curves sampled now, and every mesh's weights of a side.
    sampled: Vec<f32>,
    all_morphs: Vec<Vec<f32>>,
}

impl LiveRetarget {
    pub fn build(session: &Session, clip: &str, revision: u64) -> anyhow::Result<Self> {
        let (retargeter, plants) = match session.source_clip(Some(clip)) {
            Ok(c) => {
                let r = session.clip_retargeter(&c.name)?;
                let options = RetargetClipOptions {
                    fps: session.export.fps,
                };
                let (src, tgt) = (session.source.skeleton(), session.target.skeleton());
                let plants = r.plant_track(src, c, tgt, &options)?;
                (r, plants)
            }
            Err(_) => (session.retargeter()?, None),
        };
        let source_rest = Pose::rest(session.source.skeleton());
        let grounds = super::floor::grounds(session, session.source_clip(Some(clip)).ok());
        let hips = session.map.for_bone(crate::core::HumanBone::Hips);
        let followed = hips.map_or([0, 0], |p| [p.source, p.target]);
        let target_curves = session
            .source_clip(Some(clip))
            .map_or(Vec::new(), |c| session.target_curves_of(c).0);
        let mut all_morphs = Vec::new();
        let mut morphs = [Vec::new(), Vec::new()];
        for (side, out) in [&session.source, &session.target]
            .into_iter()
            .zip(&mut morphs)
        {
            side_weights(side, std::iter::empty(), &mut all_morphs, out);
        }
        Ok(Self {
            target_curves,
            morphs,
            curve_values: [Vec::new(), Vec::new()],
            sampled: Vec::new(),
            all_morphs,
            grounds,
            followed,
            revision,
            clip: clip.to_owned(),
            scratch: PoseScratch::new(&retargeter),
            plant_scratch: PlantScratch::new(&retargeter),
            plants,
            retargeter,
            source_pose: source_rest.clone(),
            source_rest,
            target_pose: Pose::rest(session.target.skeleton()),
        })
    }

    /// World positions of target joint `joint` at `samples` times spread over the clip,
    /// solved as the viewport solves them (the live retarget's own plan and scratch; the
    /// poses shown are left as they are).
    pub fn path_of(&mut self, session: &Session, joint: usize, samples: usize) -> Vec<glam::Vec3> {
        let Ok(clip) = session.source_clip(Some(&self.clip)) else {
            return Vec::new();
        };
        let tgt = session.target.skeleton();
        let (mut source, mut target) = (self.source_rest.clone(), Pose::rest(tgt));
        let mut world = vec![glam::Mat4::IDENTITY; tgt.len()];
        let container = session.target.reference.container;
        clip.even_times(samples.min(clip.frame_count()).max(2))
            .map(|t| {
                source.copy_from(&self.source_rest);
                clip.sample(t, &mut source);
                self.retargeter
                    .retarget_pose(&source, &mut target, &mut self.scratch);
                if let Some(track) = &self.plants {
                    let scratch = &mut self.plant_scratch;
                    self.retargeter
                        .plant_at(tgt, track, t, &mut target, scratch);
                }
                target.world_matrices_under(tgt, container, &mut world);
                world[joint].w_axis.truncate()
            })
            .collect()
    }

    pub fn is_current(&self, revision: u64, clip: &str) -> bool {
        self.revision == revision && self.clip == clip
    }

    /// Samples the source clip at `time_secs` past its start and solves the target.
    pub fn solve(&mut self, session: &Session, time_secs: f32) {
        let Ok(clip) = session.source_clip(Some(&self.clip)) else {
            return;
        };
        self.source_pose.copy_from(&self.source_rest);
        clip.sample(clip.start_secs() + time_secs, &mut self.source_pose);
        self.retargeter
            .retarget_pose(&self.source_pose, &mut self.target_pose, &mut self.scratch);
        let t = clip.start_secs() + time_secs;
        if let Some(track) = &self.plants {
            let (tgt, pose) = (session.target.skeleton(), &mut self.target_pose);
            let scratch = &mut self.plant_scratch;
            self.retargeter.plant_at(tgt, track, t, pose, scratch);
        }
        let sides = [
            (&session.source, clip.curves()),
            (&session.target, self.target_curves.as_slice()),
        ];
        for (i, (side, curves)) in sides.into_iter().enumerate() {
            self.sampled.clear();
            self.sampled.extend(curves.iter().map(|c| c.sample(t)));
            let values = &mut self.curve_values[i];
            let same = values.len() == self.sampled.len()
                && values
                    .iter()
                    .zip(&self.sampled)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
            if same {
                continue;
            }
            std::mem::swap(values, &mut self.sampled);
            let named = curves
                .iter()
                .map(|c| c.name.as_str())
                .zip(values.iter().copied());
            side_weights(side, named, &mut self.all_morphs, &mut self.morphs[i]);
        }
    }
}

/// The morph weights `curves` give the meshes of `side`'s skeleton, into `out` (in
/// `asset.meshes` order, the other skeletons' meshes left out, as the viewport draws them);
/// `all` is scratch for every mesh's. No allocation once the vectors have grown.
fn side_weights<'a>(
    side: &crate::session::Side,
    curves: impl Iterator<Item = (&'a str, f32)> + Clone,
    all: &mut Vec<Vec<f32>>,
    out: &mut Vec<Vec<f32>>,
) {
    let asset = &side.asset;
    morph_weights_into(asset, curves, all);
    let kept = asset
        .meshes
        .iter()
        .zip(all.iter())
        .filter(|(m, _)| m.skeleton == side.skeleton_index)
        .map(|(_, w)| w);
    out.resize_with(kept.clone().count(), Vec::new);
    for (o, w) in out.iter_mut().zip(kept) {
        o.clear();
        o.extend_from_slice(w);
    }
}
