//! The session's hands: the target's hands and fingers lined up with the source's in the
//! reference poses (`core::hands`), and the finger joints the fingers measure compares.

use super::{Session, SessionError};
use crate::core::hands::{Hand, HandPair, SegmentLink, align_hands, hand_pairs, hands};
use crate::core::quality::{HandSpec, Motion, Report, fingers, judge_fingers};

/// One hand's joints for the fingers measure, by name: the palm frame's joints on each side
/// (hand, middle base, index base, outer base) and the segments, as the judge's spec.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedHand {
    pub a: [String; 4],
    pub b: [String; 4],
    pub segments: Vec<[[String; 2]; 2]>,
}

impl Session {
    /// The hands both sides have, with the finger segments the map pairs.
    pub fn hand_pairs(&self) -> Vec<HandPair> {
        hand_pairs(
            self.source.skeleton(),
            &self.source.bone_labels(),
            self.target.skeleton(),
            &self.target.bone_labels(),
            &self.map,
        )
    }

    /// Each hand pair with the source's and the target's hand it pairs.
    fn paired_hands(&self) -> Vec<(HandPair, Hand, Hand)> {
        let (sh, th) = (
            hands(self.source.skeleton(), &self.source.bone_labels()),
            hands(self.target.skeleton(), &self.target.bone_labels()),
        );
        let find = |of: &[Hand], left: bool| of.iter().find(|h| h.left == left).cloned();
        (self.hand_pairs().into_iter())
            .filter_map(|pair| {
                let (s, t) = (find(&sh, pair.left)?, find(&th, pair.left)?);
                Some((pair, s, t))
            })
            .collect()
    }

    /// Turns the target's hands so their palm frames are the source's, and each paired
    /// finger segment to point where its source segment points, in the reference poses.
    pub fn align_hands(&mut self) -> Result<(), SessionError> {
        let pairs = self.hand_pairs();
        if pairs.is_empty() {
            return Ok(());
        }
        self.map_metacarpals(&pairs);
        let mut reference = self.target.reference.clone();
        let offsets = align_hands(
            self.source.skeleton(),
            &self.source.reference,
            self.target.skeleton(),
            &mut reference,
            &pairs,
        );
        for (joint, offset) in offsets {
            self.target.add_bone_offset(joint, offset);
        }
        self.target.rebuild_reference()
    }

    /// Each target metacarpal follows the source's metacarpal of its digit, or, where the
    /// source has none, the source's hand (it stays as it rests on the hand): left to the
    /// automatic map it may follow the finger above it (and carry the finger's base with its
    /// curl) or stay with the forearm. Pairs from labels, names or made by hand are kept.
    fn map_metacarpals(&mut self, pairs: &[HandPair]) {
        use crate::core::{BonePair, MapMethod};
        for &(source, target) in pairs.iter().flat_map(|p| &p.metacarpals) {
            let kept = self.map.for_target(target).is_some_and(|p| {
                p.bone.is_some() || !matches!(p.method, MapMethod::Chain | MapMethod::Topology)
            });
            if !kept {
                self.map.insert(BonePair {
                    method: MapMethod::Chain,
                    confidence: 0.7,
                    ..BonePair::new(source, target)
                });
            }
        }
    }

    /// What the fingers measure compares, by joint name: the segments whose ends the
    /// readers see (not a BVH's End Sites).
    pub fn judged_hands(&self) -> Vec<JudgedHand> {
        use super::quality_report::is_measured;
        let (src, tgt) = (
            self.source.skeleton().names(),
            self.target.skeleton().names(),
        );
        let seen = |s: &SegmentLink| {
            is_measured(&self.source, s.source.1) && is_measured(&self.target, s.target.1)
        };
        self.hand_pairs()
            .into_iter()
            .filter(|p| p.segments.iter().any(seen))
            .map(|p| JudgedHand {
                a: p.source.map(|j| src[j].clone()),
                b: p.target.map(|j| tgt[j].clone()),
                segments: p
                    .segments
                    .iter()
                    .filter(|s| seen(s))
                    .map(|s| {
                        [
                            [src[s.source.0].clone(), src[s.source.1].clone()],
                            [tgt[s.target.0].clone(), tgt[s.target.1].clone()],
                        ]
                    })
                    .collect(),
            })
            .collect()
    }

