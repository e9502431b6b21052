//! The quality report of a session's retarget (the crowd paper's "Conversion Quality" tool):
//! the source clip, the retarget output and the target's own pose as world joint positions,
//! measured by `core::quality` with the rules of the independent judge.

use super::{Session, SessionError, Side};
use crate::core::quality::{self, FootPair, Motion, Report, SegmentPair, Spec, Thresholds};
use crate::core::{Clip, HumanBone, Pose};
use crate::io::asset::Format;

/// Joints a measure sees on one side: all but BVH End Sites, which Blender's reader and
/// judge's dumps leave out (they would change the figure's height).
fn measured_joints(side: &Side) -> Vec<usize> {
    (0..side.skeleton().len())
        .filter(|&j| is_measured(side, j))
        .collect()
}

pub(super) fn is_measured(side: &Side, j: usize) -> bool {
    let s = side.skeleton();
    side.asset.format != Format::Bvh
        || !(s.names()[j].ends_with("_end") && s.children(j).next().is_none())
}

/// A chain's first joint and its last measured one (a BVH limb ends at an End Site, which
/// the measures do not see), when they differ.
fn measured_ends(side: &Side, chain: &crate::core::chains::Chain) -> Option<(usize, usize)> {
    let last = chain
        .joints
        .iter()
        .rev()
        .copied()
        .find(|&j| is_measured(side, j))?;
    (last != chain.start()).then_some((chain.start(), last))
}

/// World positions of `joints` for each time, in the file's own world (its container,
/// without the session's edits), as an independent reader of the file sees it.
fn motion(side: &Side, joints: &[usize], clip: Option<&Clip>, times: &[f32]) -> Motion {
    motion_in(side, joints, clip, times, glam::Mat4::IDENTITY)
}

/// `motion` seen through `frame` (a world-to-world matrix).
fn motion_in(
    side: &Side,
    joints: &[usize],
    clip: Option<&Clip>,
    times: &[f32],
    frame: glam::Mat4,
) -> Motion {
    let s = side.skeleton();
    let base = match clip {
        Some(_) => Pose::rest(s),
        None => crate::core::rig_lengths::bind_pose(s, &side.clips()),
    };
    motion_from(side, joints, &base, clip, times, frame)
}

/// World positions of `joints` with `clip` (if any) played over `base` at each time.
fn motion_from(
    side: &Side,
    joints: &[usize],
    base: &Pose,
    clip: Option<&Clip>,
    times: &[f32],
    frame: glam::Mat4,
) -> Motion {
    let s = side.skeleton();
    let mut index = vec![None; s.len()];
    for (k, &j) in joints.iter().enumerate() {
        index[j] = Some(k);
    }
    let parent_of = |j: usize| {
        let mut at = s.parents()[j];
        while let Some(p) = at {
            if index[p].is_some() {
                return index[p];
            }
            at = s.parents()[p];
        }
        None
    };
    let positions = times
        .iter()
        .map(|&t| {
            let mut pose = base.clone();
            if let Some(c) = clip {
                c.sample(t, &mut pose);
            }
            let world = pose.world_positions(s);
            joints
                .iter()
                .map(|&j| frame.transform_point3(world[j]))
                .collect()
        })
        .collect();
    Motion {
        times: times.to_vec(),
        names: joints.iter().map(|&j| s.names()[j].clone()).collect(),
        parents: joints.iter().map(|&j| parent_of(j)).collect(),
        positions,
    }
}

/// The target's own reference for the measures (T), by the rule its floor follows
/// (`Side::floor_from_motion`): every frame of its own clips where its motion says where it
/// stands (a BVH; judge's "its own clip"), else its bind pose where it rests. The floor the
/// ground and pelvis measures stand the output on is then the one the retarget stood it on.
fn reference_motion(side: &Side, joints: &[usize]) -> Motion {
    let own = || {
        let clips = side.clips();
        let mut parts = clips.iter().map(|c| {
            let times: Vec<f32> = crate::core::floor::frame_times(c).collect();
            motion(side, joints, Some(c), &times)
        });
        let mut all = parts.next()?;
        for m in parts {
            all.times.extend(m.times);
            all.positions.extend(m.positions);
        }
        (all.frames() > 0).then_some(all)
    };
    side.floor_from_motion()
        .then(own)
        .flatten()
        .unwrap_or_else(|| motion(side, joints, None, &[0.0]))
}

