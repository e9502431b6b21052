//! The robot as a VRM 1.0 character with expressions: its joints in a `VRMC_vrm` humanoid
//! table and VRM presets bound to its face's morph targets (`Angry`, `Surprised`, `Sad` on
//! the `Head` mesh). No bundled VRM has morph-target expressions under a licence that lets
//! us ship it; this one is made from a file we ship.

use super::glb::Glb;
use serde_json::{Value, json};

/// `happy` moves `Sad` fully, `sad` half, a custom `shock` moves `Surprised`, and the look
/// expressions (`lookLeft` on `Angry`, `lookRight` a fifth of `Surprised`, up and down on
/// nothing) take a gaze.
pub fn robot_as_vrm(robot: &[u8]) -> Vec<u8> {
    let mut glb = Glb::parse(robot);
    let node = |glb: &Glb, name: &str, mesh: bool| -> usize {
        glb.json["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .position(|n| n["name"] == name && n.get("mesh").is_some() == mesh)
            .unwrap_or_else(|| panic!("the robot has no node '{name}'"))
    };
    let bones = [
        ("hips", "Hips"),
        ("spine", "Abdomen"),
        ("chest", "Torso"),
        ("neck", "Neck"),
        ("head", "Head"),
        ("leftUpperArm", "UpperArm.L"),
        ("leftLowerArm", "LowerArm.L"),
        ("leftHand", "Palm2.L"),
        ("rightUpperArm", "UpperArm.R"),
        ("rightLowerArm", "LowerArm.R"),
        ("rightHand", "Palm2.R"),
        ("leftUpperLeg", "UpperLeg.L"),
        ("leftLowerLeg", "LowerLeg.L"),
        ("leftFoot", "Foot.L"),
        ("rightUpperLeg", "UpperLeg.R"),
        ("rightLowerLeg", "LowerLeg.R"),
        ("rightFoot", "Foot.R"),
    ];
    let human: serde_json::Map<String, Value> = bones
        .iter()
        .map(|(bone, name)| {
            (
                (*bone).to_owned(),
                json!({ "node": node(&glb, name, false) }),
            )
        })
        .collect();
    let face = node(&glb, "Head", true);
    let bind = |index: usize, weight: f32| json!({ "morphTargetBinds": [{ "node": face, "index": index, "weight": weight }] });
    let doc = &mut glb.json;
    doc["extensionsUsed"] = json!(["VRMC_vrm"]);
    doc["extensions"] = json!({
        "VRMC_vrm": {
            "specVersion": "1.0",
            "meta": {
                "name": "RobotExpressive as VRM",
                "authors": ["Tomás Laulhé (Quaternius), CC0; VRM table added by Retarget Studio's tests"],
                "licenseUrl": "https://creativecommons.org/publicdomain/zero/1.0/"
            },
            "humanoid": { "humanBones": human },
            "expressions": {
                "preset": {
                    "happy": bind(2, 1.0),
                    "sad": bind(2, 0.5),
                    "lookLeft": bind(0, 1.0),
                    "lookRight": bind(1, 0.2),
                    "lookUp": { "morphTargetBinds": [] },
                    "lookDown": { "morphTargetBinds": [] }
                },
                "custom": { "shock": bind(1, 1.0) }
            }
        }
    });
    glb.to_bytes()
}
