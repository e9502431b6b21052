//! One side of a session: the loaded file, the chosen skeleton, its labels and its
//! reference pose with the user's edits.

use super::SessionError;
use crate::core::{Clip, MapMethod, PoseSource, ReferencePose, SideLabel, Skeleton};
use crate::io::project::SideFile;
use crate::io::{Asset, ImportOptions};
use glam::Quat;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SideRole {
    Source,
    Target,
}

impl SideRole {
    /// "source" or "target", as a sentence says it.
    pub fn name(self) -> &'static str {
        match self {
            SideRole::Source => "source",
            SideRole::Target => "target",
        }
    }

    /// "Source" or "Target", as a label or an undo step starts.
    pub fn title(self) -> &'static str {
        match self {
            SideRole::Source => "Source",
            SideRole::Target => "Target",
        }
    }
}

#[derive(Clone)]
pub struct Side {
    pub role: SideRole,
    pub path: PathBuf,
    pub asset: Asset,
    /// Index into `asset.skeletons`.
    pub skeleton_index: usize,
    /// The settings that a project saves for this side.
    pub file: SideFile,
    pub reference: ReferencePose,
    pub labels: Vec<Option<SideLabel>>,
    /// The rig's chain skeleton (`core::chains`): from the project, or built from the
    /// reference pose.
    pub chains: crate::core::chains::ChainSkeleton,
    /// The last floor read off the side's own motion (`floor`).
    floor_memo: FloorMemo,
    /// The last body capsules fitted to the skin (`body_capsules`).
    pub(super) body_memo: super::body_memo::BodyMemo,
    /// Whether the labels make a biped of a figure that never stands as one (`lies_level`).
    level: bool,
}

/// The lowest height each joint reaches over a side's own motion, under the container it
/// was read with: finding it plays the whole clip (a millisecond for CMU 01_01), so it is
/// read when the side loads and again only when the container changes, not on each of the
/// session's retargeter builds.
#[derive(Default)]
struct FloorMemo(std::sync::Mutex<Option<(FloorKey, Vec<Option<f32>>)>>);

/// What a floor was read under: the container, and each clip's frame count and span (a
/// clip replaced since is read again).
type FloorKey = (glam::Mat4, Vec<(usize, u32)>);

fn floor_key(container: glam::Mat4, clips: &[&crate::core::Clip]) -> FloorKey {
    let clips = clips
        .iter()
        .map(|c| (c.frame_count(), c.duration_secs().to_bits()));
    (container, clips.collect())
}

impl Clone for FloorMemo {
    fn clone(&self) -> Self {
        let read = self.0.lock().map(|r| r.clone()).unwrap_or_default();
        Self(std::sync::Mutex::new(read))
    }
}

impl FloorMemo {
    /// The lowest of `feet`, from `read` (each joint's lowest) unless the last read was
    /// under the same `key`.
    fn lowest(
        &self,
        feet: &[usize],
        key: FloorKey,
        read: impl FnOnce() -> Vec<Option<f32>>,
    ) -> Option<f32> {
        let Ok(mut last) = self.0.lock() else {
            return crate::core::floor::lowest_of(&read(), feet);
        };
        match &*last {
            Some((k, each)) if *k == key => crate::core::floor::lowest_of(each, feet),
            _ => {
                let each = read();
                let lowest = crate::core::floor::lowest_of(&each, feet);
                *last = Some((key, each));
                lowest
            }
        }
    }
}

/// Humanoid labels of a skeleton, as the map builder takes them: the file's own table,
/// then names, then the skeleton's shape (`core::profile`).
pub fn side_labels(skeleton: &Skeleton, reference: &ReferencePose) -> Vec<Option<SideLabel>> {
    side_labels_weighted(skeleton, reference, None)
}

/// As `side_labels`, on the skeleton the skin deforms with when `weights` (each joint's
/// vertex weight) say which that is (`core::deform`).
pub fn side_labels_weighted(
    skeleton: &Skeleton,
    reference: &ReferencePose,
    weights: Option<&[f32]>,
) -> Vec<Option<SideLabel>> {
    use crate::core::profile::{LabelMethod, auto_label_deforming};
    auto_label_deforming(skeleton, &reference.locals, weights)
        .into_iter()
        .map(|l| {
            l.map(|l| SideLabel {
                bone: l.bone,
                method: match l.method {
                    LabelMethod::Table => MapMethod::Table,
                    LabelMethod::Name => MapMethod::Name,
                    LabelMethod::Topology => MapMethod::Topology,
                    LabelMethod::Hand => MapMethod::Hand,
                },
                confidence: l.confidence,
            })
        })
        .collect()
}

