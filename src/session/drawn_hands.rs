//! Hand contacts drawn by hand: the project keeps them by clip and by what touches what (the
//! touch's label, as the editor's rows name it); the session hands them to the retargeter
//! in place of the detected ones, as it does the feet's.

use super::{FootContacts, Session};
use crate::core::contacts::{BodyPoint, Hand, Touch};
use crate::core::retarget::Retargeter;

/// Every touch the arms' pass keeps: hands together, on one prop, then each hand on each
/// body point.
pub(super) fn touches() -> Vec<Touch> {
    let mut all = vec![Touch::Hands, Touch::Prop];
    for hand in [Hand::Left, Hand::Right] {
        for body in [BodyPoint::Hips, BodyPoint::Chest, BodyPoint::Head] {
            all.push(Touch::Body { hand, body });
        }
    }
    all
}

impl Session {
    /// Hands the retargeter the hand contacts drawn for clip `clip`, per touch, or none
    /// (detected).
    pub(super) fn set_clip_hand_contacts(&self, r: &mut Retargeter, clip: &str) {
        for touch in touches() {
            let spans = self.solve.drawn_hand_contacts(clip, &touch.label());
            r.set_hand_spans(touch, spans.map(<[_]>::to_vec));
        }
    }

    /// The touches whose contacts on clip `clip` are drawn by hand, by label.
    pub fn drawn_hand_touches(&self, clip: &str) -> Vec<String> {
        (self.solve.hand_spans.iter())
            .filter(|h| h.clip == clip)
            .map(|h| h.touch.clone())
            .collect()
    }

    /// Adds an empty row for each touch drawn with no contacts on clip `name`, so the editor
    /// still shows it (and can give the detected ones back); none while hand contacts are off.
    pub(super) fn add_drawn_hand_rows(&self, name: Option<&str>, hands: &mut Vec<FootContacts>) {
        let Ok(clip) = self.source_clip(name) else {
            return;
        };
        if !self.solve.settings.hand_contacts {
            return;
        }
        for touch in self.drawn_hand_touches(&clip.name) {
            if !hands.iter().any(|h| h.foot == touch) {
                hands.push(FootContacts {
                    foot: touch,
                    contacts: Vec::new(),
                });
            }
        }
    }
}
