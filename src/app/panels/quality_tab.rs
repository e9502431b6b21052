//! The Quality tab: the current clip's report, as `retarget-studio check` prints it, read at a
//! glance: one row per measure with its figure and PASS or FAIL, the flags worst first, and
//! the bones and limb segments that went furthest, and a failing report's likeliest causes.
//! The report and its causes are computed in the background (`app::tasks::check`), the
//! causes after the report; this only draws them.

use crate::app::names::drawable;
use crate::app::tasks::check::QualityResult;
use crate::core::quality::{Measure, Report, Verdict};
use crate::session::{Cause, Edit};
use eframe::egui;

/// How many bones and segments the "worst" lists show.
const WORST_SHOWN: usize = 5;

pub const PASS_COLOR: egui::Color32 = egui::Color32::from_rgb(90, 190, 100);
pub const FAIL_COLOR: egui::Color32 = egui::Color32::from_rgb(230, 85, 70);

/// What the tab shows: the last report finished, whether it is for the document as it is
/// now, whether a newer one is being computed, and that report's causes.
pub struct QualityView<'a> {
    pub result: Option<&'a QualityResult>,
    pub current: bool,
    pub busy: bool,
    pub causes: CausesView<'a>,
}

/// The causes of the report shown, which follow it from a second job.
pub enum CausesView<'a> {
    /// Found for that report (for no other).
    Found(&'a [Cause]),
    /// The search failed.
    Failed(&'a str),
    /// Being looked for: fixes tested so far and in all (0 of 0 before the search has
    /// counted them, or while it waits its turn).
    Looking(usize, usize),
}

/// What a click on a cause asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum CauseAction {
    /// Show these target rows in the bone map.
    ShowRows(Vec<usize>),
    /// Apply the cause's fix (one undo step).
    Fix(Edit),
}

pub fn quality_ui(
    ui: &mut egui::Ui,
    view: &QualityView,
    clip: Option<&str>,
) -> Option<CauseAction> {
    let mut action = None;
    ui.horizontal_wrapped(|ui| {
        ui.label(format!("Clip: {}", clip.unwrap_or("(none)")));
        if view.busy || (view.result.is_some() && !view.current) {
            ui.spinner();
            ui.label("updating…");
        }
    });
    match view.result {
        None if view.busy => {
            ui.label("Retargeting the whole clip to judge it…");
        }
        None => {
            ui.label("No report: the quality needs a source clip.");
        }
        Some(Err(e)) => {
            ui.colored_label(FAIL_COLOR, format!("No report: {e}"));
        }
        Some(Ok(report)) => {
            egui::ScrollArea::vertical()
                .auto_shrink([false, false])
                .show(ui, |ui| {
                    action = causes_ui(ui, report, &view.causes, view.current);
                    report_ui(ui, report);
                });
        }
    }
    action
}

/// The likeliest causes of a failing report, worst first, each with its rows and its fix
/// (tested on a copy: the figure it gives is shown), or that they are being looked for.
/// Fixes wait for a current report.
pub(crate) fn causes_ui(
    ui: &mut egui::Ui,
    r: &Report,
    causes: &CausesView,
    current: bool,
) -> Option<CauseAction> {
    if r.passed {
        return None;
    }
    ui.strong("Likeliest causes");
    let action = match causes {
        CausesView::Found(causes) => found_causes_ui(ui, causes, current),
        CausesView::Failed(e) => {
            ui.colored_label(FAIL_COLOR, format!("No causes: {e}"));
            None
        }
        CausesView::Looking(tested, all) => {
            ui.horizontal_wrapped(|ui| {
                ui.spinner();
                ui.label(LOOKING);
                if *all > 0 {
                    ui.weak(format!("{tested} of {all} fixes tested"));
                }
            });
            None
        }
    };
    ui.separator();
    action
}

/// What the tab says while the causes of the report shown are looked for.
pub const LOOKING: &str = "Looking for likely causes…";

fn found_causes_ui(ui: &mut egui::Ui, causes: &[Cause], current: bool) -> Option<CauseAction> {
    let mut action = None;
    if causes.is_empty() {
        ui.label(
            "No map row or solve setting explains it: the measures below say what fails; \
             the files' readings (unit, up, the body's joints) are the next place to look.",
        );
    }
    for (k, c) in causes.iter().enumerate() {
        ui.push_id(("cause", k), |ui| {
            ui.add(
                egui::Label::new(egui::RichText::new(drawable(&c.words)).color(FAIL_COLOR)).wrap(),
            );
            let (now, fixed) = cause_figures(c);
            let verdict = if c.passes_after {
                "every measure passes"
            } else {
                "better, not yet passing"
            };
            ui.label(format!(
                "{}: {now} now, {fixed} with the fix ({verdict})",
                c.measure.label()
            ));
            ui.horizontal_wrapped(|ui| {
                if !c.rows.is_empty() && ui.button("Show rows").clicked() {
                    action = Some(CauseAction::ShowRows(c.rows.clone()));
                }
                let fix = ui
                    .add_enabled(current, egui::Button::new(&c.fix_label))
                    .on_hover_text("One undoable edit (Ctrl+Z takes it back)");
                if fix.clicked() {
                    action = Some(CauseAction::Fix(c.fix.clone()));
                }
            });
        });
        ui.add_space(4.0);
    }
    action
}

