//! How a pair is solved, as the user set it, joints by name: saved in the project, held by
//! the session, snapshotted by the editor's undo. Each edit is one method here, so the
//! project file, the session and the editor change it the same way.

use retarget_core::ik::JointLimit;
use retarget_core::retarget::{ContactSpans, LegOptions, Stride};
use serde::{Deserialize, Serialize};

/// How a pair is solved, as the user set it, joints by name: the project saves it, the
/// session holds it (and the editor's undo restores it), and the session applies it to each
/// retargeter it builds, the one way it flows into the solve.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SolveEdits {
    /// Feet planting, IK and limits for the whole pair.
    #[serde(default)]
    pub settings: retarget_core::retarget::SolveSettings,
    /// Target chains solved to reach their source's end (absolute mode), by end joint name.
    #[serde(default)]
    pub reach: Vec<String>,
    /// Target feet whose legs are not planted (IK off), by joint name.
    #[serde(default)]
    pub unplanted: Vec<String>,
    /// Per-bone IK limits in place of the humanoid defaults (`None`: unlimited).
    #[serde(default)]
    pub limits: Vec<(String, Option<JointLimit>)>,
    /// Per twist bone, its share of the limb's roll set by hand, by joint name.
    #[serde(default)]
    pub twists: Vec<(String, f32)>,
    /// Per-leg pole and contact thresholds, by foot name (only legs that differ).
    #[serde(default)]
    pub legs: Vec<LegOptions>,
    /// Contacts drawn by hand, per clip and foot (seconds), in place of the detected ones.
    #[serde(default)]
    pub contact_spans: Vec<ContactSpans>,
    /// Clips whose target keeps the source's path (strides warped), by clip name; the rest
    /// scale the path by leg length.
    #[serde(default)]
    pub strides: Vec<(String, Stride)>,
    /// Hand contacts drawn by hand, per clip and touch (seconds), in place of the detected
    /// ones of that touch.
    #[serde(default)]
    pub hand_spans: Vec<HandSpans>,
}

/// Hand contacts drawn by hand for one touch on one clip, in that clip's seconds, in place
/// of the detected ones (an empty list: that touch is never held on that clip).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct HandSpans {
    pub clip: String,
    /// What touches what, as `Touch::label` names it ("hands together").
    pub touch: String,
    /// `(start, end)` seconds, each a contact.
    pub spans: Vec<(f32, f32)>,
}

impl SolveEdits {
    /// Chain ending at `joint` solved in absolute mode, or not.
    pub fn set_reach(&mut self, joint: &str, on: bool) {
        self.reach.retain(|j| j != joint);
        if on {
            self.reach.push(joint.to_owned());
        }
    }

    /// The leg of `foot` planted on its contacts, or left to the frame-by-frame solve.
    pub fn set_planting(&mut self, foot: &str, on: bool) {
        self.unplanted.retain(|f| f != foot);
        if !on {
            self.unplanted.push(foot.to_owned());
        }
    }

    /// `joint`'s IK limit: `None` puts the humanoid default back; `Some(None)` is unlimited.
    pub fn set_limit(&mut self, joint: &str, limit: Option<Option<JointLimit>>) {
        self.limits.retain(|(j, _)| j != joint);
        if let Some(limit) = limit {
            self.limits.push((joint.to_owned(), limit));
        }
    }

    /// Twist bone `joint`'s share of its limb's roll, within [0, 1]; `None` (or a number that
    /// is not finite) puts back the share by its place along the limb. The share kept.
    pub fn set_twist(&mut self, joint: &str, weight: Option<f32>) -> Option<f32> {
        self.twists.retain(|(j, _)| j != joint);
        let w = weight.filter(|w| w.is_finite())?.clamp(0.0, 1.0);
        self.twists.push((joint.to_owned(), w));
        Some(w)
    }

    /// Leg `foot`'s options (defaults when none are kept).
    pub fn leg(&self, foot: &str) -> LegOptions {
        self.legs
            .iter()
            .find(|l| l.foot == foot)
            .cloned()
            .unwrap_or_else(|| LegOptions::new(foot))
    }

    /// Keeps a leg's options; defaults are not kept.
    pub fn set_leg(&mut self, options: &LegOptions) {
        self.legs.retain(|l| l.foot != options.foot);
        if !options.is_default() {
            self.legs.push(options.clone());
        }
    }

    /// How clip `clip` covers ground (the default unless set).
    pub fn stride(&self, clip: &str) -> Stride {
        let set = self.strides.iter().find(|(c, _)| c == clip);
        set.map_or(Stride::default(), |(_, s)| *s)
    }

    /// Sets how clip `clip` covers ground; the default is not kept.
    pub fn set_stride(&mut self, clip: &str, stride: Stride) {
        self.strides.retain(|(c, _)| c != clip);
        if stride != Stride::default() {
            self.strides.push((clip.to_owned(), stride));
        }
    }

    /// The contacts drawn for `foot` on `clip`, in seconds, if any.
    pub fn drawn_contacts(&self, clip: &str, foot: &str) -> Option<&[(f32, f32)]> {
        self.contact_spans
            .iter()
            .find(|c| c.clip == clip && c.foot == foot)
            .map(|c| c.spans.as_slice())
    }

