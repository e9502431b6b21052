//! An export running on a copy of the session in a background thread, so the window stays
//! responsive; it reports progress per clip and can be cancelled between clips. A panic in
//! it becomes the export's error (`guard`).

use crate::app::guard::{Job, catch};
use crate::session::{ExportJob, ExportSummary, Session, SessionError};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The error of an export the user cancelled.
pub const CANCELLED: &str = "cancelled";

type Outcome = Arc<Mutex<Option<Result<ExportSummary, String>>>>;

pub struct ExportTask {
    pub job: ExportJob,
    done: Arc<AtomicUsize>,
    cancel: Arc<AtomicBool>,
    outcome: Outcome,
}

impl ExportTask {
    /// `inject_panic` is the tests' hook (see `guard::catch`).
    pub fn start(session: Session, job: ExportJob, inject_panic: bool) -> Self {
        let done = Arc::new(AtomicUsize::new(0));
        let cancel = Arc::new(AtomicBool::new(false));
        let outcome: Outcome = Arc::new(Mutex::new(None));
        let (d, c, o, j) = (done.clone(), cancel.clone(), outcome.clone(), job.clone());
        std::thread::spawn(move || {
            let result = catch(Job::Export, inject_panic, || {
                let progress = |n| {
                    d.store(n, Ordering::Relaxed);
                    !c.load(Ordering::Relaxed)
                };
                match session.export_with_progress(&j, &progress) {
                    Err(SessionError::Cancelled) => Err(anyhow::anyhow!(CANCELLED)),
                    result => Ok(result?),
                }
            });
            if let Ok(mut slot) = o.lock() {
                *slot = Some(result.map_err(|e| crate::app::errors::error_lines(&e)));
            }
        });
        Self {
            job,
            done,
            cancel,
            outcome,
        }
    }

    /// Clips retargeted so far, and in all.
    pub fn progress(&self) -> (usize, usize) {
        (self.done.load(Ordering::Relaxed), self.job.clips.len())
    }

    pub fn cancel(&self) {
        self.cancel.store(true, Ordering::Relaxed);
    }

    /// The result once the export has finished.
    pub fn finished(&self) -> Option<Result<ExportSummary, String>> {
        self.outcome.lock().ok().and_then(|mut o| o.take())
    }
}
