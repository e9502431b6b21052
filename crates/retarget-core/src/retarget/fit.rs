//! Fitting the solve to one clip before it is retargeted: the source's floor where its feet
//! stand and each foot's neutral tilt (`feet`). Only the joints those read are placed, down
//! their own root paths: a full forward kinematics pass per frame cost as much as the
//! retarget itself.

use super::Retargeter;
use super::plan::RotationSolve;
use crate::clip::Clip;
use crate::pose::Pose;
use crate::reference::rotation_of;
use crate::sampler::TrackReader;
use crate::skeleton::Skeleton;
use glam::{Affine3A, Quat, Vec3};

/// The most frames a fit samples (of a longer clip, every second frame or third, and so on).
const MAX_FIT_FRAMES: usize = 2000;

impl Retargeter {
    /// Fits the solve to `clip`, sampled once: the source's floor where its feet stand (the
    /// lowest they reach), so a clip whose rest pose floats or sinks still lands its feet on
    /// the target's floor, and each foot's neutral tilt from its planted frames (`feet`).
    pub fn fit_clip(&mut self, source: &Skeleton, clip: &Clip) {
        self.fit_read(source, &TrackReader::new(clip));
    }

    /// A copy fitted to `clip` ([`Self::fit_clip`]): it shares this one's plan.
    pub fn fitted_to(&self, source: &Skeleton, clip: &Clip) -> Retargeter {
        let mut fitted = self.clone();
        fitted.fit_clip(source, clip);
        fitted
    }

    /// [`Self::fit_clip`] through the clip's reader.
    fn fit_read(&mut self, source: &Skeleton, clip: &TrackReader) {
        let mut joints: Vec<usize> = self.plan.feet.iter().map(|f| f.source_foot).collect();
        for r in &self.fit.roots {
            joints.extend(r.source_feet());
        }
        let sampled = SampledClip::new(source, self.plan.source_container, clip, &joints);
        // One body on both sides: the source's feet are the target's, tilt and all.
        let feet = if self.plan.same_rig {
            &[][..]
        } else {
            &self.plan.feet[..]
        };
        for fit in feet {
            let offset = sampled
                .track(fit.source_foot)
                .and_then(|(positions, turns)| {
                    fit.fitted_offset(positions, turns, self.plan.source_height, sampled.dt)
                })
                .unwrap_or(fit.offset);
            self.fit.rotations[fit.target] = RotationSolve::Mapped {
                source: fit.source_foot,
                offset,
            };
        }
        for r in &mut self.fit.roots {
            let floor = r.source_feet().iter().filter_map(|&f| sampled.track(f));
            let lowest = floor
                .flat_map(|(positions, _)| positions.iter().map(|p| p.y))
                .filter(|y| y.is_finite())
                .reduce(f32::min);
            if let Some(floor) = lowest {
                r.source_floor = floor;
                if self.plan.same_rig {
                    // One body (perhaps rescaled about its origin): it stands where the
                    // source stands, in its own scale.
                    r.target_floor = floor * r.scale;
                }
            }
        }
        self.fit.scales = self.copied_scales(clip.clip());
        // The feet's offsets changed.
        super::twist::refresh(&mut self.fit.rotations);
        self.plan_locals();
    }
}

impl Retargeter {
    /// One body on both sides: the (target, source) joints turned as one another (a mapped
    /// rotation with no offset) whose scale `clip` keys away from one. Onto another body a
    /// source's stretch is its own proportions, not the target's: nothing is copied.
    fn copied_scales(&self, clip: &Clip) -> Vec<(usize, usize)> {
        if !self.plan.same_rig {
            return Vec::new();
        }
        let keyed = |s: usize| {
            clip.tracks()
                .get(s)
                .and_then(|t| t.scale.as_ref())
                .is_some_and(|t| t.values().iter().any(|v| !v.abs_diff_eq(Vec3::ONE, 1e-6)))
        };
        let unturned =
            |q: Quat| q.abs_diff_eq(Quat::IDENTITY, 1e-5) || q.abs_diff_eq(-Quat::IDENTITY, 1e-5);
        self.fit
            .rotations
            .iter()
            .enumerate()
            .filter_map(|(t, solve)| match *solve {
                RotationSolve::Mapped { source, offset } if unturned(offset) && keyed(source) => {
                    Some((t, source))
                }
                _ => None,
            })
            .collect()
    }
}

/// A source clip sampled for the fit: per joint asked for, its world position and rotation
/// per frame.
struct SampledClip {
    joints: Vec<usize>,
    positions: Vec<Vec<Vec3>>,
    turns: Vec<Vec<Quat>>,
    dt: f32,
}

