//! The sampled form of a clip, built once from the editable [`Clip`]: what a player and the
//! whole-clip retarget read every frame.
//!
//! - Tracks whose key times are identical share one time array (a "group"): a BVH's or a
//!   retargeted clip's tracks all do, so a frame finds its keys once, not once per track.
//! - Values are stored structure-of-arrays, key-major per block of tracks that share a
//!   group, a property and an interpolation: the values of one key for all of a block's
//!   tracks lie side by side, so a frame reads two short contiguous rows.
//! - A [`Cursor`] per playing instance remembers each group's key, so a forward step finds
//!   the next key by stepping, with a binary search only after a jump or a loop.
//!
//! Results are bit-for-bit those of [`Clip::sample`]: the same key choice and the same
//! interpolation code ([`Keyframe`]).

mod block;
mod cursor;
mod reader;
#[cfg(test)]
mod tests;

use self::block::Block;
pub use self::cursor::Cursor;
use self::cursor::Span;
pub use self::reader::{ReadCursor, TrackReader};
use crate::clip::{Clip, Interpolation, Keyframe, Track};
use crate::pose::Pose;
use glam::{Quat, Vec3};

/// A [`Clip`] compiled for fast sampling (see the module's doc).
#[derive(Clone, Debug)]
pub struct CompiledClip {
    /// Distinct key-time arrays.
    groups: Vec<Vec<f32>>,
    translations: Vec<Block<Vec3>>,
    rotations: Vec<Block<Quat>>,
    scales: Vec<Block<Vec3>>,
    joints: usize,
    start_secs: f32,
    end_secs: f32,
    fps: Option<f32>,
}

impl CompiledClip {
    pub fn new(clip: &Clip) -> Self {
        let mut groups: Vec<Vec<f32>> = Vec::new();
        let mut translations = Staging::default();
        let mut rotations = Staging::default();
        let mut scales = Staging::default();
        for (joint, tracks) in clip.tracks().iter().enumerate() {
            if let Some(t) = &tracks.translation {
                translations.add(&mut groups, joint, t);
            }
            if let Some(r) = &tracks.rotation {
                rotations.add(&mut groups, joint, r);
            }
            if let Some(s) = &tracks.scale {
                scales.add(&mut groups, joint, s);
            }
        }
        let (translations, rotations, scales) =
            (translations.build(), rotations.build(), scales.build());
        Self {
            groups,
            translations,
            rotations,
            scales,
            joints: clip.tracks().len(),
            start_secs: clip.start_secs(),
            end_secs: clip.end_secs(),
            fps: clip.fps(),
        }
    }

    /// Joints of the skeleton the clip animates.
    pub fn joint_count(&self) -> usize {
        self.joints
    }

    /// Distinct key-time arrays (a cursor holds one key per group).
    pub fn group_count(&self) -> usize {
        self.groups.len()
    }

    pub fn start_secs(&self) -> f32 {
        self.start_secs
    }

    pub fn end_secs(&self) -> f32 {
        self.end_secs
    }

    pub fn duration_secs(&self) -> f32 {
        self.end_secs - self.start_secs
    }

    pub fn fps(&self) -> Option<f32> {
        self.fps
    }

    /// Bytes held on the heap (times and values), for memory reports.
    pub fn heap_bytes(&self) -> usize {
        let times: usize = self.groups.iter().map(|g| g.len() * 4).sum();
        let t: usize = self.translations.iter().map(Block::heap_bytes).sum();
        let r: usize = self.rotations.iter().map(Block::heap_bytes).sum();
        let s: usize = self.scales.iter().map(Block::heap_bytes).sum();
        times + t + r + s
    }

    /// As [`Clip::sample`]: writes every animated property at `time_secs` into `pose`,
    /// leaving the rest as `pose` holds it. `cursor` must come from this clip
    /// ([`Cursor::new`]); it makes a step forward from the last time cheap. Allocates nothing.
    pub fn sample(&self, time_secs: f32, cursor: &mut Cursor, pose: &mut Pose) {
        debug_assert_eq!(pose.len(), self.joints);
        cursor.seek_all(&self.groups, time_secs);
        let spans = cursor.spans();
        for b in &self.translations {
            b.sample(spans[b.group], &mut pose.translations);
        }
        for b in &self.rotations {
            b.sample(spans[b.group], &mut pose.rotations);
        }
        for b in &self.scales {
            b.sample(spans[b.group], &mut pose.scales);
        }
    }

