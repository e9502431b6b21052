//! Undo/redo over session snapshots. Consecutive edits with the same label within a short
//! time coalesce, so one slider drag is one undo step.

use crate::session::EditState;
use std::time::{Duration, Instant};

const COALESCE: Duration = Duration::from_millis(600);

struct Step {
    label: String,
    /// The state before the edit (undo) or after it (redo).
    state: EditState,
    at: Instant,
}

#[derive(Default)]
pub struct UndoStack {
    undo: Vec<Step>,
    redo: Vec<Step>,
}

impl UndoStack {
    /// Records that an edit labelled `label` changed the session away from `before`.
    pub fn record(&mut self, label: String, before: EditState) {
        let now = Instant::now();
        self.redo.clear();
        if let Some(last) = self.undo.last_mut()
            && last.label == label
            && now.duration_since(last.at) < COALESCE
        {
            last.at = now;
            return;
        }
        self.undo.push(Step {
            label,
            state: before,
            at: now,
        });
    }

    /// The state to go back to; `current` is kept for redo.
    pub fn undo(&mut self, current: EditState) -> Option<(String, EditState)> {
        let step = self.undo.pop()?;
        self.redo.push(Step {
            label: step.label.clone(),
            state: current,
            at: Instant::now(),
        });
        Some((step.label, step.state))
    }

    pub fn redo(&mut self, current: EditState) -> Option<(String, EditState)> {
        let step = self.redo.pop()?;
        self.undo.push(Step {
            label: step.label.clone(),
            state: current,
            at: Instant::now(),
        });
        Some((step.label, step.state))
    }

    pub fn undo_label(&self) -> Option<&str> {
        self.undo.last().map(|s| s.label.as_str())
    }

    pub fn redo_label(&self) -> Option<&str> {
        self.redo.last().map(|s| s.label.as_str())
    }

    /// Labels, oldest first, for the history list.
    pub fn history(&self) -> impl Iterator<Item = &str> {
        self.undo.iter().map(|s| s.label.as_str())
    }

    pub fn clear(&mut self) {
        self.undo.clear();
        self.redo.clear();
    }
}
