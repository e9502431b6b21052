//! Contact bars edited by hand: a bar's ends and body drag along the rail by whole
//! frames, a double-click on an empty lane adds a contact, and right-click menus delete a
//! contact, clear a foot's or go back to the detected ones. Each finished gesture yields the
//! foot's whole new list, which the studio turns into one undoable `Edit::SetContacts`.

use super::contact_bars::{ContactBars, ContactChange, bar_span, frame_at};
use crate::core::contacts::FootContact;
use crate::core::retarget::merged;
use crate::session::FootContacts;
use eframe::egui;

/// Width of the grab zone at each end of a bar, in points.
const HANDLE: f32 = 5.0;
/// Frames either side of the frame double-clicked that a new contact covers.
const NEW_HALF_WIDTH: usize = 3;

/// What a drag moves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Grip {
    Start,
    End,
    Body,
}

/// A drag in progress: the contact as it was and the frame the pointer started on.
#[derive(Clone, Copy, Debug)]
struct DragStart {
    contact: FootContact,
    frame: usize,
}

/// `contact` moved by `grip` from frame `from` to frame `to`, within `frames`.
fn dragged(contact: FootContact, grip: Grip, from: usize, to: usize, frames: usize) -> FootContact {
    let last = frames.max(1) - 1;
    match grip {
        Grip::Start => FootContact {
            start: to.min(contact.end),
            end: contact.end,
        },
        Grip::End => FootContact {
            start: contact.start,
            end: to.max(contact.start).min(last),
        },
        Grip::Body => {
            let len = contact.end - contact.start;
            let shifted = (contact.start as i64 + to as i64 - from as i64).clamp(0, last as i64);
            let start = (shifted as usize).min(last - len.min(last));
            FootContact {
                start,
                end: start + len,
            }
        }
    }
}

/// `foot`'s contacts with contact `index` replaced (or removed, with `None`).
fn replaced(foot: &FootContacts, index: usize, with: Option<FootContact>) -> ContactChange {
    let mut contacts = foot.contacts.clone();
    match with {
        Some(c) => contacts[index] = c,
        None => {
            contacts.remove(index);
        }
    }
    ContactChange {
        foot: foot.foot.clone(),
        contacts: Some(merged(contacts)),
    }
}

/// The drag zones of bar `index` of `foot`: returns the body's response (clicks go to the
/// bar's start) and the edit finished this frame. While dragging, the new span is outlined.
pub fn bar_edit_ui(
    ui: &mut egui::Ui,
    foot: &FootContacts,
    index: usize,
    rect: egui::Rect,
    bars: &ContactBars,
    rail: egui::Rangef,
) -> (egui::Response, Option<ContactChange>) {
    let id = ui.scope_id().with(("contact bar", &foot.foot, index));
    let body = ui.interact(rect, id, egui::Sense::click_and_drag());
    let handle = |x: f32| {
        let x = egui::Rangef::new(x - HANDLE / 2.0, x + HANDLE / 2.0);
        egui::Rect::from_x_y_ranges(x, rect.y_range())
    };
    let start = ui.interact(handle(rect.min.x), id.with("start"), egui::Sense::drag());
    let end = ui.interact(handle(rect.max.x), id.with("end"), egui::Sense::drag());
    let contact = foot.contacts[index];
    let mut change = None;
    for (response, grip) in [
        (&start, Grip::Start),
        (&end, Grip::End),
        (&body, Grip::Body),
    ] {
        if response.hovered() || response.dragged() {
            let icon = match grip {
                Grip::Body => egui::CursorIcon::Grab,
                _ => egui::CursorIcon::ResizeHorizontal,
            };
            ui.ctx().set_cursor_icon(icon);
        }
        let Some(x) = response.interact_pointer_pos().map(|p| p.x) else {
            continue;
        };
        let frame = frame_at(x, bars.frames, rail);
        if response.drag_started() {
            ui.data_mut(|d| d.insert_temp(id, DragStart { contact, frame }));
        }
        let Some(from) = ui.data(|d| d.get_temp::<DragStart>(id)) else {
            continue;
        };
        let moved = dragged(from.contact, grip, from.frame, frame, bars.frames);
        if response.dragged() {
            let span = bar_span(&moved, bars.frames, rail);
            let outline = egui::Rect::from_x_y_ranges(span, rect.y_range());
            let stroke = egui::Stroke::new(1.5, ui.visuals().strong_text_color());
            ui.painter()
                .rect_stroke(outline, 2.0, stroke, egui::StrokeKind::Outside);
        }
        if response.drag_stopped() {
            ui.data_mut(|d| d.remove::<DragStart>(id));
            if moved != contact {
                change = Some(replaced(foot, index, Some(moved)));
            }
        }
    }
    body.context_menu(|ui| {
        if ui.button("Delete this contact").clicked() {
            change = Some(replaced(foot, index, None));
            ui.close();
        }
        if let Some(c) = lane_menu_items(ui, foot, bars) {
            change = Some(c);
        }
    });
    (body, change)
}

