//! The export panel: format, clips, frame rate and output path, then Export.

use crate::app::command::Command;
use crate::core::{Axis, TranslationMode, Unit};
use crate::session::{
    ExportFormat, ExportJob, FbxSettings, KeyReduction, Session, translation_name,
};
use eframe::egui;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

pub type ExportRequest = ExportJob;

#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub enum FpsChoice {
    #[default]
    Source,
    Fixed(u32),
    Custom(f32),
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct ExportForm {
    pub format: ExportFormat,
    pub all_clips: bool,
    pub fps: FpsChoice,
    /// Per project, never saved between runs: a path from one project must not carry
    /// silently into the next one, where it would overwrite that project's export.
    #[serde(skip)]
    pub path: String,
    /// The project default `path` was made from; a new one resets it.
    #[serde(skip)]
    pub path_for: Option<PathBuf>,
    pub reduce: bool,
    pub tolerance: KeyReduction,
    /// `None`: as the bone map says.
    pub root_motion: Option<TranslationMode>,
    /// Move the hips' ground path and facing onto the root joint (engines' root motion).
    pub extract_root: bool,
    /// ... adding a root joint at the origin when the rig has none above its hips.
    pub add_root: bool,
}

impl ExportForm {
    pub(super) fn fps(&self) -> Option<f32> {
        match self.fps {
            FpsChoice::Source => None,
            FpsChoice::Fixed(f) => Some(f as f32),
            FpsChoice::Custom(f) => Some(f.max(1.0)),
        }
    }

    fn extension(&self) -> &'static str {
        match self.format {
            ExportFormat::Bvh => "bvh",
            ExportFormat::Fbx(_) => "fbx",
            _ => "glb",
        }
    }
}

pub fn export_ui(
    ui: &mut egui::Ui,
    session: &Session,
    clip: Option<&str>,
    default_path: Option<&std::path::Path>,
    form: &mut ExportForm,
    commands: &mut Vec<Command>,
) {
    format_ui(ui, form);
    ui.separator();
    let clips = session.source.clips();
    clips_and_rate_ui(ui, form, clip, clips.len());
    keys_and_root_ui(ui, form);
    super::export_size::size_ui(ui, session, clip, form);
    mirror_ui(ui, session, commands);
    ui.separator();
    output_ui(ui, default_path, form);
    if ui.button("Export clips").clicked() {
        let names = if form.all_clips {
            clips.iter().map(|c| Some(c.name.clone())).collect()
        } else {
            vec![clip.map(str::to_owned)]
        };
        let mut out = PathBuf::from(&form.path);
        out.set_extension(form.extension());
        commands.push(Command::ExportWith(ExportJob {
            format: form.format,
            clips: names,
            fps: form.fps(),
            out,
            reduce: form.reduce.then_some(form.tolerance),
            root_motion: form.root_motion,
            extract_root: form.extract_root,
            add_root: form.add_root,
        }));
    }
}

fn format_ui(ui: &mut egui::Ui, form: &mut ExportForm) {
    ui.label("Format");
    // The FBX choices keep the unit and up axis already set.
    let fbx = match form.format {
        ExportFormat::Fbx(settings) => settings,
        _ => FbxSettings::default(),
    };
    let choices = [
        (
            ExportFormat::GlbWithCharacter,
            "GLB: the target character with the clips",
        ),
        (
            ExportFormat::GlbAnimationOnly,
            "GLB: skeleton and clips only",
        ),
        (
            ExportFormat::Fbx(FbxSettings {
                animation_only: false,
                ..fbx
            }),
            "FBX: the target character with the clips",
        ),
        (
            ExportFormat::Fbx(FbxSettings {
                animation_only: true,
                ..fbx
            }),
            "FBX: skeleton and clips only (onto an engine's skeleton)",
        ),
        (
            ExportFormat::Bvh,
            "BVH: the target skeleton (one file per clip)",
        ),
    ];
    for (format, label) in choices {
        ui.radio_value(&mut form.format, format, label);
    }
    if let ExportFormat::Fbx(settings) = &mut form.format {
        fbx_axes_ui(ui, settings);
    }
}

/// The FBX's unit and up axis: the target's own unless set.
fn fbx_axes_ui(ui: &mut egui::Ui, settings: &mut FbxSettings) {
    ui.horizontal_wrapped(|ui| {
        ui.label("FBX unit");
        ui.radio_value(&mut settings.unit, None, "as the target");
        ui.radio_value(&mut settings.unit, Some(Unit::Centimetre), "cm")
            .on_hover_text("Maya's and Unreal's unit");
        ui.radio_value(&mut settings.unit, Some(Unit::Metre), "m");
        ui.separator();
        ui.label("up");
        ui.radio_value(&mut settings.up, None, "as the target");
        ui.radio_value(&mut settings.up, Some(Axis::PosY), "Y");
        ui.radio_value(&mut settings.up, Some(Axis::PosZ), "Z");
    });
}