impl Side {
    /// A rig whose joints all sit at one point (in its bind and rest poses alike) has no
    /// body: say so, naming the file, rather than "no humanoid found" or a silently wrong
    /// result. The session asks this only of a pair that is not one rig on both sides
    /// (Khronos's SimpleSkin onto itself copies its joints' turns and needs no body).
    pub(super) fn refuse_collapsed(&self) -> Result<(), SessionError> {
        let collapsed = |skeleton: &Skeleton| {
            let spread = |pose: crate::core::Pose| {
                let p = pose.world_positions(skeleton);
                p.iter().map(|q| q.distance(p[0])).fold(0.0f32, f32::max)
            };
            skeleton.len() > 1
                && spread(crate::core::Pose::bind(skeleton)) < 1e-9
                && spread(crate::core::Pose::rest(skeleton)) < 1e-9
        };
        let skeletons = &self.asset.skeletons;
        if !skeletons.is_empty() && skeletons.iter().all(collapsed) {
            return Err(SessionError::Collapsed {
                path: self.path.clone(),
                joints: skeletons[0].len(),
            });
        }
        Ok(())
    }

    pub fn load(
        role: SideRole,
        path: &Path,
        options: &ImportOptions,
    ) -> Result<Self, SessionError> {
        let file = SideFile {
            unit: options.unit,
            up: options.up,
            ..SideFile::new(path)
        };
        Self::from_file(role, file)
    }

    /// Loads the side a project describes; bone offsets name joints that must exist.
    pub fn from_file(role: SideRole, file: SideFile) -> Result<Self, SessionError> {
        let options = ImportOptions {
            unit: file.unit,
            up: file.up,
        };
        let asset = crate::io::load(&file.path, &options)?;
        // The character is the skeleton a skin deforms (a Rigify export's second,
        // unskinned `metarig` repeats its names), then the one with the most humanoid
        // labels (others: props), then the first.
        let skeleton_index = (0..asset.skeletons.len())
            .max_by_key(|&i| {
                let skinned = asset.joint_weights(i).is_some();
                let labelled = asset.skeletons[i].humanoid().iter().flatten().count();
                (skinned, labelled, std::cmp::Reverse(i))
            })
            .unwrap_or(0);
        for (name, _) in &file.bone_offsets {
            if asset.skeletons[skeleton_index].find(name).is_none() {
                return Err(SessionError::JointMissing {
                    path: file.path.clone(),
                    role: "bone offset",
                    joint: name.clone(),
                });
            }
        }
        let skeleton = &asset.skeletons[skeleton_index];
        let reference = ReferencePose::new(
            skeleton,
            crate::core::Pose::bind(skeleton),
            &file.container,
            &[],
        );
        let mut side = Side {
            role,
            path: file.path.clone(),
            labels: Vec::new(),
            chains: Default::default(),
            asset,
            skeleton_index,
            file,
            reference,
            floor_memo: FloorMemo::default(),
            body_memo: Default::default(),
            level: false,
        };
        side.rebuild_reference()?;
        let weights = side.skin_weights();
        side.labels = side_labels_weighted(side.skeleton(), &side.reference, weights.as_deref());
        side.level = side.lies_level();
        // Again, now that the labels say which effectors hang away from their limbs.
        side.rebuild_reference()?;
        side.stand_from_motion()?;
        side.load_chains()?;
        if side.role == SideRole::Target && side.floor_from_motion() {
            // Read while loading, so the first retargeter build does not play the clip (a
            // source's floor comes from the clip being retargeted: `fit_clip`).
            let container = side.file.container.matrix() * side.skeleton().container();
            let skeleton = side.skeleton();
            let clips = side.clips();
            side.floor_memo
                .lowest(&[], floor_key(container, &clips), || {
                    crate::core::floor::lowest_of_each(skeleton, container, &clips)
                });
        }
        Ok(side)
    }

