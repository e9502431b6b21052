//! `retarget-studio screenshot`: the app renders a chosen frame, saves the window's image
//! and closes. The image arrives through egui's screenshot event a few frames later.

use eframe::egui;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

/// Frames to let fonts, GPU uploads and camera framing settle first.
const SETTLE_FRAMES: u64 = 10;
const GIVE_UP_FRAMES: u64 = 300;

#[derive(Clone, Debug)]
pub struct ScreenshotRequest {
    pub out: PathBuf,
    pub frame: Option<usize>,
}

pub struct ScreenshotJob {
    pub request: ScreenshotRequest,
    asked_at: Option<u64>,
    done: Arc<AtomicBool>,
    pub outcome: Arc<Mutex<Option<Result<(), String>>>>,
}

impl ScreenshotJob {
    pub fn new(request: ScreenshotRequest) -> Self {
        // A saved picture shows the 3D at its resolution, whatever the GL.
        crate::app::graphics::draw_full_resolution();
        Self {
            request,
            asked_at: None,
            done: Arc::new(AtomicBool::new(false)),
            outcome: Arc::new(Mutex::new(None)),
        }
    }

    /// Called every frame; asks for the image once settled and closes once it is saved.
    /// An `error` the window shows then (a project that did not open) fails the run, though
    /// the image, which shows it, is still written.
    pub fn drive(&mut self, ctx: &egui::Context, frame: u64, error: Option<&str>) {
        ctx.request_repaint();
        // The pointer of a bare X server rests mid-screen: no tooltip in the picture.
        ctx.global_style_mut(|s| s.interaction.tooltip_delay = f32::INFINITY);
        if self.asked_at.is_none() && frame >= SETTLE_FRAMES {
            self.asked_at = Some(frame);
            let (path, done, outcome) = (
                self.request.out.clone(),
                self.done.clone(),
                self.outcome.clone(),
            );
            let shown_error = error.map(str::to_owned);
            ctx.request_screenshot(move |image| {
                let result = save_png(&path, &image)
                    .map_err(|e| format!("{e:#}"))
                    .and_then(|()| match shown_error {
                        Some(e) => Err(format!("{e} (the image, written anyway, shows it)")),
                        None => Ok(()),
                    });
                if let Ok(mut slot) = outcome.lock() {
                    *slot = Some(result);
                }
                done.store(true, Ordering::Release);
            });
        }
        let gave_up = self.asked_at.is_some_and(|f| frame > f + GIVE_UP_FRAMES);
        if gave_up && let Ok(mut slot) = self.outcome.lock() {
            slot.get_or_insert(Err("the window never delivered its image".into()));
        }
        if self.done.load(Ordering::Acquire) || gave_up {
            ctx.send_viewport_cmd(egui::ViewportCommand::Close);
        }
    }
}

fn save_png(path: &Path, image: &egui::ColorImage) -> anyhow::Result<()> {
    let [w, h] = image.size;
    let bytes: Vec<u8> = image.pixels.iter().flat_map(|c| c.to_array()).collect();
    let mut png = Vec::new();
    image::write_buffer_with_format(
        &mut std::io::Cursor::new(&mut png),
        &bytes,
        w as u32,
        h as u32,
        image::ColorType::Rgba8,
        image::ImageFormat::Png,
    )?;
    crate::io::atomic::write_atomic(path, |w| w.write_all(&png))
        .map_err(|e| anyhow::anyhow!("{}: cannot write: {e}", path.display()))?;
    Ok(())
}
