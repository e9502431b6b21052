//! The editor in a test harness (egui_kittest, no GPU): one place that opens a project on a
//! tab, paused, at a fixed window size, with default preferences (never the user's).

use egui_kittest::Harness;
use retarget_studio::app::Launch;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::{Prefs, StudioApp};
use std::path::PathBuf;

/// The editor on `project` with `tab` shown, paused, after two frames.
pub fn editor_on(project: PathBuf, tab: Tab) -> Harness<'static, StudioApp> {
    editor_at(Some(project), tab)
}

/// As [`editor_on`], on the bundled demo when `project` is `None`.
pub fn editor_at(project: Option<PathBuf>, tab: Tab) -> Harness<'static, StudioApp> {
    editor_launched(
        Launch {
            project,
            ..Launch::default()
        },
        tab,
    )
}

/// The editor started as `launch` says (the files a command line names), paused.
pub fn editor_launched(launch: Launch, tab: Tab) -> Harness<'static, StudioApp> {
    let prefs = Prefs {
        tab,
        ..Prefs::default()
    };
    let mut app = StudioApp::with_launch(launch, prefs);
    app.playback.playing = false;
    assert!(app.error.is_none(), "{:?}", app.error);
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(egui::vec2(1500.0, 900.0));
    h.run_steps(2);
    h
}