    /// Whether the side is a humanoid: hips, head and the four limbs labelled with some
    /// confidence (a fox's `b_LeftUpperArm_09` is a front leg, not an arm), on a body that
    /// stands as one. Only humanoids are turned by their labels and laid into the canonical
    /// T-pose.
    pub fn is_humanoid(&self) -> bool {
        use crate::core::HumanBone::*;
        !self.level
            && [
                Hips,
                Head,
                LeftUpperLeg,
                RightUpperLeg,
                LeftUpperArm,
                RightUpperArm,
            ]
            .iter()
            .all(|b| {
                self.labels
                    .iter()
                    .flatten()
                    .any(|l| l.bone == *b && l.confidence >= 0.5)
            })
    }

    /// Mocap whose labels make a biped of a body that stands neither in its zero pose nor
    /// over its motion (`core::gravity` read its up from where its limbs hang): a quadruped
    /// whose front legs are named as arms, its spine along the floor. Laid into a T-pose by
    /// those labels, or turned by its hips-to-head line, it would stand on its tail.
    fn lies_level(&self) -> bool {
        if self.asset.format != crate::io::asset::Format::Bvh {
            return false;
        }
        let clip = self.clips().first().copied();
        let reading = crate::core::gravity::read_up(self.skeleton(), &self.bone_labels(), clip);
        reading.is_some_and(|r| {
            matches!(
                r.evidence,
                crate::core::gravity::UpEvidence::LimbsHang { .. }
            )
        })
    }

    /// The labels the map pairs by: none on a rig that is no humanoid, whose few name
    /// matches would pull its limbs off their chains.
    pub fn map_labels(&self) -> Vec<Option<SideLabel>> {
        if self.is_humanoid() {
            self.labels.clone()
        } else {
            vec![None; self.labels.len()]
        }
    }

    /// The joint labelled `bone`, if any.
    pub fn labelled_joint(&self, bone: crate::core::HumanBone) -> Option<usize> {
        self.labels
            .iter()
            .position(|l| l.is_some_and(|l| l.bone == bone))
    }

    /// The humanoid bone of each joint, as the map builder labelled it.
    pub fn bone_labels(&self) -> Vec<Option<crate::core::HumanBone>> {
        self.labels.iter().map(|l| l.map(|l| l.bone)).collect()
    }

    /// Whether the side stands where its own motion stands rather than where its rest pose
    /// does: a BVH, always. A BVH has no rest pose: its zero pose puts the root at the root
    /// OFFSET (CMU: 0, the feet a leg length underground; others: hip height) and every frame
    /// keys the root's position, so only the motion knows the floor. A glTF, FBX or VRM
    /// character keeps its rest pose's floor: its rest pose stands where the artist put it,
    /// and its clips may jump, climb or lie down the whole time.
    pub fn floor_from_motion(&self) -> bool {
        self.asset.format == crate::io::asset::Format::Bvh
    }

    /// Height the feet stand at, in the side's world (container edits included): the lower
    /// of the feet `map` names on this side. Where the side stands on its own motion
    /// (`floor_from_motion`), the lowest they reach over its clips; otherwise, or without a
    /// frame to read, in its own pose (its reference base, without the bone offsets that lay
    /// it into the canonical pose).
    pub fn floor(
        &self,
        map: &crate::core::BoneMap,
        side: impl Fn(&crate::core::BonePair) -> usize,
    ) -> Option<f32> {
        let legs = crate::core::retarget::Legs::of_map(map, side);
        if legs.feet.is_empty() {
            return None;
        }
        let skeleton = self.skeleton();
        if self.floor_from_motion() {
            let container = self.file.container.matrix() * skeleton.container();
            let clips = self.clips();
            let lowest = self
                .floor_memo
                .lowest(&legs.feet, floor_key(container, &clips), || {
                    crate::core::floor::lowest_of_each(skeleton, container, &clips)
                });
            if lowest.is_some() {
                return lowest;
            }
        }
        let base = ReferencePose::base_pose(skeleton, &self.file.reference, &self.clips())?;
        let plain = ReferencePose::new(skeleton, base, &self.file.container, &[]);
        let world: Vec<glam::Vec3> = plain
            .world_matrices(skeleton)
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        Some(legs.floor(&world))
    }

