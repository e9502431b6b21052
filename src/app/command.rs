//! Everything the UI asks for, applied in one place after layout (rerun's pattern), so
//! panels only read the document and push commands.

use crate::session::Edit;
use std::path::PathBuf;

#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    New,
    OpenProject(PathBuf),
    /// Ask for a project with a file dialog.
    OpenProjectDialog,
    Save,
    SaveAs(PathBuf),
    SaveAsDialog,
    LoadSource(PathBuf),
    LoadSourceDialog,
    LoadTarget(PathBuf),
    LoadTargetDialog,
    ExportDialog,
    Export(PathBuf),
    SelectTargetJoint(Option<usize>),
    SelectClip(String),
    /// A change to the map, the reference poses or the settings: one undo step.
    Edit(Edit),
    Undo,
    Redo,
    /// Undo or redo until this many steps can be undone (a History entry clicked).
    UndoTo(usize),
    /// Export the current (or every) clip with the export panel's settings.
    ExportWith(super::panels::ExportRequest),
    CancelExport,
    SwapSides,
    ImportMapDialog,
    ExportMapDialog,
    Quit,
}
