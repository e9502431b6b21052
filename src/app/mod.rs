//! The desktop editor: source and target side by side, both playing the same time, the
//! target retargeted live. Document apart from UI state; panels push commands that are
//! applied in one place after layout.

mod character_view;
pub mod command;
pub mod document;
pub mod errors;
mod floor;
pub mod graphics;
pub mod guard;
mod live;
pub mod names;
pub mod panels;
pub mod screenshot;
pub mod studio;
pub mod tasks;
pub mod timeline;
pub mod viewport;

pub use screenshot::ScreenshotRequest;
pub use studio::StudioApp;

use eframe::egui;
use std::path::PathBuf;

/// How the editor starts.
#[derive(Clone, Debug, Default)]
pub struct Launch {
    /// A project to open, or one file opened onto the demo's other side by what it holds;
    /// `None` (and no side below) opens the bundled demo.
    pub project: Option<PathBuf>,
    /// A source and a target named outright: both make a new project; one replaces that side
    /// of the project (or of the demo).
    pub source: Option<PathBuf>,
    pub target: Option<PathBuf>,
    /// Start empty (File ▸ New) instead of on the demo, unless files are named.
    pub empty: bool,
    /// Render, save the window's image and exit.
    pub screenshot: Option<ScreenshotRequest>,
    /// Window size in points.
    pub size: Option<[f32; 2]>,
    /// The tool tab to show (default: the last one used).
    pub tab: Option<panels::Tab>,
    /// A target bone to select, by name.
    pub select: Option<String>,
    /// Both cameras look from this side instead of the default three-quarter view.
    pub view: Option<viewport::ViewDirection>,
    /// Autosave and crash recovery: where recovery files go and how often. `None` turns
    /// both off (tests, screenshots); `run` fills in the data folder for a normal window.
    pub recovery: Option<document::autosave::AutosaveConfig>,
    /// Start with the tool panel hidden.
    pub hide_tools: bool,
    /// Start with the export panel's "Extract to root" ticked (its path drawn on the floor).
    pub extract_root: bool,
}

/// The bundled demo: RobotExpressive's Dance retargeted onto the VRM character.
pub fn demo_project() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets/demo.ron")
}

/// Whether `path` is the bundled demo's project (which edits never write over).
pub fn is_demo(path: &std::path::Path) -> bool {
    let canonical = |p: &std::path::Path| std::fs::canonicalize(p).ok();
    path == demo_project() || canonical(path).is_some_and(|p| Some(p) == canonical(&demo_project()))
}

/// The folder named by `RETARGET_STUDIO_STATE_DIR`, where the editor keeps its saved
/// window state and recovery files instead of the user's data folder (tests, scripts, a
/// second profile).
pub fn state_dir() -> Option<PathBuf> {
    std::env::var_os("RETARGET_STUDIO_STATE_DIR")
        .filter(|d| !d.is_empty())
        .map(PathBuf::from)
}

/// When `run` was entered: the start of "launch to first frame".
static LAUNCHED: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();

pub fn run(mut launch: Launch) -> anyhow::Result<()> {
    LAUNCHED.get_or_init(std::time::Instant::now);
    if launch.screenshot.is_none() && launch.recovery.is_none() {
        launch.recovery = document::autosave::AutosaveConfig::standard();
    }
    let size = launch.size.unwrap_or([1440.0, 860.0]);
    let mut viewport = egui::ViewportBuilder::default()
        .with_title("Retarget Studio")
        .with_inner_size(size)
        .with_drag_and_drop(true);
    if launch.screenshot.is_some() {
        viewport = viewport.with_resizable(false);
    }
    // A screenshot run starts from nothing saved: its own empty state folder, so neither
    // the last session's window, panel widths nor preferences change the picture.
    let scratch = match launch.screenshot {
        Some(_) => Some(tempfile::tempdir()?),
        None => None,
    };
    let persistence_path = scratch
        .as_ref()
        .map(|d| d.path().to_path_buf())
        .or_else(state_dir)
        .map(|d| d.join("app.ron"));
    let options = eframe::NativeOptions {
        viewport,
        depth_buffer: 24,
        multisampling: graphics::multisampling(),
        // A screenshot run must be the size asked for, not the last session's.
        // A screenshot run, or a window of a size asked for, is that size, not the last
        // session's.
        persist_window: launch.screenshot.is_none() && launch.size.is_none(),
        persistence_path,
        ..Default::default()
    };
    let outcome = std::sync::Arc::new(std::sync::Mutex::new(None));
    let outcome_for_app = outcome.clone();
    eframe::run_native(
        "Retarget Studio",
        options,
        Box::new(move |cc| Ok(Box::new(StudioApp::new(cc, launch, outcome_for_app)))),
    )
    .map_err(|e| anyhow::anyhow!("cannot open the editor window: {e}"))?;
    let result = outcome.lock().ok().and_then(|mut o| o.take());
    match result {
        Some(Err(e)) => anyhow::bail!("{e}"),
        _ => Ok(()),
    }
}
