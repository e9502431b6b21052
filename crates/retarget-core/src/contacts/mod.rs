//! Foot contacts: where the source plants its feet, found with hysteresis, and how
//! much each frame is planted once blended in and out. The solver plants the target's feet
//! there (`retarget::legs::plant`); the editor shows them as bars under the timeline.
//! Hand contacts (`hands`): hands together, on one prop (`prop`) or on the body, which the
//! arms keep.

pub mod detect;
pub mod hands;
pub mod prop;

pub use detect::{ContactThresholds, FootContact, detect, settled_from, weights};
pub use hands::{
    BodyPoint, Hand, HandContact, HandThresholds, HandTracks, Touch, detect_hands, hand_weights,
};
pub use prop::{PropThresholds, detect_prop};
