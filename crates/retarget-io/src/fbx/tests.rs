use super::load::binary_version;
use super::*;
use crate::ImageMime;

fn bundled(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets/fbx")
        .join(name)
}

#[test]
fn binary_header_version_is_read() {
    let mut header = b"Kaydara FBX Binary  \0\x1a\0".to_vec();
    header.extend_from_slice(&7500u32.to_le_bytes());
    assert_eq!(binary_version(&header), Some(7500));
    assert_eq!(binary_version(b"; FBX 7.5.0 project file"), None);
    assert_eq!(
        binary_version(&header[..24]),
        None,
        "too short for a version"
    );
}

#[test]
fn old_binary_header_is_refused_with_its_version() {
    let mut header = b"Kaydara FBX Binary  \0\x1a\0".to_vec();
    header.extend_from_slice(&5800u32.to_le_bytes());
    header.extend_from_slice(&[0; 64]);
    let e = import_fbx_bytes(std::path::Path::new("old.fbx"), &header).unwrap_err();
    let text = e.to_string();
    assert!(text.contains("old.fbx") && text.contains("5.8"), "{text}");
}

#[test]
fn fbx_is_recognised_by_content() {
    assert!(looks_like_fbx(b"Kaydara FBX Binary  \0"));
    assert!(looks_like_fbx(b"; FBX 7.5.0 project file"));
    assert!(!looks_like_fbx(b"glTF"));
}

#[test]
fn images_are_told_apart_by_magic() {
    assert_eq!(
        ImageMime::sniff(b"\x89PNG\r\n\x1a\n...."),
        Some(ImageMime::Png)
    );
    assert_eq!(
        ImageMime::sniff(&[0xFF, 0xD8, 0xFF, 0xE0]),
        Some(ImageMime::Jpeg)
    );
    assert_eq!(ImageMime::sniff(b"DDS "), None);
}

#[test]
fn file_units_map_to_named_units() {
    assert_eq!(file_unit(0.01).0, Unit::Centimetre);
    assert_eq!(file_unit(1.0).0, Unit::Metre);
    assert_eq!(file_unit(0.0254).0, Unit::Inch);
    let (_, note) = file_unit(0.3048);
    assert!(
        note.is_some(),
        "feet are not a named unit: the note says so"
    );
}

#[test]
fn a_file_read_from_a_path_names_itself() {
    let asset = import_fbx(&bundled("maya2019_sausage_no_bindpose_7500_ascii.fbx")).unwrap();
    assert_eq!(asset.format, Format::Fbx);
    assert_eq!(asset.skeletons.len(), 1);
    assert!(asset.joint_nodes.is_empty(), "FBX has no glTF nodes");
    let missing = import_fbx(&bundled("no_such_file.fbx")).unwrap_err();
    assert!(matches!(missing.problem, Problem::Read(_)));
}

#[test]
fn empty_stacks_are_skipped_with_a_note() {
    // The Maya file's one stack beside an added empty "Take 001", as in a Mixamo download:
    // only the real stack becomes a clip.
    let text =
        std::fs::read_to_string(bundled("maya2019_sausage_no_bindpose_7500_ascii.fbx")).unwrap();
    let stack = "\tAnimationStack: 1999999999, \"AnimStack::Take 001\", \"\" {\n\t}\n";
    let with_empty = text.replacen("Objects:  {\n", &format!("Objects:  {{\n{stack}"), 1);
    assert_ne!(with_empty, text, "the Objects section was found");
    let asset = import_fbx_bytes(std::path::Path::new("m.fbx"), with_empty.as_bytes()).unwrap();
    let names: Vec<&str> = asset.clips.iter().map(|c| c.clip.name.as_str()).collect();
    assert_eq!(names, ["wiggle"]);
    assert!(
        asset.warnings.iter().any(|w| w.contains("'Take 001'")),
        "{:?}",
        asset.warnings
    );
}

