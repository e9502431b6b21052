//! Judging a retarget: measure everything once, summarize into the report's figures, hold
//! each against its threshold, and order the failures worst first.

use super::body::body_figures;
use super::direction::direction_figures;
use super::feet::{ground_figures, skate_figures};
use super::motion::{Motion, Side, Spec};
use super::pelvis::pelvis_figures;
use super::report::{Flag, FootContacts, Measure, Pair, Report, Verdict};
use super::same_rig::same_rig_figures;
use super::text;
use super::thresholds::Thresholds;
use super::tracks::Tracks;
use super::{QualityError, same_frames};

/// Checks the inputs the way the judge would fail on them, before anything is measured.
fn check(a: &Motion, b: &Motion, t: &Motion, spec: &Spec) -> Result<(), QualityError> {
    for (m, side) in [(a, Side::Source), (b, Side::Output), (t, Side::Reference)] {
        m.validate(side)?;
        if m.height(0) <= 0.0 {
            return Err(QualityError::Flat(side));
        }
    }
    same_frames(a, b)?;
    spec.validate(a, b)
}

/// Both figures, or none: they come from the same planted frames.
fn pair<T>(source: Option<T>, target: Option<T>) -> Option<Pair<T>> {
    Some(Pair {
        source: source?,
        target: target?,
    })
}

/// Judges the retarget `b` of source `a`, with `t` the target's own reference.
pub fn evaluate(
    a: &Motion,
    b: &Motion,
    t: &Motion,
    spec: &Spec,
    limits: &Thresholds,
) -> Result<Report, QualityError> {
    check(a, b, t, spec)?;
    let tracks = Tracks::measure(a, b, t, spec)?;
    let names_a: Vec<String> = spec.feet.iter().map(|f| a.names[f.a].clone()).collect();
    let names_b: Vec<String> = spec.feet.iter().map(|f| b.names[f.b].clone()).collect();
    let contacts = names_a.iter().zip(&tracks.planted).zip(&tracks.runs);
    let strip = tracks.strip(limits, a.frames());
    let mut report = Report {
        passed: false,
        frames: a.frames(),
        thresholds: *limits,
        same_rig: same_rig_figures(a, &spec.same_rig, &tracks.same_rig),
        direction: direction_figures(spec, tracks.dyaw, &tracks.direction),
        body: body_figures(t, &tracks.bones),
        pelvis: pelvis_figures(&tracks.pelvis_source, &tracks.pelvis_target),
        ground: pair(
            ground_figures(&names_a, &tracks.ground_source),
            ground_figures(&names_b, &tracks.ground_target),
        ),
        skate: pair(
            skate_figures(&names_a, &tracks.skate_source),
            skate_figures(&names_b, &tracks.skate_target),
        ),
        contacts: contacts
            .map(|((foot, planted), runs)| FootContacts {
                foot: foot.clone(),
                planted: planted.clone(),
                contacts: runs.clone(),
            })
            .collect(),
        grip: None,
        fingers: None,
        penetration: None,
        verdicts: Vec::new(),
        frame_badness: strip.badness,
        frame_rows: strip.rows,
        bad_frames: strip.bad_frames,
        flags: Vec::new(),
    };
    judge(&mut report);
    Ok(report)
}

/// One measure against its limit: `measured` is the part of `value` the limit holds.
fn verdict(measure: Measure, value: f64, measured: f64, limit: f64) -> Verdict {
    let severity = Thresholds::severity(measured, limit);
    Verdict {
        measure,
        value,
        limit,
        severity,
        passed: severity <= 1.0,
    }
}

