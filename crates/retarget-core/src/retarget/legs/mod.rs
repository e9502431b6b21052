//! The legs: each target leg the feet planting moves (`ik`) with its per-leg options kept by
//! name (`options`), planted feet held on the ground (`plant`) at goals eased in and out
//! (`goals`), and planted feet laid flat (`feet`).

pub(super) mod feet;
pub(super) mod goals;
pub(super) mod ik;
pub(super) mod options;
pub(super) mod plant;
