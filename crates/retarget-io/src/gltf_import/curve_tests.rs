//! Morph targets, `weights` channels and VRM expressions read from a GLB made here: a
//! skinned triangle "body" with morph targets `jawOpen` and `smile`, a "teeth" triangle with
//! its own `jawOpen`, and animations of their weights.

use super::import_gltf_bytes;
use crate::asset::{Asset, Format, MorphBind};
use glam::Vec3;
use retarget_core::Interpolation;
use serde_json::{Value, json};
use std::path::Path;

/// A GLB of `json` and `bin` with honest lengths.
fn glb(json: &str, bin: &[u8]) -> Vec<u8> {
    let mut j = json.as_bytes().to_vec();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut bin = bin.to_vec();
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + bin.len();
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend((total as u32).to_le_bytes());
    out.extend((j.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(j);
    out.extend((bin.len() as u32).to_le_bytes());
    out.extend(b"BIN\0");
    out.extend(bin);
    out
}

/// Accessors appended to one buffer, one buffer view each.
#[derive(Default)]
struct Bin {
    bytes: Vec<u8>,
    views: Vec<Value>,
    accessors: Vec<Value>,
}

impl Bin {
    fn floats(&mut self, values: &[f32], ty: &str, extra: Value) -> usize {
        let offset = self.bytes.len();
        values
            .iter()
            .for_each(|v| self.bytes.extend(v.to_le_bytes()));
        let n = match ty {
            "SCALAR" => 1,
            "VEC3" => 3,
            _ => 4,
        };
        self.push(offset, 5126, values.len() / n, ty, extra)
    }

    fn push(
        &mut self,
        offset: usize,
        component: u32,
        count: usize,
        ty: &str,
        extra: Value,
    ) -> usize {
        self.views.push(json!({"buffer": 0, "byteOffset": offset,
            "byteLength": self.bytes.len() - offset}));
        let mut acc = json!({"bufferView": self.views.len() - 1, "componentType": component,
            "count": count, "type": ty});
        if let (Value::Object(a), Value::Object(e)) = (&mut acc, extra) {
            a.extend(e);
        }
        self.accessors.push(acc);
        self.accessors.len() - 1
    }
}

const JAW: [[f32; 3]; 3] = [[0.0, -0.1, 0.0], [0.0, -0.2, 0.0], [0.0, 0.0, 0.0]];
const SMILE: [[f32; 3]; 3] = [[0.1, 0.0, 0.0], [0.0, 0.0, 0.0], [-0.1, 0.0, 0.0]];
const SMILE_N: [[f32; 3]; 3] = [[0.0, 0.0, 0.5], [0.0, 0.0, 0.0], [0.0, 0.0, -0.5]];

/// The file; `root_extra` is merged into its root (a `VRMC_vrm` for the expression tests).
fn morph_file(root_extra: Value) -> Vec<u8> {
    edited_morph_file(root_extra, |_| {})
}

/// The file with `edit` made to its JSON.
fn edited_morph_file(root_extra: Value, edit: impl Fn(&mut Value)) -> Vec<u8> {
    let mut b = Bin::default();
    let pos = b.floats(
        &[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0],
        "VEC3",
        json!({"min": [0.0, 0.0, 0.0], "max": [1.0, 1.0, 0.0]}),
    );
    let at = b.bytes.len();
    b.bytes.extend([0u8; 12]);
    let joints = b.push(at, 5121, 3, "VEC4", json!({}));
    let weights = b.floats(&[1.0, 0.0, 0.0, 0.0].repeat(3), "VEC4", json!({}));
    let jaw = b.floats(JAW.as_flattened(), "VEC3", json!({}));
    let smile = b.floats(SMILE.as_flattened(), "VEC3", json!({}));
    let smile_n = b.floats(SMILE_N.as_flattened(), "VEC3", json!({}));
    let times = b.floats(&[0.0, 1.0], "SCALAR", json!({"min": [0.0], "max": [1.0]}));
    // Body: key 0 jawOpen 0, smile 0.2; key 1 jawOpen 1, smile 0.4.
    let body_w = b.floats(&[0.0, 0.2, 1.0, 0.4], "SCALAR", json!({}));
    let teeth_w = b.floats(&[0.0, 1.0], "SCALAR", json!({}));
    // Cubic: per key in-tangent, weight, out-tangent.
    let cubic_w = b.floats(&[0.0, 0.5, 2.0, -1.0, 0.75, 0.0], "SCALAR", json!({}));
    let attributes = json!({"POSITION": pos, "JOINTS_0": joints, "WEIGHTS_0": weights});
    let mut root = json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0, 1, 2]}],
        "nodes": [
            {"name": "root"},
            {"name": "body", "mesh": 0, "skin": 0},
            {"name": "teeth", "mesh": 1, "skin": 0, "weights": [0.75]}
        ],
        "skins": [{"joints": [0]}],
        "meshes": [
            {"name": "Body", "weights": [0.25, 0.5],
             "extras": {"targetNames": ["jawOpen", "smile"]},
             "primitives": [{"attributes": attributes,
                "targets": [{"POSITION": jaw}, {"POSITION": smile, "NORMAL": smile_n}]}]},
            {"name": "Teeth", "weights": [0.1],
             "extras": {"targetNames": ["jawOpen"]},
             "primitives": [{"attributes": attributes, "targets": [{"POSITION": jaw}]}]}
        ],
        "animations": [
            {"name": "talk",
             "samplers": [{"input": times, "output": body_w}, {"input": times, "output": teeth_w}],
             "channels": [{"sampler": 0, "target": {"node": 1, "path": "weights"}},
                          {"sampler": 1, "target": {"node": 2, "path": "weights"}}]},
            {"name": "chatter",
             "samplers": [{"input": times, "output": cubic_w, "interpolation": "CUBICSPLINE"}],
             "channels": [{"sampler": 0, "target": {"node": 2, "path": "weights"}}]}
        ],
        "buffers": [{"byteLength": b.bytes.len().next_multiple_of(4)}],
        "bufferViews": b.views,
        "accessors": b.accessors,
    });
    if let (Value::Object(r), Value::Object(e)) = (&mut root, root_extra) {
        r.extend(e);
    }
    edit(&mut root);
    glb(&root.to_string(), &b.bytes)
}

