//! The window's layout through the UI (egui_kittest, no GPU): the tool panel collapses and
//! resizes, and nothing inside it or saved about it ever squeezes a viewport away.

use crate::common::editor::editor_on;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use retarget_studio::app::panels::Tab;
use retarget_studio::app::studio::StudioApp;
use retarget_studio::app::studio::layout::MIN_VIEWPORT;

fn demo(tab: Tab, size: egui::Vec2) -> Harness<'static, StudioApp> {
    let mut h = editor_on(retarget_studio::app::demo_project(), tab);
    h.set_size(size);
    h.run_steps(3);
    h
}

fn viewport_widths(h: &Harness<'static, StudioApp>) -> [f32; 2] {
    [0, 1].map(|i| h.state().view(i).last_rect.width())
}

/// Where the tool panel's resize handle is: just left of its frame.
fn panel_edge(h: &Harness<'static, StudioApp>, window: f32) -> egui::Pos2 {
    egui::pos2(window - h.state().tools_width() - 6.0, 400.0)
}

/// A primary-button drag from `from` to `to` in a few steps.
fn drag(h: &mut Harness<'static, StudioApp>, from: egui::Pos2, to: egui::Pos2) {
    let button = |pos, pressed| egui::Event::PointerButton {
        pos,
        button: egui::PointerButton::Primary,
        pressed,
        modifiers: egui::Modifiers::NONE,
    };
    h.event(egui::Event::PointerMoved(from));
    h.run_steps(1);
    h.event(button(from, true));
    h.run_steps(1);
    for k in 1..=6 {
        h.event(egui::Event::PointerMoved(
            from + (to - from) * (k as f32 / 6.0),
        ));
        h.run_steps(1);
    }
    h.event(button(to, false));
    h.run_steps(2);
}

#[test]
fn the_tool_panel_collapses_by_button_and_key() {
    let mut h = demo(Tab::History, egui::vec2(1000.0, 700.0));
    let open = viewport_widths(&h);
    assert!(
        h.state().tools_width() > 200.0,
        "{}",
        h.state().tools_width()
    );
    h.get_by_label("Hide tools").click();
    h.run_steps(3);
    assert_eq!(h.state().tools_width(), 0.0);
    let collapsed = viewport_widths(&h);
    for i in 0..2 {
        assert!(
            collapsed[i] > open[i] + 100.0 && collapsed[i] > 440.0,
            "viewport {i}: {} open, {} collapsed",
            open[i],
            collapsed[i]
        );
    }
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::T);
    h.run_steps(3);
    assert!(h.state().tools_width() > 200.0, "Ctrl+T opens it again");
    h.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::T);
    h.run_steps(3);
    assert_eq!(h.state().tools_width(), 0.0, "and closes it");
    h.get_by_label("Show tools").click();
    h.run_steps(3);
    assert!(h.state().tools_width() > 200.0);
}

#[test]
fn dragging_the_panel_wide_never_hides_a_viewport() {
    let mut h = demo(Tab::BoneMap, egui::vec2(1000.0, 700.0));
    let edge = panel_edge(&h, 1000.0);
    drag(&mut h, edge, egui::pos2(5.0, 400.0));
    for (i, w) in viewport_widths(&h).into_iter().enumerate() {
        assert!(w >= MIN_VIEWPORT - 12.0, "viewport {i} is {w} wide");
    }
    let wide = h.state().tools_width();
    assert!(wide > 500.0, "the drag widened the panel: {wide}");
    // And narrow again, freely.
    let edge = panel_edge(&h, 1000.0);
    drag(&mut h, edge, egui::pos2(900.0, 400.0));
    assert!(
        h.state().tools_width() < 300.0,
        "{}",
        h.state().tools_width()
    );
}

#[test]
fn a_widened_bone_map_column_keeps_the_viewports() {
    let mut h = demo(Tab::BoneMap, egui::vec2(1000.0, 700.0));
    let before = (viewport_widths(&h), h.state().tools_width());
    // The resize handle between the first two columns sits on the second title's left.
    let second = h.get_by_label("Source bone").rect();
    let at = egui::pos2(second.left() - 4.0, second.center().y);
    drag(&mut h, at, egui::pos2(at.x + 900.0, at.y));
    let after = (viewport_widths(&h), h.state().tools_width());
    assert!(
        (after.1 - before.1).abs() < 2.0,
        "the panel kept its width: {before:?} -> {after:?}"
    );
    for i in 0..2 {
        assert!(
            (after.0[i] - before.0[i]).abs() < 2.0,
            "viewport {i} kept its width: {before:?} -> {after:?}"
        );
    }
    let moved = h.get_by_label("Source bone").rect();
    assert!(
        moved.left() > second.left() + 100.0,
        "the column did widen: {second:?} -> {moved:?}"
    );
}

