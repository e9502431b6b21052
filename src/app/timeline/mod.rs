//! Playback: the clock both characters share, and the timeline strip along the bottom with
//! what is drawn under it (the quality strip, the feet's contact bars and their editing).

pub mod contact_bars;
pub mod contact_edit;
pub mod hand_bars;
pub mod quality_strip;

use eframe::egui;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Playback {
    /// Seconds from the clip's start.
    pub time_secs: f32,
    pub playing: bool,
    pub looping: bool,
    pub speed: f32,
}

impl Default for Playback {
    fn default() -> Self {
        Self {
            time_secs: 0.0,
            playing: true,
            looping: true,
            speed: 1.0,
        }
    }
}

/// What the timeline needs to know of the clip.
#[derive(Clone, Debug, PartialEq)]
pub struct ClipInfo {
    pub name: String,
    pub duration_secs: f32,
    pub fps: f32,
    pub all_names: Vec<String>,
}

impl ClipInfo {
    pub fn frame_count(&self) -> usize {
        (self.duration_secs * self.fps).round() as usize + 1
    }
}

impl Playback {
    /// Moves the clock by `dt` real seconds.
    pub fn advance(&mut self, dt: f32, clip: &ClipInfo) {
        if !self.playing {
            return;
        }
        self.time_secs += dt * self.speed;
        let end = clip.duration_secs;
        if self.time_secs > end {
            if self.looping && end > 0.0 {
                self.time_secs %= end;
            } else {
                self.time_secs = end;
                self.playing = false;
            }
        }
        if self.time_secs < 0.0 {
            self.time_secs = if self.looping {
                end + self.time_secs % end.max(1e-6)
            } else {
                0.0
            };
        }
    }

    pub fn frame(&self, clip: &ClipInfo) -> usize {
        (self.time_secs * clip.fps).round() as usize
    }

    pub fn set_frame(&mut self, frame: usize, clip: &ClipInfo) {
        let last = clip.frame_count().saturating_sub(1);
        self.time_secs = (frame.min(last) as f32 / clip.fps).min(clip.duration_secs);
    }

    /// Space, ←/→, Home/End, when no text field has focus.
    pub fn handle_keys(&mut self, ctx: &egui::Context, clip: &ClipInfo) {
        if ctx.egui_wants_keyboard_input() {
            return;
        }
        let (space, left, right, home, end) = ctx.input(|i| {
            (
                i.key_pressed(egui::Key::Space),
                i.key_pressed(egui::Key::ArrowLeft),
                i.key_pressed(egui::Key::ArrowRight),
                i.key_pressed(egui::Key::Home),
                i.key_pressed(egui::Key::End),
            )
        });
        if space {
            self.playing = !self.playing;
        }
        if left || right {
            self.playing = false;
            let f = self.frame(clip);
            self.set_frame(if right { f + 1 } else { f.saturating_sub(1) }, clip);
        }
        if home {
            self.time_secs = 0.0;
        }
        if end {
            self.set_frame(usize::MAX, clip);
        }
    }
}

/// What the timeline reports: a clip the user picked, and where the scrubber's rail lies
/// (x, in points), for the quality strip drawn under it.
pub struct TimelineResponse {
    pub picked: Option<String>,
    pub rail: egui::Rangef,
}

/// The strip: transport buttons, scrubber, time and frame, speed, loop, clip picker.
pub fn timeline_ui(
    ui: &mut egui::Ui,
    playback: &mut Playback,
    clip: &ClipInfo,
    fps: Option<f32>,
) -> TimelineResponse {
    let picked = ui
        .horizontal(|ui| {
            let picked = transport_ui(ui, playback, clip);
            ui.separator();
            rate_ui(ui, fps);
            picked
        })
        .inner;
    let width = ui.available_width();
    let slider_width = width - 80.0;
    ui.spacing_mut().slider_width = slider_width;
    let slider = egui::Slider::new(&mut playback.time_secs, 0.0..=clip.duration_secs.max(1e-3))
        .show_value(false)
        .text("scrub");
    let response = ui.add(slider);
    if response.dragged() {
        playback.playing = false;
    }
    // The rail is the slider's width less the handle's radius at each end (egui's
    // geometry: the radius is the slider's thickness over 2.5).
    let thickness = ui
        .text_style_height(&egui::TextStyle::Body)
        .max(ui.spacing().interact_size.y);
    let (left, radius) = (response.rect.left(), thickness / 2.5);
    TimelineResponse {
        picked,
        rail: egui::Rangef::new(left + radius, left + slider_width - radius),
    }
}