    /// Contacts drawn for `foot` on `clip` in place of the detected ones; `None` goes back to
    /// the detected.
    pub fn set_drawn_contacts(&mut self, clip: &str, foot: &str, spans: Option<Vec<(f32, f32)>>) {
        self.contact_spans
            .retain(|c| !(c.clip == clip && c.foot == foot));
        if let Some(spans) = spans {
            self.contact_spans.push(ContactSpans {
                clip: clip.to_owned(),
                foot: foot.to_owned(),
                spans,
            });
        }
    }

    /// The hand contacts drawn for `touch` on `clip`, in seconds, if any.
    pub fn drawn_hand_contacts(&self, clip: &str, touch: &str) -> Option<&[(f32, f32)]> {
        self.hand_spans
            .iter()
            .find(|h| h.clip == clip && h.touch == touch)
            .map(|h| h.spans.as_slice())
    }

    /// Hand contacts drawn for `touch` on `clip` in place of the detected ones; `None` goes
    /// back to the detected.
    pub fn set_drawn_hand_contacts(
        &mut self,
        clip: &str,
        touch: &str,
        spans: Option<Vec<(f32, f32)>>,
    ) {
        self.hand_spans
            .retain(|h| !(h.clip == clip && h.touch == touch));
        if let Some(spans) = spans {
            self.hand_spans.push(HandSpans {
                clip: clip.to_owned(),
                touch: touch.to_owned(),
                spans,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_edit_replaces_what_it_set_before_and_defaults_are_not_kept() {
        let mut e = SolveEdits::default();
        e.set_reach("hand_l", true);
        e.set_reach("hand_l", true);
        assert_eq!(e.reach, ["hand_l"]);
        e.set_reach("hand_l", false);
        assert!(e.reach.is_empty());
        e.set_planting("foot_r", false);
        assert_eq!(e.unplanted, ["foot_r"]);
        e.set_planting("foot_r", true);
        assert!(e.unplanted.is_empty());
        e.set_limit("calf_l", Some(None));
        assert_eq!(e.limits, [("calf_l".to_owned(), None)]);
        e.set_limit("calf_l", None);
        assert!(e.limits.is_empty());
        e.set_stride("walk", Stride::SourcePath);
        assert_eq!(e.stride("walk"), Stride::SourcePath);
        assert_eq!(e.stride("run"), Stride::ScaledByLegs);
        e.set_stride("walk", Stride::ScaledByLegs);
        assert!(e.strides.is_empty());
        assert_eq!(e.set_twist("twist", Some(1.5)), Some(1.0));
        assert_eq!(e.set_twist("twist", Some(f32::NAN)), None);
        assert!(e.twists.is_empty());
        e.set_leg(&LegOptions::new("foot_l"));
        assert!(e.legs.is_empty(), "a leg's defaults are not kept");
        e.set_drawn_contacts("walk", "foot_l", Some(vec![(0.0, 0.5)]));
        e.set_drawn_contacts("walk", "foot_l", Some(vec![(1.0, 1.5)]));
        assert_eq!(e.drawn_contacts("walk", "foot_l"), Some(&[(1.0, 1.5)][..]));
        assert_eq!(e.drawn_contacts("run", "foot_l"), None);
        e.set_drawn_contacts("walk", "foot_l", None);
        assert!(e.contact_spans.is_empty());
        e.set_drawn_hand_contacts("walk", "hands together", Some(vec![(0.0, 0.5)]));
        e.set_drawn_hand_contacts("walk", "hands together", Some(vec![(1.0, 1.5)]));
        let drawn = e.drawn_hand_contacts("walk", "hands together");
        assert_eq!(drawn, Some(&[(1.0, 1.5)][..]));
        assert_eq!(e.drawn_hand_contacts("walk", "left hand on hips"), None);
        e.set_drawn_hand_contacts("walk", "hands together", None);
        assert!(e.hand_spans.is_empty());
    }

    #[test]
    fn drawn_hand_contacts_round_trip_and_edits_saved_before_them_load() {
        let mut e = SolveEdits::default();
        e.set_drawn_contacts("walk", "foot_l", Some(vec![(0.0, 0.5)]));
        e.set_drawn_hand_contacts("walk", "hands together", Some(vec![(0.25, 1.0)]));
        e.set_drawn_hand_contacts("run", "left hand on hips", Some(Vec::new()));
        let text = ron::to_string(&e).unwrap();
        assert!(text.contains("hand_spans"), "{text}");
        assert_eq!(ron::from_str::<SolveEdits>(&text).unwrap(), e);
        // Edits saved before hand contacts could be drawn: none drawn.
        let old = r#"(reach: ["hand_l"], contact_spans: [(clip: "walk", foot: "foot_l", spans: [(0.0, 0.5)])])"#;
        let old: SolveEdits = ron::from_str(old).unwrap();
        assert!(old.hand_spans.is_empty());
        assert_eq!(
            old.drawn_contacts("walk", "foot_l"),
            Some(&[(0.0, 0.5)][..])
        );
    }
}