    /// [`Self::sample`] of the joints `wanted` marks alone (the others keep what `pose`
    /// holds): a pass that reads a few joints' chains pays only for those.
    pub fn sample_some(
        &self,
        time_secs: f32,
        cursor: &mut Cursor,
        pose: &mut Pose,
        wanted: &[bool],
    ) {
        debug_assert_eq!(pose.len(), self.joints);
        debug_assert_eq!(wanted.len(), self.joints);
        cursor.seek_all(&self.groups, time_secs);
        let spans = cursor.spans();
        for b in &self.translations {
            b.sample_some(spans[b.group], &mut pose.translations, wanted);
        }
        for b in &self.rotations {
            b.sample_some(spans[b.group], &mut pose.rotations, wanted);
        }
        for b in &self.scales {
            b.sample_some(spans[b.group], &mut pose.scales, wanted);
        }
    }
}

/// One block's tracks before their values are laid out: group, interpolation, key count,
/// joints, each track's values.
type StagedBlock<'a, T> = (usize, Interpolation, usize, Vec<u32>, Vec<&'a [T]>);

/// Tracks of one property sorted into blocks before their values are laid out.
struct Staging<'a, T> {
    blocks: Vec<StagedBlock<'a, T>>,
}

impl<T> Default for Staging<'_, T> {
    fn default() -> Self {
        Self { blocks: Vec::new() }
    }
}

impl<'a, T: Keyframe> Staging<'a, T> {
    /// Adds `track` of `joint` to the block of its times and interpolation, making the
    /// group and the block when they are new.
    fn add(&mut self, groups: &mut Vec<Vec<f32>>, joint: usize, track: &'a Track<T>) {
        let group = group_of(groups, track.times(), <[f32]>::to_vec);
        let interpolation = track.interpolation();
        let at = self
            .blocks
            .iter()
            .position(|b| b.0 == group && b.1 == interpolation);
        let k = at.unwrap_or_else(|| {
            let block = (
                group,
                interpolation,
                track.key_count(),
                Vec::new(),
                Vec::new(),
            );
            self.blocks.push(block);
            self.blocks.len() - 1
        });
        self.blocks[k].3.push(joint as u32);
        self.blocks[k].4.push(track.values());
    }

    fn build(self) -> Vec<Block<T>> {
        self.blocks
            .into_iter()
            .map(|(group, interpolation, keys, joints, tracks)| {
                Block::build(group, interpolation, keys, joints, &tracks)
            })
            .collect()
    }
}

/// The index of the group whose times are bit-for-bit `times`, added (as `own` makes it)
/// if there is none.
fn group_of<'a, G: AsRef<[f32]>>(
    groups: &mut Vec<G>,
    times: &'a [f32],
    own: impl FnOnce(&'a [f32]) -> G,
) -> usize {
    if let Some(k) = groups.iter().position(|g| same_times(g.as_ref(), times)) {
        return k;
    }
    groups.push(own(times));
    groups.len() - 1
}

/// Whether two key-time arrays are bit for bit the same (compared as bytes: a clip's
/// tracks are compared in full, and most share their times).
fn same_times(a: &[f32], b: &[f32]) -> bool {
    let bits = bytemuck::cast_slice::<f32, u32>;
    std::ptr::eq(a, b) || bits(a) == bits(b)
}

/// How a group's keys frame one time, as [`Track::sample`] decides it.
pub(crate) fn span_at(times: &[f32], next: usize, time_secs: f32) -> Span {
    let n = times.len();
    if next == 0 {
        return Span::Hold(0);
    }
    if next >= n {
        return Span::Hold(n - 1);
    }
    let prev = next - 1;
    let dt = times[next] - times[prev];
    if dt <= 0.0 {
        return Span::Hold(next);
    }
    let s = (time_secs - times[prev]) / dt;
    // As `Track::sample` does.
    if s < crate::clip::ON_KEY {
        return Span::Hold(prev);
    }
    if s > 1.0 - crate::clip::ON_KEY {
        return Span::Hold(next);
    }
    Span::Between { prev, s, dt }
}
