//! FBX export: binary FBX 7.4 (FBX SDK 2016 and later, Blender, ufbx, Unreal, Unity read it),
//! written through fbxcel's node writer. The target's skeleton as LimbNode models with
//! their rest, each clip as its own take, in the unit and up axis asked for. The skeleton's
//! top joint is the file's root: no armature node, no leaf bones added. Files are written
//! atomically: an error leaves no half file.

mod curves;
mod frames;
mod mesh;
mod node;
mod shapes;

use crate::asset::Asset;
use crate::atomic::write_atomic;
use crate::error::{ExportError, ExportProblem};
use crate::gltf_export::ExportReport;
use curves::{Ids, Keying, connect, ticks};
use frames::{FileFrame, euler_xyz};
use node::{Node, Props, object_name};
use retarget_core::reduce::Tolerance;
use retarget_core::{Axis, Clip, Skeleton, Unit};
use std::path::Path;

/// What goes into the FBX besides the takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FbxContent {
    /// The skeleton and the target's meshes, skinned.
    #[default]
    WithCharacter,
    /// The skeleton and the takes: what an engine imports onto a skeleton it already has.
    AnimationOnly,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FbxExportOptions {
    pub content: FbxContent,
    /// The file's length unit (Maya and Unreal work in centimetres).
    pub unit: Unit,
    /// The unit the file declares when it is not `unit`: a character whose file declared one
    /// unit over numbers in another (`Readings::declared_unit`) gets the same again, so the
    /// output reads as its file did in any importer.
    pub declared_unit: Option<Unit>,
    /// The file's up axis: +Y or +Z.
    pub up: Axis,
    /// Keys per second; `None` keys each clip at its own rate (30 when it has none).
    pub fps: Option<f32>,
    /// Drop the keys linear interpolation reproduces within these (`length` in the
    /// skeleton's joint units).
    pub reduce: Option<Tolerance>,
}

impl FbxExportOptions {
    /// The unit and up axis the target came in with (+Y unless it was +Z up).
    pub fn as_target(target: &Asset) -> Self {
        Self {
            content: FbxContent::default(),
            unit: target.unit,
            declared_unit: target.readings.declared_unit,
            up: match target.up {
                Axis::PosZ => Axis::PosZ,
                _ => Axis::PosY,
            },
            fps: None,
            reduce: None,
        }
    }
}

/// Writes `clips` (one track set per joint of `target.skeletons[skeleton]`) as an FBX.
pub fn export_fbx(
    target: &Asset,
    skeleton: usize,
    clips: &[Clip],
    options: &FbxExportOptions,
    out: &Path,
) -> Result<ExportReport, ExportError> {
    let fail = |problem| ExportError::new(out, problem);
    let invalid = |msg: String| fail(ExportProblem::Invalid(msg));
    let Some(s) = target.skeletons.get(skeleton) else {
        return Err(invalid(format!(
            "skeleton {skeleton} does not exist ({} in the target)",
            target.skeletons.len()
        )));
    };
    if !matches!(options.up, Axis::PosY | Axis::PosZ) {
        return Err(invalid(format!(
            "an FBX is written +Y or +Z up, not {}",
            options.up.name()
        )));
    }
    for clip in clips {
        if clip.tracks().len() != s.len() {
            return Err(invalid(format!(
                "clip '{}' has {} joint tracks but skeleton '{}' has {} joints",
                clip.name,
                clip.tracks().len(),
                s.name,
                s.len()
            )));
        }
    }
    let limit = crate::fbx::NODE_DEPTH_LIMIT as usize;
    if let Some(depth) = depth_past(s, limit) {
        return Err(invalid(format!(
            "skeleton '{}' is {depth} joints deep; FBX readers (ufbx) take at most {limit}",
            s.name
        )));
    }
    let mut notes = Vec::new();
    let frame = FileFrame::new(s, options.unit, options.up, clips);
    if frame.bakes_container() {
        notes.push(format!(
            "the container of skeleton '{}' has non-uniform scale or shear; it was baked into \
             its top joints",
            s.name
        ));
    }
    let mut ids = Ids::new();
    let (mut objects, mut connections, models) = skeleton_objects(s, &frame, &mut ids);
    let mut channels = Vec::new();
    if options.content == FbxContent::WithCharacter {
        let meshes: Vec<usize> = (0..target.meshes.len())
            .filter(|&m| target.meshes[m].skeleton == skeleton)
            .collect();
        let written =
            mesh::push_meshes(target, &meshes, s, &frame, &models, &mut ids).map_err(invalid)?;
        channels = written.channels;
        objects.extend(written.objects);
        connections.extend(written.connections);
        notes.extend(written.notes);
    }
    if !objects.iter().any(|o| o.name == "Pose") {
        objects.push(mesh::skeleton_bind_pose(s, &frame, &models, &mut ids).map_err(invalid)?);
    }
    let keying = Keying {
        fps: options.fps,
        reduce: options.reduce,
    };
    let driven = curves::Driven {
        skeleton: s,
        models: &models,
        target,
        channels: &channels,
    };
    let takes = curves::push_takes(&driven, &frame, clips, keying, &mut ids);
    let settings = global_settings(options, &takes);
    objects.extend(takes.objects);
    connections.extend(takes.connections);

    let mut document = vec![header(), settings];
    document.push(definitions(&objects));
    document.push(Node {
        name: "Objects",
        attrs: Vec::new(),
        children: objects,
    });
    document.push(Node {
        name: "Connections",
        attrs: Vec::new(),
        children: connections,
    });
    let bytes = node::to_bytes(&document).map_err(invalid)?;
    let written =
        write_atomic(out, |w| w.write_all(&bytes)).map_err(|e| fail(ExportProblem::Write(e)))?;
    Ok(ExportReport {
        path: out.to_path_buf(),
        bytes: written,
        clips: takes.clips,
        keys: takes.keys,
        keys_before: takes.keys_before,
        repaired_vertices: 0,
        notes,
    })
}

