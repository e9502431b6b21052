//! glTF animations as `Clip`s: one clip per animation and skeleton, of the channels that
//! target that skeleton's joints, and of the curves its `weights` channels (one per morph
//! target) and a VRM Animation's expression and look-at nodes animate. Channels nothing can
//! hold are reported.

use super::hierarchy::Hierarchy;
use super::skeletons::BuiltSkeleton;
use crate::asset::AssetClip;
use crate::error::Problem;
use crate::vrm_expressions::AnimatedExpressions;
use glam::{Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Channel, Property};
use retarget_core::{Clip, ClipError, Curve, Interpolation, JointTracks, Track};
use std::collections::HashMap;
use std::sync::Arc;

/// What animates curves rather than joints.
#[derive(Default)]
pub(super) struct CurveSources {
    /// Per node drawing a mesh with morph targets: their names, and the skeleton whose clip
    /// takes their curves (the one the mesh is skinned to or hangs from, else 0).
    pub morph_nodes: HashMap<usize, (Vec<String>, usize)>,
    /// A VRM Animation's expression nodes and look-at node.
    pub expressions: AnimatedExpressions,
}

/// The names of the look-at curves, in degrees: yaw about +Y, pitch about +X.
pub const LOOK_AT_YAW: &str = "lookAt.yaw";
pub const LOOK_AT_PITCH: &str = "lookAt.pitch";

pub(super) fn read_clips(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    h: &Hierarchy,
    skeletons: &[BuiltSkeleton],
    sources: &CurveSources,
    warnings: &mut Vec<String>,
) -> Result<Vec<AssetClip>, Problem> {
    let mut clips = Vec::new();
    // Channels that read one input accessor share its times (exporters often key every
    // channel of an animation on one): samplers then group them at once.
    let mut times = HashMap::new();
    let last = skeletons.len().saturating_sub(1);
    for anim in doc.animations() {
        let anim_name = anim
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("animation_{}", anim.index()));
        let mut per_skeleton: Vec<Vec<JointTracks>> = skeletons
            .iter()
            .map(|s| vec![JointTracks::default(); s.skeleton.len()])
            .collect();
        let mut curves: Vec<Vec<Curve>> = vec![Vec::new(); skeletons.len()];
        let mut used = vec![false; skeletons.len()];
        let mut unplaced_weights = Vec::new();
        let mut twice = Vec::new();
        let mut unmapped = Vec::new();
        for channel in anim.channels() {
            let node = channel.target().node().index();
            let property = channel.target().property();
            let problem = |source| channel_problem(&anim_name, &channel, h, source);
            if property == Property::MorphTargetWeights {
                let Some((names, s)) = sources.morph_nodes.get(&node) else {
                    unplaced_weights
                        .push(format!("'{}' (it draws no morph targets)", h.names[node]));
                    continue;
                };
                let s = (*s).min(last);
                match read_weights(&channel, buffers, &mut times, names.len()).map_err(problem)? {
                    Ok(tracks) => {
                        let read = names.iter().zip(tracks).map(|(n, t)| Curve::new(n, t));
                        add_curves(&mut curves[s], read, &mut twice);
                        used[s] = true;
                    }
                    Err(k) => unplaced_weights.push(format!(
                        "'{}' ({k} weights per key for its {} morph targets)",
                        h.names[node],
                        names.len()
                    )),
                }
                continue;
            }
            let mut placed = false;
            let expression = sources.expressions.nodes.get(&node);
            if let Some(name) = expression
                && property == Property::Translation
                && !curves.is_empty()
            {
                let track = read_expression(&channel, buffers, &mut times).map_err(problem)?;
                add_curves(&mut curves[0], [Curve::new(name, track)], &mut twice);
                used[0] = true;
                placed = true;
            } else if sources.expressions.look_at == Some(node)
                && property == Property::Rotation
                && !curves.is_empty()
            {
                let read = read_look_at(&channel, buffers, &mut times).map_err(problem)?;
                add_curves(&mut curves[0], read, &mut twice);
                used[0] = true;
                placed = true;
            }
            for (s, built) in skeletons.iter().enumerate() {
                if let Some(&joint) = built.joint_of_node.get(&node) {
                    read_channel(&channel, buffers, &mut times, &mut per_skeleton[s][joint])
                        .map_err(problem)?;
                    used[s] = true;
                    placed = true;
                }
            }
            if !placed {
                unmapped.push(h.names[node].clone());
            }
        }
        if !unplaced_weights.is_empty() {
            warnings.push(format!(
                "animation '{anim_name}': {} morph-target weight channel(s) not imported: {}",
                unplaced_weights.len(),
                unplaced_weights.join(", ")
            ));
        }
        if !twice.is_empty() {
            twice.sort();
            twice.dedup();
            warnings.push(format!(
                "animation '{anim_name}': curves animated differently by several channels, \
                 the first kept: {}",
                twice.join(", ")
            ));
        }
        if !unmapped.is_empty() {
            unmapped.dedup();
            warnings.push(format!(
                "animation '{anim_name}': channels on nodes outside every skeleton not imported: {}",
                unmapped.join(", ")
            ));
        }
        for (s, (tracks, curves)) in per_skeleton.into_iter().zip(curves).enumerate() {
            if used[s] {
                clips.push(AssetClip {
                    skeleton: s,
                    clip: Clip::new(anim_name.clone(), tracks, None).with_curves(curves),
                    animation: anim.index(),
                });
            }
        }
    }
    Ok(clips)
}

