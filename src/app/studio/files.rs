//! Files in and out: a file named on the command line opens by what it is, a file dialog
//! that cannot open falls back to a typed path, and the export path belongs to the project
//! (and asks before writing over a file).

use super::StudioApp;
use crate::app::command::Command;
use eframe::egui;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A dialog that returns nothing this fast never showed: no dialog service answered.
const NO_DIALOG: Duration = Duration::from_millis(250);

/// What a typed path (the dialog's fallback) is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathPurpose {
    OpenProject,
    SaveProject,
    LoadSource,
    LoadTarget,
    Export,
}

impl PathPurpose {
    fn title(self) -> &'static str {
        match self {
            PathPurpose::OpenProject => "Open project",
            PathPurpose::SaveProject => "Save project as",
            PathPurpose::LoadSource => "Load source",
            PathPurpose::LoadTarget => "Load target",
            PathPurpose::Export => "Export",
        }
    }

    fn command(self, path: PathBuf) -> Command {
        match self {
            PathPurpose::OpenProject => Command::OpenProject(path),
            PathPurpose::SaveProject => Command::SaveAs(path),
            PathPurpose::LoadSource => Command::LoadSource(path),
            PathPurpose::LoadTarget => Command::LoadTarget(path),
            PathPurpose::Export => Command::Export(path),
        }
    }

    /// Writes the file (so an existing one is asked about first).
    fn writes(self) -> bool {
        matches!(self, PathPurpose::SaveProject | PathPurpose::Export)
    }
}

/// The path field shown when no file dialog could open.
#[derive(Clone, Debug)]
pub struct PathPrompt {
    pub purpose: PathPurpose,
    pub typed: String,
}

/// A write that waits for "Replace" because the file is there.
#[derive(Clone, Debug, PartialEq)]
pub struct Overwrite {
    pub path: PathBuf,
    pub then: Command,
}

/// Which side a file named on its own opens as: the source when it has animation (a clip
/// that moves: a BVH, a Mixamo dance with its mesh), the target otherwise (a character
/// alone, or with a one-frame take).
pub fn side_for(asset: &crate::io::Asset) -> crate::session::SideRole {
    if asset.clips.iter().any(|c| c.clip.duration_secs() > 0.0) {
        crate::session::SideRole::Source
    } else {
        crate::session::SideRole::Target
    }
}

/// `<source>_on_<target>.<ext>` next to the project (or, unsaved, in [`unsaved_folder`]).
pub fn default_export_path(
    project: Option<&Path>,
    source: &Path,
    target: &Path,
    extension: &str,
) -> PathBuf {
    let stem = |p: &Path| {
        p.file_stem()
            .map_or("character".into(), |s| s.to_string_lossy().into_owned())
    };
    let folder = project
        .and_then(Path::parent)
        .map_or_else(unsaved_folder, Path::to_path_buf);
    folder.join(format!("{}_on_{}.{extension}", stem(source), stem(target)))
}

/// Where an unsaved project exports: the folder the editor was started in (a terminal's),
/// or the home folder when that is the file system's root (a desktop launcher's). Never
/// the target's folder: that is often an asset library, or the editor's bundled files.
pub fn unsaved_folder() -> PathBuf {
    let started_in = std::env::current_dir()
        .ok()
        .filter(|d| d.parent().is_some());
    started_in
        .or_else(|| std::env::var_os("HOME").map(PathBuf::from))
        .unwrap_or_default()
}

impl StudioApp {
    /// Opens what the command line named (see [`crate::app::Launch`]).
    pub(super) fn open_launch_files(&mut self, launch: &crate::app::Launch) {
        let sides = (launch.source.clone(), launch.target.clone());
        match (&launch.project, &sides) {
            (None, (Some(_), Some(_))) => {}
            (Some(path), _) => self.open_file(path),
            (None, (None, None)) if launch.empty => return,
            (None, _) => self.open_project(&crate::app::demo_project()),
        }
        match sides {
            (Some(source), Some(target)) if launch.project.is_none() => {
                self.open_pair(source, target)
            }
            (None, None) => {}
            (source, target) => self.load_side(source, target),
        }
    }

    /// A source and a target named together make a new project; when one of them will not
    /// open, the other still does (onto the demo's other side) and the error names the one
    /// that failed: a typo in one path never costs the user the other file.
    fn open_pair(&mut self, source: PathBuf, target: PathBuf) {
        self.load_side(Some(source.clone()), Some(target.clone()));
        if self.doc.session.is_some() {
            return;
        }
        let why = self.error.take();
        self.open_project(&crate::app::demo_project());
        for (s, t) in [(Some(source), None), (None, Some(target))] {
            self.load_side(s, t);
            if self.error.take().is_none() {
                break;
            }
        }
        self.error = why;
    }

