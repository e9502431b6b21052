//! Every BVH of the shared corpus read in the unit and up axis its manifest gives: mocap
//! whose zero pose is a line of bones (LAFAN1, Bandai Namco), a dog named as a person,
//! inches in a Z-up world. A BVH is Y-up unless the motion says otherwise with strong
//! evidence. Two creatures are still read otherwise (`KNOWN`).

use crate::common::corpus::{corpus_dir, manifest_rows};
use retarget_studio::core::{Axis, Unit};
use retarget_studio::io::ImportOptions;

/// Files read otherwise than their manifest, with why: the leaves' pull reads up on
/// creatures without a standing body, and theirs pull sideways.
const KNOWN: [(&str, &str); 2] = [
    (
        "truebones_crab_dance_long.bvh",
        "legs and eye stalks pull along +Z: read -Z up",
    ),
    (
        "truebones_elephant_idle1.bvh",
        "trunk and tail pull along +X: read -X up",
    ),
];

#[test]
fn every_corpus_bvh_is_read_in_its_manifests_unit_and_up_axis() {
    let Some(dir) = corpus_dir("corpus_readings") else {
        return;
    };
    let mut wrong = Vec::new();
    let mut read = 0;
    for row in manifest_rows(&dir) {
        let path = std::path::PathBuf::from(row["path"].as_str().unwrap());
        if path.extension().is_none_or(|e| e != "bvh") {
            continue;
        }
        let asset = retarget_studio::io::load(&path, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        read += 1;
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if KNOWN.iter().any(|(k, _)| *k == name) {
            continue;
        }
        if let Some(unit) = row["unit"].as_str().and_then(Unit::parse)
            && asset.unit != unit
        {
            wrong.push(format!(
                "{name}: unit {} (manifest {})",
                asset.unit.name(),
                unit.name()
            ));
        }
        if let Some(up) = row["up"].as_str().and_then(Axis::parse)
            && asset.up != up
        {
            wrong.push(format!(
                "{name}: up {} (manifest {})",
                asset.up.name(),
                up.name()
            ));
        }
    }
    assert!(read >= 20, "only {read} BVH files in the corpus");
    assert!(
        wrong.is_empty(),
        "read otherwise than the manifest:\n{}",
        wrong.join("\n")
    );
}