fn clips_and_rate_ui(ui: &mut egui::Ui, form: &mut ExportForm, clip: Option<&str>, clips: usize) {
    ui.horizontal_wrapped(|ui| {
        ui.label("Clips");
        ui.radio_value(
            &mut form.all_clips,
            false,
            format!("current ({})", clip.unwrap_or("first")),
        );
        ui.radio_value(&mut form.all_clips, true, format!("all {clips}"));
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Frame rate");
        ui.radio_value(&mut form.fps, FpsChoice::Source, "source");
        for f in [24, 30, 60] {
            ui.radio_value(&mut form.fps, FpsChoice::Fixed(f), f.to_string());
        }
        let mut custom = match form.fps {
            FpsChoice::Custom(f) => f,
            _ => 120.0,
        };
        let is_custom = matches!(form.fps, FpsChoice::Custom(_));
        if ui.selectable_label(is_custom, "custom").clicked()
            || (is_custom
                && ui
                    .add(egui::DragValue::new(&mut custom).range(1.0..=480.0))
                    .changed())
        {
            form.fps = FpsChoice::Custom(custom);
        }
    });
}

fn keys_and_root_ui(ui: &mut egui::Ui, form: &mut ExportForm) {
    ui.horizontal_wrapped(|ui| {
        ui.checkbox(&mut form.reduce, "Reduce keys within");
        let degrees = egui::DragValue::new(&mut form.tolerance.degrees)
            .speed(0.01)
            .range(0.0..=10.0)
            .suffix("°");
        super::labelled(ui, "angle", degrees);
        let mm = egui::DragValue::new(&mut form.tolerance.millimetres)
            .speed(0.05)
            .range(0.0..=100.0)
            .suffix(" mm");
        super::labelled(ui, "distance", mm);
    });
    ui.horizontal_wrapped(|ui| {
        ui.label("Root motion");
        ui.radio_value(&mut form.root_motion, None, "as mapped");
        for mode in [
            TranslationMode::HipsScaled,
            TranslationMode::Copy,
            TranslationMode::InPlace,
        ] {
            let name = match mode {
                TranslationMode::Copy => "keep",
                other => translation_name(other),
            };
            ui.radio_value(&mut form.root_motion, Some(mode), name);
        }
    });
    ui.checkbox(&mut form.extract_root, "Extract to root")
        .on_hover_text(
            "The pelvis's path on the ground and its facing go onto the rig's root joint, \
             so Unreal's and Unity's root motion move the character; the pelvis keeps its \
             height and sway",
        );
    ui.add_enabled_ui(form.extract_root, |ui| {
        ui.checkbox(&mut form.add_root, "Add a root joint if the rig has none")
            .on_hover_text(
                "On a rig whose hips are its top joint, a joint named root is added at the \
                 origin above them to carry the motion",
            );
    });
}

/// The solve's mirror flag, shared with the Solve tab: an undoable edit of the project, so
/// the export writes what the editor shows.
fn mirror_ui(ui: &mut egui::Ui, session: &Session, commands: &mut Vec<Command>) {
    let mut solve = session.solve.settings;
    ui.checkbox(&mut solve.mirror, "Mirror left to right")
        .on_hover_text("Export the clip mirrored on the target (the Solve tab's Mirror)");
    if solve != session.solve.settings {
        commands.push(Command::Edit(crate::session::Edit::SetSolve(solve)));
    }
}

/// The output path: the project's own (`<source>_on_<target>.<ext>` beside it) until the
/// user types another, and the project's own again when another project opens.
fn output_ui(ui: &mut egui::Ui, default_path: Option<&std::path::Path>, form: &mut ExportForm) {
    if let Some(default) = default_path
        && form.path_for.is_none()
        && !form.path.is_empty()
    {
        // A path set before the first draw (a test, a script) is this project's.
        form.path_for = Some(default.to_path_buf());
    }
    if let Some(default) = default_path
        && (form.path_for.as_deref() != Some(default) || form.path.is_empty())
    {
        let mut path = default.to_path_buf();
        path.set_extension(form.extension());
        form.path = path.display().to_string();
        form.path_for = Some(default.to_path_buf());
    }
    ui.horizontal_wrapped(|ui| {
        super::labelled(
            ui,
            "Output",
            egui::TextEdit::singleline(&mut form.path).desired_width(300.0),
        );
        if ui.button("Browse…").clicked()
            && let Some(p) = rfd::FileDialog::new()
                .add_filter("export", &[form.extension()])
                .save_file()
        {
            form.path = p.display().to_string();
        }
    });
}

/// While an export runs: a bar of clips done, and Cancel.
pub fn progress_ui(
    ui: &mut egui::Ui,
    progress: Option<(usize, usize)>,
    commands: &mut Vec<Command>,
) {
    let Some((done, total)) = progress else {
        return;
    };
    ui.horizontal_wrapped(|ui| {
        let fraction = done as f32 / total.max(1) as f32;
        ui.add(
            egui::ProgressBar::new(fraction)
                .text(format!("{done} of {total} clips"))
                .desired_width(260.0),
        );
        if ui.button("Cancel").clicked() {
            commands.push(Command::CancelExport);
        }
    });
}