/// Adds `read` to `list`; a curve whose name is there already is left out (the same name on
/// several meshes is one curve), its name kept in `twice` when its keys differ.
fn add_curves(
    list: &mut Vec<Curve>,
    read: impl IntoIterator<Item = Curve>,
    twice: &mut Vec<String>,
) {
    for c in read {
        match list.iter().find(|have| have.name == c.name) {
            Some(have) if have.track != c.track => twice.push(c.name),
            Some(_) => {}
            None => list.push(c),
        }
    }
}

fn channel_problem(anim: &str, channel: &Channel, h: &Hierarchy, source: ClipError) -> Problem {
    let node = channel.target().node().index();
    let property = match channel.target().property() {
        Property::Translation => "translation",
        Property::Rotation => "rotation",
        Property::Scale => "scale",
        Property::MorphTargetWeights => "weights",
    };
    Problem::Channel {
        animation: anim.to_owned(),
        channel: channel.index(),
        target: format!("{property} of '{}'", h.names[node]),
        source,
    }
}

/// The channel's key times, read once per input accessor (`times`, by index).
fn key_times(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
) -> Result<Arc<[f32]>, ClipError> {
    let input = channel.sampler().input().index();
    if let Some(shared) = times.get(&input) {
        return Ok(shared.clone());
    }
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let read: Arc<[f32]> = reader.read_inputs().ok_or(ClipError::NoKeys)?.collect();
    times.insert(input, read.clone());
    Ok(read)
}

fn interpolation(channel: &Channel) -> Interpolation {
    match channel.sampler().interpolation() {
        gltf::animation::Interpolation::Step => Interpolation::Step,
        gltf::animation::Interpolation::Linear => Interpolation::Linear,
        gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    }
}

fn no_values(times: &[f32]) -> ClipError {
    ClipError::CountMismatch {
        times: times.len(),
        values: 0,
        expected: times.len(),
    }
}

/// Reads `channel` into `out`; `times`: the input accessors read so far, by index.
fn read_channel(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
    out: &mut JointTracks,
) -> Result<(), ClipError> {
    let times = key_times(channel, buffers, times)?;
    let interpolation = interpolation(channel);
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(outputs) = reader.read_outputs() else {
        return Err(no_values(&times));
    };
    match outputs {
        ReadOutputs::Translations(v) => {
            let values = v.map(Vec3::from).collect();
            out.translation = Some(Track::new(times, values, interpolation)?);
        }
        ReadOutputs::Scales(v) => {
            let values = v.map(Vec3::from).collect();
            out.scale = Some(Track::new(times, values, interpolation)?);
        }
        ReadOutputs::Rotations(v) => {
            let values = v.into_f32().map(Quat::from_array).collect();
            out.rotation = Some(Track::new(times, values, interpolation)?);
        }
        ReadOutputs::MorphTargetWeights(_) => {}
    }
    Ok(())
}