/// Each judged measure's verdict, with the words to flag it by if it fails.
fn verdicts(r: &Report) -> Vec<(Verdict, String)> {
    let th = &r.thresholds;
    let mut out = Vec::new();
    if let Some(s) = &r.same_rig {
        let v = verdict(Measure::SameRig, s.max, s.max, th.same_rig);
        out.push((v, text::same_rig_flag(s, th.same_rig)));
    }
    if let Some(d) = &r.direction {
        let v = verdict(Measure::Direction, d.mean_deg, d.mean_deg, th.direction_deg);
        out.push((v, text::direction_flag(d, th.direction_deg)));
    }
    let body = &r.body;
    let v = verdict(Measure::Body, body.max, body.max, th.body);
    out.push((v, text::body_flag(body, th.body)));
    let p = r.pelvis.difference;
    let v = verdict(Measure::Pelvis, p, p.abs(), th.pelvis);
    out.push((v, text::pelvis_flag(p, th.pelvis)));
    if let Some(g) = &r.ground {
        let d = g.target.mean_mm - g.source.mean_mm;
        let v = verdict(Measure::Ground, d, d.abs(), th.ground_mm);
        out.push((v, text::ground_flag(d, th.ground_mm)));
    }
    if let Some(s) = &r.skate {
        // One-sided: less skate than the source's own is no fault. The mean, and the worst
        // contact against the source's worst: one contact sliding 25 mm where the source's
        // worst slides 20 is a foot an animator fixes, whatever the mean says.
        let d = s.target.mean_mm - s.source.mean_mm;
        let worst = s.target.max_mm - s.source.max_mm;
        let v = verdict(Measure::Skate, d.max(worst), d.max(worst), th.skate_mm);
        out.push((v, text::skate_flag(s, th.skate_mm)));
    }
    out
}

