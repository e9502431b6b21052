//! A throw-away window that proves the viewport draws: RobotExpressive (left) and CesiumMan
//! (right) side by side in their bind poses. Kept apart from the editor shell, which will
//! replace `app/mod.rs`; run it with `cargo run --example viewport_demo`.
//!
//! Environment:
//! - `VIEWPORT_DEMO_SCREENSHOT=/path.png`: save a screenshot of the window, then exit;
//! - `VIEWPORT_DEMO_SCREENSHOT_DELAY_SECS=5`: wait that long before the screenshot (time to
//!   drive the window from outside, e.g. with `xdotool`);
//! - `VIEWPORT_DEMO_ANIMATE=1`: play each character's first clip instead of the bind pose.
//!
//! Both characters are re-posed and re-skinned every frame, as the editor will do while a
//! clip plays, and the mean CPU time of that is shown and printed on exit.

use super::{CharacterScene, OrbitCamera, TextureCache, ViewportRenderer, viewport_ui};
use crate::core::{Clip, Pose, Skeleton};
use crate::io::{ImportOptions, SkinnedMesh, load};
use anyhow::Context as _;
use eframe::egui;
use glam::Mat4;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Frames to let the window settle (fonts, first GL uploads) before the screenshot.
const SCREENSHOT_AT_FRAME: u64 = 8;
/// Give up on a screenshot that has not arrived this many frames after it was asked for.
const GIVE_UP_AFTER_FRAMES: u64 = 300;

pub fn run_demo() -> anyhow::Result<()> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gltf");
    let animate = std::env::var_os("VIEWPORT_DEMO_ANIMATE").is_some();
    let characters = vec![
        DemoCharacter::load(&dir.join("RobotExpressive.glb"), 1, animate)?,
        DemoCharacter::load(&dir.join("CesiumMan.glb"), 2, animate)?,
    ];
    let screenshot = std::env::var_os("VIEWPORT_DEMO_SCREENSHOT").map(PathBuf::from);
    let delay_secs = std::env::var("VIEWPORT_DEMO_SCREENSHOT_DELAY_SECS")
        .ok()
        .and_then(|s| s.parse::<f32>().ok())
        .unwrap_or(0.0);
    let options = eframe::NativeOptions {
        viewport: egui::ViewportBuilder::default()
            .with_title("Retarget Studio — viewport demo")
            .with_inner_size([1280.0, 800.0]),
        depth_buffer: 24,
        multisampling: 4,
        ..Default::default()
    };
    let app = DemoApp {
        characters,
        screenshot: screenshot.map(|path| Screenshot::new(path, delay_secs)),
        frame: 0,
        skin_time: Duration::ZERO,
        skin_frames: 0,
        started: Instant::now(),
    };
    eframe::run_native("viewport-demo", options, Box::new(|_cc| Ok(Box::new(app))))
        .map_err(|e| anyhow::anyhow!("cannot open the demo window: {e}"))
}

/// One character with what its viewport needs from frame to frame.
struct DemoCharacter {
    name: String,
    skeleton: Skeleton,
    meshes: Vec<SkinnedMesh>,
    textures: TextureCache,
    clip: Option<Clip>,
    pose: Pose,
    world_from_joint: Vec<Mat4>,
    id_base: u64,
    scene: Arc<CharacterScene>,
    camera: OrbitCamera,
    framed: bool,
    renderer: Arc<Mutex<Option<ViewportRenderer>>>,
}

impl DemoCharacter {
    fn load(path: &Path, id_base: u64, animate: bool) -> anyhow::Result<Self> {
        let asset = load(path, &ImportOptions::default())
            .with_context(|| format!("loading {}", path.display()))?;
        let skeleton = asset
            .skeletons
            .first()
            .cloned()
            .with_context(|| format!("{} has no skeleton", path.display()))?;
        let meshes: Vec<SkinnedMesh> = asset
            .meshes
            .iter()
            .filter(|m| m.skeleton == 0)
            .cloned()
            .collect();
        let clip = animate.then(|| asset.clips_of(0).next().cloned()).flatten();
        let pose = Pose::bind(&skeleton);
        let mut textures = TextureCache::default();
        textures.prepare(&meshes);
        let mut me = Self {
            name: path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default(),
            world_from_joint: vec![Mat4::IDENTITY; skeleton.len()],
            skeleton,
            meshes,
            textures,
            clip,
            pose,
            id_base,
            scene: Arc::new(CharacterScene::default()),
            camera: OrbitCamera::default(),
            framed: false,
            renderer: Arc::new(Mutex::new(None)),
        };
        me.update(0.0);
        if let Some((min, max)) = me.scene.bounds() {
            Arc::make_mut(&mut me.scene).bone_radius =
                super::scene::suggested_bone_radius(min, max);
        }
        Ok(me)
    }

    /// Poses and skins the character; returns the CPU time of forward kinematics + skinning.
    fn update(&mut self, time_secs: f32) -> Duration {
        if let Some(clip) = &self.clip {
            let t = clip.start_secs() + time_secs % clip.duration_secs().max(1e-3);
            clip.sample(t, &mut self.pose);
        }
        // Moves the scene out of the shared `Arc` once the renderer let go of it, so this
        // does not clone the vertex data.
        let scene = Arc::make_mut(&mut self.scene);
        let started = Instant::now();
        self.pose
            .world_matrices_into(&self.skeleton, &mut self.world_from_joint);
        scene.set_pose(
            self.id_base,
            self.skeleton.parents(),
            &self.meshes,
            &self.world_from_joint,
            &self.textures,
        );
        started.elapsed()
    }

