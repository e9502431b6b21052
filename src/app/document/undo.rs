//! Undo/redo over session snapshots. Consecutive edits with the same label within a short
//! time coalesce, so one slider drag is one undo step.

use crate::session::EditState;
use std::time::{Duration, Instant};

const COALESCE: Duration = Duration::from_millis(600);

struct Step<S> {
    label: String,
    /// The state before the edit (undo) or after it (redo).
    state: S,
    at: Instant,
}

/// Generic over the snapshot only so that its bookkeeping can be tested on its own.
pub struct UndoStack<S = EditState> {
    undo: Vec<Step<S>>,
    redo: Vec<Step<S>>,
    /// How many steps were undoable when the document was last saved (or opened unchanged):
    /// back at that depth, the document is the file again. `None`: no state in reach is.
    saved: Option<usize>,
}

impl<S> Default for UndoStack<S> {
    fn default() -> Self {
        Self {
            undo: Vec::new(),
            redo: Vec::new(),
            saved: Some(0),
        }
    }
}

impl<S> UndoStack<S> {
    /// Records that an edit labelled `label` changed the session away from `before`.
    pub fn record(&mut self, label: String, before: S) {
        let now = Instant::now();
        if self.saved.is_some_and(|s| s > self.undo.len()) {
            // The saved state was in the redo list, which this edit drops.
            self.saved = None;
        }
        self.redo.clear();
        let sealed = self.saved == Some(self.undo.len());
        if !sealed
            && let Some(last) = self.undo.last_mut()
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
    pub fn undo(&mut self, current: S) -> Option<(String, S)> {
        let step = self.undo.pop()?;
        self.redo.push(Step {
            label: step.label.clone(),
            state: current,
            at: Instant::now(),
        });
        Some((step.label, step.state))
    }

    pub fn redo(&mut self, current: S) -> Option<(String, S)> {
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

    /// Forgets every step; `saved` says whether the document now is its file.
    pub fn clear(&mut self, saved: bool) {
        self.undo.clear();
        self.redo.clear();
        self.saved = saved.then_some(0);
    }

    /// The document was just saved: this is the state the file holds.
    pub fn mark_saved(&mut self) {
        self.saved = Some(self.undo.len());
    }

    /// Whether the document is back at the state last saved.
    pub fn at_saved(&self) -> bool {
        self.saved == Some(self.undo.len())
    }

    /// How many steps can be undone (the position in the history).
    pub fn depth(&self) -> usize {
        self.undo.len()
    }

    /// Labels of the steps that can be redone, the next one first.
    pub fn redo_history(&self) -> impl Iterator<Item = &str> {
        self.redo.iter().rev().map(|s| s.label.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_saved_state_is_found_again_through_undo_and_redo() {
        let state = || 0u8;
        let mut u = UndoStack::<u8>::default();
        u.clear(true);
        assert!(u.at_saved());
        u.record("a".into(), state());
        assert!(!u.at_saved());
        u.undo(state());
        assert!(u.at_saved(), "undone back to the file");
        u.redo(state());
        u.mark_saved();
        // Same label at once would coalesce, but not across a save.
        u.record("a".into(), state());
        assert_eq!(u.depth(), 2);
        assert!(!u.at_saved());
        u.undo(state());
        assert!(u.at_saved());
        u.undo(state());
        u.record("b".into(), state());
        assert!(
            !u.at_saved(),
            "the saved state was dropped with the redo list"
        );
        u.undo(state());
        assert!(!u.at_saved());
    }
}