/// A cause's figure now and with its fix, in its measure's unit.
fn cause_figures(c: &Cause) -> (String, String) {
    let at = |value| {
        let v = Verdict {
            measure: c.measure,
            value,
            limit: 0.0,
            severity: 0.0,
            passed: false,
        };
        figure_and_limit(&v).0
    };
    (at(c.before), at(c.after))
}

pub(crate) fn report_ui(ui: &mut egui::Ui, r: &Report) {
    let failed = r.verdicts.iter().filter(|v| !v.passed).count();
    let (word, color) = if r.passed {
        ("PASS", PASS_COLOR)
    } else {
        ("FAIL", FAIL_COLOR)
    };
    ui.horizontal_wrapped(|ui| {
        ui.heading(egui::RichText::new(word).color(color).strong());
        ui.label(format!(
            "{failed} of {} measures break their limits",
            r.verdicts.len()
        ));
    });
    verdicts_ui(ui, r);
    if r.ground.is_none() {
        ui.label(crate::core::quality::NO_PLANTED_FOOT)
            .on_hover_text(
                "The judge plants a foot where it stays low and still for 3 frames; the contact \
             bars under the timeline are the solver's own, looser contacts",
            );
    } else if r.skate.is_none() {
        ui.label("no contacts of 3 frames or more found: skate not judged");
    }
    ui.label(frames_line(r));
    ui.separator();
    flags_ui(ui, r);
    worst_bones_ui(ui, r);
    worst_segments_ui(ui, r);
    ui.separator();
    egui::CollapsingHeader::new("The report as text").show(ui, |ui| {
        if ui.button("Copy").clicked() {
            ui.ctx().copy_text(r.to_text());
        }
        let text = r.to_text();
        ui.add(egui::Label::new(egui::RichText::new(drawable(&text)).monospace()).wrap());
    });
}

/// The frames past a limit, said so that it never reads against the verdict: a measure
/// judges the whole clip (a mean, a worst contact), a frame only itself.
pub fn frames_line(r: &Report) -> String {
    let (bad, all) = (r.bad_frames.len(), r.frame_badness.len());
    if bad == 0 {
        format!("no frame of {all} goes past a limit")
    } else if r.passed {
        format!(
            "{bad} of {all} frames go past a limit on their own (red in the strip under the \
             timeline); the measures judge the whole clip, and it keeps them"
        )
    } else {
        format!("{bad} of {all} frames go past a limit (red in the strip under the timeline)")
    }
}

/// One row per judged measure: name, PASS/FAIL, the judged figure and its limit; the
/// sentence `check` prints is the row's tooltip.
fn verdicts_ui(ui: &mut egui::Ui, r: &Report) {
    egui::Grid::new("quality_verdicts")
        .striped(true)
        .num_columns(4)
        .show(ui, |ui| {
            for title in ["Measure", "Result", "Figure", "Limit"] {
                ui.strong(title);
            }
            ui.end_row();
            for v in &r.verdicts {
                let figures = r.figures(v.measure);
                ui.label(v.measure.label()).on_hover_text(&figures);
                let (word, color) = if v.passed {
                    ("PASS", PASS_COLOR)
                } else {
                    ("FAIL", FAIL_COLOR)
                };
                ui.label(egui::RichText::new(word).color(color).strong())
                    .on_hover_text(&figures);
                let (value, limit) = figure_and_limit(v);
                ui.monospace(value).on_hover_text(&figures);
                ui.monospace(limit);
                ui.end_row();
            }
        });
}

/// A verdict's figure and limit in the measure's unit, short enough for a table cell.
pub fn figure_and_limit(v: &Verdict) -> (String, String) {
    let (value, limit) = (v.value, v.limit);
    match v.measure {
        Measure::SameRig => (format!("{value:.1e} of height"), format!("≤ {limit:.1e}")),
        Measure::Direction => (format!("{value:.2}° mean"), format!("≤ {limit}°")),
        Measure::Body => (format!("{value:.1e} of height"), format!("≤ {limit:.1e}")),
        Measure::Pelvis => (format!("{value:+.3} leg lengths"), format!("± {limit}")),
        Measure::Ground => (format!("{value:+.1} mm"), format!("± {limit} mm")),
        Measure::Skate => (format!("{value:+.1} mm"), format!("≤ +{limit} mm")),
        Measure::Reach => (format!("{value:.1} mm"), format!("≤ {limit} mm")),
        Measure::Grip => (format!("{value:.1} mm"), format!("≤ {limit} mm")),
        Measure::Fingers => (format!("{value:.2}° mean"), format!("≤ {limit}°")),
        Measure::Penetration => (format!("{value:+.1} mm"), format!("≤ +{limit} mm")),
    }
}

