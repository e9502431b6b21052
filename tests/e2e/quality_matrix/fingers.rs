//! The fingers block: sources that move their fingers onto targets with fingers, the VRM's
//! also with its fingers resting curled and its palms turned 90°, so every finger-bearing
//! pair carries the fingers measure (and judge's reading of it).

use super::cases::{Sources, Targets};
use crate::common::asset_path;
use crate::common::file_variants::{curled_fingers, turned_palms};
use std::path::Path;

const OPENBOT: &str = "gltf/rigify/openbot_rigodotify_mch_ctrl_2armatures.glb";
const MINNYQUINN: &str = "gltf/rigify/minnyquinn_rigify_DEF_rootmotion_pair.glb";

/// Robot ThumbsUp and Wave and minnyquinn's retreat onto the VRM, its two variants (written
/// into `dir`) and OpenBot: twelve cases.
pub(super) fn finger_block(dir: &Path) -> (Sources, Targets) {
    let robot = asset_path("gltf/RobotExpressive.glb");
    let sources = vec![
        (
            "RobotExpressive:ThumbsUp".to_owned(),
            robot.clone(),
            Some("ThumbsUp"),
        ),
        ("RobotExpressive:Wave".to_owned(), robot, Some("Wave")),
        (
            "minnyquinn:retreat".to_owned(),
            asset_path(MINNYQUINN),
            Some("retreat"),
        ),
    ];
    let vrm = std::fs::read(asset_path("vrm/cryptovoxels.vrm")).unwrap();
    let mut targets = vec![(
        "cryptovoxels".to_owned(),
        asset_path("vrm/cryptovoxels.vrm"),
    )];
    for (label, bytes) in [
        ("cryptovoxels[curled-fingers]", curled_fingers(&vrm, 40.0)),
        ("cryptovoxels[palms-90]", turned_palms(&vrm, 90.0)),
    ] {
        let path = dir.join(format!("{label}.vrm"));
        std::fs::write(&path, bytes).unwrap();
        targets.push((label.to_owned(), path));
    }
    targets.push(("OpenBot(rigify)".to_owned(), asset_path(OPENBOT)));
    (sources, targets)
}