/// A `weights` channel as one track per morph target, when it holds `k` weights per key;
/// `Ok(Err(found))` when it holds another number.
fn read_weights(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
    k: usize,
) -> Result<Result<Vec<Track<f32>>, usize>, ClipError> {
    let times = key_times(channel, buffers, times)?;
    let interpolation = interpolation(channel);
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(ReadOutputs::MorphTargetWeights(w)) = reader.read_outputs() else {
        return Err(no_values(&times));
    };
    let values: Vec<f32> = w.into_f32().collect();
    let per_key = match interpolation {
        Interpolation::CubicSpline => 3,
        _ => 1,
    };
    let slots = times.len().saturating_mul(per_key);
    if slots == 0 {
        return Err(ClipError::NoKeys);
    }
    if values.len() % slots != 0 {
        return Err(ClipError::CountMismatch {
            times: times.len(),
            values: values.len(),
            expected: slots.saturating_mul(k),
        });
    }
    let found = values.len() / slots;
    if found != k {
        return Ok(Err(found));
    }
    // Per key: k weights (cubic: k in-tangents, k weights, k out-tangents).
    let mut tracks = Vec::with_capacity(k);
    for t in 0..k {
        let own = (0..slots).map(|slot| values[slot * k + t]).collect();
        tracks.push(Track::new(times.clone(), own, interpolation)?);
    }
    Ok(Ok(tracks))
}

/// A VRM Animation expression: the weight is its node's translation X.
fn read_expression(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
) -> Result<Track<f32>, ClipError> {
    let times = key_times(channel, buffers, times)?;
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(ReadOutputs::Translations(v)) = reader.read_outputs() else {
        return Err(no_values(&times));
    };
    // X of each value (and of each tangent: the projection is linear).
    let xs = v.map(|t| t[0]).collect();
    Track::new(times, xs, interpolation(channel))
}

/// A VRM Animation's look-at node: where its rotation turns +Z, as yaw (about +Y) and pitch
/// (about +X) in degrees. A cubic channel's keys are joined linearly (its tangents are a
/// rotation's, not the angles').
fn read_look_at(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
) -> Result<[Curve; 2], ClipError> {
    let times = key_times(channel, buffers, times)?;
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let Some(ReadOutputs::Rotations(v)) = reader.read_outputs() else {
        return Err(no_values(&times));
    };
    let mut interpolation = interpolation(channel);
    let mut quats: Vec<[f32; 4]> = v.into_f32().collect();
    if interpolation == Interpolation::CubicSpline {
        quats = quats.into_iter().skip(1).step_by(3).collect();
        interpolation = Interpolation::Linear;
    }
    let mut yaw: Vec<f32> = Vec::with_capacity(quats.len());
    let mut pitch = Vec::with_capacity(quats.len());
    for (index, q) in quats.iter().enumerate() {
        let (y, p) = yaw_pitch(Quat::from_array(*q)).ok_or(ClipError::ZeroRotation { index })?;
        // Unwrapped: no turn of 360° between keys.
        let y = match yaw.last() {
            Some(&prev) => y + 360.0 * ((prev - y) / 360.0).round(),
            None => y,
        };
        yaw.push(y);
        pitch.push(p);
    }
    Ok([
        Curve::new(LOOK_AT_YAW, Track::new(times.clone(), yaw, interpolation)?),
        Curve::new(LOOK_AT_PITCH, Track::new(times, pitch, interpolation)?),
    ])
}

/// Degrees of yaw (about +Y) and pitch (about +X) that turn +Z to where `q` turns it;
/// `None` for a rotation of no length.
pub(super) fn yaw_pitch(q: Quat) -> Option<(f32, f32)> {
    let len = q.length();
    if !(len.is_finite() && len > 1e-12) {
        return None;
    }
    let f = (q / len) * Vec3::Z;
    let yaw = f.x.atan2(f.z).to_degrees();
    let pitch = (-f.y).atan2(f.x.hypot(f.z)).to_degrees();
    Some((yaw, pitch))
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// Distinct time arrays among a file's first clip's tracks, and its tracks.
    fn shared(file: &str) -> (usize, usize) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../assets/gltf")
            .join(file);
        let asset = crate::load(&path, &Default::default()).unwrap();
        let mut all: Vec<&[f32]> = Vec::new();
        for t in asset.clips[0].clip.tracks() {
            all.extend(t.translation.as_ref().map(|k| k.times()));
            all.extend(t.rotation.as_ref().map(|k| k.times()));
            all.extend(t.scale.as_ref().map(|k| k.times()));
        }
        let mut distinct: Vec<*const f32> = all.iter().map(|t| t.as_ptr()).collect();
        distinct.sort();
        distinct.dedup();
        (distinct.len(), all.len())
    }

    /// The Fox keys its 21 channels on one input accessor, CesiumMan its 57 on 19: one
    /// time array each.
    #[test]
    fn channels_on_one_input_accessor_share_one_time_array() {
        assert_eq!(shared("Fox.glb"), (1, 21));
        assert_eq!(shared("CesiumMan.glb"), (19, 57));
    }
}