    fn ui(&mut self, ui: &mut egui::Ui) {
        let vertices: usize = self.meshes.iter().map(SkinnedMesh::vertex_count).sum();
        ui.label(format!(
            "{} — {} joints, {} vertices",
            self.name,
            self.skeleton.len(),
            vertices
        ));
        if !self.framed
            && let Some((min, max)) = self.scene.bounds()
        {
            let size = ui.available_size();
            self.camera.frame_in(min, max, size.x / size.y.max(1.0));
            self.framed = true;
        }
        let response = viewport_ui(
            ui,
            &mut self.camera,
            self.scene.clone(),
            self.renderer.clone(),
            (&mut super::GizmoState::default(), None),
        );
        if let Some(j) = response.clicked_joint {
            Arc::make_mut(&mut self.scene).selected_joint = Some(j);
            println!(
                "{}: picked joint {} ({})",
                self.name,
                j,
                self.skeleton.names()[j]
            );
        }
    }
}

/// A pending or finished screenshot to `path`.
struct Screenshot {
    path: PathBuf,
    delay_secs: f32,
    done: Arc<AtomicBool>,
    /// The frame it was asked for on.
    requested_at: Option<u64>,
}

impl Screenshot {
    fn new(path: PathBuf, delay_secs: f32) -> Self {
        Self {
            path,
            delay_secs,
            done: Arc::new(AtomicBool::new(false)),
            requested_at: None,
        }
    }

    fn request(&mut self, ctx: &egui::Context, frame: u64) {
        self.requested_at = Some(frame);
        let (path, done) = (self.path.clone(), self.done.clone());
        ctx.request_screenshot(move |image| {
            match save_png(&path, &image) {
                Ok(()) => println!("screenshot saved to {}", path.display()),
                Err(e) => eprintln!("screenshot: {e:#}"),
            }
            done.store(true, Ordering::Release);
        });
    }
}

fn save_png(path: &Path, image: &egui::ColorImage) -> anyhow::Result<()> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    image::save_buffer(path, &bytes, w as u32, h as u32, image::ColorType::Rgba8)
        .with_context(|| format!("writing {}", path.display()))
}

struct DemoApp {
    characters: Vec<DemoCharacter>,
    screenshot: Option<Screenshot>,
    frame: u64,
    skin_time: Duration,
    skin_frames: u32,
    started: Instant,
}

impl DemoApp {
    fn mean_skin_micros(&self) -> f64 {
        self.skin_time.as_secs_f64() * 1e6 / f64::from(self.skin_frames.max(1))
    }

    /// Takes the screenshot once the window has settled, and closes after it is written.
    fn drive_screenshot(&mut self, ctx: &egui::Context) {
        let Some(shot) = &mut self.screenshot else {
            return;
        };
        ctx.request_repaint();
        let waited = self.started.elapsed().as_secs_f32() >= shot.delay_secs;
        if shot.requested_at.is_none() && self.frame >= SCREENSHOT_AT_FRAME && waited {
            shot.request(ctx, self.frame);
        }
        let gave_up = shot
            .requested_at
            .is_some_and(|f| self.frame > f + GIVE_UP_AFTER_FRAMES);
        if shot.done.load(Ordering::Acquire) || gave_up {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

impl eframe::App for DemoApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.frame += 1;
        let t = self.started.elapsed().as_secs_f32();
        let spent: Duration = self.characters.iter_mut().map(|c| c.update(t)).sum();
        self.skin_time += spent;
        self.skin_frames += 1;
        let label = format!(
            "CPU pose + skinning, both characters: {:.0} µs/frame (mean of {}) — drag: orbit, \
             right-drag: pan, wheel: zoom, F: frame, click: pick a joint",
            self.mean_skin_micros(),
            self.skin_frames
        );
        egui::Panel::top("demo_top").show(ui, |ui| ui.label(label));
        egui::CentralPanel::default().show(ui, |ui| {
            ui.columns(2, |cols| {
                for (col, character) in cols.iter_mut().zip(&mut self.characters) {
                    character.ui(col);
                }
            });
        });
        if self.clip_playing() {
            ui.ctx().request_repaint();
        }
        self.drive_screenshot(ui.ctx());
    }

    fn on_exit(&mut self, _gl: Option<&eframe::glow::Context>) {
        println!(
            "pose + skinning of both characters: {:.1} µs/frame on average over {} frames",
            self.mean_skin_micros(),
            self.skin_frames
        );
    }
}

impl DemoApp {
    fn clip_playing(&self) -> bool {
        self.characters.iter().any(|c| c.clip.is_some())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-frame CPU cost of the demo without a window or GL competing for the cores:
    /// `cargo test --release --lib skinning_cost -- --ignored --nocapture`.
    #[test]
    #[ignore = "a timing, not a check; run by hand"]
    fn skinning_cost_of_the_demo_characters() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/gltf");
        let mut characters = [
            DemoCharacter::load(&dir.join("RobotExpressive.glb"), 1, true).unwrap(),
            DemoCharacter::load(&dir.join("CesiumMan.glb"), 2, true).unwrap(),
        ];
        let frames = 2000;
        let mut spent = Duration::ZERO;
        for f in 0..frames {
            let t = f as f32 / 60.0;
            spent += characters.iter_mut().map(|c| c.update(t)).sum::<Duration>();
        }
        let vertices: usize = characters
            .iter()
            .flat_map(|c| &c.meshes)
            .map(SkinnedMesh::vertex_count)
            .sum();
        println!(
            "pose + skinning, both characters ({vertices} vertices): {:.1} µs/frame",
            spent.as_secs_f64() * 1e6 / f64::from(frames)
        );
    }
}
