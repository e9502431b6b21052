//! A clip sampled straight from its own tracks, for one pass over the whole clip (the
//! whole-clip retarget and its fit). Laying the values out key-major ([`CompiledClip`])
//! copies the whole clip to read each key once; here a frame reads each track in place.
//! Held keys are read a few keys ahead, each track's run of them at once, into a small
//! frame-major window ([`ReadCursor`]): reading a key per track per frame between a
//! frame's solve left the reads to wait on memory one frame at a time.
//! Same key choice and interpolation as [`Clip::sample`], bit for bit.

use super::{Cursor, Span, group_of};
use crate::clip::{Clip, Interpolation, Keyframe, Track};
use crate::pose::Pose;
use glam::{Quat, Vec3};
use std::ops::Range;

#[cfg(doc)]
use super::CompiledClip;

/// Keys a window reads ahead per track.
const AHEAD: usize = 16;

/// One track in place: the joint it animates and the track.
struct InPlace<'a, T> {
    joint: usize,
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

/// Where one pass over a [`TrackReader`] is: its key-time groups' cursor, and per
/// property the keys read ahead.
pub struct ReadCursor {
    pub(super) cursor: Cursor,
    translations: Window<Vec3>,
    rotations: Window<Quat>,
    scales: Window<Vec3>,
}

/// One property's keys read ahead: per run, its first key and how many follow (`rows`),
/// and `AHEAD` rows of its tracks' values, frame-major, from `AHEAD * run.tracks.start`.
struct Window<T> {
    rows: Vec<Range<usize>>,
    values: Vec<T>,
}

impl<T: Keyframe> Window<T> {
    fn new(p: &Property<'_, T>) -> Self {
        let blank = p.tracks.first().map(|t| t.track.values()[0]);
        Self {
            rows: vec![0..0; p.runs.len()],
            values: blank.map_or(Vec::new(), |v| vec![v; AHEAD * p.tracks.len()]),
        }
    }
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
    pub fn cursor(&self) -> ReadCursor {
        ReadCursor {
            cursor: Cursor::over(self.groups.len()),
            translations: Window::new(&self.translations),
            rotations: Window::new(&self.rotations),
            scales: Window::new(&self.scales),
        }
    }

    /// As [`Clip::sample`], with `at` (from [`Self::cursor`]) making a step forward
    /// cheap: writes every animated property at `time_secs` into `pose`.
    pub fn sample(&self, time_secs: f32, at: &mut ReadCursor, pose: &mut Pose) {
        debug_assert_eq!(pose.len(), self.clip.tracks().len());
        at.cursor.seek_all(&self.groups, time_secs);
        let spans = at.cursor.spans();
        let (t, r, s) = (&mut at.translations, &mut at.rotations, &mut at.scales);
        self.translations.write(spans, &mut pose.translations, t);
        self.rotations.write(spans, &mut pose.rotations, r);
        self.scales.write(spans, &mut pose.scales, s);
    }

    /// [`Self::sample`] of the joints `wanted` marks alone (the others keep what `pose`
    /// holds); read in place, with no window: a pass over a few joints reads little.
    pub fn sample_some(
        &self,
        time_secs: f32,
        at: &mut ReadCursor,
        pose: &mut Pose,
        wanted: &[bool],
    ) {
        debug_assert_eq!(wanted.len(), pose.len());
        at.cursor.seek_all(&self.groups, time_secs);
        let spans = at.cursor.spans();
        let wanted = |j: usize| wanted[j];
        let (t, r, s) = (
            &mut pose.translations,
            &mut pose.rotations,
            &mut pose.scales,
        );
        self.translations.write_some(spans, t, wanted);
        self.rotations.write_some(spans, r, wanted);
        self.scales.write_some(spans, s, wanted);
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
                let group = group_of(groups, track.times(), |times| times);
                let cubic = track.interpolation() == Interpolation::CubicSpline;
                ((group, cubic), InPlace { joint, track })
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

    /// Each track's value at its group's span, into `out` (indexed by joint); held keys
    /// through `window`, which reads the next `AHEAD` when the key is past it.
    #[inline(always)]
    fn write(&self, spans: &[Span], out: &mut [T], window: &mut Window<T>) {
        for (run, rows) in self.runs.iter().zip(&mut window.rows) {
            let tracks = &self.tracks[run.tracks.clone()];
            let key = match spans[run.group] {
                Span::Hold(key) => key,
                Span::Between { prev, s, dt } => {
                    for t in tracks {
                        out[t.joint] = t.track.between(prev, s, dt);
                    }
                    continue;
                }
            };
            let m = tracks.len();
            let values = &mut window.values[AHEAD * run.tracks.start..][..AHEAD * m];
            if !rows.contains(&key) {
                let keys = tracks[0].track.key_count();
                *rows = key..(key + AHEAD).min(keys);
                let (first, n) = (key * run.stride + run.slot, rows.len());
                for (i, t) in tracks.iter().enumerate() {
                    let ahead = &t.track.values()[first..];
                    for row in 0..n {
                        values[row * m + i] = ahead[row * run.stride];
                    }
                }
            }
            let row = &values[(key - rows.start) * m..][..m];
            for (t, v) in tracks.iter().zip(row) {
                out[t.joint] = *v;
            }
        }
    }

    /// Each wanted track's value at its group's span, into `out`, read in place.
    #[inline(always)]
    fn write_some(&self, spans: &[Span], out: &mut [T], wanted: impl Fn(usize) -> bool) {
        for run in &self.runs {
            let tracks = self.tracks[run.tracks.clone()].iter();
            match spans[run.group] {
                Span::Hold(key) => {
                    let at = key * run.stride + run.slot;
                    for t in tracks.filter(|t| wanted(t.joint)) {
                        out[t.joint] = t.track.values()[at];
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
