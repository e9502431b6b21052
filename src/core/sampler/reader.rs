//! A clip sampled straight from its own tracks, for one pass over the whole clip (the
//! whole-clip retarget and its fit). Laying the values out key-major ([`CompiledClip`])
//! copies the whole clip to read each key once; here a frame reads each track in place.
//! Same key choice and interpolation as [`Clip::sample`], bit for bit.

use super::{Cursor, Span, same_times};
use crate::core::clip::{Clip, Interpolation, Keyframe, Track};
use crate::core::pose::Pose;
use glam::{Quat, Vec3};
use std::ops::Range;

#[cfg(doc)]
use super::CompiledClip;

/// One track in place: the joint it animates and the track.
struct InPlace<'a, T> {
    joint: usize,
    values: &'a [T],
    track: &'a Track<T>,
}

/// Tracks of one key-time group and one layout of values (`values[key * stride + slot]`:
/// CUBICSPLINE keeps a tangent either side of each value), so a held key's index is found
/// once for all of them.
struct Run {
    group: usize,
    stride: usize,
    slot: usize,
    tracks: Range<usize>,
}

/// One property's tracks, sorted into runs.
struct Property<'a, T> {
    tracks: Vec<InPlace<'a, T>>,
    runs: Vec<Run>,
}

/// A [`Clip`]'s tracks, grouped by key times so that a frame finds its keys once per group.
pub struct TrackReader<'a> {
    clip: &'a Clip,
    groups: Vec<&'a [f32]>,
    translations: Property<'a, Vec3>,
    rotations: Property<'a, Quat>,
    scales: Property<'a, Vec3>,
}

impl<'a> TrackReader<'a> {
    pub fn new(clip: &'a Clip) -> Self {
        let mut groups: Vec<&'a [f32]> = Vec::new();
        let tracks = clip.tracks();
        let translations =
            Property::new(&mut groups, tracks.iter().map(|t| t.translation.as_ref()));
        let rotations = Property::new(&mut groups, tracks.iter().map(|t| t.rotation.as_ref()));
        let scales = Property::new(&mut groups, tracks.iter().map(|t| t.scale.as_ref()));
        Self {
            clip,
            groups,
            translations,
            rotations,
            scales,
        }
    }

    pub fn clip(&self) -> &'a Clip {
        self.clip
    }

    /// A cursor at the clip's start, for [`Self::sample`].
    pub fn cursor(&self) -> Cursor {
        Cursor::over(self.groups.len())
    }

    /// As [`Clip::sample`], with `cursor` (from [`Self::cursor`]) making a step forward
    /// cheap: writes every animated property at `time_secs` into `pose`.
    pub fn sample(&self, time_secs: f32, cursor: &mut Cursor, pose: &mut Pose) {
        self.sample_where(time_secs, cursor, pose, |_| true);
    }

    /// [`Self::sample`] of the joints `wanted` marks alone (the others keep what `pose`
    /// holds).
    pub fn sample_some(
        &self,
        time_secs: f32,
        cursor: &mut Cursor,
        pose: &mut Pose,
        wanted: &[bool],
    ) {
        debug_assert_eq!(wanted.len(), pose.len());
        self.sample_where(time_secs, cursor, pose, |j| wanted[j]);
    }

    #[inline(always)]
    fn sample_where(
        &self,
        time_secs: f32,
        cursor: &mut Cursor,
        pose: &mut Pose,
        wanted: impl Fn(usize) -> bool + Copy,
    ) {
        debug_assert_eq!(pose.len(), self.clip.tracks().len());
        cursor.seek_all(&self.groups, time_secs);
        let spans = cursor.spans();
        self.translations
            .write(spans, &mut pose.translations, wanted);
        self.rotations.write(spans, &mut pose.rotations, wanted);
        self.scales.write(spans, &mut pose.scales, wanted);
    }
}

#[cfg(test)]
impl TrackReader<'_> {
    /// Per property (translations, rotations, scales), its runs: group, values per key,
    /// joints.
    pub(super) fn layout(&self) -> [Vec<(usize, usize, Vec<usize>)>; 3] {
        fn runs<T>(p: &Property<'_, T>) -> Vec<(usize, usize, Vec<usize>)> {
            let joints = |r: &Run| p.tracks[r.tracks.clone()].iter().map(|t| t.joint).collect();
            p.runs
                .iter()
                .map(|r| (r.group, r.stride, joints(r)))
                .collect()
        }
        [
            runs(&self.translations),
            runs(&self.rotations),
            runs(&self.scales),
        ]
    }
}

impl<'a, T: Keyframe> Property<'a, T> {
    /// Joint by joint, each track there is, sorted into runs (`groups`: the key-time
    /// arrays found so far, added to).
    fn new(
        groups: &mut Vec<&'a [f32]>,
        tracks: impl Iterator<Item = Option<&'a Track<T>>>,
    ) -> Self {
        let mut found: Vec<((usize, bool), InPlace<'a, T>)> = tracks
            .enumerate()
            .filter_map(|(joint, track)| Some((joint, track?)))
            .map(|(joint, track)| {
                let times = track.times();
                let group = groups.iter().position(|g| same_times(g, times));
                let group = group.unwrap_or_else(|| {
                    groups.push(times);
                    groups.len() - 1
                });
                let cubic = track.interpolation() == Interpolation::CubicSpline;
                let values = track.values();
                (
                    (group, cubic),
                    InPlace {
                        joint,
                        values,
                        track,
                    },
                )
            })
            .collect();
        found.sort_by_key(|(run, _)| *run);
        let mut runs: Vec<Run> = Vec::new();
        for (k, &((group, cubic), _)) in found.iter().enumerate() {
            match runs.last_mut() {
                Some(r) if r.group == group && (r.stride == 3) == cubic => r.tracks.end = k + 1,
                _ => runs.push(Run {
                    group,
                    stride: if cubic { 3 } else { 1 },
                    slot: usize::from(cubic),
                    tracks: k..k + 1,
                }),
            }
        }
        Self {
            tracks: found.into_iter().map(|(_, t)| t).collect(),
            runs,
        }
    }

    /// Each wanted track's value at its group's span, into `out` (indexed by joint).
    #[inline(always)]
    fn write(&self, spans: &[Span], out: &mut [T], wanted: impl Fn(usize) -> bool) {
        for run in &self.runs {
            let tracks = self.tracks[run.tracks.clone()].iter();
            match spans[run.group] {
                Span::Hold(key) => {
                    let at = key * run.stride + run.slot;
                    for t in tracks.filter(|t| wanted(t.joint)) {
                        out[t.joint] = t.values[at];
                    }
                }
                Span::Between { prev, s, dt } => {
                    for t in tracks.filter(|t| wanted(t.joint)) {
                        out[t.joint] = t.track.between(prev, s, dt);
                    }
                }
            }
        }
    }
}
