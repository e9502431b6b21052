//! The files mutants are made from. CI mutates the small ones; the long run every bundled
//! asset of the format as well.

use crate::mutate::{Format, Seed};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::path::{Path, PathBuf};

pub fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// The two files a fuzzed project names, copied beside it so that its paths are bare names.
pub const PROJECT_SIDES: [&str; 2] = ["fuzz/walk_12_frames.bvh", "gltf/RiggedFigure_unnamed.glb"];

/// Small seeds, cheap enough for tens of thousands of cases in CI.
fn small(format: Format) -> &'static [&'static str] {
    match format {
        Format::Glb => &["gltf/RiggedFigure_unnamed.glb"],
        Format::Gltf => &["fuzz/RiggedFigure_data_uri.gltf"],
        Format::Vrm => &["vrm/three-vrm_test.vrma"],
        Format::Bvh => &["fuzz/walk_12_frames.bvh"],
        Format::Fbx => &[
            "fbx/maya2019_sausage_no_bindpose_7500_ascii.fbx",
            "fbx/max2020_transformed_skin_7500_ascii.fbx",
            "fbx/maya2019_game_sausage_7500_binary_3stacks.fbx",
        ],
        Format::Project => &[],
    }
}

/// The rest of the bundled assets of the format.
fn large(format: Format) -> &'static [&'static str] {
    match format {
        Format::Glb => &[
            "gltf/CesiumMan.glb",
            "gltf/Fox.glb",
            "gltf/RobotExpressive.glb",
            "gltf/draco/quaternius_astronaut_draco_gltftransform.glb",
            "gltf/morph/valid_hispanic_f2_meshopt_65morphs.glb",
        ],
        Format::Vrm => &["vrm/cryptovoxels.vrm"],
        Format::Bvh => &["bvh/01_01.bvh", "bvh/02_01.bvh", "bvh/05_06.bvh"],
        Format::Fbx => &[
            "fbx/blender279_sausage_6100_ascii.fbx",
            "fbx/CesiumMan.fbx",
            "fbx/Fox.fbx",
            "fbx/RobotExpressive.fbx",
        ],
        Format::Gltf | Format::Project => &[],
    }
}

/// The seeds of `format`, each with its session partner; `every` adds the large bundled
/// assets. A project seed is made in `work` (which then holds the files it names).
pub fn seeds(format: Format, every: bool, work: &Path) -> Vec<(Seed, PathBuf)> {
    if format == Format::Project {
        let (name, path) = project_seed(work);
        let bytes = std::fs::read(&path).expect("project seed");
        return vec![(Seed::new(format, &name, bytes), path)];
    }
    let mut rels: Vec<&str> = small(format).to_vec();
    if every {
        rels.extend(large(format));
    }
    rels.into_iter()
        .map(|rel| {
            let path = asset(rel);
            let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e}"));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (Seed::new(format, &name, bytes), asset(partner(rel)))
        })
        .collect()
}

/// The unmutated file on the other side of a mutant's session: the seed itself, but for a
/// character without a clip, which takes its motion from a file of its kind that has one.
pub fn partner(rel: &str) -> &str {
    match rel {
        "vrm/cryptovoxels.vrm" => "vrm/three-vrm_test.vrma",
        "gltf/morph/valid_hispanic_f2_meshopt_65morphs.glb" => "gltf/RobotExpressive.glb",
        _ => rel,
    }
}

/// Copies the sides into `work` and writes the project an automatic session of them makes.
pub fn prepare_project_dir(work: &Path) {
    for rel in PROJECT_SIDES {
        let from = asset(rel);
        std::fs::copy(&from, work.join(from.file_name().unwrap())).expect("copy a side");
    }
}

fn project_seed(work: &Path) -> (String, PathBuf) {
    prepare_project_dir(work);
    let side = |rel: &str| work.join(Path::new(rel).file_name().unwrap());
    let session = Session::automatic(
        &side(PROJECT_SIDES[0]),
        &side(PROJECT_SIDES[1]),
        &ImportOptions::default(),
    )
    .expect("the project's sides map");
    let text = session.to_project().to_ron(work).expect("project text");
    let path = work.join("seed.ron");
    std::fs::write(&path, text).expect("write the project seed");
    ("seed.ron".to_owned(), path)
}
