//! Work on a copy of the session in a background thread, keyed by the document's revision
//! and the clip: whole-clip retargets (the quality report, the contact bars) take 10 to
//! 300 ms, which the UI thread must never wait for. One runs at a time; edits made
//! meanwhile are caught up when it ends, and the last result stays shown until then.

use crate::app::guard::{Job, catch};
use eframe::egui;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, TryRecvError, channel};

/// What a result was computed for: the document's revision and the clip.
pub type TaskKey = (u64, String);

/// A finished result, or the error in lines for the user.
pub type TaskResult<T> = Result<Arc<T>, String>;

struct Running<T> {
    key: TaskKey,
    receiver: Receiver<TaskResult<T>>,
}

/// The last result finished, and the one being computed.
pub struct KeyedTask<T> {
    job: Job,
    running: Option<Running<T>>,
    done: Option<(TaskKey, TaskResult<T>)>,
}

impl<T: Send + Sync + 'static> KeyedTask<T> {
    /// A task whose panics are reported as `job`'s.
    pub fn new(job: Job) -> Self {
        Self {
            job,
            running: None,
            done: None,
        }
    }

    /// Starts `work` for `key` unless one is running or the last result is for `key`; true
    /// if it started. `inject_panic` is the tests' hook (see `guard::catch`).
    pub fn request(
        &mut self,
        key: TaskKey,
        ctx: &egui::Context,
        inject_panic: bool,
        work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
    ) -> bool {
        self.poll();
        let current = self.done.as_ref().is_some_and(|(k, _)| *k == key);
        if current || self.running.is_some() {
            return false;
        }
        let (sender, receiver) = channel();
        let (ctx, job) = (ctx.clone(), self.job);
        std::thread::spawn(move || {
            let result = catch(job, inject_panic, || work().map(Arc::new))
                .map_err(|e| crate::app::errors::error_lines(&e));
            // The app may be gone (a closed window); nobody to tell then.
            let _ = sender.send(result);
            ctx.request_repaint();
        });
        self.running = Some(Running { key, receiver });
        true
    }

    /// Takes a finished result, if one has arrived.
    pub fn poll(&mut self) {
        let Some(running) = &self.running else { return };
        let result = match running.receiver.try_recv() {
            Ok(result) => result,
            Err(TryRecvError::Empty) => return,
            Err(TryRecvError::Disconnected) => Err(self.stopped()),
        };
        if let Some(running) = self.running.take() {
            self.done = Some((running.key, result));
        }
    }

    /// Blocks until the running job (if any) has finished: for tests and screenshots, which
    /// must see the result, not "computing".
    pub fn wait(&mut self) {
        if let Some(running) = self.running.take() {
            let result = running
                .receiver
                .recv()
                .unwrap_or_else(|_| Err(self.stopped()));
            self.done = Some((running.key, result));
        }
    }

    fn stopped(&self) -> String {
        format!("{} stopped", self.job.what())
    }

    /// True while a job is running.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The last finished result, with whether it is for `key` (else it is out of date and a
    /// newer one is on its way).
    pub fn latest(&self, key: Option<&TaskKey>) -> Option<(&TaskResult<T>, bool)> {
        self.done
            .as_ref()
            .map(|(k, result)| (result, key.is_some_and(|key| key == k)))
    }

    /// The last result that succeeded for the clip `clip`, even of an earlier revision:
    /// the timeline keeps showing it while an edit's result is computed.
    pub fn latest_for_clip(&self, clip: Option<&str>) -> Option<&T> {
        let ((_, for_clip), result) = self.done.as_ref()?;
        (Some(for_clip.as_str()) == clip)
            .then_some(result.as_deref().ok())
            .flatten()
    }

    /// Forgets everything (another document).
    pub fn clear(&mut self) {
        self.running = None;
        self.done = None;
    }
}
