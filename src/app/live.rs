//! The live retarget behind the right viewport: the clip retargeted as an export solves it,
//! again whenever the document changes, then sampled allocation-free per drawn frame, so the
//! view plays what the file will.

use crate::core::{Clip, Curve, Pose};
use crate::io::morph_weights::morph_weights_into;
use crate::session::Session;

pub struct LiveRetarget {
    revision: u64,
    clip: String,
    /// The clip retargeted as an export solves it (feet planted, hands kept, mirrored...),
    /// once per clip and edit: the view plays what the file will (`None`: no clip).
    solved: Option<Clip>,
    target_rest: Pose,
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

/// The joint each side's camera follows: the mapped hips, else the topmost pair that
/// carries the body's translation (a creature mapped by chains), else each side's pelvis
/// chain, else its root. A creature followed by a still armature root would walk out of
/// its viewport.
fn followed_joints(session: &Session) -> [usize; 2] {
    if let Some(p) = session.map.for_bone(crate::core::HumanBone::Hips) {
        return [p.source, p.target];
    }
    let moved = (session.map.pairs().iter())
        .filter(|p| p.translation != crate::core::TranslationMode::None)
        .min_by_key(|p| p.target);
    if let Some(p) = moved {
        return [p.source, p.target];
    }
    [&session.source, &session.target].map(|side| side.chains.pelvis().unwrap_or(0))
}

impl LiveRetarget {
    pub fn build(session: &Session, clip: &str, revision: u64) -> anyhow::Result<Self> {
        let solved = match session.source_clip(Some(clip)) {
            Ok(c) => Some(session.retarget_clip(Some(&c.name), None)?),
            Err(_) => None,
        };
        let source_rest = Pose::rest(session.source.skeleton());
        let grounds = super::floor::grounds(session, session.source_clip(Some(clip)).ok());
        let followed = followed_joints(session);
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
            solved,
            source_pose: source_rest.clone(),
            source_rest,
            target_rest: Pose::rest(session.target.skeleton()),
            target_pose: Pose::rest(session.target.skeleton()),
        })
    }

    /// World positions of target joint `joint` at `samples` times spread over the clip, as
    /// the viewport plays them (the poses shown are left as they are).
    pub fn path_of(&self, session: &Session, joint: usize, samples: usize) -> Vec<glam::Vec3> {
        let Some(out) = &self.solved else {
            return Vec::new();
        };
        let tgt = session.target.skeleton();
        let mut target = self.target_rest.clone();
        let mut world = vec![glam::Mat4::IDENTITY; tgt.len()];
        let container = session.target.reference.container;
        out.even_times(samples.min(out.frame_count()).max(2))
            .map(|t| {
                target.copy_from(&self.target_rest);
                out.sample(t, &mut target);
                target.world_matrices_under(tgt, container, &mut world);
                world[joint].w_axis.truncate()
            })
            .collect()
    }

    pub fn is_current(&self, revision: u64, clip: &str) -> bool {
        self.revision == revision && self.clip == clip
    }

    /// Samples the source clip at `time_secs` past its start, and the target's solved clip.
    pub fn solve(&mut self, session: &Session, time_secs: f32) {
        let Ok(clip) = session.source_clip(Some(&self.clip)) else {
            return;
        };
        self.source_pose.copy_from(&self.source_rest);
        clip.sample(clip.start_secs() + time_secs, &mut self.source_pose);
        if let Some(out) = &self.solved {
            self.target_pose.copy_from(&self.target_rest);
            out.sample(out.start_secs() + time_secs, &mut self.target_pose);
        }
        let t = clip.start_secs() + time_secs;
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The fox onto the stag, mapped by chains: no hips, so the cameras follow the pair that
    /// carries the body (the fox's `b_Hip_01` onto the stag's `Back`), not the still roots.
    #[test]
    fn a_creature_mapped_by_chains_is_followed_by_the_pair_that_carries_it() {
        let assets = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let s = Session::automatic(
            &assets.join("gltf/Fox.glb"),
            &assets.join("gltf/creatures/quaternius_stag_quadruped.glb"),
            &crate::io::ImportOptions::default(),
        )
        .unwrap();
        assert!(s.map.for_bone(crate::core::HumanBone::Hips).is_none());
        let [source, target] = followed_joints(&s);
        assert_eq!(s.source.skeleton().names()[source], "b_Hip_01");
        assert_eq!(s.target.skeleton().names()[target], "Back");
    }
}
