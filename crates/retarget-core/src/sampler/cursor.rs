//! Where a playing instance is in each of a clip's key-time groups.

use super::{CompiledClip, span_at};

/// How one group's keys frame a time: one key held (before, after, or on a zero-length
/// step), or a place `s` between key `prev` and the next, `dt` apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Span {
    Hold(usize),
    Between { prev: usize, s: f32, dt: f32 },
}

/// Forward steps tried before a binary search: a player at 30–240 fps over clips keyed at
/// up to 120 crosses a few keys a frame at most.
const MAX_STEPS: usize = 8;

/// Per key-time group of one [`CompiledClip`], the index of the first key after the last
/// time sampled (as `partition_point` gives it), and the span found there. Allocated once
/// per instance; sampling reuses it.
#[derive(Clone, Debug, Default)]
pub struct Cursor {
    next: Vec<u32>,
    spans: Vec<Span>,
}

impl Cursor {
    pub fn new(clip: &CompiledClip) -> Self {
        Self::over(clip.group_count())
    }

    /// A cursor at the start of `groups` key-time groups.
    pub(super) fn over(groups: usize) -> Self {
        Self {
            next: vec![0; groups],
            spans: vec![Span::Hold(0); groups],
        }
    }

    /// Points the cursor at `clip`'s start (reuses its memory when it has room).
    pub fn reset(&mut self, clip: &CompiledClip) {
        self.next.clear();
        self.next.resize(clip.group_count(), 0);
        self.spans.clear();
        self.spans.resize(clip.group_count(), Span::Hold(0));
    }

    /// Makes room for a clip of `groups` key-time groups, so `reset` onto it allocates
    /// nothing.
    pub fn reserve(&mut self, groups: usize) {
        self.next.reserve(groups.saturating_sub(self.next.len()));
        self.spans.reserve(groups.saturating_sub(self.spans.len()));
    }

    /// Bytes on the heap.
    pub fn heap_bytes(&self) -> usize {
        self.next.capacity() * size_of::<u32>() + self.spans.capacity() * size_of::<Span>()
    }

    pub(super) fn spans(&self) -> &[Span] {
        &self.spans
    }

    pub(super) fn seek_all<G: AsRef<[f32]>>(&mut self, groups: &[G], time_secs: f32) {
        debug_assert_eq!(groups.len(), self.next.len(), "a cursor of another clip");
        for ((times, next), span) in groups.iter().zip(&mut self.next).zip(&mut self.spans) {
            let times = times.as_ref();
            let k = seek(times, *next as usize, time_secs);
            *next = k as u32;
            *span = span_at(times, k, time_secs);
        }
    }
}

/// `times.partition_point(|&k| k <= t)`, found by stepping forward from `from` when the
/// answer is near, by binary search otherwise (a jump, a loop, a step backwards).
pub(crate) fn seek(times: &[f32], from: usize, t: f32) -> usize {
    let n = times.len();
    let mut k = from.min(n);
    let mut steps = 0;
    while k < n && times[k] <= t && steps < MAX_STEPS {
        k += 1;
        steps += 1;
    }
    // Sorted times: `k` is the partition point exactly when every key before it is at or
    // before `t` and the key at it is not (NaN: no key is, so only 0 passes).
    let after =
        k == n || times[k].partial_cmp(&t) == Some(std::cmp::Ordering::Greater) || t.is_nan();
    let holds = after && (k == 0 || times[k - 1] <= t);
    if holds {
        k
    } else {
        times.partition_point(|&x| x <= t)
    }
}
