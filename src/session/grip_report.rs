//! The grip measure's pairs for a session: the source's hand contacts (two hands together,
//! a hand on the hips, chest or head) found on the measured source motion, each with its
//! joints on both sides by the map's humanoid labels, for `core::quality::grip`.

use super::Session;
use crate::core::HumanBone;
use crate::core::contacts::{BodyPoint, Touch};
use crate::core::quality::{self, GripFigures, GripPair, Motion};

/// The labels a body point is read from, first mapped wins (as the arms' pass reads them).
fn body_bones(point: BodyPoint) -> &'static [HumanBone] {
    use HumanBone::*;
    match point {
        BodyPoint::Hips => &[Hips],
        BodyPoint::Chest => &[UpperChest, Chest, Spine],
        BodyPoint::Head => &[Head],
    }
}

impl Session {
    /// The (source, target) joint names of `bones`' first mapped label.
    fn labelled(&self, bones: &[HumanBone]) -> Option<(String, String)> {
        let p = bones.iter().find_map(|&b| self.map.for_bone(b))?;
        let (src, tgt) = (
            self.source.skeleton().names(),
            self.target.skeleton().names(),
        );
        Some((src[p.source].clone(), tgt[p.target].clone()))
    }

    /// The grip figures of output `b` against source `a` (the target's own `t`): `None`
    /// when the map pairs no two hands or the source has no hand contact.
    pub(super) fn grip_figures(&self, a: &Motion, b: &Motion, t: &Motion) -> Option<GripFigures> {
        let joint = |bones: &[HumanBone]| {
            let (s, g) = self.labelled(bones)?;
            Some((a.joint(&s)?, b.joint(&g)?))
        };
        let hands = [
            joint(&[HumanBone::LeftHand])?,
            joint(&[HumanBone::RightHand])?,
        ];
        let body: Vec<(BodyPoint, (usize, usize))> = BodyPoint::ALL
            .into_iter()
            .filter_map(|p| Some((p, joint(body_bones(p))?)))
            .collect();
        let on_a: Vec<(BodyPoint, usize)> = body.iter().map(|&(p, (j, _))| (p, j)).collect();
        let shoulders = [HumanBone::LeftUpperArm, HumanBone::RightUpperArm]
            .map(|b| joint(&[b]).map(|(s, _)| s));
        let shoulders = shoulders[0].zip(shoulders[1]).map(|(l, r)| [l, r]);
        let elbows = [HumanBone::LeftLowerArm, HumanBone::RightLowerArm]
            .map(|b| joint(&[b]).map(|(s, _)| s));
        let elbows = elbows[0].zip(elbows[1]).map(|(l, r)| [l, r]);
        let arms = shoulders.map(|s| (s, elbows));
        let limits = &self.solve.settings.hand_thresholds.sanitized();
        let hands_a = [hands[0].0, hands[1].0];
        let contacts = quality::grip_contacts(a, hands_a, arms, &on_a, limits);
        let pairs: Vec<GripPair> = contacts
            .iter()
            .filter_map(|c| {
                let (x, y) = match c.touch {
                    Touch::Hands | Touch::Prop => (hands[0], hands[1]),
                    Touch::Body { hand, body: point } => {
                        let (_, at) = body.iter().find(|(p, _)| *p == point)?;
                        (hands[hand.index()], *at)
                    }
                };
                Some(GripPair {
                    touch: c.touch,
                    a: (x.0, y.0),
                    b: (x.1, y.1),
                    start: c.start,
                    end: c.end,
                })
            })
            .collect();
        quality::grip(a, b, t, &pairs)
    }
}

impl Session {
    /// The contacts the solve keeps on clip `name`, from one retarget: per planted target
    /// foot (as `foot_contacts`), then per hand touch the arms keep (a row named by what
    /// touches what: "hands together", "left hand on hips"); the hands' are empty when
    /// hand contacts are off.
    pub fn solve_contacts(
        &self,
        name: Option<&str>,
    ) -> Result<(Vec<super::FootContacts>, Vec<super::FootContacts>), super::SessionError> {
        use crate::core::contacts::FootContact;
        let mut r = self.retargeter()?;
        let output = self.retarget_clip_by(&mut r, name, None)?;
        let names = self.target.skeleton().names();
        let feet = (output.plant.contacts.iter())
            .map(|(foot, contacts)| super::FootContacts {
                foot: names[*foot].clone(),
                contacts: contacts.clone(),
            })
            .collect();
        let mut hands: Vec<super::FootContacts> = Vec::new();
        for c in &output.plant.hand_contacts {
            let label = c.touch.label();
            let span = FootContact {
                start: c.start,
                end: c.end,
            };
            match hands.iter_mut().find(|h| h.foot == label) {
                Some(row) => row.contacts.push(span),
                None => hands.push(super::FootContacts {
                    foot: label,
                    contacts: vec![span],
                }),
            }
        }
        self.add_drawn_hand_rows(name, &mut hands);
        Ok((feet, hands))
    }
}
