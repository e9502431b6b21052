//! Inverse kinematics for the quality layer, after the crowd paper (§4): the analytic
//! two-bone solver with its half-plane, FABRIK for longer chains with the 51-sample IK cache,
//! laying a pose's chain along solved points, and joint limits. Nothing here allocates per
//! solve: callers own the buffers.

pub mod cache;
pub mod chain;
pub mod fabrik;
pub mod limits;
pub mod two_bone;

pub use cache::{IkCache, SAMPLES};
pub use chain::{arc, lay_along};
pub use limits::JointLimit;
