//! The Khronos validator's verdict on an exported GLB, when `gltf-validate` is installed
//! (on PATH, or named by `RETARGET_GLTF_VALIDATE`); it runs in the background.

use std::path::PathBuf;
use std::process::Command;
use std::sync::{Arc, Mutex};

pub struct Validation {
    verdict: Arc<Mutex<Option<String>>>,
}

impl Validation {
    pub fn verdict(&self) -> Option<String> {
        self.verdict.lock().ok().and_then(|v| v.clone())
    }
}

fn validator() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("RETARGET_GLTF_VALIDATE") {
        return Some(PathBuf::from(p));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join("gltf-validate"))
        .find(|p| p.is_file())
}

/// Starts the validator on `glb`; `None` when there is no validator to run.
pub fn spawn(glb: PathBuf) -> Option<Validation> {
    let tool = validator()?;
    let verdict = Arc::new(Mutex::new(Some("validator: running…".to_owned())));
    let slot = verdict.clone();
    std::thread::spawn(move || {
        let text = match Command::new(&tool).arg(&glb).output() {
            Ok(out) => {
                let stdout = String::from_utf8_lossy(&out.stdout);
                let last = stdout.lines().last().unwrap_or("").to_owned();
                format!("validator: {last}")
            }
            Err(e) => format!("validator could not run: {e}"),
        };
        if let Ok(mut v) = slot.lock() {
            *v = Some(text);
        }
    });
    Some(Validation { verdict })
}