/// The Maya file with an added "Take 001" whose one curve node holds joint2's translation at
/// `x` (its rest is 1) without a curve, as Unity's Robot Kyle has on 48 joints.
fn with_keyless_take(x: f64) -> Vec<String> {
    let text =
        std::fs::read_to_string(bundled("maya2019_sausage_no_bindpose_7500_ascii.fbx")).unwrap();
    let objects = format!(
        "Objects:  {{\n\tAnimationStack: 1999999999, \"AnimStack::Take 001\", \"\" {{\n\t}}\n\
         \tAnimationLayer: 1999999998, \"AnimLayer::BaseLayer\", \"\" {{\n\t}}\n\
         \tAnimationCurveNode: 1999999997, \"AnimCurveNode::T\", \"\" {{\n\t\tProperties70:  {{\n\
         \t\t\tP: \"d|X\", \"Number\", \"\", \"A\",{x}\n\t\t\tP: \"d|Y\", \"Number\", \"\", \"A\",0\n\
         \t\t\tP: \"d|Z\", \"Number\", \"\", \"A\",0\n\t\t}}\n\t}}\n"
    );
    let links = "Connections:  {\n\tC: \"OO\",1999999998,1999999999\n\
                 \tC: \"OO\",1999999997,1999999998\n\
                 \tC: \"OP\",1999999997,2519950487616, \"Lcl Translation\"\n";
    let mutant =
        text.replacen("Objects:  {\n", &objects, 1)
            .replacen("Connections:  {\n", links, 1);
    let asset = import_fbx_bytes(std::path::Path::new("m.fbx"), mutant.as_bytes()).unwrap();
    let names = asset.clips.iter().map(|c| c.clip.name.clone()).collect();
    if names == ["wiggle"] {
        assert!(
            asset.warnings.iter().any(|w| w.contains("'Take 001'")),
            "{:?}",
            asset.warnings
        );
    }
    names
}

#[test]
fn a_stack_without_keys_that_holds_the_rest_is_skipped() {
    // Blender's importer finds no keys in it either: the clip is the stack after it.
    assert_eq!(with_keyless_take(1.0), ["wiggle"]);
}

#[test]
fn a_stack_without_keys_that_holds_another_pose_is_kept() {
    assert_eq!(with_keyless_take(2.0), ["Take 001", "wiggle"]);
}

#[test]
fn a_key_at_a_time_that_is_not_a_number_is_refused_before_baking() {
    // ufbx's baking would loop without end on it: its merge of key times never passes a NaN.
    let bytes = std::fs::read(bundled("blender279_sausage_6100_ascii.fbx")).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    let key = "\t0,0.000000143446002,L,";
    let mutant = text.replacen(key, "\tnan,0.000000143446002,L,", 1);
    assert_ne!(mutant, text, "the key was found");
    let e = import_fbx_bytes(std::path::Path::new("nan.fbx"), mutant.as_bytes()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("nan.fbx") && text.contains("is not a number"),
        "{text}"
    );
}

/// An ASCII FBX 7.4 of a chain of `depth` models, each the child of the one before.
fn chain(depth: usize) -> String {
    let mut objects = String::new();
    let mut links = String::new();
    for i in 0..depth {
        let id = 1000 + i;
        objects.push_str(&format!(
            "\tModel: {id}, \"Model::j{i}\", \"LimbNode\" {{\n\t\tVersion: 232\n\t}}\n"
        ));
        let parent = if i == 0 { 0 } else { id - 1 };
        links.push_str(&format!("\tC: \"OO\",{id},{parent}\n"));
    }
    format!(
        "; FBX 7.4.0 project file\nFBXHeaderExtension:  {{\n\tFBXHeaderVersion: 1003\n\t\
         FBXVersion: 7400\n}}\nObjects:  {{\n{objects}}}\nConnections:  {{\n{links}}}\n"
    )
}

#[test]
fn a_hierarchy_past_the_depth_limit_is_refused_by_ufbx() {
    let deep = chain(super::load::NODE_DEPTH_LIMIT as usize + 50);
    let e = import_fbx_bytes(std::path::Path::new("deep.fbx"), deep.as_bytes()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("deep.fbx") && text.contains("deeper"),
        "{text}"
    );
    // A shallow chain parses; whatever else it lacks, depth is not the complaint.
    let shallow = chain(10);
    if let Err(e) = import_fbx_bytes(std::path::Path::new("s.fbx"), shallow.as_bytes()) {
        assert!(!e.to_string().contains("deeper"), "{e}");
    }
}