/// The target as its file declares it, as any reader poses it: every frame of its first
/// clip that has keys, then of its other clips, then the nodes' rest (judge's "rest pose, or its own clip"; the
/// first frame, whose height scales the figure, is the clip's where there is one, as in
/// Blender's reading of an FBX). The body measure holds the output to it as well as to the
/// reference pose the retarget stood on (`Report::add_declared_body`): a skin bound before
/// a joint was moved gives the bind pose lengths that neither the rest nor the clip has.
fn declared_motion(side: &Side, joints: &[usize]) -> Motion {
    let rest = Pose::rest(side.skeleton());
    let frame = glam::Mat4::IDENTITY;
    let at_rest = motion_from(side, joints, &rest, None, &[0.0], frame);
    // Every clip after the first: a bone one of them stretches (a stag's keyed shoulders
    // in its gallop) is one the file's own motion varies, left out as judge leaves it.
    let clips = side.clips();
    let mut keyed = clips.iter().filter(|c| c.frame_count() > 0);
    let Some(first) = keyed.next() else {
        return at_rest;
    };
    let play = |clip: &Clip| {
        let times: Vec<f32> = crate::core::floor::frame_times(clip).collect();
        motion_from(side, joints, &rest, Some(clip), &times, frame)
    };
    let mut all = play(first);
    for m in keyed.map(|c| play(c)).chain([at_rest]) {
        all.times.extend(m.times);
        all.positions.extend(m.positions);
    }
    all
}

impl Session {
    /// One character on both sides: its own clip `name` is the target's own pose (judge's
    /// "its own clip"), so a bone the rig's animator stretches (a stag's keyed shoulders) is
    /// not held rigid, and the floor is the one that clip stands on.
    fn same_rig_reference(&self, name: &str, joints: &[usize]) -> Option<Motion> {
        if !self.same_rig() {
            return None;
        }
        let clips = self.target.clips();
        let own = clips.iter().find(|c| c.name == name)?;
        let times: Vec<f32> = crate::core::floor::frame_times(own).collect();
        Some(motion(&self.target, joints, Some(own), &times))
    }
}

/// The limb segments whose directions are judged: upper arms, forearms, thighs and shins.
pub const JUDGED_SEGMENTS: [(HumanBone, HumanBone); 8] = {
    use HumanBone::*;
    [
        (LeftUpperArm, LeftLowerArm),
        (RightUpperArm, RightLowerArm),
        (LeftLowerArm, LeftHand),
        (RightLowerArm, RightHand),
        (LeftUpperLeg, LeftLowerLeg),
        (RightUpperLeg, RightLowerLeg),
        (LeftLowerLeg, LeftFoot),
        (RightLowerLeg, RightFoot),
    ]
};

/// The joints the measures compare, by name on each side: (source, target) pairs. The
/// independent judge gets the same names.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedJoints {
    /// Left and right upper legs (hind legs on a quadruped).
    pub hips: [(String, String); 2],
    /// Every foot; the first two stand under `hips`.
    pub feet: Vec<(String, String)>,
    /// Named segments: (name, (source from, source to), (target from, target to)).
    pub segments: Vec<JudgedSegment>,
}

/// A segment whose direction is judged: its name, then (from, to) on each side.
pub type JudgedSegment = (String, (String, String), (String, String));

impl Session {
    /// What `check` measures on this map: a humanoid's labelled hips, feet and limb
    /// segments, or, without humanoid legs (a fox), the chain skeleton's legs (hind legs
    /// first) and each mapped limb as one segment from its start to its end, whatever the
    /// bone counts of the two chains.
    pub fn judged_joints(&self) -> Option<JudgedJoints> {
        let (src, tgt) = (
            self.source.skeleton().names(),
            self.target.skeleton().names(),
        );
        let named = |s: usize, t: usize| (src[s].clone(), tgt[t].clone());
        let pair = |bone: HumanBone| {
            let p = self.map.pairs().iter().find(|p| p.bone == Some(bone))?;
            Some(named(p.source, p.target))
        };
        use HumanBone::*;
        if let (Some(l), Some(r)) = (pair(LeftUpperLeg), pair(RightUpperLeg)) {
            return Some(JudgedJoints {
                hips: [l, r],
                feet: [LeftFoot, RightFoot].into_iter().filter_map(pair).collect(),
                segments: JUDGED_SEGMENTS
                    .into_iter()
                    .filter_map(|(from, to)| {
                        let name = format!("{}→{}", from.as_str(), to.as_str());
                        let (f, t) = (pair(from)?, pair(to)?);
                        Some((name, (f.0, t.0), (f.1, t.1)))
                    })
                    .collect(),
            });
        }
        self.chain_judged_joints()
    }

