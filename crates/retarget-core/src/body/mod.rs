//! The body's volume as capsules along its bones, and how deep one capsule goes into
//! another: what tells a limb passing through the torso from one beside it.

pub mod capsules;
pub mod distance;

pub use capsules::{BodyCapsules, BodyPart, CapsuleEnd, DEFAULT_RADII, PAIRS, fit_radius};
pub use distance::{Contact, closest_points, contact};