    /// The move that stands a glTF or VRM character up in its own file's world, where its
    /// rest lies tilted there (a VRM whose armature was rotated when it was written): the
    /// session's turn less its turn about up, then lifted so the rest's feet keep the height
    /// the file gives them. The session solves the body stood up, and the file's world is
    /// +Y up like the session's, so its output is written stood up too, not tilted back.
    /// `None` where the session turned the side only about up (nearly every file).
    pub fn upright_in_file(
        &self,
        map: &crate::core::BoneMap,
        side: impl Fn(&crate::core::BonePair) -> usize,
    ) -> Option<glam::Mat4> {
        use crate::io::asset::Format;
        use glam::{Quat, Vec3};
        if !matches!(
            self.asset.format,
            Format::Gltf | Format::Glb | Format::Vrm0 | Format::Vrm1
        ) {
            return None;
        }
        let up_in_file = self.file.container.rotation.inverse() * Vec3::Y;
        let tilt = Quat::from_rotation_arc(up_in_file.normalize(), Vec3::Y);
        if tilt.angle_between(Quat::IDENTITY) < 1f32.to_radians() {
            return None;
        }
        let legs = crate::core::retarget::Legs::of_map(map, side);
        let skeleton = self.skeleton();
        let base = ReferencePose::base_pose(skeleton, &self.file.reference, &self.clips())?;
        let floor_under = |rotation: Quat| {
            let edit = crate::core::reference::ContainerEdit {
                rotation,
                ..Default::default()
            };
            let plain = ReferencePose::new(skeleton, base.clone(), &edit, &[]);
            let world: Vec<Vec3> = (plain.world_matrices(skeleton).iter())
                .map(|m| m.w_axis.truncate())
                .collect();
            legs.floor(&world)
        };
        let lift = floor_under(Quat::IDENTITY) - floor_under(tilt);
        Some(glam::Mat4::from_rotation_translation(tilt, Vec3::Y * lift))
    }

    /// Joint names and parents, as the map builder compares them.
    pub fn joint_names(&self) -> (&[String], &[Option<usize>]) {
        (self.skeleton().names(), self.skeleton().parents())
    }

    pub fn skeleton(&self) -> &Skeleton {
        &self.asset.skeletons[self.skeleton_index]
    }

    pub fn clips(&self) -> Vec<&Clip> {
        self.asset.clips_of(self.skeleton_index).collect()
    }

    /// The clip `name`, or the first. Allocates only to report a missing clip: the editor
    /// looks its clip up every frame.
    pub fn clip(&self, name: Option<&str>) -> Result<&Clip, SessionError> {
        let mut clips = self.asset.clips_of(self.skeleton_index);
        match name {
            None => clips.next().ok_or_else(|| SessionError::NoClips {
                path: self.path.clone(),
            }),
            Some(n) => clips
                .find(|c| c.name == n)
                .ok_or_else(|| SessionError::ClipMissing {
                    path: self.path.clone(),
                    name: n.to_owned(),
                    available: self
                        .asset
                        .clips_of(self.skeleton_index)
                        .map(|c| format!("'{}'", c.name))
                        .collect::<Vec<_>>()
                        .join(", "),
                }),
        }
    }

    /// Whether the reference pose was read from the motion because the zero pose does not
    /// stand upright (then the zero pose's root position means nothing either).
    pub fn stance_from_motion(&self) -> bool {
        matches!(self.file.reference, PoseSource::Frame { .. })
            && crate::core::characterize::stands_upright(
                &self.bone_labels(),
                &self.zero_pose_positions(),
            ) == Some(false)
    }

    fn zero_pose_positions(&self) -> Vec<glam::Vec3> {
        let skeleton = self.skeleton();
        crate::core::Pose::rest(skeleton).world_positions(skeleton)
    }