/// Fills the verdicts, the flags (failing verdicts, worst first) and `passed`.
fn judge(r: &mut Report) {
    let judged = verdicts(r);
    let mut flags: Vec<Flag> = judged
        .iter()
        .filter(|(v, _)| !v.passed)
        .map(|(v, message)| Flag {
            measure: v.measure,
            severity: v.severity,
            message: message.clone(),
        })
        .collect();
    flags.sort_by(|x, y| y.severity.total_cmp(&x.severity));
    r.passed = flags.is_empty();
    r.flags = flags;
    r.verdicts = judged.into_iter().map(|(v, _)| v).collect();
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{L_FOOT, L_KNEE, Walk, edited, legs_at_frame_0, lifted, rest};
    use super::super::testkit::{spec, turned};
    use super::*;

    fn judge_walk(b: &Motion, t: &Motion) -> Report {
        let a = Walk::default().motion();
        evaluate(&a, b, t, &spec(), &Thresholds::default()).unwrap()
    }

    fn measures(r: &Report) -> Vec<Measure> {
        r.flags.iter().map(|f| f.measure).collect()
    }

    #[test]
    fn a_turned_copy_on_its_own_rest_passes_everything() {
        let b = turned(&Walk::default().motion(), 90.0);
        let r = judge_walk(&b, &rest(&b));
        assert!(r.passed());
        assert_eq!(r.verdicts.len(), 5); // no same-rig pairs
        assert!(r.flags.is_empty() && r.bad_frames.is_empty());
        assert!(r.frame_badness.iter().all(|&x| x < 0.01));
        assert!(r.direction.as_ref().unwrap().mean_deg < 1e-3);
    }

    #[test]
    fn a_floating_copy_fails_ground_only() {
        let a = Walk::default().motion();
        let r = judge_walk(&lifted(&a, 0.041), &rest(&a));
        assert!(!r.passed());
        assert_eq!(measures(&r), vec![Measure::Ground]);
        assert_eq!(
            r.flags[0].message,
            "ground: target feet float 41 mm above the source's own (limit 25 mm)"
        );
        assert!((r.flags[0].severity - 41.0 / 25.0).abs() < 1e-4);
        // The pelvis rides 0.041 m / leg ≈ 0.049 leg lengths higher: within 0.05.
        let (l, rr) = legs_at_frame_0();
        let pelvis = 0.041 / ((l + rr) / 2.0);
        let v = r
            .verdicts
            .iter()
            .find(|v| v.measure == Measure::Pelvis)
            .unwrap();
        assert!(v.passed && (v.value - pelvis).abs() < 1e-5);
        // Frame 0 is never planted: only the pelvis shows there, just under its limit.
        assert!((f64::from(r.frame_badness[0]) - pelvis / 0.05).abs() < 1e-4);
        assert_eq!(r.bad_frames, (1..48).collect::<Vec<usize>>());
    }

    #[test]
    fn a_shin_stretched_on_one_frame_marks_that_frame() {
        let a = Walk::default().motion();
        let b = edited(&a, |i, j, p| {
            let shin = (p - a.positions[i][L_KNEE]).normalize();
            if i == 20 && j == L_FOOT {
                p + shin * 0.035
            } else {
                p
            }
        });
        let r = judge_walk(&b, &rest(&a));
        assert_eq!(measures(&r), vec![Measure::Body]);
        assert_eq!(
            r.flags[0].message,
            "body: bone foot.L changes length by 2.0e-2 of the height at frame 20 (limit 1.0e-2)"
        );
        assert_eq!(r.bad_frames, vec![20]);
        assert_eq!(r.frame_badness[20], 1.0);
    }

    #[test]
    fn flags_come_worst_first() {
        let a = Walk::default().motion();
        let sliding = Walk {
            slide: 0.03,
            ..Walk::default()
        };
        let r = judge_walk(&lifted(&sliding.motion(), 0.041), &rest(&a));
        // The right foot has slid 26 mm forward at frame 0, which shortens the straight
        // hip-to-foot leg the pelvis is measured in: the 41 mm now reads just over 0.05.
        assert_eq!(
            measures(&r),
            vec![Measure::Skate, Measure::Ground, Measure::Pelvis]
        );
        let (l, rr) = legs_at_frame_0();
        let slid = 0.82f64.hypot(0.8 * 6.5 / 30.0 - 0.03 * 15.0 / 17.0);
        let pelvis = 0.861 / ((l + slid) / 2.0) - 0.82 / ((l + rr) / 2.0);
        assert!((r.flags[2].severity - pelvis / 0.05).abs() < 1e-4);
        assert!((r.flags[0].severity - 6.0).abs() < 1e-4);
        assert_eq!(
            r.flags[0].message,
            "skate: target feet slide 30 mm per contact, 30 mm more than the source's own (limit 5 mm)"
        );
        let skate = r.skate.as_ref().unwrap();
        assert!((skate.target.mean_mm - 30.0).abs() < 1e-3 && skate.source.mean_mm.abs() < 1e-9);
        let runs: Vec<usize> = r.contacts.iter().map(|c| c.contacts.len()).collect();
        assert_eq!(runs, vec![2, 1]);
    }

    /// One contact of three sliding 12 mm: 4 mm per contact on average, within the limit,
    /// but the worst contact slides 12 mm more than the source's worst (none), which an
    /// animator fixes by hand.
    #[test]
    fn one_contact_sliding_past_the_sources_worst_fails_skate() {
        let a = Walk::default().motion();
        let first = judge_walk(&a, &rest(&a)).contacts[0].contacts[0];
        let frames = (first.end_frame - first.start_frame) as f32;
        let b = edited(&a, |i, j, p| {
            let k = i.clamp(first.start_frame, first.end_frame) - first.start_frame;
            if j == L_FOOT && i >= first.start_frame {
                p + glam::Vec3::X * 0.012 * (k as f32 / frames)
            } else {
                p
            }
        });
        let r = judge_walk(&b, &rest(&a));
        let skate = r.skate.as_ref().unwrap();
        assert!(
            skate.target.mean_mm - skate.source.mean_mm < 5.0,
            "{skate:?}"
        );
        assert_eq!(measures(&r), vec![Measure::Skate]);
        assert!(
            r.flags[0]
                .message
                .starts_with("skate: the worst target contact slides 12 mm"),
            "{}",
            r.flags[0].message
        );
    }

    #[test]
    fn an_in_place_source_judges_no_feet() {
        let a = Walk {
            in_place: true,
            ..Walk::default()
        }
        .motion();
        let r = evaluate(&a, &a, &rest(&a), &spec(), &Thresholds::default()).unwrap();
        assert!(r.ground.is_none() && r.skate.is_none() && r.passed());
        assert_eq!(r.verdicts.len(), 3);
        assert!(
            r.to_text()
                .contains(&format!("{}\n", super::super::NO_PLANTED_FOOT))
        );
    }

    #[test]
    fn planted_frames_without_a_contact_judge_ground_but_not_skate() {
        // Three frames: each foot is planted at frames 1 and 2, a run too short for a contact.
        let a = Walk {
            frames: 3,
            ..Walk::default()
        }
        .motion();
        let r = evaluate(&a, &a, &rest(&a), &spec(), &Thresholds::default()).unwrap();
        assert_eq!(r.ground.as_ref().unwrap().target.contact_frames, 4);
        assert!(r.skate.is_none());
        let text = r.to_text();
        assert!(text.contains("no contacts of 3 frames or more found: skate not judged\n"));
    }

    #[test]
    fn same_rig_pairs_are_judged_when_given() {
        let a = Walk::default().motion();
        let mut s = spec();
        s.same_rig = (0..a.joints()).map(|j| (j, j)).collect();
        let b = edited(&a, |i, j, p| {
            if i == 3 && j == 2 {
                p + glam::Vec3::Z * 0.01
            } else {
                p
            }
        });
        let r = evaluate(&a, &b, &rest(&a), &s, &Thresholds::default()).unwrap();
        assert_eq!(measures(&r), vec![Measure::SameRig]);
        assert!((r.flags[0].severity - 0.01 / 1.75 / 1e-3).abs() < 1e-3);
        assert_eq!(r.bad_frames, vec![3]);
    }

    #[test]
    fn the_text_has_a_line_per_measure_then_the_flags() {
        let a = Walk::default().motion();
        let text = judge_walk(&lifted(&a, 0.041), &rest(&a)).to_text();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "retarget quality: FAIL (1 of 5 measures fail)");
        assert!(
            lines[1].starts_with("direction  PASS  mean 0.0°"),
            "{}",
            lines[1]
        );
        assert_eq!(
            lines[4],
            "ground     FAIL  source's own 0.0 mm, target 41.0 mm over 55 planted frames: difference +41.0 mm (limit ±25 mm)"
        );
        assert_eq!(lines[6], "flags, worst first:");
        assert_eq!(lines.len(), 8);
    }

    #[test]
    fn the_figure_beside_a_limit_is_the_one_judged() {
        // Ground and skate are judged on the difference from the source's own: that is the
        // figure the line puts beside the limit (not the target's alone, which may pass a
        // limit it seems to break when the source floats as much).
        let walk = Walk::default().motion();
        let r = judge_walk(&lifted(&walk, 0.02), &rest(&walk));
        let text = r.to_text();
        let ground = text.lines().find(|l| l.starts_with("ground")).unwrap();
        assert!(ground.contains("PASS"), "{ground}");
        assert!(
            ground.ends_with("difference +20.0 mm (limit ±25 mm)"),
            "{ground}"
        );
        let skate = text.lines().find(|l| l.starts_with("skate")).unwrap();
        assert!(skate.contains(": difference +0.0 mm (limit +"), "{skate}");
    }

    #[test]
    fn the_report_serializes_for_the_cli() {
        let a = Walk::default().motion();
        let r = judge_walk(&lifted(&a, 0.041), &rest(&a));
        let json = serde_json::to_value(&r).unwrap();
        assert_eq!(json["flags"][0]["measure"], "ground");
        assert_eq!(json["passed"], false);
        let float = json["ground"]["target"]["mean_mm"].as_f64().unwrap();
        assert!((float - 41.0).abs() < 1e-3);
        assert_eq!(json["contacts"][1]["contacts"][0]["start_frame"], 16);
    }

    #[test]
    fn bad_inputs_are_errors() {
        let a = Walk::default().motion();
        let short = Walk {
            frames: 30,
            ..Walk::default()
        }
        .motion();
        let limits = Thresholds::default();
        let got = evaluate(&a, &short, &a, &spec(), &limits);
        assert_eq!(got.unwrap_err(), QualityError::FrameCount { a: 48, b: 30 });
        let mut s = spec();
        s.feet[1].b = 15;
        let got = evaluate(&a, &a, &a, &s, &limits);
        assert_eq!(
            got.unwrap_err(),
            QualityError::JointIndex {
                side: Side::Output,
                index: 15,
                joints: 15
            }
        );
        let flat = edited(&a, |_, _, p| p * glam::Vec3::new(1.0, 0.0, 1.0));
        let got = evaluate(&a, &a, &flat, &spec(), &limits);
        assert_eq!(got.unwrap_err(), QualityError::Flat(Side::Reference));
    }
}