/// The lane behind the bars: a double-click adds a contact there; right-click offers to
/// clear the foot's contacts or go back to the detected ones.
pub fn lane_ui(
    lane: &egui::Response,
    foot: &FootContacts,
    bars: &ContactBars,
    rail: egui::Rangef,
) -> Option<ContactChange> {
    let mut change = None;
    if lane.double_clicked()
        && let Some(p) = lane.interact_pointer_pos()
    {
        let at = frame_at(p.x, bars.frames, rail);
        let last = bars.frames.max(1) - 1;
        let mut contacts = foot.contacts.clone();
        contacts.push(FootContact {
            start: at.saturating_sub(NEW_HALF_WIDTH),
            end: (at + NEW_HALF_WIDTH).min(last),
        });
        change = Some(ContactChange {
            foot: foot.foot.clone(),
            contacts: Some(merged(contacts)),
        });
    }
    lane.context_menu(|ui| change = lane_menu_items(ui, foot, bars).or(change.take()));
    let tip = format!("{}: double-click to add a contact here", foot.foot);
    lane.clone().on_hover_text(tip);
    change
}

/// "Clear" and, for contacts drawn by hand, "Back to detected".
fn lane_menu_items(
    ui: &mut egui::Ui,
    foot: &FootContacts,
    bars: &ContactBars,
) -> Option<ContactChange> {
    let mut change = None;
    if ui
        .button(format!("Clear {}'s contacts", foot.foot))
        .clicked()
    {
        change = Some(ContactChange {
            foot: foot.foot.clone(),
            contacts: Some(Vec::new()),
        });
        ui.close();
    }
    let drawn = bars.drawn.contains(&foot.foot);
    if ui
        .add_enabled(drawn, egui::Button::new("Back to detected contacts"))
        .clicked()
    {
        change = Some(ContactChange {
            foot: foot.foot.clone(),
            contacts: None,
        });
        ui.close();
    }
    change
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(start: usize, end: usize) -> FootContact {
        FootContact { start, end }
    }

    #[test]
    fn ends_and_body_drag_by_whole_frames_within_the_clip() {
        let contact = c(10, 20);
        assert_eq!(dragged(contact, Grip::Start, 10, 4, 100), c(4, 20));
        // An end never passes the other.
        assert_eq!(dragged(contact, Grip::Start, 10, 30, 100), c(20, 20));
        assert_eq!(dragged(contact, Grip::End, 20, 5, 100), c(10, 10));
        assert_eq!(dragged(contact, Grip::End, 20, 500, 100), c(10, 99));
        // The body keeps its length and stays inside the clip.
        assert_eq!(dragged(contact, Grip::Body, 15, 18, 100), c(13, 23));
        assert_eq!(dragged(contact, Grip::Body, 15, 0, 100), c(0, 10));
        assert_eq!(dragged(contact, Grip::Body, 15, 99, 100), c(89, 99));
    }

    #[test]
    fn edits_keep_contacts_sorted_and_apart() {
        assert_eq!(
            merged(vec![c(30, 40), c(0, 5), c(6, 8), c(35, 50)]),
            vec![c(0, 8), c(30, 50)]
        );
        let foot = FootContacts {
            foot: "LeftFoot".into(),
            contacts: vec![c(0, 5), c(20, 30)],
        };
        let moved = replaced(&foot, 1, Some(c(4, 12)));
        assert_eq!(moved.contacts, Some(vec![c(0, 12)]));
        let gone = replaced(&foot, 0, None);
        assert_eq!(gone.contacts, Some(vec![c(20, 30)]));
    }
}
