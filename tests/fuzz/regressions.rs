//! Every mutant that once broke a rule, kept under `tests/fuzz/regressions/<format>/`: each
//! must now give a clean error or finite output.

use crate::corpus;
use crate::harness::{run_caught, work_dir};
use crate::mutate::Format;
use crate::run::Plan;
use std::path::PathBuf;

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz/regressions")
}

#[test]
fn every_regression_gives_a_clean_error_or_finite_output() {
    let mut failures = Vec::new();
    let mut count = 0;
    for format in Format::ALL {
        let Ok(entries) = std::fs::read_dir(dir().join(format.name())) else {
            continue;
        };
        let work = work_dir("regressions", format);
        if format == Format::Project {
            corpus::prepare_project_dir(&work);
        }
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let case = work.join(&name);
            std::fs::copy(&path, &case).unwrap();
            let original = corpus::asset(original_of(format));
            count += 1;
            for variant in 0..6 {
                let plan = Plan {
                    variant,
                    few_frames: false,
                };
                if let Err(p) = run_caught(format, &case, &original, plan) {
                    failures.push(format!("{}/{name} (variant {variant}): {p}", format.name()));
                }
            }
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    println!("{count} regression files");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The unmutated file that a regression of `format` pairs with in a session.
fn original_of(format: Format) -> &'static str {
    match format {
        Format::Glb => "gltf/RiggedFigure_unnamed.glb",
        Format::Gltf => "fuzz/RiggedFigure_data_uri.gltf",
        Format::Vrm => "vrm/three-vrm_test.vrma",
        Format::Bvh | Format::Project => "fuzz/walk_12_frames.bvh",
        Format::Fbx => "fbx/maya2019_sausage_no_bindpose_7500_ascii.fbx",
    }
}