fn read(bytes: &[u8]) -> Asset {
    import_gltf_bytes(Path::new("morphs.glb"), bytes).unwrap()
}

fn v3(a: [[f32; 3]; 3]) -> Vec<Vec3> {
    a.iter().map(|&v| Vec3::from(v)).collect()
}

#[test]
fn morph_targets_are_read_in_vertex_order_with_their_default_weights() {
    let a = read(&morph_file(json!({})));
    assert_eq!(a.meshes.len(), 2);
    let body = &a.meshes[0];
    let p = &body.primitives[0];
    assert_eq!(p.morphs.len(), 2);
    assert_eq!(p.morphs[0].positions, v3(JAW));
    assert!(
        p.morphs[0].normals.is_empty(),
        "no NORMAL offsets in target 0"
    );
    assert_eq!(p.morphs[1].positions, v3(SMILE));
    assert_eq!(p.morphs[1].normals, v3(SMILE_N));
    assert_eq!(body.morph_weights, [0.25, 0.5], "the mesh's weights");
    assert_eq!(a.meshes[1].morph_weights, [0.75], "the node's weights win");
}

#[test]
fn a_morph_name_on_several_meshes_is_one_curve_target() {
    let a = read(&morph_file(json!({})));
    let names: Vec<&str> = a.curve_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["jawOpen", "smile"]);
    let jaw = &a.curve_targets[0];
    assert!(!jaw.expression);
    assert_eq!(
        jaw.binds,
        [
            MorphBind {
                mesh: 0,
                morph: 0,
                node: Some(1),
                weight: 1.0
            },
            MorphBind {
                mesh: 1,
                morph: 0,
                node: Some(2),
                weight: 1.0
            }
        ]
    );
    assert_eq!(a.curve_targets[1].binds[0].morph, 1);
}

#[test]
fn weights_channels_become_one_curve_per_morph_target() {
    let a = read(&morph_file(json!({})));
    assert!(
        !a.warnings.iter().any(|w| w.contains("morph-target")),
        "{:?}",
        a.warnings
    );
    let talk = &a.find_clip("talk").expect("a clip of weights only").clip;
    assert_eq!(a.find_clip("talk").unwrap().skeleton, 0);
    let mut names: Vec<&str> = talk.curves().iter().map(|c| c.name.as_str()).collect();
    names.sort();
    assert_eq!(
        names,
        ["jawOpen", "smile"],
        "the teeth's jawOpen is the body's"
    );
    let curve = |n: &str| talk.curves().iter().find(|c| c.name == n).unwrap();
    assert_eq!(curve("jawOpen").track.values(), [0.0, 1.0]);
    assert_eq!(curve("smile").track.values(), [0.2, 0.4]);
    assert!((curve("smile").sample(0.5) - 0.3).abs() < 1e-6);
    assert_eq!((talk.start_secs(), talk.end_secs()), (0.0, 1.0));

    let chatter = &a.find_clip("chatter").unwrap().clip;
    let jaw = &chatter.curves()[0];
    assert_eq!(jaw.name, "jawOpen");
    assert_eq!(jaw.track.interpolation(), Interpolation::CubicSpline);
    assert_eq!(jaw.track.values(), [0.0, 0.5, 2.0, -1.0, 0.75, 0.0]);
    assert_eq!(jaw.sample(1.0), 0.75);
}

