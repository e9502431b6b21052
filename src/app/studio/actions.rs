//! Commands carried out: edits with undo, opening and saving, loading sides, exports and
//! map files. Everything the menus, shortcuts and panels ask for goes through `run`.

use super::StudioApp;
use super::files::PathPurpose;
use super::parts::Pending;
use crate::app::command::Command;
use crate::app::document::Document;
use crate::app::guard::{Job, catch};
use eframe::egui;
use std::path::{Path, PathBuf};

impl StudioApp {
    /// Runs a command, asking first when it would drop unsaved changes.
    pub fn run(&mut self, command: Command) {
        let discards = matches!(
            command,
            Command::New | Command::OpenProject(_) | Command::OpenProjectDialog
        );
        if discards && self.doc.dirty && self.prompts.pending.is_none() {
            self.prompts.pending = Some(Pending::Run(command));
            return;
        }
        self.apply(command);
    }

    pub(super) fn apply(&mut self, command: Command) {
        match command {
            Command::New => self.set_document(Document::default()),
            Command::OpenProject(path) => self.open_project(&path),
            Command::OpenProjectDialog => {
                let chosen = self.dialog(PathPurpose::OpenProject, || {
                    pick(&["ron"], "Retarget Studio project")
                });
                if let Some(p) = chosen {
                    self.open_project(&p);
                }
            }
            Command::Save => match self.doc.project_path.clone() {
                Some(p) => self.save(&p),
                None => self.apply(Command::SaveAsDialog),
            },
            Command::SaveAs(p) => self.save(&p),
            Command::SaveAsDialog => {
                let chosen = self.dialog(PathPurpose::SaveProject, || {
                    rfd::FileDialog::new()
                        .add_filter("project", &["ron"])
                        .set_file_name("project.ron")
                        .save_file()
                });
                if let Some(p) = chosen {
                    self.save(&p);
                }
            }
            Command::LoadSource(p) => self.load_side(Some(p), None),
            Command::LoadTarget(p) => self.load_side(None, Some(p)),
            Command::LoadSourceDialog => {
                let chosen = self.dialog(PathPurpose::LoadSource, || {
                    pick(&["glb", "gltf", "vrm", "vrma", "bvh", "fbx"], "animation")
                });
                if let Some(p) = chosen {
                    self.load_side(Some(p), None);
                }
            }
            Command::LoadTargetDialog => {
                let chosen = self.dialog(PathPurpose::LoadTarget, || {
                    pick(&["glb", "gltf", "vrm", "fbx"], "character")
                });
                if let Some(p) = chosen {
                    self.load_side(None, Some(p));
                }
            }
            Command::ExportDialog => {
                let default = self.export_path("glb");
                let chosen = self.dialog(PathPurpose::Export, || {
                    let mut dialog =
                        rfd::FileDialog::new().add_filter("GLB or BVH", &["glb", "bvh"]);
                    if let Some(d) = &default {
                        if let Some(folder) = d.parent() {
                            dialog = dialog.set_directory(folder);
                        }
                        if let Some(name) = d.file_name() {
                            dialog = dialog.set_file_name(name.to_string_lossy());
                        }
                    }
                    dialog.save_file()
                });
                if let Some(p) = chosen {
                    // The dialog asked about replacing a file already.
                    self.prompts.confirmed_overwrite = Some(p.clone());
                    self.apply(Command::Export(p));
                }
            }
            Command::Export(p) => self.export(&p),
            Command::SelectTargetJoint(j) => self.selected = j,
            Command::SelectClip(name) => {
                self.clip = Some(name);
                self.playback.time_secs = 0.0;
            }
            Command::Edit(edit) => self.edit(edit),
            Command::Undo => self.undo_redo(true),
            Command::Redo => self.undo_redo(false),
            Command::UndoTo(depth) => self.undo_to(depth),
            Command::ExportWith(request) => self.export_with(request),
            Command::CancelExport => {
                if let Some(task) = &self.tasks.export {
                    task.cancel();
                }
            }
            Command::SwapSides => self.swap_sides(),
            Command::ImportMapDialog => self.import_map(),
            Command::ExportMapDialog => self.export_map(),
            Command::Quit => {
                self.prompts.pending = self.doc.dirty.then_some(Pending::Close);
                self.allow_close = !self.doc.dirty;
            }
        }
    }

    /// Applies an edit to the session and records it for undo.
    /// A panic halfway through an edit puts the session back as it was before it.
    pub(super) fn edit(&mut self, edit: crate::session::Edit) {
        let inject = self.take_injected(Job::Edit);
        let Some(session) = &mut self.doc.session else {
            return;
        };
        let before = session.edit_state();
        let applied = catch(Job::Edit, inject, || Ok(session.apply_edit(&edit)?));
        match applied {
            Ok(label) => {
                self.undo.record(label, before);
                self.doc.touch();
                self.doc.dirty = !self.undo.at_saved();
                // The last message was about something before this edit.
                self.status = None;
            }
            Err(e) => {
                if session.edit_state() != before {
                    let _ = session.restore(before);
                    self.doc.revision += 1;
                }
                self.fail("Could not apply the change", &e);
            }
        }
    }

