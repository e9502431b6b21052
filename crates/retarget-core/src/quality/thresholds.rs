//! The limits a retarget must keep (the quality matrix's rules). Each is compared with one
//! figure of the report; a figure on its limit passes.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Thresholds {
    /// Largest bone length change, in target heights.
    pub body: f64,
    /// |target − source's own| mean foot height over the contacts, mm at 1.75 m scale.
    pub ground_mm: f64,
    /// |target − source| mean pelvis height, in leg lengths.
    pub pelvis: f64,
    /// Mean limb direction error, degrees.
    pub direction_deg: f64,
    /// Largest joint position error when both sides are one character, in source heights.
    pub same_rig: f64,
    /// Target mean skate per contact above the source's own, mm at 1.75 m scale.
    pub skate_mm: f64,
    /// How far a chain in absolute mode may end from its source's end, mm at 1.75 m scale
    /// (the per-frame strip only).
    pub reach_mm: f64,
    /// How far a source's hand contact may stray on the target (the two joints' distance
    /// against the source's, worst frame), mm at 1.75 m scale.
    pub grip_mm: f64,
    /// Mean finger segment direction error in the hand's frame, degrees.
    pub fingers_deg: f64,
    /// How much deeper than the source's own a limb may go into the body at any frame,
    /// mm at 1.75 m scale (`quality::penetration`).
    pub penetration_mm: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Self {
            body: 1e-2,
            ground_mm: 25.0,
            pelvis: 0.05,
            direction_deg: 5.0,
            same_rig: 1e-3,
            skate_mm: 5.0,
            reach_mm: 10.0,
            grip_mm: 30.0,
            fingers_deg: 5.0,
            penetration_mm: 10.0,
        }
    }
}

impl Thresholds {
    /// How far `measured` goes toward `limit`: above 1 breaks it. Used for the verdicts, the
    /// order of the flags and the per-frame strip alike, so they always agree.
    pub fn severity(measured: f64, limit: f64) -> f64 {
        if limit > 0.0 {
            measured / limit
        } else if measured > 0.0 {
            f64::INFINITY
        } else {
            0.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_is_the_share_of_the_limit() {
        assert_eq!(Thresholds::severity(41.0, 25.0), 1.64);
        assert_eq!(Thresholds::severity(25.0, 25.0), 1.0);
        assert_eq!(Thresholds::severity(0.0, 0.0), 0.0);
        assert_eq!(Thresholds::severity(1.0, 0.0), f64::INFINITY);
        let t: Thresholds = serde_json::from_str(r#"{"ground_mm": 10}"#).unwrap();
        assert_eq!((t.ground_mm, t.skate_mm), (10.0, 5.0));
    }
}