#[test]
fn a_weights_channel_of_the_wrong_width_is_reported_not_read() {
    // The teeth's channel, given the body's two weights per key.
    let bytes = edited_morph_file(json!({}), |root| {
        root["animations"][0]["samplers"][1]["output"] = json!(7);
    });
    let a = read(&bytes);
    let w = a
        .warnings
        .iter()
        .find(|w| w.contains("morph-target weight channel(s) not imported"))
        .unwrap_or_else(|| panic!("{:?}", a.warnings));
    assert!(
        w.contains("'teeth' (2 weights per key for its 1 morph targets)"),
        "{w}"
    );
    let talk = &a.find_clip("talk").unwrap().clip;
    assert_eq!(talk.curves().len(), 2);
}

#[test]
fn vrm1_expressions_become_curve_targets_beside_the_morphs() {
    let a = read(&morph_file(json!({
        "extensionsUsed": ["VRMC_vrm"],
        "extensions": {"VRMC_vrm": {"specVersion": "1.0", "humanoid": {"humanBones": {}},
            "expressions": {
                "preset": {"happy": {"morphTargetBinds": [{"node": 1, "index": 1, "weight": 0.8}]}},
                "custom": {"wink": {"morphTargetBinds": [{"node": 2, "index": 0, "weight": 1.0}]}}
            }}}
    })));
    assert_eq!(a.format, Format::Vrm1);
    let names: Vec<&str> = a.curve_targets.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["jawOpen", "smile", "happy", "wink"]);
    let happy = &a.curve_targets[2];
    assert!(happy.expression);
    assert_eq!(
        happy.binds,
        [MorphBind {
            mesh: 0,
            morph: 1,
            node: Some(1),
            weight: 0.8
        }]
    );
    assert_eq!(a.curve_targets[3].binds[0].mesh, 1);
}

/// A mutant's morph target accessor of the wrong type or count leaves the morphs out with a
/// warning; the mesh is still read.
#[test]
fn morph_targets_that_cannot_be_read_are_left_out_with_a_warning() {
    // Target 0 (jawOpen) points at the 2 key times.
    let bytes = edited_morph_file(json!({}), |root| {
        root["meshes"][0]["primitives"][0]["targets"][0]["POSITION"] = json!(6);
    });
    let a = read(&bytes);
    assert!(a.meshes[0].primitives[0].morphs.is_empty());
    assert!(a.meshes[0].morph_weights.is_empty());
    assert!(
        a.warnings
            .iter()
            .any(|w| w.contains("mesh 'Body': its morph targets are not read")),
        "{:?}",
        a.warnings
    );
}

/// `three-vrm_test.vrma`: expression `happy` on node 51, keyed by its translation X: 1 at
/// 1.5 s, 0 at the other six keys; its lookAt node turns 90° left at 2.5 s.
#[test]
fn a_vrm_animation_carries_its_expression_and_look_at_as_curves() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../assets/vrm/three-vrm_test.vrma");
    let a = crate::load(&path, &Default::default()).unwrap();
    let clip = &a.clips[0].clip;
    let happy = clip.curves().iter().find(|c| c.name == "happy").unwrap();
    assert_eq!(happy.track.times(), [0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]);
    assert_eq!(happy.track.values(), [0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0]);
    let yaw = clip
        .curves()
        .iter()
        .find(|c| c.name == "lookAt.yaw")
        .unwrap();
    let pitch = clip
        .curves()
        .iter()
        .find(|c| c.name == "lookAt.pitch")
        .unwrap();
    assert!(
        (yaw.track.values()[5] - 90.0).abs() < 1e-3,
        "{:?}",
        yaw.track.values()
    );
    assert!(yaw.track.values()[..5].iter().all(|v| v.abs() < 1e-3));
    assert!(pitch.track.values().iter().all(|v| v.abs() < 1e-3));
    assert!(
        !a.warnings
            .iter()
            .any(|w| w.contains("happy") || w.contains("lookAt")),
        "{:?}",
        a.warnings
    );
    assert!((clip.duration_secs() - 3.0).abs() < 1e-6);
}

#[test]
fn look_at_angles_follow_the_right_hand_rule() {
    let (yaw, pitch) = super::clips::yaw_pitch(glam::Quat::from_rotation_y(0.5)).unwrap();
    assert!((yaw - 0.5f32.to_degrees()).abs() < 1e-3 && pitch.abs() < 1e-3);
    let (yaw, pitch) = super::clips::yaw_pitch(glam::Quat::from_rotation_x(0.3)).unwrap();
    assert!(yaw.abs() < 1e-3 && (pitch - 0.3f32.to_degrees()).abs() < 1e-3);
    assert!(super::clips::yaw_pitch(glam::Quat::from_xyzw(0.0, 0.0, 0.0, 0.0)).is_none());
}