    /// Adds the fingers measure to `report` where both sides have hands with paired fingers.
    pub(super) fn measure_fingers(&self, a: &Motion, b: &Motion, report: &mut Report) {
        let index = |m: &Motion, names: &[String]| -> Option<Vec<usize>> {
            names.iter().map(|n| m.joint(n)).collect()
        };
        let specs: Vec<HandSpec> = self
            .judged_hands()
            .iter()
            .filter_map(|h| {
                let pa = index(a, &h.a)?;
                let pb = index(b, &h.b)?;
                let segments = h
                    .segments
                    .iter()
                    .filter_map(|[s, t]| {
                        let (s, t) = (index(a, s)?, index(b, t)?);
                        Some(((s[0], s[1]), (t[0], t[1])))
                    })
                    .collect();
                Some(HandSpec {
                    a: [pa[0], pa[1], pa[2], pa[3]],
                    b: [pb[0], pb[1], pb[2], pb[3]],
                    segments,
                })
            })
            .collect();
        if let Some(figures) = fingers(a, b, &specs) {
            judge_fingers(report, figures);
        }
    }
}

/// One finger's curl on both sides in a pose (the editor's Fingers section).
#[derive(Clone, Debug, PartialEq)]
pub struct FingerCurl {
    pub left: bool,
    pub digit: crate::core::hands::Digit,
    /// Degrees, closing the hand positive; `None` where that side's finger cannot be measured.
    pub source_deg: Option<f32>,
    pub target_deg: Option<f32>,
}

impl Session {
    /// Each finger both hands have, with its curl (`core::hands::finger_shape`) in the
    /// palm frame of each side, from world matrices of the two skeletons' joints.
    pub fn finger_curls(
        &self,
        source_world: &[glam::Mat4],
        target_world: &[glam::Mat4],
    ) -> Vec<FingerCurl> {
        use crate::core::hands::{Digit, finger_shape, palm_frame};
        let curl = |world: &[glam::Mat4], palm: [usize; 4], joints: &[usize]| {
            let p = |j: usize| world.get(j).map(|m| m.w_axis.truncate());
            let frame = palm_frame(p(palm[0])?, p(palm[1])?, p(palm[2])?, p(palm[3])?)?;
            let points: Vec<glam::Vec3> = joints.iter().map(|&j| p(j)).collect::<Option<_>>()?;
            Some(finger_shape(frame, &points)?.curl.to_degrees())
        };
        // The palm frame's z is the left palm's back and the right palm's front: curls are
        // given closing the hand positive on both.
        let closing = |left: bool, d: Option<f32>| d.map(|d| if left { -d } else { d });
        let mut out = Vec::new();
        for (pair, s, t) in self.paired_hands() {
            for digit in Digit::ALL {
                let (sd, td) = (s.digit(digit), t.digit(digit));
                if sd.is_empty() || td.is_empty() {
                    continue;
                }
                out.push(FingerCurl {
                    left: pair.left,
                    digit,
                    source_deg: closing(pair.left, curl(source_world, pair.source, sd)),
                    target_deg: closing(pair.left, curl(target_world, pair.target, td)),
                });
            }
        }
        out
    }
}

/// One digit's tip on both sides in a pose: the angle between the two last segments in
/// their palm frames, and how far each finger has closed (`core::hands::tips`).
#[derive(Clone, Debug, PartialEq)]
pub struct FingerTipPair {
    pub left: bool,
    pub digit: crate::core::hands::Digit,
    /// Degrees between the source's and the target's last segments in their palm frames.
    pub apart_deg: f32,
    /// Each side's tip pitch from the palm's x, degrees.
    pub source_closed_deg: f32,
    pub target_closed_deg: f32,
}

impl Session {
    /// Each digit both hands have, its tips compared at the poses whose world matrices are
    /// `source_world` and `target_world` (the reference poses' give each side's rest).
    pub fn finger_tips(
        &self,
        source_world: &[glam::Mat4],
        target_world: &[glam::Mat4],
    ) -> Vec<FingerTipPair> {
        use crate::core::hands::tips;
        let (sk, tk) = (self.source.skeleton(), self.target.skeleton());
        let (sr, tr) = (
            self.source.reference.locals.world_matrices(sk),
            self.target.reference.locals.world_matrices(tk),
        );
        let mut out = Vec::new();
        for (pair, s, t) in self.paired_hands() {
            let a = tips(sk, &s, pair.source, source_world, &sr);
            for b in tips(tk, &t, pair.target, target_world, &tr) {
                let Some(a) = a.iter().find(|a| a.digit == b.digit) else {
                    continue;
                };
                out.push(FingerTipPair {
                    left: pair.left,
                    digit: b.digit,
                    apart_deg: a.direction.angle_between(b.direction).to_degrees(),
                    source_closed_deg: a.closed.to_degrees(),
                    target_closed_deg: b.closed.to_degrees(),
                });
            }
        }
        out
    }
}