    pub(super) fn undo_redo(&mut self, undo: bool) {
        let Some(session) = &mut self.doc.session else {
            return;
        };
        let current = session.edit_state();
        let step = if undo {
            self.undo.undo(current)
        } else {
            self.undo.redo(current)
        };
        let Some((label, state)) = step else { return };
        match session.restore(state) {
            Ok(()) => {
                self.status = Some(format!("{} {label}", if undo { "Undid" } else { "Redid" }));
                self.doc.touch();
                // Back at the saved state, the document is its file again: no `*`.
                self.doc.dirty = !self.undo.at_saved();
            }
            Err(e) => self.fail("Could not restore", &e.into()),
        }
    }

    /// Undoes or redoes until `depth` steps can be undone: a History entry clicked.
    pub(super) fn undo_to(&mut self, depth: usize) {
        let start = self.undo.depth();
        let mut guard = 0;
        while self.undo.depth() != depth && guard < 10_000 {
            let before = self.undo.depth();
            self.undo_redo(self.undo.depth() > depth);
            if self.undo.depth() == before {
                break;
            }
            guard += 1;
        }
        if self.undo.depth() != start {
            self.status = Some(format!(
                "History: back to step {depth} of {}",
                self.undo.depth() + self.undo.redo_history().count()
            ));
        }
    }

    pub(super) fn save(&mut self, path: &Path) {
        let inject = self.take_injected(Job::Save);
        let doc = &mut self.doc;
        match catch(Job::Save, inject, || doc.save(path)) {
            Ok(bytes) => {
                self.status = Some(format!("Saved {} ({bytes} bytes)", path.display()));
                self.undo.mark_saved();
                self.remember(path);
            }
            Err(e) => self.fail("Could not save", &e),
        }
    }

    /// Replaces one side; the map is made anew (automatically) for the new pair. The
    /// project stays the same project, changed (its name, its folder for exports), unless it
    /// is the bundled demo, which a new pair never writes over.
    pub(super) fn load_side(&mut self, source: Option<PathBuf>, target: Option<PathBuf>) {
        let [old_source, old_target] = match &self.doc.session {
            Some(s) => [Some(s.source.path.clone()), Some(s.target.path.clone())],
            None => self.doc.loose.clone(),
        };
        let (source, target) = (source.or(old_source), target.or(old_target));
        let (Some(src), Some(tgt)) = (source.clone(), target.clone()) else {
            // One side so far (after File ▸ New): shown as waiting until the other comes.
            let other = if source.is_some() {
                "a target"
            } else {
                "a source"
            };
            self.doc.loose = [source, target];
            self.status = Some(format!("Now open {other}."));
            return;
        };
        let project_path = self
            .doc
            .project_path
            .clone()
            .filter(|p| !crate::app::is_demo(p));
        let inject = self.take_injected(Job::Load);
        match catch(Job::Load, inject, || Document::from_files(&src, &tgt)) {
            Ok(mut doc) => {
                // A saved project given another file differs from its file now.
                doc.dirty = project_path.is_some();
                let fresh = project_path.is_none();
                doc.project_path = project_path;
                self.set_document(doc);
                self.status = None;
                // A pair set up automatically checks itself; a project's map is the user's.
                if let Some(key) = self.quality_key().filter(|_| fresh) {
                    self.tasks.quality.take_fix_once(key);
                }
            }
            Err(e) => self.fail("Could not load", &e),
        }
    }

    pub(super) fn export(&mut self, path: &Path) {
        let Some(format) = crate::session::ExportFormat::from_path(path, false) else {
            self.error = Some(format!("{}: export to .glb, .fbx or .bvh", path.display()));
            return;
        };
        let job = crate::session::ExportJob {
            format,
            clips: vec![self.clip.clone()],
            fps: None,
            out: path.to_path_buf(),
            reduce: None,
            root_motion: None,
            extract_root: false,
            add_root: false,
        };
        self.export_with(job);
    }

    /// Starts writing the job's files in the background; `poll_export` reports them.
    pub(super) fn export_with(&mut self, job: crate::session::ExportJob) {
        let confirmed = self.prompts.confirmed_overwrite.take() == Some(job.out.clone());
        if self.tasks.export.is_none()
            && !confirmed
            && !self.unless_exists(&job.out.clone(), Command::ExportWith(job.clone()))
        {
            return;
        }
        let Some(session) = &self.doc.session else {
            return;
        };
        if self.tasks.export.is_some() {
            self.error = Some("An export is already running.".into());
            return;
        }

        self.status = Some(format!("Exporting {}…", job.out.display()));
        let inject = self.inject_panic.take_if(|j| *j == Job::Export).is_some();
        self.tasks.export = Some(crate::app::tasks::export::ExportTask::start(
            session.clone(),
            job,
            inject,
        ));
    }

