//! Foot contacts: where the source plants its feet, found with hysteresis, and how
//! much each frame is planted once blended in and out. The solver plants the target's feet
//! there (`retarget::legs::plant`); the editor shows them as bars under the timeline.

pub mod detect;

pub use detect::{ContactThresholds, FootContact, detect, settled_from, weights};