/// RobotExpressive.fbx: the head's three blend shapes (Angry, Surprised, Sad) become morph
/// targets on each of its primitives, one offset per vertex, and their animated weights
/// (DeformPercent, 0..100) curves of every clip on the clip's keys.
#[test]
fn blend_shapes_become_morph_targets_and_their_weights_curves() {
    let a = import_fbx(&bundled("RobotExpressive.fbx")).unwrap();
    let names: Vec<&str> = a.curve_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["Angry", "Surprised", "Sad"]);
    assert!(
        a.curve_targets
            .iter()
            .all(|t| !t.expression && t.binds.len() == 1)
    );
    let head = &a.meshes[a.curve_targets[0].binds[0].mesh];
    assert_eq!(head.morph_weights, [0.0, 0.0, 0.0]);
    for p in &head.primitives {
        assert_eq!(p.morphs.len(), 3);
        assert!(
            p.morphs
                .iter()
                .all(|d| d.positions.len() == p.positions.len())
        );
    }
    let moved = head
        .primitives
        .iter()
        .flat_map(|p| &p.morphs)
        .flat_map(|d| &d.positions)
        .any(|v| v.length() > 1e-6);
    assert!(moved, "some blend shape moves a vertex");
    let idle = &a.clips[0].clip;
    assert_eq!(idle.curves().len(), 3);
    assert!(idle.curves().iter().all(|c| c.track.values().len() == 81));
}

#[test]
fn a_bind_matrix_with_zero_scale_binds_its_joints_at_rest_with_a_warning() {
    let text = std::fs::read_to_string(bundled("maya2019_sausage_no_bindpose_7500_ascii.fbx"))
        .expect("bundled sausage");
    // The middle joint's cluster bound at zero scale: its matrix has no inverse.
    let link = "a: 6.12323399573677e-17,1,0,0,-1,6.12323399573677e-17,0,0,0,-0,1,0,-0,1,0,1";
    assert_eq!(text.matches(link).count(), 1);
    let zero = text.replace(link, "a: 0,0,0,0,0,0,0,0,0,0,0,0,-0,1,0,1");
    let asset = import_fbx_bytes(std::path::Path::new("zero.fbx"), zero.as_bytes())
        .expect("read despite the zero-scale bind");
    let skeleton = &asset.skeletons[0];
    assert_eq!(skeleton.len(), 4);
    assert!(
        skeleton
            .bind()
            .iter()
            .all(retarget_core::Transform::is_finite)
    );
    let said = asset.warnings.join("\n");
    assert!(said.contains("cannot be inverted (zero scale)"), "{said}");
}

/// A unit picked over the declared one scales the figure by their ratio, says so with the
/// declared unit as runner-up, and keeps the declaration for a file written back.
#[test]
fn a_picked_unit_scales_the_figure_and_keeps_the_declaration() {
    let path = bundled("CesiumMan.fbx");
    let read = crate::load(&path, &crate::ImportOptions::default()).unwrap();
    let other = if read.unit == Unit::Metre {
        Unit::Centimetre
    } else {
        Unit::Metre
    };
    let picked = crate::ImportOptions {
        unit: Some(other),
        up: None,
    };
    let mut asset = crate::load(&path, &picked).unwrap();
    assert_eq!(asset.unit, other);
    assert_eq!(asset.unit_source, Provenance::Override);
    let reading = asset.readings.unit.take().unwrap();
    assert_eq!(reading.runner_up.as_deref(), Some(read.unit.name()));
    assert_eq!(asset.readings.declared_unit, Some(read.unit));
    let scale = |a: &Asset| a.skeletons[0].container().x_axis.length();
    let ratio = scale(&asset) / scale(&read);
    let expected = other.metres() / read.unit.metres();
    assert!((ratio / expected - 1.0).abs() < 1e-5, "{ratio} {expected}");
}
