//! What an export will weigh, shown before it is written, and where the source's rate is not
//! one engines use (a 120 or 240 fps capture), the offer of the target's usual rate with keys
//! reduced: a take at its capture rate writes megabytes of keys nobody needs.

use super::export::{ExportForm, FpsChoice};
use crate::session::Session;
use eframe::egui;

/// Frame rates animation is authored and played at; a source at another is resampled when
/// the user agrees.
const USUAL_RATES: [f32; 5] = [24.0, 25.0, 30.0, 50.0, 60.0];
/// Bytes an FBX spends per key, about (a 240 fps take's 1.8 M keys wrote 22 MB).
const FBX_BYTES_PER_KEY: f64 = 12.5;
/// Curves per joint: a rotation's three; the pelvis adds its translation's three.
const CURVES_PER_JOINT: usize = 3;

fn usual(rate: f32) -> bool {
    USUAL_RATES.iter().any(|u| (rate - u).abs() < 0.5)
}

/// The rate the target's own clips use when it is a usual one, else 30.
pub fn target_rate(session: &Session) -> f32 {
    (session.target.clips().iter())
        .filter_map(|c| c.fps())
        .map(f32::round)
        .find(|&r| usual(r))
        .unwrap_or(30.0)
}

/// The keys an export of `clip` writes at `rate` (before any reduction), about: one key per
/// frame on each mapped joint's curves.
pub fn keys(session: &Session, clip: Option<&str>, rate: f32) -> Option<usize> {
    let clip = session.source_clip(clip).ok()?;
    let frames = (clip.duration_secs() * rate).round() as usize + 1;
    let joints = session.map.len().max(1);
    Some(frames * (joints * CURVES_PER_JOINT + CURVES_PER_JOINT))
}

pub(super) fn size_ui(
    ui: &mut egui::Ui,
    session: &Session,
    clip: Option<&str>,
    form: &mut ExportForm,
) {
    let source_rate = session.source_clip(clip).ok().and_then(|c| c.fps());
    let Some(rate) = form.fps().or(source_rate) else {
        return;
    };
    let Some(keys) = keys(session, clip, rate) else {
        return;
    };
    let megabytes = keys as f64 * FBX_BYTES_PER_KEY / 1e6;
    let reduced = if form.reduce {
        ", fewer once reduced"
    } else {
        ""
    };
    ui.label(format!(
        "About {} keys at {rate:.0} fps (≈ {megabytes:.1} MB as FBX){reduced}",
        thousands(keys)
    ));
    let Some(source_rate) = source_rate.filter(|&r| !usual(r)) else {
        return;
    };
    if form.fps != FpsChoice::Source {
        return;
    }
    let target = target_rate(session);
    ui.horizontal_wrapped(|ui| {
        ui.label(format!(
            "The source runs at {source_rate:.0} fps, a capture's rate; the target's clips \
             play at {target:.0}."
        ));
        let offer = format!("Use {target:.0} fps, keys reduced");
        if ui.button(offer).clicked() {
            form.fps = match target as u32 {
                f @ (24 | 30 | 60) => FpsChoice::Fixed(f),
                _ => FpsChoice::Custom(target),
            };
            form.reduce = true;
        }
    });
}

/// `1834200` as `1,834,200`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_and_counts_read_as_a_user_would() {
        assert!(usual(30.0) && usual(23.976) && !usual(120.0) && !usual(240.0));
        assert_eq!(thousands(1_834_200), "1,834,200");
        assert_eq!(thousands(999), "999");
    }
}
