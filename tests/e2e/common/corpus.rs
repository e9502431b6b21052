//! The shared corpus of real files (`../shared/corpus`, beside the repository): its
//! manifests' rows. Test data with unclear licences, never copied here: tests that read it
//! skip, saying so, when it is absent.

use serde_json::Value;
use std::path::PathBuf;

/// The corpus folder: `SHARED_CORPUS`, else `../shared/corpus` beside the repository.
fn root() -> PathBuf {
    std::env::var_os("SHARED_CORPUS").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    )
}

/// A file of the corpus, or `None`, saying so, when it is absent (the test skips).
pub fn corpus_path(rel: &str) -> Option<PathBuf> {
    let path = root().join(rel);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!("skipped: the shared corpus has no {rel} (set SHARED_CORPUS)");
        None
    }
}

/// CMU's walk (02_01) onto the corpus file `rel`, mapped automatically; `None`, saying so,
/// when the corpus is absent (the test skips).
pub fn walk_onto_corpus(rel: &str) -> Option<retarget_studio::session::Session> {
    let target = corpus_path(rel)?;
    let walk = super::asset_path("bvh/02_01.bvh");
    let opts = retarget_studio::io::ImportOptions::default();
    let session = retarget_studio::session::Session::automatic(&walk, &target, &opts);
    Some(session.unwrap_or_else(|e| panic!("02_01 onto {rel}: {e}")))
}

/// The corpus folder, or `None` (with a line saying the test is skipped) when it is absent.
pub fn corpus_dir(test: &str) -> Option<PathBuf> {
    let dir = root();
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
