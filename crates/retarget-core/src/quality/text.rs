//! The report in words: one line per measure with its figures and PASS or FAIL, then the
//! flags, worst first. Short enough to read in a terminal or a tooltip.

use super::body::BodyFigures;
use super::direction::DirectionFigures;
use super::feet::SkateFigures;
use super::report::{Measure, Report};
use super::same_rig::SameRigFigures;
use std::fmt::{self, Write};

/// Said when the source has no planted frame by the judge's rule (low and slow, see
/// `contacts`), which is stricter than the solver's contacts the editor draws as bars.
pub const NO_PLANTED_FOOT: &str =
    "no foot planted by the judge's rule (low and still): ground and skate not judged";

pub(super) fn same_rig_flag(s: &SameRigFigures, limit: f64) -> String {
    format!(
        "same rig: {} is {:.1e} of the height off the source at frame {} (limit {:.1e})",
        s.joint, s.max, s.frame, limit
    )
}

pub(super) fn direction_flag(d: &DirectionFigures, limit: f64) -> String {
    let worst = d.per_segment.first();
    let worst = worst.map_or(String::new(), |w| {
        format!(", worst {} {:.1}°", w.segment, w.mean_deg)
    });
    format!(
        "direction: limbs point {:.1}° off the source on average{worst} (limit {limit}°)",
        d.mean_deg
    )
}

pub(super) fn body_flag(b: &BodyFigures, limit: f64) -> String {
    let bone = b.bone.as_deref().unwrap_or("?");
    let frame = b.frame.unwrap_or(0);
    format!(
        "body: bone {bone} changes length by {:.1e} of the height at frame {frame} (limit {:.1e})",
        b.max, limit
    )
}

pub(super) fn pelvis_flag(difference: f64, limit: f64) -> String {
    let way = if difference >= 0.0 { "higher" } else { "lower" };
    format!(
        "pelvis: the target's pelvis rides {:.3} leg lengths {way} than the source's (limit {limit})",
        difference.abs()
    )
}

pub(super) fn ground_flag(difference: f64, limit: f64) -> String {
    let (verb, way) = if difference >= 0.0 {
        ("float", "above")
    } else {
        ("sink", "below")
    };
    format!(
        "ground: target feet {verb} {:.0} mm {way} the source's own (limit {limit} mm)",
        difference.abs()
    )
}

pub(super) fn skate_flag(s: &super::report::Pair<SkateFigures>, limit: f64) -> String {
    let (mean, worst) = (
        s.target.mean_mm - s.source.mean_mm,
        s.target.max_mm - s.source.max_mm,
    );
    // The worst contact, where it is what breaks more (half a millimetre past the mean).
    if worst > mean + 0.5 {
        return format!(
            "skate: the worst target contact slides {:.0} mm, {worst:.0} mm more than the source's worst (limit {limit} mm)",
            s.target.max_mm
        );
    }
    format!(
        "skate: target feet slide {:.0} mm per contact, {mean:.0} mm more than the source's own (limit {limit} mm)",
        s.target.mean_mm
    )
}