    /// Reports a finished export; GLBs are then checked by the Khronos validator in the
    /// background when it is installed.
    pub(super) fn poll_export(&mut self, ctx: &egui::Context) {
        let Some(task) = &self.tasks.export else {
            return;
        };
        let Some(result) = task.finished() else {
            ctx.request_repaint();
            return;
        };
        let job = task.job.clone();
        self.tasks.export = None;
        match result {
            Ok(summary) => {
                let files: Vec<String> = summary
                    .files
                    .iter()
                    .map(|(p, bytes)| format!("{} ({:.1} kB)", p.display(), *bytes as f64 / 1024.0))
                    .collect();
                let reduced = summary.reduced.map_or(String::new(), |(before, _)| {
                    format!(" (reduced from {before})")
                });
                self.status = Some(format!(
                    "Exported {} clip(s), {} keys{reduced}: {}",
                    summary.clips,
                    summary.keys,
                    files.join(", ")
                ));
                let glb = matches!(
                    job.format,
                    crate::session::ExportFormat::GlbWithCharacter
                        | crate::session::ExportFormat::GlbAnimationOnly
                );
                if glb && let Some((path, _)) = summary.files.first() {
                    self.tasks.validation = crate::app::tasks::validate::spawn(path.clone());
                }
            }
            Err(e) if e == crate::app::tasks::export::CANCELLED => {
                self.status = Some("Export cancelled; nothing was written.".into())
            }
            Err(e) => {
                self.status = None;
                self.error = Some(format!("Export failed:\n{e}"));
            }
        }
    }

    /// Swaps source and target (the map turned around); the new source needs clips.
    pub(super) fn swap_sides(&mut self) {
        let Some(session) = &self.doc.session else {
            return;
        };
        let mut project = session.to_project();
        std::mem::swap(&mut project.source, &mut project.target);
        for pair in &mut project.map {
            std::mem::swap(&mut pair.source, &mut pair.target);
        }
        project.source.clip = None;
        let inject = self.inject_panic.take_if(|j| *j == Job::Load).is_some();
        let swapped = catch(Job::Load, inject, || {
            Ok(crate::session::Session::from_project_file(project)?)
        });
        match swapped {
            Ok(swapped) if swapped.source_clip(None).is_ok() => {
                let doc = Document {
                    session: Some(swapped),
                    project_path: self.doc.project_path.clone(),
                    dirty: true,
                    revision: self.doc.revision + 1,
                    opened_as: None,
                    loose: [None, None],
                };
                self.set_document(doc);
                // What the status said ("Opened … as the target") is no longer so.
                self.status = Some("Swapped: the target is now the source.".into());
            }
            Ok(_) => {
                self.error = Some("Cannot swap: the target has no clip to play as a source.".into())
            }
            Err(e) => self.fail("Cannot swap", &e),
        }
    }

    pub(super) fn import_map(&mut self) {
        let Some(path) = pick(&["ron"], "bone map") else {
            return;
        };
        let Some(session) = &self.doc.session else {
            return;
        };
        match crate::io::project::MapFile::load(&path) {
            Ok(file) => {
                let (map, missing) = session.map_from_pairs(&file.pairs);
                if !missing.is_empty() {
                    self.error = Some(format!(
                        "{} pair(s) name joints these files lack and were skipped: {}",
                        missing.len(),
                        missing.join(", ")
                    ));
                }
                let label = format!(
                    "Import map {}",
                    path.file_name()
                        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
                );
                self.edit(crate::session::Edit::ReplaceMap { map, label });
            }
            Err(e) => self.fail("Could not import the map", &e.into()),
        }
    }

    pub(super) fn export_map(&mut self) {
        let Some(session) = &self.doc.session else {
            return;
        };
        let Some(path) = rfd::FileDialog::new()
            .add_filter("bone map", &["ron"])
            .set_file_name("map.ron")
            .save_file()
        else {
            return;
        };
        let file = crate::io::project::MapFile {
            version: crate::io::project::MAP_VERSION,
            pairs: session.map_pairs(),
        };
        match file.save(&path) {
            Ok(bytes) => {
                self.status = Some(format!(
                    "Saved the map to {} ({bytes} bytes)",
                    path.display()
                ))
            }
            Err(e) => self.fail("Could not save the map", &e.into()),
        }
    }
}

fn pick(extensions: &[&str], what: &str) -> Option<PathBuf> {
    rfd::FileDialog::new()
        .add_filter(what, extensions)
        .pick_file()
}
