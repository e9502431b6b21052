//! How the window's OpenGL is set up: multisampled where a GPU draws, not on a software
//! rasteriser (llvmpipe), where four samples a pixel cost more than twice the frame; and the
//! 3D drawn at half resolution there.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Samples per pixel when nothing says the GL is software.
const GPU_SAMPLES: u16 = 4;

/// The renderer's name as GL reports it, set by the first viewport paint.
static RENDERER: OnceLock<String> = OnceLock::new();

/// Samples per pixel for the window: `RETARGET_STUDIO_MSAA` when set (0, 2, 4, 8), else
/// none where the GL will be software, else [`GPU_SAMPLES`].
pub fn multisampling() -> u16 {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    if let Some(samples) = env("RETARGET_STUDIO_MSAA").and_then(|v| v.trim().parse::<u16>().ok()) {
        return samples.min(16);
    }
    let forced_software = env("LIBGL_ALWAYS_SOFTWARE").is_some_and(|v| v != "0" && v != "false")
        || env("GALLIUM_DRIVER").is_some_and(|d| is_software_renderer(&d));
    if forced_software || !has_gpu_device() {
        0
    } else {
        GPU_SAMPLES
    }
}

/// Whether a GPU device is there to draw: on Linux a DRM render node. Without one, Mesa
/// falls back to llvmpipe (a VM, a container, Xvfb on a server).
fn has_gpu_device() -> bool {
    if !cfg!(target_os = "linux") {
        return true;
    }
    std::fs::read_dir("/dev/dri").is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Whether a GL renderer string names a software rasteriser.
pub fn is_software_renderer(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "swiftshader", "software"]
        .iter()
        .any(|s| name.contains(s))
}

/// Set by runs that save a picture: those draw at full resolution whatever the GL.
static FULL_RESOLUTION: AtomicBool = AtomicBool::new(false);

/// The share of a viewport's resolution the 3D is drawn at: `RETARGET_STUDIO_RENDER_SCALE`
/// when set (0.25 to 1), else a half on a software rasteriser (a quarter of the pixels to
/// shade), and all of it on a GPU or for a screenshot that did not ask.
pub fn render_scale() -> f32 {
    static ASKED: OnceLock<Option<f32>> = OnceLock::new();
    let asked = ASKED.get_or_init(|| {
        std::env::var("RETARGET_STUDIO_RENDER_SCALE")
            .ok()
            .and_then(|v| v.trim().parse::<f32>().ok())
            .filter(|v| v.is_finite())
            .map(|v| v.clamp(0.25, 1.0))
    });
    let full = FULL_RESOLUTION.load(Ordering::Relaxed);
    match (asked, renderer()) {
        (Some(scale), _) => *scale,
        (None, Some(name)) if !full && is_software_renderer(name) => 0.5,
        _ => 1.0,
    }
}

/// Draws every viewport at full resolution from now on (screenshots).
pub fn draw_full_resolution() {
    FULL_RESOLUTION.store(true, Ordering::Relaxed);
}

/// Records the GL renderer's name (the first call wins).
pub fn set_renderer(name: String) {
    let _ = RENDERER.set(name);
}

/// The GL renderer's name, once a viewport has painted.
pub fn renderer() -> Option<&'static str> {
    RENDERER.get().map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_rasterisers_are_known_by_name() {
        assert!(is_software_renderer("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(is_software_renderer("Google SwiftShader"));
        assert!(!is_software_renderer(
            "Mesa Intel(R) UHD Graphics 620 (KBL GT2)"
        ));
        assert!(!is_software_renderer("NVIDIA GeForce RTX 3060/PCIe/SSE2"));
    }
}
