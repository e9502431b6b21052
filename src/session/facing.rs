//! Which way a side faces, and the turn of its container that makes it face +Z with +Y up.
//! A humanoid says so with its hips, head and shoulders. Mocap of anything else says
//! nothing in its file: its facing comes from its motion (`core::heading`).

use super::{SessionError, Side};
use crate::core::align::{Facing, detect_facing, facing_fix};
use crate::core::heading::{ForwardReading, body_line, read_forward};
use crate::core::{HumanBone, MapMethod};
use crate::io::asset::{Format, Provenance};
use glam::{Quat, Vec3};

/// How a side's facing was read.
#[derive(Clone, Debug, PartialEq)]
pub enum FacingReading {
    /// From the humanoid labels: hips to head is up, right to left is left.
    Labels(Facing),
    /// From the motion: a creature, or a body its names make a biped of that does not
    /// stand like one (an elephant whose front legs are named as arms).
    Motion(ForwardReading),
}

impl FacingReading {
    /// The horizontal direction the side faces, before the turn.
    pub fn forward(&self) -> Vec3 {
        match self {
            FacingReading::Labels(f) => f.forward,
            FacingReading::Motion(r) => r.forward,
        }
    }

    /// The turn of the container that makes the side face +Z with +Y up.
    pub fn turn(&self) -> Quat {
        match self {
            FacingReading::Labels(f) => facing_fix(f),
            FacingReading::Motion(r) => r.turn(),
        }
    }

    /// The import note, when the side is turned.
    pub fn note(&self) -> Option<String> {
        let angle = self.turn().angle_between(Quat::IDENTITY);
        if angle <= 1e-3 {
            return None;
        }
        let degrees = angle.to_degrees();
        Some(match self {
            FacingReading::Labels(f) => format!(
                "faces {} (detected from hips, head and legs): turned {degrees:.0}° to face +Z",
                crate::core::Axis::dominant(f.forward).name()
            ),
            FacingReading::Motion(r) => {
                format!("{}: turned {degrees:.0}° to face +Z", r.describe())
            }
        })
    }
}

/// Reads which way `side` faces in its world (its container edits included). A BVH's up was
/// read from its motion and stood up by its container, so labels whose hips-to-head line
/// lies down there say nothing of its facing; nor does a side without labels. Either reads
/// forward from the motion, else from its body line. `None`: nothing to go on, the side is
/// left as it stands.
pub fn read_facing(side: &Side) -> Option<FacingReading> {
    let labels = side.bone_labels();
    let labelled = side
        .is_humanoid()
        .then(|| detect_facing(side.skeleton(), &labels, &side.reference))
        .flatten();
    let stood_by_motion =
        side.asset.format == Format::Bvh && side.asset.up_source != Provenance::Assumed;
    let lies_down = |f: &Facing| f.up.angle_between(Vec3::Y) > 45f32.to_radians();
    match labelled {
        Some(f) if !(stood_by_motion && lies_down(&f)) => Some(FacingReading::Labels(f)),
        Some(_) => motion_forward(side).map(FacingReading::Motion),
        // A creature's file says its facing only by convention (glTF faces +Z, an FBX
        // declares a front axis), and many ignore it (a Blender dog faces +X): where its
        // travel or its body line says, that wins, or its legs are tagged front and back
        // for left and right.
        None => motion_forward(side).map(FacingReading::Motion),
    }
}

/// Forward from the side's first clip and its body line (its head found by the labels its
/// names or file give, not by its shape).
fn motion_forward(side: &Side) -> Option<ForwardReading> {
    let trusted: Vec<Option<HumanBone>> = side
        .labels
        .iter()
        .map(|l| {
            l.filter(|l| {
                l.confidence >= 0.5 && matches!(l.method, MapMethod::Name | MapMethod::Table)
            })
            .map(|l| l.bone)
        })
        .collect();
    let skeleton = side.skeleton();
    let line = body_line(&side.chains, skeleton.parents(), skeleton.names(), &trusted);
    read_forward(
        skeleton,
        side.reference.container,
        &side.reference.locals,
        side.clips().first().copied(),
        line,
    )
}

/// Turns one side's container so it faces +Z with +Y up; `note` adds an import note when it
/// turned (once, at load: not again on every Reset).
pub(super) fn face_side_forward(side: &mut Side, note: bool) -> Result<(), SessionError> {
    let Some(reading) = read_facing(side) else {
        return Ok(());
    };
    let turn = reading.turn();
    let edit = &mut side.file.container;
    edit.rotation = (turn * edit.rotation).normalize();
    if note && let Some(text) = reading.note() {
        side.asset.warnings.push(text);
    }
    side.rebuild_reference()
}