#[test]
fn a_small_window_keeps_both_viewports_and_reset_layout_restores_the_panel() {
    let mut h = demo(Tab::BoneMap, egui::vec2(1600.0, 900.0));
    let edge = panel_edge(&h, 1600.0);
    drag(&mut h, edge, egui::pos2(20.0, 400.0));
    // The window shrinks after a wide panel was dragged (or saved).
    h.set_size(egui::vec2(700.0, 600.0));
    h.run_steps(3);
    for (i, w) in viewport_widths(&h).into_iter().enumerate() {
        assert!(
            w >= MIN_VIEWPORT - 12.0,
            "viewport {i} is {w} wide in 700 pt"
        );
    }
    h.set_size(egui::vec2(1600.0, 900.0));
    h.run_steps(2);
    h.state_mut().reset_layout();
    h.run_steps(3);
    let w = h.state().tools_width();
    assert!((500.0..700.0).contains(&w), "the default width again: {w}");
}

#[test]
fn a_window_opened_smaller_than_last_time_narrows_the_panel() {
    // A session at 1920 wide: egui keeps the panel's width, the prefs the window's.
    let mut wide = demo(Tab::BoneMap, egui::vec2(1920.0, 1080.0));
    let edge = panel_edge(&wide, 1920.0);
    drag(&mut wide, edge, egui::pos2(1200.0, 400.0));
    let panel = wide.state().tools_width();
    assert!(panel > 650.0, "{panel}");
    let prefs = wide.state().prefs.clone();
    let memory = wide.ctx.memory(|m| m.clone());
    drop(wide);
    // The next session opens at 1000 × 700.
    let mut app = StudioApp::with_launch(retarget_studio::app::Launch::default(), prefs);
    app.playback.playing = false;
    let mut h = Harness::builder()
        .with_size(egui::vec2(1000.0, 700.0))
        .with_context_setup(move |ctx| ctx.memory_mut(|m| *m = memory))
        .build_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.run_steps(3);
    for (i, w) in viewport_widths(&h).into_iter().enumerate() {
        assert!(w > 300.0, "viewport {i} is {w} wide at 1000 px");
    }
    assert!(
        h.state().tools_width() >= 239.0,
        "{}",
        h.state().tools_width()
    );
}

#[test]
fn every_export_control_is_reachable_at_1000_by_700() {
    // 700 high, less the rows a clip with more contacts adds under the timeline.
    let mut h = demo(Tab::Export, egui::vec2(1000.0, 600.0));
    let visible = h.state().drawn.tools_rect.unwrap();
    let button = h.get_by_label("Export clips");
    let before = button.rect();
    assert!(
        before.bottom() > visible.bottom(),
        "the button starts out of view: {before:?} in {visible:?}"
    );
    button.scroll_to_me();
    h.run_steps(3);
    let at = h.get_by_label("Export clips").rect();
    assert!(
        visible.contains_rect(at),
        "the Export button at {at:?} (first {before:?}) stays outside the panel {visible:?}"
    );
}

#[test]
fn every_control_of_the_tool_tabs_is_reachable_in_a_short_window() {
    use egui::accesskit::Role;
    use egui_kittest::kittest::{NodeT, by};
    for tab in [Tab::Skeleton, Tab::Pose, Tab::Solve, Tab::Export] {
        let mut h = demo(tab, egui::vec2(1000.0, 600.0));
        let visible = h.state().drawn.tools_rect.unwrap();
        let controls: Vec<String> = [Role::Button, Role::CheckBox, Role::RadioButton]
            .into_iter()
            .flat_map(|role| {
                h.query_all(by().role(role))
                    // The panel's contents: below its title row (whose "Hide tools" stays).
                    .filter(|n| visible.x_range().contains(n.rect().center().x))
                    .filter(|n| n.rect().top() >= visible.top() - 1.0)
                    .filter_map(|n| n.accesskit_node().label())
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(controls.len() > 3, "{tab:?}: {controls:?}");
        for label in controls {
            if h.query_all_by_label(&label).count() != 1 {
                continue;
            }
            h.get_by_label(&label).scroll_to_me();
            // The scroll is animated: a few frames to settle.
            h.run_steps(12);
            let at = h.get_by_label(&label).rect();
            assert!(
                visible.expand(1.0).contains_rect(at),
                "{tab:?}: '{label}' at {at:?} cannot be brought into the panel {visible:?}"
            );
        }
    }
}
