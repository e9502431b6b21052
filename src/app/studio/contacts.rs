//! The contact bars in the editor: the planted feet's contacts of the current clip, found
//! in the background as the document and clip change, drawn under the quality strip.

use super::StudioApp;
use crate::app::command::Command;
use crate::app::guard::Job;
use crate::app::tasks::keyed::KeyedTask;
use crate::app::timeline::contact_bars::{ContactBars, contact_bars_ui};
use crate::app::timeline::hand_bars::hand_bars_ui;
use crate::session::{Edit, Session};
use eframe::egui;

pub(super) type ContactsTask = KeyedTask<ContactBars>;

pub(super) fn contacts_task() -> ContactsTask {
    KeyedTask::new(Job::Contacts)
}

/// The contacts of clip `clip` and the output's frame count they are in.
fn find_contacts(session: &Session, clip: &str) -> anyhow::Result<ContactBars> {
    let source = session.source_clip(Some(clip))?;
    let fps = session
        .export
        .fps
        .or(source.fps())
        .unwrap_or(30.0)
        .max(1e-3);
    let (feet, hands) = session.solve_contacts(Some(clip))?;
    let mut drawn: Vec<String> = feet
        .iter()
        .filter(|f| session.solve.drawn_contacts(clip, &f.foot).is_some())
        .map(|f| f.foot.clone())
        .collect();
    drawn.extend(session.drawn_hand_touches(clip));
    Ok(ContactBars {
        frames: (source.duration_secs() * fps).round() as usize + 1,
        feet,
        hands,
        drawn,
        start_secs: source.start_secs(),
        duration_secs: source.duration_secs(),
    })
}

impl StudioApp {
    /// Finds the contacts again when the document or the clip changed; a screenshot waits
    /// for them, as it does for the quality report.
    pub(super) fn update_contacts(&mut self, ctx: &egui::Context) {
        let (Some(key), Some(session)) = (self.quality_key(), &self.doc.session) else {
            return;
        };
        let (session, clip) = (session.clone(), key.1.clone());
        self.tasks
            .contacts
            .request(key, ctx, false, move || find_contacts(&session, &clip));
        if self.screenshot.is_some() {
            self.tasks.contacts.wait();
        }
    }

    /// The last contacts found for this clip (possibly of an earlier revision while newer
    /// ones are found).
    pub fn contact_bars(&self) -> Option<&ContactBars> {
        self.tasks.contacts.latest_for_clip(self.clip.as_deref())
    }

    /// Blocks until the contacts being found are done (tests).
    pub fn wait_for_contacts(&mut self) {
        self.tasks.contacts.wait();
    }

    /// One row per planted foot, then per hand touch, under the timeline's rail; an edit of
    /// either is one undoable edit.
    pub(super) fn contact_bars_ui(&mut self, ui: &mut egui::Ui, rail: egui::Rangef) {
        let (Some(info), Some(bars)) = (
            self.clip_info(),
            self.tasks.contacts.latest_for_clip(self.clip.as_deref()),
        ) else {
            self.drawn.bars.clear();
            self.drawn.hand_bars.clear();
            return;
        };
        let (drawn, change) = contact_bars_ui(ui, rail, bars, &mut self.playback, &info);
        let (hand_bars, hand_change) = hand_bars_ui(ui, rail, bars, &mut self.playback, &info);
        if let Some(change) = hand_change {
            let spans = change.contacts.map(|c| bars.spans(&c));
            self.commands.push(Command::Edit(Edit::SetHandContacts {
                clip: info.name.clone(),
                touch: change.foot,
                spans,
            }));
        }
        if let Some(change) = change {
            let spans = change.contacts.map(|c| bars.spans(&c));
            self.commands.push(Command::Edit(Edit::SetContacts {
                clip: info.name.clone(),
                foot: change.foot,
                spans,
            }));
        }
        self.drawn.bars = drawn;
        self.drawn.hand_bars = hand_bars;
    }
}
