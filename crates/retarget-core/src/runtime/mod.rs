//! The runtime for engines: many characters playing retargeted clips, updated in
//! parallel every frame without allocating.
//!
//! Everything that depends only on the (source, target) pair and the clips lives once in
//! an [`Arc`](std::sync::Arc)'d [`RigPair`]: the retargeter fitted to each clip, each clip's
//! compiled (sampled) form, its precomputed planted feet, the mirror, the inverse bind
//! matrices. A [`Crowd`] holds the [`Instance`]s of one pair; each instance holds only
//! its clip index, its time, speed and flags, its placement and its sampling cursor.
//! Per-thread scratch lives in the crowd, allocated once: each frame's poses are solved
//! there and not kept, so a frame's memory traffic is mostly the matrices it writes
//! ([`Crowd::pose`] solves an instance's pose again on demand).
//!
//! [`Crowd::update`] advances every instance by `dt` and, per instance: samples its clip
//! at its own time (a cursor: no search for a forward step), retargets the pose, plants
//! the feet with leg IK where the instance asks for it and is not at low detail
//! ([`Flags::IK`], [`Flags::LOW_DETAIL`]), mirrors where asked ([`Flags::MIRROR`]), and
//! writes world or skinning matrices into the caller's buffer, one block of
//! `target_len()` matrices per instance.
//!
//! Leg IK: planting needs the whole clip (a contact's plant is the foot's average over
//! the contact), so [`RigPair::new`] runs the clip-level planting once per clip and keeps
//! each leg's goal and the hips' drop per frame; an update lowers the hips and solves the
//! legs toward the goals interpolated at the instance's time. At the clip's frame times the
//! pose is `Retargeter::retarget_clip`'s planted pose. Reach chains (absolute mode) are
//! not applied by the runtime.

mod crowd;
mod instance;
mod rig;
mod step;
#[cfg(test)]
mod tests;

pub use crowd::Crowd;
pub use instance::{Flags, Instance};
pub use rig::{RigOptions, RigPair};

/// What [`Crowd::update`] writes per joint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Output {
    /// The joint's world matrix: the instance's placement × the skeleton's container ×
    /// the joint's model matrix.
    World,
    /// The world matrix × the joint's inverse bind matrix (the bind pose's world matrix,
    /// inverted): what a skinning shader multiplies bind-pose vertices by.
    Skinning,
}
