//! Real files of the shared corpus that the readers once refused: each is read for what it
//! holds, with a warning for what is left out. Skipped, saying so, without the corpus.

use crate::common::corpus_path;
use retarget_studio::io::{Asset, ImportOptions};

fn load(rel: &str) -> Option<Asset> {
    let path = corpus_path(rel)?;
    Some(
        retarget_studio::io::load(&path, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{rel} should load: {e}")),
    )
}

/// The rest pose's height (world Y extent of the joints).
fn height(asset: &Asset) -> f32 {
    let s = &asset.skeletons[0];
    let ys: Vec<f32> = retarget_studio::core::Pose::rest(s)
        .world_positions(s)
        .iter()
        .map(|p| p.y)
        .collect();
    ys.iter().copied().fold(f32::MIN, f32::max) - ys.iter().copied().fold(f32::MAX, f32::min)
}

#[test]
fn a_glb_whose_first_scene_is_empty_reads_its_rig_from_the_default_scene() {
    let Some(asset) = load("sets/gltf/gdquest_gdbot_ikfk_triplicate_empty_first_scene.glb") else {
        return;
    };
    let names = asset.skeletons[0].names();
    for joint in ["upperarm.L", "lowerarm.L", "hand.L", "upperleg.L", "foot.L"] {
        assert!(
            names.iter().any(|n| n == joint),
            "{joint} missing: {names:?}"
        );
    }
    assert!(!asset.meshes.is_empty());
    assert_eq!(asset.clips.len(), 7, "its seven animations");
}

#[test]
fn a_humanik_rig_scaled_by_each_joint_stands_at_a_persons_height() {
    let Some(asset) = load("characters/fbx/maya_humanik_character1_zero_scale_toe.fbx") else {
        return;
    };
    let names = asset.skeletons[0].names();
    assert!(names.iter().any(|n| n == "Character1_LeftToeBase"));
    // Every joint scales by 0.01 and ignores its parent's scale (Maya's segment scale
    // compensate): composed plainly, the scales multiplied to nothing.
    let h = height(&asset);
    assert!((1.0..2.2).contains(&h), "rest height {h} m");
    let s = &asset.skeletons[0];
    assert!(s.bind().iter().all(|b| b.is_finite()));
}

#[test]
fn a_draco_file_is_read_whole_and_an_undecodable_extension_only_warns() {
    let Some(path) = corpus_path("sets/gltf/quaternius_husky_draco.glb") else {
        return;
    };
    let asset = retarget_studio::io::load(&path, &ImportOptions::default()).expect("husky");
    assert_eq!(asset.meshes.len(), 1);
    // The same file requiring a texture format nothing here decodes: read, with a warning.
    let bytes = std::fs::read(&path).unwrap();
    let json_len = u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize;
    let mut json: serde_json::Value = serde_json::from_slice(&bytes[20..20 + json_len]).unwrap();
    for list in ["extensionsUsed", "extensionsRequired"] {
        json[list]
            .as_array_mut()
            .unwrap()
            .push("KHR_texture_basisu".into());
    }
    let mut text = serde_json::to_vec(&json).unwrap();
    while text.len() % 4 != 0 {
        text.push(b' ');
    }
    let rest = &bytes[20 + json_len..];
    let mut glb = b"glTF".to_vec();
    glb.extend(2u32.to_le_bytes());
    glb.extend(((20 + text.len() + rest.len()) as u32).to_le_bytes());
    glb.extend((text.len() as u32).to_le_bytes());
    glb.extend(b"JSON");
    glb.extend(text);
    glb.extend(rest);
    let dir = tempfile::tempdir().unwrap();
    let required = dir.path().join("husky_basisu.glb");
    std::fs::write(&required, glb).unwrap();
    let read = retarget_studio::io::load(&required, &ImportOptions::default()).expect("read");
    assert_eq!(read.skeletons[0].len(), asset.skeletons[0].len());
    assert_eq!(read.clips.len(), asset.clips.len());
    assert!(
        read.warnings
            .iter()
            .any(|w| w.contains("KHR_texture_basisu")),
        "{:?}",
        read.warnings
    );
}

#[test]
fn an_animated_armature_node_above_the_bones_moves_the_rig() {
    let rel = "clips/fbx/mixamo_custom_rig_quaternius_names_car_sitting_47s.fbx";
    let Some(asset) = load(rel) else {
        return;
    };
    // Mixamo's clip of an uploaded rig seats the body by moving `CharacterArmature`, the
    // node above the bones: left in the container, the rig stood while its legs sat.
    let s = &asset.skeletons[0];
    assert!(s.find("CharacterArmature").is_some(), "{:?}", s.names());
    let clip = &asset.clips[0].clip;
    let world = crate::common::positions_at(s, clip, &[0.0]).pop().unwrap();
    let (hips, foot) = (
        world[s.find("Hips").unwrap()],
        world[s.find("Foot.L").unwrap()],
    );
    // Blender reads the hips 0.425 m and the left foot 0.03 m above the floor at 0 s.
    assert!((hips.y - 0.425).abs() < 0.02, "hips at {hips}");
    assert!((foot.y - 0.03).abs() < 0.02, "left foot at {foot}");
}

#[test]
fn a_take_whose_range_holds_none_of_its_keys_spans_its_keys() {
    let rel = "clips/fbx/unity_standardassets_humanoididlejumpup_jump.fbx";
    let Some(asset) = load(rel) else {
        return;
    };
    // Its stack says 0.033 to 0.8 s and its keys run 1.867 to 7.767 s, as Blender reads
    // them: padded out to the range, the clip stood still for its first 1.8 s.
    let clip = &asset.clips[0].clip;
    let times = crate::common::key_times(clip);
    let (first, last) = (times[0], *times.last().unwrap());
    assert!((first - 1.8667).abs() < 1e-3, "first key at {first} s");
    assert!((last - 7.7667).abs() < 1e-3, "last key at {last} s");
    assert!(
        asset
            .warnings
            .iter()
            .any(|w| w.contains("holds none of its keys"))
    );
}

#[test]
fn a_roblox_rig_drawn_in_metres_in_a_centimetre_file_stands_as_a_person_and_is_a_humanoid() {
    let Some(asset) = load("sets/fbx/roblox_r15_facs50_face_joints_studs.fbx") else {
        return;
    };
    // It declares centimetres over numbers in metres: 1.6 cm tall as declared.
    let h = height(&asset);
    assert!((1.0..2.2).contains(&h), "rest height {h} m");
    assert_eq!(asset.unit, retarget_studio::core::Unit::Metre);
    let reading = asset.readings.unit.as_ref().expect("the unit's evidence");
    assert_eq!(
        reading.runner_up.as_deref(),
        Some("cm"),
        "{}",
        reading.evidence
    );
    assert_eq!(
        asset.readings.declared_unit,
        Some(retarget_studio::core::Unit::Centimetre)
    );
    // No joint is named hips: the legs hang from `LowerTorso`.
    let s = &asset.skeletons[0];
    let labels =
        retarget_studio::core::profile::auto_label(s, &retarget_studio::core::Pose::rest(s));
    let hips = s.find("LowerTorso").unwrap();
    assert_eq!(
        labels[hips].map(|l| l.bone),
        Some(retarget_studio::core::HumanBone::Hips)
    );
}

#[test]
fn a_biped_toe_named_as_a_thumb_is_not_the_hands_thumb() {
    let Some(asset) = load("characters/fbx/ozz_pab_generic_man_bip01_nubs_Lefthand_typo.fbx")
    else {
        return;
    };
    let s = &asset.skeletons[0];
    let labels =
        retarget_studio::core::profile::auto_label(s, &retarget_studio::core::Pose::rest(s));
    for toe in ["LeftFootThumb1", "RightFootThumb1"] {
        let j = s.find(toe).unwrap();
        // A toe (by the shape below the foot), never the hand's thumb.
        let bone = labels[j].map(|l| l.bone.as_str());
        assert!(bone.is_none_or(|b| !b.contains("Thumb")), "{toe}: {bone:?}");
    }
}