    fn chain_judged_joints(&self) -> Option<JudgedJoints> {
        use crate::core::chains::{ChainKind, Depth, Lateral};
        let (src, tgt) = (
            self.source.skeleton().names(),
            self.target.skeleton().names(),
        );
        let chains = &self.target.chains;
        let tags = |j: usize| chains.chain_of(j).map(|c| chains.chains[c].tags);
        let mut legs: Vec<_> = self.map.legs().to_vec();
        // Hind legs first (they carry the pelvis), then left before right.
        legs.sort_by_key(|l| {
            let t = tags(l.target[0]).unwrap_or_default();
            (t.depth == Depth::Front, t.lateral != Lateral::Left)
        });
        // A foot is the last joint of the leg the measures see (not a BVH End Site).
        let end = |side: &Side, p: &[usize]| {
            let last = *p.last().expect("legs have joints");
            p.iter()
                .rev()
                .copied()
                .find(|&j| is_measured(side, j))
                .unwrap_or(last)
        };
        let side = |lateral: Lateral| {
            legs.iter()
                .find(|l| tags(l.target[0]).is_some_and(|t| t.lateral == lateral))
        };
        let (l, r) = (side(Lateral::Left)?, side(Lateral::Right)?);
        let top = |l: &crate::core::mapping::LegPair| {
            (src[l.source[0]].clone(), tgt[l.target[0]].clone())
        };
        let names = chains.names();
        let segments = (0..chains.chains.len())
            .filter(|&c| chains.chains[c].kind == ChainKind::Limb)
            .filter_map(|c| {
                let s = &self.source.chains.chains[self.chain_source(c)?];
                let (sa, sb) = measured_ends(&self.source, s)?;
                let (ta, tb) = measured_ends(&self.target, &chains.chains[c])?;
                Some((
                    names[c].clone(),
                    (src[sa].clone(), src[sb].clone()),
                    (tgt[ta].clone(), tgt[tb].clone()),
                ))
            })
            .collect();
        Some(JudgedJoints {
            hips: [top(l), top(r)],
            feet: legs
                .iter()
                .map(|l| {
                    let (s, t) = (end(&self.source, &l.source), end(&self.target, &l.target));
                    (src[s].clone(), tgt[t].clone())
                })
                .collect(),
            segments,
        })
    }
}

/// Whether a side has a left and a right leg: labelled upper legs (a humanoid's) or chains
/// tagged as legs on both sides.
fn has_legs(side: &Side) -> bool {
    use crate::core::chains::{Lateral, LimbType};
    let labelled = [HumanBone::LeftUpperLeg, HumanBone::RightUpperLeg]
        .iter()
        .all(|&b| side.labelled_joint(b).is_some());
    let chains = &side.chains.chains;
    let leg = |lateral| {
        chains
            .iter()
            .any(|c| c.tags.limb == LimbType::Leg && c.tags.lateral == lateral)
    };
    (side.is_humanoid() && labelled) || (leg(Lateral::Left) && leg(Lateral::Right))
}

impl Session {
    /// Why `check` has no pelvis and feet to measure, naming the side without legs and what
    /// gives them: the file whose legs were not found, or, both having legs, the map that
    /// pairs none of them.
    fn no_legs_to_measure(&self) -> SessionError {
        let fix = "so the pelvis, ground and skate have no feet to be measured on; give its \
                   thighs and feet their bones in the Bone map tab (or tag its leg chains as \
                   legs) and check with that project (--project)";
        let (path, problem) = match (has_legs(&self.source), has_legs(&self.target)) {
            (false, _) => (
                &self.source.path,
                format!(
                    "the source has no left and right legs its names, shape or chains show, {fix}"
                ),
            ),
            (true, false) => (
                &self.target.path,
                format!(
                    "the target has no left and right legs its names, shape or chains show, {fix}"
                ),
            ),
            (true, true) => (
                &self.target.path,
                format!("the map pairs none of the target's legs with the source's, {fix}"),
            ),
        };
        SessionError::Quality {
            path: path.clone(),
            problem,
        }
    }
}

