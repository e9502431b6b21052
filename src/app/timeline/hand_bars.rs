//! The hand contact bars under the feet's: one row per hand touch the arms keep (hands
//! together, a hand on the hips, chest or head), a bar for each of the source's contacts,
//! on the scrubber's rail as the feet's are. A click on a bar goes to its start; they are
//! edited as the feet's are (`contact_edit`): an edit replaces that touch's contacts on
//! this clip (`Edit::SetHandContacts`, undoable, saved in the project). The Solve tab's
//! Hand contacts switch turns them off.

use super::contact_bars::{BarLook, ContactBars, ContactChange, DrawnBar, rows_ui};
use super::{ClipInfo, Playback};
use eframe::egui;

/// The hands' bars.
const HANDS: BarLook = BarLook {
    color: egui::Color32::from_rgb(200, 135, 60),
    hovered: egui::Color32::from_rgb(230, 170, 90),
    tip: |touch, contact| {
        format!(
            "{touch}, frames {}–{}: kept on the target by arm IK. Click to go to its start, \
             drag its ends or body to edit it, right-click to delete it.",
            contact.start, contact.end
        )
    },
};

/// Draws one row per hand touch of `bars` under a rail spanning `rail` (x, in points);
/// returns the bars drawn and the edit the user finished this frame, if any.
pub fn hand_bars_ui(
    ui: &mut egui::Ui,
    rail: egui::Rangef,
    bars: &ContactBars,
    playback: &mut Playback,
    clip: &ClipInfo,
) -> (Vec<DrawnBar>, Option<ContactChange>) {
    rows_ui(ui, rail, (&bars.hands, &HANDS), bars, playback, clip)
}
