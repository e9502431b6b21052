//! `check` and `retarget` check themselves: an automatic set-up that fails its own quality
//! report takes the tested fix that passes (`Session::take_passing_fix`) and says so, so the
//! two commands judge and write the same result.

use super::progress::Progress;
use crate::core::quality::{Report, Thresholds};
use crate::session::{Session, TakenFix};

/// Whether to take a passing fix when the automatic set-up fails.
#[derive(clap::Args, Debug, Clone, Default)]
pub struct FixArgs {
    /// Keep the automatic set-up even where it fails its quality report and a tested fix
    /// (a map row, a translation, a clip pass) passes; by default that fix is taken and said
    /// (never with --project: a project's map and settings are the user's).
    #[arg(long)]
    pub no_fix: bool,
}

impl FixArgs {
    /// Whether a failing automatic set-up may take a fix: not asked to keep it, and no
    /// project (whose map and settings are the user's).
    pub fn wanted(&self, open: &super::OpenArgs) -> bool {
        !self.no_fix && open.project.is_none()
    }

    /// The fix taken on `session` where `report` (clip `clip` as set up) fails and a tested
    /// fix passes; the caller judges again if it needs the report with it.
    pub fn take(
        &self,
        session: &mut Session,
        open: &super::OpenArgs,
        clip: &str,
        report: &Report,
        progress: &Progress,
    ) -> anyhow::Result<Option<TakenFix>> {
        if !self.wanted(open) || report.passed() {
            return Ok(None);
        }
        progress.step("looking for a fix that passes".to_owned())?;
        let limits = Thresholds::default();
        Ok(session.take_passing_fix(Some(clip), report, &limits)?)
    }
}