impl Report {
    /// The figures of one measure, in a phrase (the editor's Quality tab shows it too).
    pub fn figures(&self, measure: Measure) -> String {
        let th = &self.thresholds;
        match measure {
            Measure::SameRig => self.same_rig.as_ref().map_or_else(String::new, |s| {
                let (max, mean, limit) = (s.max, s.mean, th.same_rig);
                format!("max {max:.1e}, mean {mean:.1e} of the height (limit {limit:.1e})")
            }),
            Measure::Direction => self.direction.as_ref().map_or_else(String::new, |d| {
                let (mean, max, limit) = (d.mean_deg, d.max_deg, th.direction_deg);
                format!("mean {mean:.1}°, max {max:.1}° (limit mean {limit}°)")
            }),
            Measure::Body => {
                let b = &self.body;
                let at = match (&b.bone, b.frame) {
                    (Some(bone), Some(frame)) => format!(", {bone} at frame {frame}"),
                    _ => String::new(),
                };
                let (max, limit) = (b.max, th.body);
                format!("worst length change {max:.1e} of the height{at} (limit {limit:.1e})")
            }
            Measure::Pelvis => {
                let p = &self.pelvis;
                let (s, t, d, limit) = (p.source, p.target, p.difference, th.pelvis);
                format!("source {s:.3}, target {t:.3}, difference {d:+.3} leg lengths (limit ±{limit})")
            }
            Measure::Reach => self.frame_row(Measure::Reach).map_or_else(String::new, |r| {
                let worst = r.iter().copied().fold(0.0f32, f32::max);
                let missed = r.iter().filter(|&&b| b >= 1.0).count();
                let limit = th.reach_mm;
                format!("worst {:.0} % of {limit} mm, {missed} frames at or past it", worst * 100.0)
            }),
            Measure::Fingers => self.fingers.as_ref().map_or_else(String::new, |g| {
                let (mean, max, limit) = (g.mean_deg, g.max_deg, th.fingers_deg);
                format!("mean {mean:.1}°, max {max:.1}° in the hand's frame (limit mean {limit}°)")
            }),
            Measure::Penetration => self.penetration.as_ref().map_or_else(String::new, |p| {
                let (s, t, f) = (p.source.max_mm, p.target.max_mm, p.target.worst_frame);
                let limit = th.penetration_mm;
                format!("source's own {s:.1} mm, target {t:.1} mm deepest at frame {f} (limit +{limit} mm per frame)")
            }),
            Measure::Ground => self.ground.as_ref().map_or_else(String::new, |g| {
                let (s, t, n) = (g.source.mean_mm, g.target.mean_mm, g.target.contact_frames);
                let limit = th.ground_mm;
                // The limit is on the difference: a source that floats 30 mm passes a target
                // that floats as much, so the difference is what stands beside the limit.
                let d = t - s;
                format!("source's own {s:.1} mm, target {t:.1} mm over {n} planted frames: difference {d:+.1} mm (limit ±{limit} mm)")
            }),
            Measure::Grip => self.grip.as_ref().map_or_else(String::new, |g| {
                let (max, mean, n, limit) = (g.max_mm, g.mean_mm, g.contacts.len(), th.grip_mm);
                format!("worst {max:.1} mm, mean {mean:.1} mm off the source's over {n} hand contacts (limit {limit} mm)")
            }),
            Measure::Skate => self.skate.as_ref().map_or_else(String::new, |k| {
                let (s, t, n) = (k.source.mean_mm, k.target.mean_mm, k.target.contacts);
                let limit = th.skate_mm;
                // Judged as in `evaluate`: the mean's excess and the worst contact's.
                let d = (t - s).max(k.target.max_mm - k.source.max_mm);
                format!("source's own {s:.1} mm, target {t:.1} mm per contact over {n} contacts: difference {d:+.1} mm (limit +{limit} mm)")
            }),
        }
    }

    /// The plain-text report (the same as `Display`).
    pub fn to_text(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let failed = self.verdicts.iter().filter(|v| !v.passed).count();
        let overall = if self.passed { "PASS" } else { "FAIL" };
        let judged = self.verdicts.len();
        writeln!(
            f,
            "retarget quality: {overall} ({failed} of {judged} measures fail)"
        )?;
        for v in &self.verdicts {
            let verdict = if v.passed { "PASS" } else { "FAIL" };
            let figures = self.figures(v.measure);
            writeln!(f, "{:<10} {verdict}  {figures}", v.measure.label())?;
        }
        for c in self.grip.iter().flat_map(|g| &g.contacts) {
            let (s, t, worst) = (c.source_mm, c.target_mm, c.diff_max_mm);
            writeln!(
                f,
                "  {} {}–{} ({}–{} onto {}–{}): source {s:.0} mm, target {t:.0} mm, worst frame {worst:.1} mm off",
                c.touch, c.start, c.end, c.joints.0.0, c.joints.0.1, c.joints.1.0, c.joints.1.1
            )?;
        }
        if self.ground.is_none() {
            writeln!(f, "{NO_PLANTED_FOOT}")?;
        } else if self.skate.is_none() {
            writeln!(f, "no contacts of 3 frames or more found: skate not judged")?;
        }
        if !self.flags.is_empty() {
            let mut flags = String::from("flags, worst first:");
            for flag in &self.flags {
                write!(flags, "\n  {}", flag.message)?;
            }
            writeln!(f, "{flags}")?;
        }
        Ok(())
    }
}
