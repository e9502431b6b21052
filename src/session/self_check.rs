//! Check yourself: when the automatic set-up fails its own quality report and one of the
//! tested causes' fixes passes every measure, take that fix and say so, rather than hand a
//! user a failing result and a list of what would have passed.

use super::{Cause, Session, SessionError};
use crate::core::quality::{Report, Thresholds};

/// A fix taken because the set-up failed and the fix passes: what it was and the report
/// before it (the session's report after it is the one to show).
#[derive(Clone, Debug)]
pub struct TakenFix {
    pub cause: Cause,
    pub before: Report,
}

impl Session {
    /// Judges clip `clip`; when it fails and a cause's fix passes every measure, applies
    /// that fix (the best one: `Session::causes` puts passing fixes first) and returns it
    /// with the failing report. `report` is the clip's report as it stands now; the caller
    /// judges again after a fix (or reads `Session::quality`).
    pub fn take_passing_fix(
        &mut self,
        clip: Option<&str>,
        report: &Report,
        limits: &Thresholds,
    ) -> Result<Option<TakenFix>, SessionError> {
        if report.passed {
            return Ok(None);
        }
        let causes = self.causes(clip, report, limits)?;
        let Some(cause) = causes.into_iter().find(|c| c.passes_after) else {
            return Ok(None);
        };
        self.apply_edit(&cause.fix)?;
        Ok(Some(TakenFix {
            cause,
            before: report.clone(),
        }))
    }
}

impl TakenFix {
    /// One line for a user: what failed, what was taken, and what it gives.
    pub fn sentence(&self) -> String {
        let c = &self.cause;
        format!(
            "the automatic set-up failed ({}); took the fix that passes: {} ({} {} → {})",
            c.words,
            c.fix_label,
            c.measure.label(),
            figure(c.before),
            figure(c.after)
        )
    }
}

/// A measure's figure as the report prints it: a few significant digits.
fn figure(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-2 {
        format!("{v:.2e}")
    } else {
        format!("{v:.2}")
    }
}

#[cfg(test)]
mod tests {
    use crate::core::quality::Thresholds;
    use crate::session::Session;

    /// A crossed row (the left foot driven by the left hand) fails; the fix that passes is
    /// taken, said in words, and the session passes after it.
    #[test]
    fn a_failing_set_up_takes_the_fix_that_passes() {
        use crate::core::HumanBone;
        let (mut s, row) =
            crate::session::crossed_walk_on_cesium(HumanBone::LeftFoot, HumanBone::LeftHand);
        let limits = Thresholds::default();
        let report = s.quality(None, &limits).unwrap();
        assert!(!report.passed);
        let taken = s.take_passing_fix(None, &report, &limits).unwrap();
        let taken = taken.expect("a fix that passes is taken");
        assert!(!taken.before.passed);
        assert!(
            taken.sentence().contains("took the fix that passes"),
            "{}",
            taken.sentence()
        );
        let after = s.quality(None, &limits).unwrap();
        assert!(after.passed, "{}", after.to_text());
        assert_eq!(
            s.map.for_target(row).map(|p| p.source),
            s.source.labelled_joint(HumanBone::LeftFoot)
        );
    }

    /// A session whose automatic set-up passes takes nothing.
    #[test]
    fn a_passing_set_up_takes_no_fix() {
        let mut s: Session = crate::session::walk_on_cesium();
        let limits = Thresholds::default();
        let report = s.quality(None, &limits).unwrap();
        assert!(report.passed, "{:?}", report.flags);
        let taken = s.take_passing_fix(None, &report, &limits).unwrap();
        assert!(taken.is_none());
    }
}
