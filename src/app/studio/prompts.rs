//! The prompts that keep work: "locate file" for a project whose files moved, and "restore"
//! for the recovery file a crashed window left; and the autosave that writes those files.

use super::StudioApp;
use eframe::egui;
use std::path::PathBuf;

impl StudioApp {
    /// Writes the recovery file when due, and wakes the window up for the next one.
    pub(super) fn autosave_now(&mut self, ctx: &egui::Context) {
        let Some(autosave) = &mut self.autosave else {
            return;
        };
        if let Some(Err(e)) = autosave.tick(&self.doc, std::time::Instant::now()) {
            self.status = Some(format!(
                "Autosave failed: {}",
                super::super::errors::error_lines(&e).replace('\n', ": ")
            ));
        }
        if self.doc.dirty {
            ctx.request_repaint_after(autosave.interval());
        }
    }

    pub(super) fn prompts_ui(&mut self, ctx: &egui::Context) {
        if self.prompts.locate.is_some() {
            self.locate_ui(ctx);
        } else if !self.prompts.recoveries.is_empty() {
            self.recovery_ui(ctx);
        }
    }

    fn locate_ui(&mut self, ctx: &egui::Context) {
        let Some(locate) = &mut self.prompts.locate else {
            return;
        };
        let mut chosen: Option<PathBuf> = None;
        let mut cancel = false;
        egui::Modal::new(egui::Id::unique("locate-file")).show(ctx, |ui| {
            ui.heading("A file has moved");
            ui.label(format!(
                "{} uses the {} file\n{}\nwhich is not there any more. Where is it now?",
                locate.project_name(),
                locate.missing.role_name(),
                locate.missing.path.display()
            ));
            if ui.button("Browse…").clicked() {
                chosen = pick_any();
            }
            ui.horizontal(|ui| {
                ui.label("Path:");
                let field = egui::TextEdit::singleline(&mut locate.typed)
                    .hint_text("or type the file's path")
                    .desired_width(420.0);
                let entered =
                    ui.add(field).lost_focus() && ui.input(|i| i.key_pressed(egui::Key::Enter));
                if (ui.button("Use this path").clicked() || entered)
                    && !locate.typed.trim().is_empty()
                {
                    chosen = Some(PathBuf::from(locate.typed.trim()));
                }
            });
            if let Some(problem) = &locate.problem {
                ui.colored_label(ui.visuals().error_fg_color, problem);
            }
            if ui.button("Cancel").clicked() {
                cancel = true;
            }
        });
        if cancel {
            if let Some(locate) = self.prompts.locate.take() {
                self.error = Some(format!(
                    "{} was not opened: {}.",
                    locate.project_name(),
                    locate.missing
                ));
            }
        } else if let Some(path) = chosen {
            self.relink(&path);
        }
    }

    /// Points the missing file at `path` and goes on loading (which may ask for the other).
    pub fn relink(&mut self, path: &std::path::Path) {
        let Some(locate) = &mut self.prompts.locate else {
            return;
        };
        if !locate.relink(path) {
            return;
        }
        if let Some(locate) = self.prompts.locate.take() {
            self.status = Some(format!(
                "Relinked {}: save the project to keep the new path",
                path.display()
            ));
            self.load_project(locate.project, locate.project_path, true);
        }
    }

    fn recovery_ui(&mut self, ctx: &egui::Context) {
        let Some(orphan) = self.prompts.recoveries.first() else {
            return;
        };
        let mut answer = None;
        egui::Modal::new(egui::Id::unique("recover")).show(ctx, |ui| {
            ui.heading("Restore unsaved work?");
            ui.label(format!(
                "Retarget Studio closed without saving {} (autosaved {}).",
                orphan.file.name(),
                orphan.file.age()
            ));
            ui.horizontal(|ui| {
                if ui.button("Restore").clicked() {
                    answer = Some(true);
                }
                if ui.button("Discard").clicked() {
                    answer = Some(false);
                }
            });
        });
        if let Some(restore) = answer {
            self.answer_recovery(restore);
        }
    }

    /// Restores (as an unsaved document) or discards the first recovery offered.
    pub fn answer_recovery(&mut self, restore: bool) {
        if self.prompts.recoveries.is_empty() {
            return;
        }
        let orphan = self.prompts.recoveries.remove(0);
        if !restore {
            orphan.remove();
            return;
        }
        let file = orphan.file.clone();
        // A recovery that fails to load stays on disk, offered again at the next start.
        if self.load_project(file.project, file.project_path, true) {
            orphan.remove();
            self.status = Some("Restored the unsaved work: save it to keep it".into());
        }
    }
}

/// Any file, for the "locate" prompt; `None` when cancelled or when no dialog service
/// answers (the typed path is the fallback).
fn pick_any() -> Option<PathBuf> {
    rfd::FileDialog::new().pick_file()
}