    /// Mocap whose zero pose is not a figure standing upright (LAFAN1 and Bandai Namco lay
    /// every bone along +X; a Y-up zero pose under a Z-up motion lies on its back once the
    /// motion is stood up): labels are read from the first frame of the motion instead, and
    /// the reference pose starts there, with a note saying so.
    fn stand_from_motion(&mut self) -> Result<(), SessionError> {
        use crate::core::characterize::stands_upright;
        let positions = |side: &Side| -> Vec<glam::Vec3> {
            side.reference
                .world_matrices(side.skeleton())
                .iter()
                .map(|m| m.w_axis.truncate())
                .collect()
        };
        if self.file.reference != PoseSource::Bind
            || stands_upright(&self.bone_labels(), &positions(self)) == Some(true)
        {
            return Ok(());
        }
        // A BVH's labels were read on a zero pose that may lie down: its motion may still
        // stand a humanoid up.
        let bvh = self.asset.format == crate::io::asset::Format::Bvh;
        if !self.is_humanoid() && !bvh {
            return Ok(());
        }
        let Some(clip) = self.clips().first().map(|c| c.name.clone()) else {
            return Ok(());
        };
        let previous = (self.file.reference.clone(), self.labels.clone());
        self.file.reference = PoseSource::Frame {
            clip: clip.clone(),
            frame: 0,
        };
        self.rebuild_reference()?;
        let labels = side_labels(self.skeleton(), &self.reference);
        let bones: Vec<_> = labels.iter().map(|l| l.map(|l| l.bone)).collect();
        if stands_upright(&bones, &positions(self)) == Some(true) {
            self.labels = labels;
            self.asset.warnings.push(format!(
                "reference pose: frame 0 of clip '{clip}' (the file's zero pose is not a standing figure, head up)"
            ));
            return Ok(());
        }
        (self.file.reference, self.labels) = previous;
        self.rebuild_reference()?;
        if self.is_humanoid() {
            return Ok(());
        }
        self.creature_from_motion()
    }

    /// A BVH creature whose zero pose hangs its limbs elsewhere than its motion does (a
    /// quadruped laid along +X): the reference pose starts at the motion's first frame, so
    /// its chains, floor and leg lengths are read standing.
    fn creature_from_motion(&mut self) -> Result<(), SessionError> {
        if self.asset.format != crate::io::asset::Format::Bvh {
            return Ok(());
        }
        let clips = self.clips();
        let Some(clip) = clips.first() else {
            return Ok(());
        };
        let reading =
            crate::core::gravity::read_up(self.skeleton(), &self.bone_labels(), Some(clip));
        if !reading.is_some_and(|r| r.stance_from_motion) {
            return Ok(());
        }
        let clip = clip.name.clone();
        self.file.reference = PoseSource::Frame {
            clip: clip.clone(),
            frame: 0,
        };
        self.rebuild_reference()?;
        self.labels = side_labels(self.skeleton(), &self.reference);
        self.asset.warnings.push(format!(
            "reference pose: frame 0 of clip '{clip}' (the file's zero pose hangs its limbs elsewhere than its motion does)"
        ));
        Ok(())
    }

    /// Recomputes the reference pose from the side's settings (after any edit).
    pub fn rebuild_reference(&mut self) -> Result<(), SessionError> {
        let skeleton = self.skeleton();
        let base = ReferencePose::base_pose(skeleton, &self.file.reference, &self.clips())
            .ok_or_else(|| match &self.file.reference {
                PoseSource::Frame { clip, frame } => SessionError::ReferenceClipMissing {
                    path: self.path.clone(),
                    clip: clip.clone(),
                    frame: *frame,
                },
                _ => unreachable!("bind and rest poses always exist"),
            })?;
        let offsets: Vec<(usize, Quat)> = self
            .file
            .bone_offsets
            .iter()
            .filter_map(|(name, q)| Some((skeleton.find(name)?, *q)))
            .collect();
        let stance = match self.file.reference {
            PoseSource::Bind | PoseSource::Rest => Some(base.clone()),
            PoseSource::Frame { .. } => None,
        };
        let mut reference = ReferencePose::new(skeleton, base, &self.file.container, &offsets);
        if let Some(stance) = stance {
            reference = reference.standing_in(skeleton, &stance);
        }
        let labels: Vec<_> = self.labels.iter().map(|l| l.map(|l| l.bone)).collect();
        let attached = crate::core::characterize::attachments(skeleton, &labels);
        crate::core::characterize::attach(skeleton, &attached, &mut reference);
        self.reference = reference;
        Ok(())
    }