/// The measures' joints as indices into the two motions.
fn spec(session: &Session, a: &Motion, b: &Motion) -> Option<Spec> {
    let judged = session.judged_joints()?;
    let pair = |(s, t): &(String, String)| Some((a.joint(s)?, b.joint(t)?));
    let (hl, hr) = (pair(&judged.hips[0])?, pair(&judged.hips[1])?);
    let feet = judged
        .feet
        .iter()
        .filter_map(|f| pair(f).map(|(a, b)| FootPair { a, b }))
        .collect();
    let segments = judged
        .segments
        .iter()
        .filter_map(|(name, (sf, st), (tf, tt))| {
            Some(SegmentPair {
                name: name.clone(),
                a: (a.joint(sf)?, a.joint(st)?),
                b: (b.joint(tf)?, b.joint(tt)?),
            })
        })
        .collect();
    Some(Spec {
        hips_a: (hl.0, hr.0),
        hips_b: (hl.1, hr.1),
        feet,
        segments,
        same_rig: same_rig_pairs(session, a, b),
        free: root_moved(session, b),
    })
}

/// Output joints the root motion moves whose bone to the parent may stretch: the joints
/// the retargeter moves (the map routed to the pelvis, as it runs it), each only where its
/// parent carries no other joint of the body (`quality::free_joints`).
fn root_moved(session: &Session, b: &Motion) -> Vec<usize> {
    use crate::core::TranslationMode::{HipsScaled, InPlace, None as Turned};
    let target = session.target.skeleton();
    let routed =
        crate::core::retarget::route_to_pelvis(&session.map, session.source.skeleton(), target);
    let targets = |keep: &dyn Fn(&crate::core::TranslationMode) -> bool| -> Vec<usize> {
        let pairs = routed.pairs().iter();
        pairs
            .filter(|p| keep(&p.translation))
            .map(|p| p.target)
            .collect()
    };
    let moved = targets(&|t| matches!(t, HipsScaled | InPlace));
    let body = targets(&|t| *t == Turned);
    let names = target.names();
    quality::free_joints(target.parents(), &moved, &body)
        .into_iter()
        .filter_map(|j| b.joint(&names[j]))
        .collect()
}

/// Joint pairs for the same-rig measure: one body on both sides, in the same units (a
/// rescaled copy moves as the source, but not through the same points). The sizes compared
/// are the two rest poses', never the output's: an output that moves a joint away must be
/// measured, not taken for a rescaled copy.
fn same_rig_pairs(session: &Session, a: &Motion, b: &Motion) -> Vec<(usize, usize)> {
    if !session.same_rig() {
        return Vec::new();
    }
    let rest_height = |side: &Side| motion(side, &measured_joints(side), None, &[0.0]).height(0);
    let (ha, hb) = (rest_height(&session.source), rest_height(&session.target));
    if (ha - hb).abs() > 1e-3 * ha.max(hb) {
        return Vec::new();
    }
    let (src, tgt) = (
        session.source.skeleton().names(),
        session.target.skeleton().names(),
    );
    session
        .map
        .pairs()
        .iter()
        .filter_map(|p| Some((a.joint(&src[p.source])?, b.joint(&tgt[p.target])?)))
        .collect()
}

impl Session {
    /// Retargets the clip `name` (or the session's) and measures it against the source.
    pub fn quality(&self, name: Option<&str>, limits: &Thresholds) -> Result<Report, SessionError> {
        let source_clip = self.source_clip(name)?;
        let mut r = self.retargeter()?;
        let output = self.retarget_clip_by(&mut r, Some(&source_clip.name), None)?;
        let mut report = self.quality_of(&source_clip.name, &output.clip, limits)?;
        let missed = &output.plant.reach_missed;
        if !missed.is_empty() {
            // Millimetres at the judge's 1.75 m person, as ground and skate are.
            let mm = 1750.0 / f64::from(r.target_height());
            let severity: Vec<f64> = missed
                .iter()
                .map(|&m| Thresholds::severity(f64::from(m) * mm, limits.reach_mm))
                .collect();
            report.add_frame_row(quality::Measure::Reach, &severity);
        }
        Ok(report)
    }