/// The skeleton's depth (joints on its longest chain) when it passes `limit`.
fn depth_past(s: &Skeleton, limit: usize) -> Option<usize> {
    let mut depth = vec![0usize; s.len()];
    for (j, parent) in s.parents().iter().enumerate() {
        depth[j] = parent.map_or(1, |p| depth[p] + 1);
    }
    depth.into_iter().max().filter(|&d| d > limit)
}

/// A NodeAttribute and a Model per joint, each model under its parent's (the top joints
/// under the scene); returns the objects, their connections and every joint's model id.
fn skeleton_objects(
    s: &Skeleton,
    frame: &FileFrame,
    ids: &mut Ids,
) -> (Vec<Node>, Vec<Node>, Vec<i64>) {
    let mut objects = Vec::new();
    let mut connections = Vec::new();
    let mut models: Vec<i64> = Vec::with_capacity(s.len());
    for (j, name) in s.names().iter().enumerate() {
        let attribute = ids.next();
        let model = ids.next();
        let parent = s.parents()[j];
        let rest = frame.local(j, &s.rest()[j]);
        let mut props = Props::default();
        props.double("Size", 100.0);
        objects.push(
            Node::new("NodeAttribute")
                .attr(attribute)
                .attr(object_name(name, "NodeAttribute"))
                .attr("LimbNode")
                .child(props.node())
                .value("TypeFlags", "Skeleton"),
        );
        let mut props = Props::default();
        props
            .enumeration("InheritType", 1)
            .enumeration("DefaultAttributeIndex", 0)
            .lcl("Lcl Translation", rest.translation.as_dvec3().to_array())
            .lcl("Lcl Rotation", euler_xyz(rest.rotation, None))
            .lcl("Lcl Scaling", rest.scale.as_dvec3().to_array());
        objects.push(
            Node::new("Model")
                .attr(model)
                .attr(object_name(name, "Model"))
                .attr("LimbNode")
                .value("Version", 232)
                .child(props.node())
                .value("Shading", node::Attr::Bool(true))
                .value("Culling", "CullingOff"),
        );
        connections.push(connect(attribute, model));
        connections.push(connect(model, parent.map_or(0, |p| models[p])));
        models.push(model);
    }
    (objects, connections, models)
}

fn header() -> Node {
    Node::new("FBXHeaderExtension")
        .value("FBXHeaderVersion", 1003)
        .value("FBXVersion", 7400)
        .value(
            "Creator",
            format!("Retarget Studio {}", env!("CARGO_PKG_VERSION")),
        )
}

/// Axes, unit and time: Y-up is FBX's own frame (front +Z); Z-up has front −Y, so both stay
/// right-handed with +X to the right.
fn global_settings(options: &FbxExportOptions, takes: &curves::Takes) -> Node {
    let (up, front, front_sign) = match options.up {
        Axis::PosZ => (2, 1, -1),
        _ => (1, 2, 1),
    };
    let centimetres = options.declared_unit.unwrap_or(options.unit).metres() as f64 * 100.0;
    let (start, stop) = takes.span.unwrap_or((0.0, 0.0));
    let fps = takes.fps.unwrap_or(30.0);
    let mut props = Props::default();
    props
        .int("UpAxis", up)
        .int("UpAxisSign", 1)
        .int("FrontAxis", front)
        .int("FrontAxisSign", front_sign)
        .int("CoordAxis", 0)
        .int("CoordAxisSign", 1)
        .int("OriginalUpAxis", up)
        .int("OriginalUpAxisSign", 1)
        .double("UnitScaleFactor", centimetres)
        .double("OriginalUnitScaleFactor", centimetres)
        .color("AmbientColor", [0.0; 3])
        .string("DefaultCamera", "Producer Perspective")
        .enumeration("TimeMode", time_mode(fps))
        .enumeration("TimeProtocol", 2)
        .enumeration("SnapOnFrameMode", 0)
        .time("TimeSpanStart", ticks(start))
        .time("TimeSpanStop", ticks(stop))
        .double("CustomFrameRate", fps);
    Node::new("GlobalSettings")
        .value("Version", 1000)
        .child(props.node())
}

/// FBX's `TimeMode` for a rate: its named modes, else custom (`CustomFrameRate`).
fn time_mode(fps: f64) -> i32 {
    let named = [
        (120.0, 1),
        (100.0, 2),
        (60.0, 3),
        (50.0, 4),
        (48.0, 5),
        (30.0, 6),
        (25.0, 10),
        (24.0, 11),
        (1000.0, 12),
        (96.0, 15),
        (72.0, 16),
    ];
    named
        .iter()
        .find(|(rate, _)| (fps - rate).abs() < 1e-6)
        .map_or(14, |&(_, mode)| mode)
}

/// How many objects of each type the file holds.
fn definitions(objects: &[Node]) -> Node {
    let mut counts: Vec<(&'static str, i32)> = vec![("GlobalSettings", 1)];
    for o in objects {
        match counts.iter_mut().find(|(name, _)| *name == o.name) {
            Some((_, n)) => *n += 1,
            None => counts.push((o.name, 1)),
        }
    }
    let total: i32 = counts.iter().map(|(_, n)| n).sum();
    let mut node = Node::new("Definitions")
        .value("Version", 100)
        .value("Count", total);
    for (name, n) in counts {
        node.push(Node::new("ObjectType").attr(name).value("Count", n));
    }
    node
}

#[cfg(test)]
mod tests;