    /// The joint's rotation offset from the reference pose (in its parent's space).
    pub fn bone_offset(&self, joint: usize) -> Quat {
        let name = &self.skeleton().names()[joint];
        self.file
            .bone_offsets
            .iter()
            .find(|(n, _)| n == name)
            .map_or(Quat::IDENTITY, |(_, q)| *q)
    }

    /// Adds a rotation (in the parent's space) on top of the joint's existing offset.
    pub fn add_bone_offset(&mut self, joint: usize, rotation: Quat) {
        let name = self.skeleton().names()[joint].clone();
        match self.file.bone_offsets.iter_mut().find(|(n, _)| *n == name) {
            Some((_, q)) => *q = (rotation * *q).normalize(),
            None => self.file.bone_offsets.push((name, rotation)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::io::ImportOptions;
    use crate::session::Session;
    use std::path::Path;

    fn session(source: &str, target: &str) -> Session {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        Session::automatic(
            &root.join(source),
            &root.join(target),
            &ImportOptions::default(),
        )
        .unwrap()
    }

    /// The floor of the target's base pose, as it was taken before a BVH stood on its motion.
    fn base_floor(s: &Session) -> f32 {
        let legs = crate::core::retarget::Legs::of_map(&s.map, |p| p.target);
        let t = &s.target;
        let base =
            super::ReferencePose::base_pose(t.skeleton(), &t.file.reference, &t.clips()).unwrap();
        let plain = super::ReferencePose::new(t.skeleton(), base, &t.file.container, &[]);
        let world: Vec<glam::Vec3> = plain
            .world_matrices(t.skeleton())
            .iter()
            .map(|m| m.w_axis.truncate())
            .collect();
        legs.floor(&world)
    }

    #[test]
    fn a_bvh_target_stands_where_its_own_walk_stands_not_under_its_zero_pose() {
        let s = session("bvh/02_01.bvh", "bvh/01_01.bvh");
        let floor = s.target.floor(&s.map, |p| p.target).unwrap();
        // CMU's root OFFSET is 0: the zero pose's ankles hang about a leg length below it.
        assert!(base_floor(&s) < -0.7, "zero pose floor {}", base_floor(&s));
        // Its walk keeps its ankles a few centimetres above y = 0.
        assert!((0.0..0.15).contains(&floor), "floor {floor}");
    }

    #[test]
    fn a_character_keeps_its_rest_pose_floor() {
        let s = session("bvh/02_01.bvh", "gltf/CesiumMan.glb");
        assert!(!s.target.floor_from_motion());
        assert_eq!(s.target.floor(&s.map, |p| p.target), Some(base_floor(&s)));
    }

    #[test]
    fn a_bvh_without_frames_keeps_its_zero_pose_floor() {
        let mut s = session("bvh/02_01.bvh", "bvh/01_01.bvh");
        let joints = s.target.skeleton().len();
        for clip in &mut s.target.asset.clips {
            clip.clip = crate::core::Clip::new("empty", vec![Default::default(); joints], None);
        }
        assert_eq!(s.target.floor(&s.map, |p| p.target), Some(base_floor(&s)));
    }

    #[test]
    fn the_floor_memo_reads_again_only_under_another_container_or_clips() {
        let memo = super::FloorMemo::default();
        let reads = std::cell::Cell::new(0);
        let read = || {
            reads.set(reads.get() + 1);
            vec![Some(0.5), None, Some(-0.2)]
        };
        let key = |y: f32, frames: usize| {
            (
                glam::Mat4::from_translation(glam::Vec3::Y * y),
                vec![(frames, 0)],
            )
        };
        assert_eq!(memo.lowest(&[0, 1], key(0.0, 3), read), Some(0.5));
        assert_eq!(memo.lowest(&[0, 2], key(0.0, 3), read), Some(-0.2));
        assert_eq!(reads.get(), 1);
        memo.lowest(&[0], key(1.0, 3), read);
        memo.lowest(&[0], key(1.0, 4), read);
        assert_eq!(reads.get(), 3);
        assert_eq!(memo.clone().lowest(&[1], key(1.0, 4), read), None);
        assert_eq!(reads.get(), 3, "a clone keeps the read");
    }
}
