//! The editor's frame on the CPU, one run on this machine: what one `ui` call costs while the
//! demo plays (two skinned characters: the live retarget, skinning both meshes, the panels'
//! layout and tessellation), at 1920×1080 and 1000×700, through egui_kittest without a GPU.
//! The GPU's share (drawing, in software GL on a machine without one) is measured by
//! `scripts/frame-time.sh`, which plays the same demo in a real window.
//!
//! Run: `cargo bench --bench editor`.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use egui_kittest::Harness;
use retarget_studio::app::Launch;
use retarget_studio::app::studio::{Prefs, StudioApp};
use std::time::Duration;

fn editor(size: egui::Vec2) -> Harness<'static, StudioApp> {
    let app = StudioApp::with_launch(Launch::default(), Prefs::default());
    let mut h = Harness::new_ui_state(|ui, app: &mut StudioApp| app.ui_contents(ui), app);
    h.set_size(size);
    h.run_steps(3);
    h
}

fn frame(c: &mut Criterion) {
    let mut group = c.benchmark_group("editor frame (CPU)");
    group.measurement_time(Duration::from_secs(5));
    for (name, size) in [
        ("1920x1080", egui::vec2(1920.0, 1080.0)),
        ("1000x700", egui::vec2(1000.0, 700.0)),
    ] {
        let mut h = editor(size);
        assert!(h.state().playback.playing, "the demo plays");
        group.bench_function(BenchmarkId::new("demo playing", name), |b| {
            b.iter(|| h.step());
        });
    }
    group.finish();
}

criterion_group!(benches, frame);
criterion_main!(benches);