    /// Measures `output`, already retargeted from the source clip `name`, against that clip:
    /// a batch writes and judges the same retarget without computing it twice.
    pub fn quality_of(
        &self,
        name: &str,
        output: &Clip,
        limits: &Thresholds,
    ) -> Result<Report, SessionError> {
        let source_clip = self.source_clip(Some(name))?;
        // A pose (one frame, no duration) is measured once: the same instant twice would be
        // a foot that stood still for no time, planted wherever it is, a raised one too.
        let frames = match source_clip.duration_secs() > 0.0 {
            true => output.frame_count().max(2),
            false => 1,
        };
        let step = source_clip.duration_secs() / (frames.max(2) - 1) as f32;
        let times: Vec<f32> = (0..frames)
            .map(|k| source_clip.start_secs() + k as f32 * step)
            .collect();
        // The source as the editor shows it (its container edits: a lying file stood up by
        // hand), in the target file's world (the target's edits undone), where the output
        // is measured: stood up as it is written where the target's rest lies tilted there
        // (`Side::upright_in_file`), with the target's rest, which gives its floor.
        let upright = (self.target)
            .upright_in_file(&self.map, |p| p.target)
            .unwrap_or(glam::Mat4::IDENTITY);
        let frame = upright
            * self.target.file.container.matrix().inverse()
            * self.source.file.container.matrix();
        let a = motion_in(
            &self.source,
            &measured_joints(&self.source),
            Some(source_clip),
            &times,
            frame,
        );
        let target_joints = measured_joints(&self.target);
        let b = motion_in(&self.target, &target_joints, Some(output), &times, upright);
        let mut t = self
            .same_rig_reference(name, &target_joints)
            .unwrap_or_else(|| reference_motion(&self.target, &target_joints));
        for p in t.positions.iter_mut().flatten() {
            *p = upright.transform_point3(*p);
        }
        let spec = spec(self, &a, &b).ok_or_else(|| self.no_legs_to_measure())?;
        let report = quality::evaluate(&a, &b, &t, &spec, limits).map_err(|e| {
            let side = match e {
                quality::QualityError::Flat(quality::Side::Source)
                | quality::QualityError::NoLegs(quality::Side::Source) => &self.source,
                _ => &self.target,
            };
            SessionError::Quality {
                path: side.path.clone(),
                problem: e.to_string(),
            }
        });
        let mut report = report?;
        let declared = declared_motion(&self.target, &target_joints);
        report.add_declared_body(&declared, &b, &spec.free);
        report.add_grip(self.grip_figures(&a, &b, &t));
        self.measure_fingers(&a, &b, &mut report);
        self.judge_penetration(&mut report, &a, &b, (frame, upright));
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::{Side, measured_joints, reference_motion};
    use crate::io::ImportOptions;
    use crate::session::SideRole;
    use std::path::Path;

    fn target(rel: &str) -> Side {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("assets")
            .join(rel);
        Side::load(SideRole::Target, &path, &ImportOptions::default()).unwrap()
    }

    #[test]
    fn a_bvh_targets_reference_is_its_own_walk_and_a_characters_its_bind_pose() {
        let bvh = target("bvh/01_01.bvh");
        let t = reference_motion(&bvh, &measured_joints(&bvh));
        assert_eq!(t.frames(), 2752);
        let ankles = ["LeftFoot", "RightFoot"].map(|n| t.joint(n).unwrap());
        let floor = ankles
            .map(|j| t.min_y(j))
            .into_iter()
            .fold(f64::MAX, f64::min);
        // Blender reads 01_01's lowest ankle at 6.50 cm; its zero pose's at about -0.9 m.
        assert!((floor - 0.0650).abs() < 1e-3, "floor {floor}");
        let character = target("gltf/CesiumMan.glb");
        let t = reference_motion(&character, &measured_joints(&character));
        assert_eq!(t.frames(), 1);
    }
}