    /// Opens a file named on the command line: a `.ron` as a project; any other file onto
    /// the open project's other side, as the target, or as the source when it has clips and
    /// no mesh. The title and the status line say which.
    pub fn open_file(&mut self, path: &Path) {
        let is_project = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("ron"));
        if is_project {
            self.open_project(path);
            return;
        }
        let asset = match crate::io::load(path, &crate::io::ImportOptions::default()) {
            Ok(a) => a,
            Err(e) => {
                self.fail(&format!("Could not open {}", path.display()), &e.into());
                return;
            }
        };
        let role = side_for(&asset);
        let (source, target) = match role {
            crate::session::SideRole::Source => (Some(path.to_path_buf()), None),
            crate::session::SideRole::Target => (None, Some(path.to_path_buf())),
        };
        if self.doc.session.is_none() {
            self.open_project(&crate::app::demo_project());
        }
        self.load_side(source, target);
        if self.doc.session.is_some() && self.error.is_none() {
            let name = path
                .file_name()
                .map_or(String::new(), |n| n.to_string_lossy().into_owned());
            let role = match role {
                crate::session::SideRole::Source => "source",
                crate::session::SideRole::Target => "target",
            };
            let why = if role == "source" {
                "it has animation"
            } else {
                "it has no animation"
            };
            self.doc.opened_as = Some(format!("{name} as the {role}"));
            self.status = Some(format!("Opened {name} as the {role} ({why})."));
        }
    }

    /// Runs a file dialog; when it returns nothing at once (no dialog service), shows the
    /// path field instead, so the user is never left with a menu item that does nothing.
    pub(super) fn dialog(
        &mut self,
        purpose: PathPurpose,
        show: impl FnOnce() -> Option<PathBuf>,
    ) -> Option<PathBuf> {
        if !self.no_dialogs {
            let asked = Instant::now();
            if let Some(p) = show() {
                return Some(p);
            }
            if asked.elapsed() >= NO_DIALOG {
                return None; // The user cancelled it.
            }
        }
        self.prompts.path_prompt = Some(PathPrompt {
            purpose,
            typed: String::new(),
        });
        None
    }

    /// Where the export goes: the project's own, made from its files' names.
    pub fn export_path(&self, extension: &str) -> Option<PathBuf> {
        let session = self.doc.session.as_ref()?;
        // The bundled demo is no folder of the user's: exported as if unsaved.
        let project = self.doc.project_path.as_deref();
        Some(default_export_path(
            project.filter(|p| !crate::app::is_demo(p)),
            &session.source.path,
            &session.target.path,
            extension,
        ))
    }

    /// Runs `then` unless it writes over `path` that exists: then asks first.
    pub(super) fn unless_exists(&mut self, path: &Path, then: Command) -> bool {
        if path.exists() {
            self.prompts.overwrite = Some(Overwrite {
                path: path.to_path_buf(),
                then,
            });
            return false;
        }
        true
    }

    pub(super) fn file_prompts_ui(&mut self, ctx: &egui::Context) {
        self.path_prompt_ui(ctx);
        self.overwrite_ui(ctx);
    }

    fn path_prompt_ui(&mut self, ctx: &egui::Context) {
        let Some(prompt) = &mut self.prompts.path_prompt else {
            return;
        };
        let mut done = None;
        let mut cancel = false;
        egui::Modal::new(egui::Id::unique("path-prompt")).show(ctx, |ui| {
            ui.heading(prompt.purpose.title());
            ui.label("No file dialog could be opened here. Type the file's path:");
            let field = egui::TextEdit::singleline(&mut prompt.typed)
                .hint_text("/path/to/file")
                .desired_width(420.0);
            let label = ui.label("Path");
            let response = ui.add(field).labelled_by(label.id);
            response.request_focus();
            let entered = ui.input(|i| i.key_pressed(egui::Key::Enter));
            ui.horizontal(|ui| {
                if (ui.button("OK").clicked() || entered) && !prompt.typed.trim().is_empty() {
                    done = Some(PathBuf::from(prompt.typed.trim()));
                }
                if ui.button("Cancel").clicked() {
                    cancel = true;
                }
            });
        });
        if let Some(path) = done {
            let purpose = prompt.purpose;
            self.prompts.path_prompt = None;
            let command = purpose.command(path.clone());
            if !purpose.writes() || self.unless_exists(&path, command.clone()) {
                self.commands.push(command);
            }
        } else if cancel {
            self.prompts.path_prompt = None;
        }
    }

    fn overwrite_ui(&mut self, ctx: &egui::Context) {
        let Some(overwrite) = self.prompts.overwrite.clone() else {
            return;
        };
        egui::Modal::new(egui::Id::unique("overwrite")).show(ctx, |ui| {
            ui.heading("Replace the file?");
            ui.label(format!(
                "{} already exists. Replace it?",
                overwrite.path.display()
            ));
            ui.horizontal(|ui| {
                if ui.button("Replace").clicked() {
                    self.prompts.overwrite = None;
                    self.prompts.confirmed_overwrite = Some(overwrite.path.clone());
                    self.commands.push(overwrite.then.clone());
                }
                if ui.button("Cancel").clicked() {
                    self.prompts.overwrite = None;
                    self.status = Some("Nothing was written.".into());
                }
            });
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_export_is_named_from_both_files_next_to_the_project_never_the_target() {
        let p = default_export_path(
            Some(Path::new("/work/walks/p.ron")),
            Path::new("/a/02_01.bvh"),
            Path::new("/b/RobotExpressive.glb"),
            "glb",
        );
        assert_eq!(p, Path::new("/work/walks/02_01_on_RobotExpressive.glb"));
        let unsaved = default_export_path(
            None,
            Path::new("/a/02_01.bvh"),
            Path::new("/b/RobotExpressive.glb"),
            "bvh",
        );
        assert_eq!(
            unsaved,
            unsaved_folder().join("02_01_on_RobotExpressive.bvh")
        );
        assert_ne!(
            unsaved.parent(),
            Some(Path::new("/b")),
            "not the target's folder"
        );
        assert!(unsaved_folder().parent().is_some() || unsaved_folder() == PathBuf::new());
    }
}