/// The row of buttons and readouts above the scrubber; returns a clip the user picked.
fn transport_ui(ui: &mut egui::Ui, playback: &mut Playback, clip: &ClipInfo) -> Option<String> {
    let mut picked = None;
    if ui.button("|<").on_hover_text("Start (Home)").clicked() {
        playback.time_secs = 0.0;
    }
    if ui
        .button("<")
        .on_hover_text("Previous frame (Left arrow)")
        .clicked()
    {
        playback.playing = false;
        let f = playback.frame(clip);
        playback.set_frame(f.saturating_sub(1), clip);
    }
    let label = if playback.playing { "Pause" } else { "Play" };
    if ui
        .button(label)
        .on_hover_text("Play/pause (Space)")
        .clicked()
    {
        playback.playing = !playback.playing;
    }
    if ui
        .button(">")
        .on_hover_text("Next frame (Right arrow)")
        .clicked()
    {
        playback.playing = false;
        let f = playback.frame(clip);
        playback.set_frame(f + 1, clip);
    }
    if ui.button(">|").on_hover_text("End (End)").clicked() {
        playback.set_frame(usize::MAX, clip);
    }
    ui.checkbox(&mut playback.looping, "Loop");
    let speed = egui::DragValue::new(&mut playback.speed)
        .speed(0.01)
        .range(0.05..=4.0)
        .suffix("×");
    crate::app::panels::labelled(ui, "Speed", speed).on_hover_text("Playback speed");
    ui.separator();
    ui.monospace(format!(
        "{:6.3} s  frame {:>4} / {}",
        playback.time_secs,
        playback.frame(clip),
        clip.frame_count().saturating_sub(1)
    ));
    ui.separator();
    if clip.all_names.len() > 1 {
        let label = ui.label("Clip");
        egui::ComboBox::from_id_salt("clip_picker")
            .selected_text(&clip.name)
            .show_ui(ui, |ui| {
                for name in &clip.all_names {
                    if ui.selectable_label(*name == clip.name, name).clicked() && *name != clip.name
                    {
                        picked = Some(name.clone());
                    }
                }
            })
            .response
            .labelled_by(label.id);
    } else {
        ui.label(format!("clip: {}", clip.name));
    }
    picked
}

/// The frame rate the viewports reach, and why playback still keeps real time.
fn rate_ui(ui: &mut egui::Ui, fps: Option<f32>) {
    let text = fps.map_or("– fps".to_owned(), |f| format!("{f:.0} fps"));
    let renderer = crate::app::graphics::renderer().map_or(String::new(), |name| {
        let how = if crate::app::graphics::is_software_renderer(name) {
            " (software OpenGL: no anti-aliasing; RETARGET_STUDIO_MSAA=4 turns it on)"
        } else {
            ""
        };
        format!("\nRenderer: {name}{how}")
    });
    ui.weak(text).on_hover_text(format!(
        "Frames drawn per second, both viewports, while playing (paused, nothing is \
         measured). Playback keeps real time: when drawing is slower than the clip, frames \
         are skipped, never the clip slowed.{renderer}"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn clip() -> ClipInfo {
        ClipInfo {
            name: "walk".into(),
            duration_secs: 1.0,
            fps: 30.0,
            all_names: vec!["walk".into()],
        }
    }

    #[test]
    fn advance_loops_or_stops_at_the_end() {
        let mut p = Playback {
            time_secs: 0.9,
            ..Default::default()
        };
        p.advance(0.25, &clip());
        assert!((p.time_secs - 0.15).abs() < 1e-5);
        let mut p = Playback {
            time_secs: 0.9,
            looping: false,
            ..Default::default()
        };
        p.advance(0.25, &clip());
        assert_eq!(p.time_secs, 1.0);
        assert!(!p.playing);
    }

    #[test]
    fn frames_round_trip() {
        let mut p = Playback::default();
        p.set_frame(12, &clip());
        assert_eq!(p.frame(&clip()), 12);
        p.set_frame(999, &clip());
        assert_eq!(p.frame(&clip()), 30);
    }
}
