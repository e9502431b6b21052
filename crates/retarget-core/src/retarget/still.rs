//! Translations a clip leaves where the rest has them. Most mocap keys its root's position
//! alone; one body retargeted onto itself copies every bone's translation (`copies`), and
//! those copies of bones the clip does not move come out, frame after frame, as the rest's
//! own offsets: keying them would write one track per bone of identical keys.

use super::Retargeter;
use crate::clip::Clip;
use crate::skeleton::Skeleton;
use glam::Vec3;

impl Retargeter {
    /// Per target joint, whether `clip` leaves its translation at the rest: a translation
    /// copied in constant form (`locals::FixedCopy`) from a source joint the clip does not
    /// move, onto the very value the rest has. Most mocap moves its root alone, so one
    /// body onto itself would otherwise key every bone's fixed offset on every frame. Not
    /// where a frame could take the world solve (a scale in the clip or the source's rest),
    /// nor where mirroring, reach or a planted detached foot may move it afterwards.
    pub(super) fn still_translations(
        &self,
        source: &Skeleton,
        clip: &Clip,
        target: &Skeleton,
    ) -> Vec<bool> {
        let mut still = vec![false; target.len()];
        let tracks = clip.tracks();
        let rigid = self.plan.rigid.is_some()
            && tracks.len() == source.len()
            && tracks.iter().all(|t| t.scale.is_none())
            && source.rest().iter().all(|t| t.scale == Vec3::ONE);
        if !rigid || self.plan.solve.mirror || !self.plan.reach.is_empty() {
            return still;
        }
        for &(t, s, copy) in &self.fit.locals.fixed_copies {
            let value = copy.solve(source.rest()[s].translation);
            still[t] = tracks[s].translation.is_none()
                && value.abs_diff_eq(target.rest()[t].translation, 1e-6)
                && value.abs_diff_eq(self.plan.target_reference.translations[t], 1e-6);
        }
        if self.plan.solve.plant_feet {
            for foot in self.plan.legs.iter().filter_map(|l| l.moved_foot()) {
                still[foot] = false;
            }
        }
        still
    }
}

#[cfg(test)]
mod tests {
    use crate::clip::{Clip, Interpolation, JointTracks, Track};
    use crate::mapping::{BoneMap, TranslationMode};
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::{RetargetClipOptions, Retargeter};
    use crate::skeleton::Skeleton;
    use glam::{EulerRot, Quat, Vec3};

    /// A branching chain under a turned, scaled container.
    fn rig() -> Skeleton {
        crate::retarget::test_rigs::branching(1.0)
    }

    /// Every joint turning over 5 frames; the root and `moved` keyed in translation; `scaled`
    /// keyed in scale.
    fn clip(s: &Skeleton, moved: usize, scaled: Option<usize>) -> Clip {
        let times: Vec<f32> = (0..5).map(|k| k as f32 / 30.0).collect();
        let track = |v: Vec<Vec3>| Track::new(times.clone(), v, Interpolation::Linear).unwrap();
        let tracks = (0..s.len())
            .map(|j| {
                let rest = s.rest()[j].translation;
                let turns = (0..5)
                    .map(|k| Quat::from_euler(EulerRot::XYZ, 0.1 * k as f32, 0.05 * j as f32, 0.0))
                    .collect();
                let moves = (j == 0 || j == moved)
                    .then(|| track((0..5).map(|k| rest + Vec3::X * 0.02 * k as f32).collect()));
                JointTracks {
                    translation: moves,
                    rotation: Some(
                        Track::new(times.clone(), turns, Interpolation::Linear).unwrap(),
                    ),
                    scale: (scaled == Some(j)).then(|| track(vec![Vec3::splat(1.1); 5])),
                }
            })
            .collect();
        Clip::new("walk", tracks, Some(30.0))
    }

    /// One body copying every translation: the clip keys the translations it moves (the
    /// root's, joint 3's), and plays as the frame-by-frame solve does; a scale in the clip
    /// (a frame that may take the world solve) keys them all.
    #[test]
    fn only_the_translations_a_clip_moves_are_keyed() {
        let s = rig();
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let mut map = BoneMap::identity(s.len());
        for j in 0..s.len() {
            map.for_target_mut(j).unwrap().translation = TranslationMode::Copy;
        }
        let r = Retargeter::new(&s, &reference, &s, &reference, &map).unwrap();
        let walk = clip(&s, 3, None);
        let options = RetargetClipOptions::default();
        let out = r.retarget_clip(&s, &walk, &s, &options).unwrap().clip;
        let keyed: Vec<usize> = (0..s.len())
            .filter(|&j| out.tracks()[j].translation.is_some())
            .collect();
        assert_eq!(keyed, [0, 3]);
        for k in 0..5 {
            let t = k as f32 / 30.0;
            let (mut source, mut solved, mut played) =
                (Pose::rest(&s), Pose::rest(&s), Pose::rest(&s));
            walk.sample(t, &mut source);
            crate::retarget::test_rigs::solve(&r, &source, &mut solved);
            out.sample(t, &mut played);
            let (a, b) = (solved.world_positions(&s), played.world_positions(&s));
            for (j, (a, b)) in a.iter().zip(&b).enumerate() {
                assert!(
                    a.abs_diff_eq(*b, 1e-5),
                    "frame {k}, joint {j}: {a} against {b}"
                );
            }
        }
        let out = r
            .retarget_clip(&s, &clip(&s, 3, Some(2)), &s, &options)
            .unwrap()
            .clip;
        assert!(out.tracks().iter().all(|t| t.translation.is_some()));
    }
}
