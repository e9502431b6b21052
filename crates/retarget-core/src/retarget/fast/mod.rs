//! The fast paths of one frame's solve, each exact against the plain one: rotations in the
//! parent's frame four joints at a time (`locals` plans them, `frame` runs them, `turns`), copied translations in the
//! parent's frame where both sides are rigid (`copies`), and forward kinematics that places
//! only the joints a solve reads, once (`fk`).

pub(super) mod copies;
pub(super) mod fk;
pub(super) mod frame;
pub(super) mod locals;
pub(super) mod turns;