fn flags_ui(ui: &mut egui::Ui, r: &Report) {
    ui.strong("Flags, worst first");
    if r.flags.is_empty() {
        ui.label("none: every measure keeps its limit");
    }
    for flag in &r.flags {
        let message = drawable(&flag.message);
        ui.add(egui::Label::new(egui::RichText::new(message).color(FAIL_COLOR)).wrap());
    }
}

fn worst_bones_ui(ui: &mut egui::Ui, r: &Report) {
    ui.add_space(4.0);
    ui.strong("Bones that change length most (body)");
    if r.body.per_bone.is_empty() {
        ui.label("no bone is judged rigid");
        return;
    }
    egui::Grid::new("quality_worst_bones")
        .striped(true)
        .show(ui, |ui| {
            for title in ["Bone", "Change (of height)", "Frame"] {
                ui.label(title);
            }
            ui.end_row();
            for b in r.body.per_bone.iter().take(WORST_SHOWN) {
                ui.label(&b.bone);
                ui.monospace(format!("{:.1e}", b.change));
                ui.monospace(b.frame.to_string());
                ui.end_row();
            }
        });
}

fn worst_segments_ui(ui: &mut egui::Ui, r: &Report) {
    let Some(d) = &r.direction else { return };
    ui.add_space(4.0);
    ui.strong("Limbs that point furthest off the source (direction)");
    egui::Grid::new("quality_worst_segments")
        .striped(true)
        .show(ui, |ui| {
            for title in ["Segment", "Mean", "Max"] {
                ui.label(title);
            }
            ui.end_row();
            for s in d.per_segment.iter().take(WORST_SHOWN) {
                ui.label(drawable(&s.segment));
                ui.monospace(format!("{:.2}°", s.mean_deg));
                ui.monospace(format!("{:.2}°", s.max_deg));
                ui.end_row();
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;
    use egui_kittest::kittest::{NodeT, Queryable};

    /// A passing clip with frames past a limit says why both hold; a failing one and a clean
    /// one say what they are.
    #[test]
    fn the_frames_line_never_reads_against_the_verdict() {
        let session = crate::session::walk_on_cesium();
        let mut r = session.quality(None, &Default::default()).unwrap();
        let all = r.frame_badness.len();
        r.passed = true;
        r.bad_frames = vec![3, 4, 5];
        let line = frames_line(&r);
        assert!(line.starts_with(&format!("3 of {all} frames go past a limit on their own")));
        assert!(line.contains("the measures judge the whole clip"), "{line}");
        r.passed = false;
        assert!(!frames_line(&r).contains("whole clip"));
        r.bad_frames.clear();
        assert_eq!(
            frames_line(&r),
            format!("no frame of {all} goes past a limit")
        );
    }

    /// Every text the tab shows is drawn with glyphs its fonts have (no boxes): the CMU
    /// walk on CesiumMan, judged against limits so tight every measure breaks, so every
    /// flag is there, the direction one with its limb segment.
    #[test]
    fn every_text_of_the_report_is_in_the_fonts() {
        let session = crate::session::walk_on_cesium();
        let limits = crate::core::quality::Thresholds {
            direction_deg: 0.0,
            body: 0.0,
            ..Default::default()
        };
        let report = session.quality(None, &limits).unwrap();
        assert!(report.flags.iter().any(|f| f.message.contains('→')));
        let mut h = egui_kittest::Harness::new_ui(|ui| {
            egui::ScrollArea::vertical().show(ui, |ui| report_ui(ui, &report));
        });
        h.set_size(egui::vec2(900.0, 4000.0));
        h.get_by_label("The report as text").click();
        h.run();
        let font = egui::FontId::proportional(14.0);
        let mono = egui::FontId::monospace(14.0);
        let texts: Vec<String> = h
            .query_all(
                egui_kittest::kittest::by()
                    .include_labels()
                    .predicate(|n| n.label().is_some() || n.value().is_some()),
            )
            .flat_map(|n| [n.accesskit_node().label(), n.accesskit_node().value()])
            .flatten()
            .collect();
        assert!(texts.iter().any(|t| t.contains(" > ")), "{texts:?}");
        for text in &texts {
            let missing: String = text
                .chars()
                .filter(|&c| {
                    !c.is_control()
                        && !h
                            .ctx
                            .fonts_mut(|f| f.has_glyph(&font, c) && f.has_glyph(&mono, c))
                })
                .collect();
            assert!(
                missing.is_empty(),
                "'{text}' has glyphs the fonts lack: {missing:?}"
            );
        }
    }
}
