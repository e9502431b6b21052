//! One character of a crowd: only what differs between characters.

use crate::sampler::Cursor;
use glam::Mat4;

/// Per-instance switches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flags(pub u8);

impl Flags {
    /// Wrap the time at the clip's end (else it holds the last frame).
    pub const LOOP: Flags = Flags(1);
    /// Plant the feet with leg IK (when the rig pair was built with IK).
    pub const IK: Flags = Flags(2);
    /// Mirror the pose left to right on the target.
    pub const MIRROR: Flags = Flags(4);
    /// Level of detail: off screen or far away, IK is skipped.
    pub const LOW_DETAIL: Flags = Flags(8);

    pub fn contains(self, other: Flags) -> bool {
        self.0 & other.0 == other.0
    }

    pub fn set(&mut self, other: Flags, on: bool) {
        if on {
            self.0 |= other.0;
        } else {
            self.0 &= !other.0;
        }
    }
}

impl std::ops::BitOr for Flags {
    type Output = Flags;
    fn bitor(self, rhs: Flags) -> Flags {
        Flags(self.0 | rhs.0)
    }
}

/// A playing character: its clip (an index into its [`super::RigPair`]'s clips), its time,
/// speed, flags and placement in the world and its cursor into the clip. Its pose is not
/// kept: an update writes matrices, and [`super::Crowd::pose`] solves the pose again on
/// demand.
#[derive(Clone, Debug)]
pub struct Instance {
    pub(super) clip: u32,
    pub(super) time: f32,
    /// Playback rate: 1 is the clip's own speed, negative plays backwards.
    pub speed: f32,
    pub flags: Flags,
    /// World from this character (applied above the skeleton's container).
    pub placement: Mat4,
    pub(super) cursor: Cursor,
}

impl Instance {
    pub fn clip(&self) -> usize {
        self.clip as usize
    }

    /// Seconds into the clip, on the clip's own clock.
    pub fn time(&self) -> f32 {
        self.time
    }

    /// Jumps to `time` (the next update samples there, searching once).
    pub fn seek(&mut self, time: f32) {
        self.time = time;
    }

    /// Bytes this instance holds on the heap (its cursor).
    pub fn heap_bytes(&self) -> usize {
        self.cursor.heap_bytes()
    }
}