impl SampledClip {
    fn new(source: &Skeleton, container: Affine3A, reader: &TrackReader, joints: &[usize]) -> Self {
        let mut joints = joints.to_vec();
        joints.sort_unstable();
        joints.dedup();
        // The joints asked for and their ancestors, the only ones forward kinematics places.
        let mut placed = vec![false; source.len()];
        for &j in &joints {
            let mut at = Some(j);
            while let Some(k) = at.filter(|&k| !placed[k]) {
                placed[k] = true;
                at = source.parents()[k];
            }
        }
        let order: Vec<usize> = (0..source.len()).filter(|&j| placed[j]).collect();
        // On the clip's own frames (keys, where it has them: sampling takes a key as it is),
        // every `stride`-th of a clip longer than the fit reads.
        let clip = reader.clip();
        let keys = clip.frame_count().max(2);
        let stride = keys.div_ceil(MAX_FIT_FRAMES);
        let frames = (keys - 1) / stride + 1;
        let dt = clip.duration_secs() / (keys - 1) as f32 * stride as f32;
        let mut cursor = reader.cursor();
        // Sampling writes the placed joints each frame; the others keep their rest.
        let mut pose = Pose::rest(source);
        let mut places = Places::new(source.len(), container);
        let mut positions = vec![Vec::with_capacity(frames); joints.len()];
        let mut turns = vec![Vec::with_capacity(frames); joints.len()];
        for k in 0..frames {
            let t = clip.start_secs() + k as f32 * dt;
            reader.sample_some(t, &mut cursor, &mut pose, &placed);
            places.place(source.parents(), &order, &pose);
            for (s, &j) in joints.iter().enumerate() {
                let (position, turn) = places.of(j);
                positions[s].push(position);
                turns[s].push(turn);
            }
        }
        Self {
            joints,
            positions,
            turns,
            dt,
        }
    }

    /// Joint `joint`'s world positions and rotations, when it was sampled.
    fn track(&self, joint: usize) -> Option<(&[Vec3], &[Quat])> {
        let s = self.joints.binary_search(&joint).ok()?;
        Some((&self.positions[s], &self.turns[s]))
    }
}

/// World positions and rotations of the placed joints of one frame: down quaternions where
/// no joint scales (the container scaling uniformly, `fk::place_positions`), else through
/// affine transforms (`fk::place`). Positions are the transforms' translations.
struct Places {
    container: Affine3A,
    /// The container's rotation and uniform scale, when it has one.
    rigid: Option<(Quat, f32)>,
    rotations: Vec<Quat>,
    affine: Vec<Affine3A>,
    /// Whether this frame went through affine transforms alone.
    stretched: bool,
}

impl Places {
    fn new(joints: usize, container: Affine3A) -> Self {
        let rigid = super::fast::copies::uniform_scale(container)
            .map(|c| (rotation_of(glam::Mat4::from(container)), c));
        Self {
            container,
            rigid,
            rotations: vec![Quat::IDENTITY; joints],
            affine: vec![Affine3A::IDENTITY; joints],
            stretched: false,
        }
    }

    /// Places the joints of `order` (parents first) in `pose`.
    fn place(&mut self, parents: &[Option<usize>], order: &[usize], pose: &Pose) {
        let rigid = self
            .rigid
            .filter(|_| order.iter().all(|&j| pose.scales[j] == Vec3::ONE));
        self.stretched = rigid.is_none();
        let Some((turn, scale)) = rigid else {
            return super::fast::fk::place(self.container, parents, order, pose, &mut self.affine);
        };
        for &j in order {
            let up = parents[j].map_or(turn, |p| self.rotations[p]);
            self.rotations[j] = up * pose.rotations[j];
        }
        let top = (self.container.translation, turn, scale);
        super::fast::fk::place_positions(
            top,
            parents,
            order,
            pose,
            &self.rotations,
            &mut self.affine,
        );
    }

    /// Joint `j`'s world position and rotation this frame.
    fn of(&self, j: usize) -> (Vec3, Quat) {
        let m = self.affine[j];
        if self.stretched {
            (Vec3::from(m.translation), rotation_of(glam::Mat4::from(m)))
        } else {
            (Vec3::from(m.translation), self.rotations[j].normalize())
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::clip::{Clip, Interpolation, JointTracks, Track};
    use crate::mapping::BoneMap;
    use crate::pose::Pose;
    use crate::reference::ReferencePose;
    use crate::retarget::test_rigs::chain;
    use crate::retarget::{RetargetClipOptions, Retargeter};
    use glam::{Mat4, Vec3};

    /// A leg keyed to stretch (Mannequiny's dash scales its thigh by 0.55 %, which moved its
    /// foot 4.5 mm) comes back stretched onto its own rig; onto another body the source's
    /// stretch is its own proportions and the target keeps its scale.
    #[test]
    fn a_clip_onto_its_own_rig_keeps_its_keyed_scales_and_onto_another_it_does_not() {
        let s = chain(3, Mat4::IDENTITY);
        let reference = ReferencePose::new(&s, Pose::rest(&s), &Default::default(), &[]);
        let times = vec![0.0, 0.1, 0.2];
        let stretch = vec![Vec3::ONE, Vec3::new(1.0, 1.05, 1.0), Vec3::ONE];
        let mut tracks = vec![JointTracks::default(); 3];
        tracks[1].scale = Some(Track::new(times, stretch.clone(), Interpolation::Linear).unwrap());
        let clip = Clip::new("stretch", tracks, Some(10.0));
        for same in [true, false] {
            let mut r =
                Retargeter::new(&s, &reference, &s, &reference, &BoneMap::identity(3)).unwrap();
            r.set_same_rig(same);
            let out = r
                .retarget_clip(&s, &clip, &s, &RetargetClipOptions::default())
                .unwrap()
                .clip;
            let keyed = out.tracks()[1].scale.as_ref().map(|t| t.values().to_vec());
            if same {
                assert_eq!(keyed, Some(stretch.clone()), "the same rig's stretch");
            } else {
                assert_eq!(keyed, None, "another body keeps its own scale");
            }
        }
    }
}
