//! The shared corpus of real files (`../shared/corpus`, beside the repository): its
//! manifests' rows. Test data with unclear licences, never copied here: tests that read it
//! skip, saying so, when it is absent.

use serde_json::Value;
use std::path::PathBuf;

/// A file of the corpus, or `None`, saying so, when the corpus is absent.
pub fn corpus_path(rel: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/corpus")
        .join(rel);
    if path.exists() {
        Some(path)
    } else {
        eprintln!("skipped: the corpus file {} is absent", path.display());
        None
    }
}

/// The corpus folder, or `None` (with a line saying the test is skipped) when it is absent.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!(
            "{test}: skipped: the shared corpus is not at {}",
            dir.display()
        );
        None
    }
}

/// Every manifest row of the corpus, with the row's file as a full path under `path`.
pub fn manifest_rows(dir: &std::path::Path) -> Vec<Value> {
    let mut rows = Vec::new();
    let mut folders: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    folders.sort();
    for folder in folders {
        let Ok(text) = std::fs::read_to_string(folder.join("manifest.jsonl")) else {
            continue;
        };
        for line in text.lines().filter(|l| !l.trim().is_empty()) {
            let mut row: Value = serde_json::from_str(line).expect("a manifest line is JSON");
            let file = row["file"].as_str().unwrap_or_default().to_owned();
            row["path"] = Value::String(dir.join(file).display().to_string());
            rows.push(row);
        }
    }
    rows
}
