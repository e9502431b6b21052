//! Work on a copy of the session in a background thread, keyed by the document's revision
//! and the clip: whole-clip retargets (the quality report, its causes, the contact bars)
//! take 10 ms to seconds, which the UI thread must never wait for. One runs at a time;
//! edits made meanwhile are caught up when it ends, and the last result stays shown until
//! then. A job that counts its steps (`Progress`) can be told its result is stale and stop.

use crate::app::guard::{Job, catch};
use eframe::egui;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, TryRecvError, channel};
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// What a result was computed for: the document's revision and the clip.
pub type TaskKey = (u64, String);

/// A finished result, or the error in lines for the user.
pub type TaskResult<T> = Result<Arc<T>, String>;

/// What a running job and the editor share: how far it got, and whether its result is
/// still wanted (an edit since makes it stale).
#[derive(Clone, Default)]
pub struct Progress {
    done: Arc<AtomicUsize>,
    all: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Progress {
    /// Records `done` of `all` steps; false once the result is no longer wanted, so the
    /// job stops there.
    pub fn step(&self, done: usize, all: usize) -> bool {
        self.done.store(done, Ordering::Relaxed);
        self.all.store(all, Ordering::Relaxed);
        !self.stopped()
    }

    /// Steps done and in all (0 of 0 before the job has counted them).
    pub fn steps(&self) -> (usize, usize) {
        let all = self.all.load(Ordering::Relaxed);
        (self.done.load(Ordering::Relaxed), all)
    }

    fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::Relaxed)
    }
}

/// Test hook: a gate a job waits at, so that a test sees the editor while the job is
/// pending (`reached` says the job is there), then lets it through (`open`).
#[derive(Clone, Default)]
pub struct Gate(Arc<(Mutex<GateState>, Condvar)>);

#[derive(Default)]
struct GateState {
    open: bool,
    reached: bool,
}

impl Gate {
    pub fn open(&self) {
        self.change(|s| s.open = true);
    }

    /// Blocks until a job waits at the gate (or has gone through it).
    pub fn reached(&self) {
        self.wait_until(|s| s.reached);
    }

    /// Waits at the gate until it is open.
    pub(crate) fn pass(&self) {
        self.change(|s| s.reached = true);
        self.wait_until(|s| s.open);
    }

    fn change(&self, change: impl FnOnce(&mut GateState)) {
        let (state, changed) = &*self.0;
        change(&mut state.lock().unwrap_or_else(PoisonError::into_inner));
        changed.notify_all();
    }

    fn wait_until(&self, done: impl Fn(&GateState) -> bool) {
        let (state, changed) = &*self.0;
        let mut s = state.lock().unwrap_or_else(PoisonError::into_inner);
        while !done(&s) {
            s = changed.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

struct Running<T> {
    key: TaskKey,
    receiver: Receiver<TaskResult<T>>,
    progress: Progress,
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
        self.request_with_progress(key, ctx, inject_panic, |_| work())
    }

    /// `request` for work that counts its steps in the `Progress` it is given, and stops
    /// when told to (`supersede`).
    pub fn request_with_progress(
        &mut self,
        key: TaskKey,
        ctx: &egui::Context,
        inject_panic: bool,
        work: impl FnOnce(&Progress) -> anyhow::Result<T> + Send + 'static,
    ) -> bool {
        if !self.needs(&key) {
            return false;
        }
        let (sender, receiver) = channel();
        let (ctx, job) = (ctx.clone(), self.job);
        let progress = Progress::default();
        let shared = progress.clone();
        std::thread::spawn(move || {
            let result = catch(job, inject_panic, || work(&shared).map(Arc::new))
                .map_err(|e| crate::app::errors::error_lines(&e));
            // The app may be gone (a closed window); nobody to tell then.
            let _ = sender.send(result);
            ctx.request_repaint();
        });
        self.running = Some(Running {
            key,
            receiver,
            progress,
        });
        true
    }

    /// True when a job for `key` would start now: none runs (a finished one's result is
    /// taken first), and the last result is not for `key`.
    pub fn needs(&mut self, key: &TaskKey) -> bool {
        self.poll();
        let current = self.done.as_ref().is_some_and(|(k, _)| k == key);
        !current && self.running.is_none()
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
            self.finish(running, result);
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
            self.finish(running, result);
        }
    }

    /// Keeps a finished job's result, unless it was told to stop: a stale result is never
    /// kept, not even to be shown as "updating".
    fn finish(&mut self, running: Running<T>, result: TaskResult<T>) {
        if !running.progress.stopped() {
            self.done = Some((running.key, result));
        }
    }

    fn stopped(&self) -> String {
        format!("{} stopped", self.job.what())
    }

    /// Tells a running job for another key than `key` to stop: its result would be stale,
    /// and the job for `key` waits for it to end.
    pub fn supersede(&mut self, key: Option<&TaskKey>) {
        if let Some(running) = self.running.as_ref().filter(|r| Some(&r.key) != key) {
            running.progress.stop();
        }
    }

    /// True while a job is running.
    pub fn busy(&self) -> bool {
        self.running.is_some()
    }

    /// The running job's key and its steps done and in all.
    pub fn running(&self) -> Option<(&TaskKey, (usize, usize))> {
        (self.running.as_ref()).map(|r| (&r.key, r.progress.steps()))
    }

    /// The last finished result and the key it is for.
    pub fn last(&self) -> Option<(&TaskKey, &TaskResult<T>)> {
        self.done.as_ref().map(|(k, result)| (k, result))
    }

    /// The last finished result, with whether it is for `key` (else it is out of date and a
    /// newer one is on its way).
    pub fn latest(&self, key: Option<&TaskKey>) -> Option<(&TaskResult<T>, bool)> {
        self.last()
            .map(|(k, result)| (result, key.is_some_and(|key| key == k)))
    }

    /// The finished result for `key`, and for no other.
    pub fn result_for(&self, key: &TaskKey) -> Option<&TaskResult<T>> {
        self.last().filter(|(k, _)| *k == key).map(|(_, r)| r)
    }

    /// The last result that succeeded for the clip `clip`, even of an earlier revision:
    /// the timeline keeps showing it while an edit's result is computed.
    pub fn latest_for_clip(&self, clip: Option<&str>) -> Option<&T> {
        let ((_, for_clip), result) = self.done.as_ref()?;
        (Some(for_clip.as_str()) == clip)
            .then_some(result.as_deref().ok())
            .flatten()
    }

    /// Forgets everything (another document); a running job is told to stop.
    pub fn clear(&mut self) {
        self.supersede(None);
        self.running = None;
        self.done = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A job told its result is stale stops, and what it sends is dropped: the same key
    /// asked for again (a clip picked back) starts afresh instead of finding it.
    #[test]
    fn a_superseded_result_is_dropped() {
        let ctx = egui::Context::default();
        let mut task = KeyedTask::new(Job::Causes);
        let (old, new) = ((1, "walk".to_owned()), (2, "walk".to_owned()));
        let gate = Gate::default();
        let held = gate.clone();
        let work = move |p: &Progress| {
            held.pass();
            anyhow::ensure!(p.step(1, 2), "told to stop");
            Ok(7)
        };
        assert!(task.request_with_progress(old.clone(), &ctx, false, work));
        gate.reached();
        task.supersede(Some(&new));
        gate.open();
        task.wait();
        assert!(task.last().is_none());
        assert!(task.request(old.clone(), &ctx, false, || Ok(8)));
        task.wait();
        assert_eq!(task.result_for(&old).cloned(), Some(Ok(Arc::new(8))));
        assert!(task.result_for(&new).is_none());
    }
}
