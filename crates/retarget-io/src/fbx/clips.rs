//! Animation stacks as clips: one clip per stack (FBX 6.1 "Takes" are stacks too), baked by
//! ufbx into local translation/rotation/scale keys at the file's own times, so a stack that
//! starts at 0.83 s, or before 0, keeps its start.

use super::convert::{quat, vec3};
use super::skeleton::Built;
use crate::asset::AssetClip;
use crate::error::Problem;
use retarget_core::{Clip, Curve, Interpolation, JointTracks, Track};
use std::collections::HashMap;

pub(super) fn read_clips(
    scene: &ufbx::Scene,
    built: &Built,
    warnings: &mut Vec<String>,
) -> Result<Vec<AssetClip>, Problem> {
    check_key_times(scene)?;
    let fps = scene.settings.frames_per_second;
    let fps = (fps.is_finite() && fps > 0.0 && fps <= MAX_FPS).then_some(fps);
    let mut clips = Vec::new();
    let mut empty = Vec::new();
    // Blend channels by element id: their animated DeformPercent (0..100) is a curve.
    let channels: HashMap<u32, String> = scene
        .blend_channels
        .iter()
        .map(|c| (c.element.element_id, c.element.name.to_string()))
        .collect();
    for (index, stack) in scene.anim_stacks.iter().enumerate() {
        let name = stack.element.name.to_string();
        let opts = ufbx::BakeOpts {
            // Non-linear curves (cubic, Euler rotation) resampled on the file's frames.
            resample_rate: fps.unwrap_or(30.0),
            ..Default::default()
        };
        let baked = ufbx::bake_anim(scene, &stack.anim, opts).map_err(|e| Problem::BadData {
            what: format!("animation stack '{name}'"),
            reason: super::load::describe(&e),
        })?;
        let span = window(stack, &name, warnings);
        let mut tracks = vec![JointTracks::default(); built.skeleton.len()];
        let mut outside = Vec::new();
        let mut moves = false;
        for node in baked.nodes.iter() {
            let Some(&joint) = built.joint_of_node.get(&(node.typed_id as usize)) else {
                if !node.constant_translation || !node.constant_rotation || !node.constant_scale {
                    outside.push(scene.nodes[node.typed_id as usize].element.name.to_string());
                }
                continue;
            };
            moves |= leaves_rest(node, &scene.nodes[node.typed_id as usize].local_transform);
            tracks[joint] = joint_tracks(node, span).map_err(|e| Problem::Channel {
                animation: name.clone(),
                channel: joint,
                target: built.skeleton.names()[joint].clone(),
                source: e,
            })?;
        }
        let mut curves: Vec<Curve> = Vec::new();
        for element in baked.elements.iter() {
            let Some(channel) = channels.get(&element.element_id) else {
                continue;
            };
            let Some(prop) = element.props.iter().find(|p| p.name == "DeformPercent") else {
                continue;
            };
            if curves.iter().any(|c| &c.name == channel) {
                continue;
            }
            let keys = prop.keys.iter().map(|k| (k.time, k.value.x as f32 / 100.0));
            let read = track(keys.collect(), span).map_err(|e| Problem::Channel {
                animation: name.clone(),
                channel: element.element_id as usize,
                target: format!("blend channel '{channel}'"),
                source: e,
            })?;
            if let Some(t) = read {
                curves.push(Curve::new(channel, t));
            }
        }
        // A stack without a key that holds every joint at its rest (Unity's Robot Kyle:
        // 'Take 001' has a curve node on 48 joints and not one key) moves no joint, as one
        // without curves does. One with keys is kept even at rest: a take of the bind pose.
        let keyless_rest = !moves && key_range(stack).is_none();
        if curves.is_empty() && (tracks.iter().all(JointTracks::is_empty) || keyless_rest) {
            empty.push(name);
            continue;
        }
        if !outside.is_empty() {
            warnings.push(format!(
                "animation '{name}': motion of nodes outside the skeleton not imported: {}",
                outside.join(", ")
            ));
        }
        let clip = Clip::new(name, tracks, fps.map(|f| f as f32)).with_curves(curves);
        clips.push(AssetClip {
            skeleton: 0,
            clip,
            animation: index,
        });
    }
    if !empty.is_empty() {
        warnings.push(format!(
            "animation stack(s) that move no joint skipped: {}",
            empty
                .iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    Ok(clips)
}

/// Whether any baked key of `node` puts it elsewhere than its rest (`local`, the node's own
/// transform as ufbx evaluates it without animation).
fn leaves_rest(node: &ufbx::BakedNode, local: &ufbx::Transform) -> bool {
    fn apart(a: ufbx::Vec3, b: ufbx::Vec3) -> bool {
        let size = b.x.abs().max(b.y.abs()).max(b.z.abs()).max(1.0);
        [a.x - b.x, a.y - b.y, a.z - b.z]
            .iter()
            .any(|d| d.abs() > 1e-6 * size)
    }
    let r = local.rotation;
    let turned = |q: ufbx::Quat| (q.x * r.x + q.y * r.y + q.z * r.z + q.w * r.w).abs() < 1.0 - 1e-9;
    node.translation_keys
        .iter()
        .any(|k| apart(k.value, local.translation))
        || node.rotation_keys.iter().any(|k| turned(k.value))
        || node.scale_keys.iter().any(|k| apart(k.value, local.scale))
}

/// The fastest frame rate taken from a file (FBX's fastest time mode is 1000 fps): ufbx
/// resamples curves at it, so a lying rate would ask for samples without end.
const MAX_FPS: f64 = 1000.0;

/// The largest key time read, in seconds (about 30 years; FBX's 64-bit ticks reach 6 years
/// either side of 0 at their finest rate).
const MAX_KEY_SECS: f64 = 1e9;

/// Every key of every curve at a finite time within [`MAX_KEY_SECS`]. ufbx's baking merges
/// key times by comparison: a NaN time never compares, and its merge loop then never
/// advances; an infinite or huge span overflows its sample count the same way.
fn check_key_times(scene: &ufbx::Scene) -> Result<(), Problem> {
    for curve in scene.anim_curves.iter() {
        let bad = curve
            .keyframes
            .iter()
            .position(|k| !k.time.is_finite() || k.time.abs() > MAX_KEY_SECS);
        if let Some(k) = bad {
            return Err(Problem::BadData {
                what: format!("animation curve '{}', key {k}", curve.element.name),
                reason: format!(
                    "its time {} s is not a number or lies beyond {MAX_KEY_SECS:e} s",
                    curve.keyframes[k].time
                ),
            });
        }
    }
    Ok(())
}

/// The stack's own time range (its LocalTime), when it is a sane one: a take may start before
/// its first key (Blender 2.79's takes start a frame early, at -1/24 s).
fn stack_span(stack: &ufbx::AnimStack) -> Option<(f64, f64)> {
    let (a, b) = (stack.time_begin, stack.time_end);
    (a.is_finite() && b.is_finite() && a <= b && b - a < 3600.0).then_some((a, b))
}

/// The times a stack's clip spans.
#[derive(Clone, Copy)]
enum Window {
    /// The keys as baked (the stack has no sane range).
    Baked,
    /// The stack's range: keys held out to it.
    Stack(f64, f64),
    /// The curves' own first and last key: ufbx bakes a key at the stack's start, which
    /// lies outside them when the stack's range is stale.
    Keys(f64, f64),
}

/// The stack's range when it holds any of its keys, else the keys' range (with a warning).
fn window(stack: &ufbx::AnimStack, name: &str, warnings: &mut Vec<String>) -> Window {
    let Some(range) = stack_span(stack) else {
        return Window::Baked;
    };
    match key_range(stack) {
        Some(keys) if !overlaps(range, keys) => {
            warnings.push(format!(
                "animation '{name}': its stack's range ({:.3} to {:.3} s) holds none of its \
                 keys ({:.3} to {:.3} s): the clip runs over the keys",
                range.0, range.1, keys.0, keys.1
            ));
            Window::Keys(keys.0, keys.1)
        }
        _ => Window::Stack(range.0, range.1),
    }
}

/// Whether a stack's range and its keys' share any time. A range that holds none of the
/// keys was left behind by an edit (Unity's mocap takes say 0.033 to 0.8 s and key 1.87 to
/// 7.77 s): padded out to it, the clip would hold its first pose for the gap between.
fn overlaps(range: (f64, f64), keys: (f64, f64)) -> bool {
    const EPS: f64 = 1e-6;
    range.0 <= keys.1 + EPS && keys.0 <= range.1 + EPS
}

/// The first and last key time of the stack's curves (ufbx's baked range takes the stack's
/// range in too); `None` without keys.
fn key_range(stack: &ufbx::AnimStack) -> Option<(f64, f64)> {
    let curves = stack
        .layers
        .iter()
        .flat_map(|l| l.anim_props.iter())
        .flat_map(|p| p.anim_value.curves.iter().flatten());
    let ends = curves.filter_map(|c| Some((c.keyframes.first()?.time, c.keyframes.last()?.time)));
    ends.reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
}

fn joint_tracks(
    node: &ufbx::BakedNode,
    span: Window,
) -> Result<JointTracks, retarget_core::ClipError> {
    let t = node
        .translation_keys
        .iter()
        .map(|k| (k.time, vec3(k.value)));
    let r = node.rotation_keys.iter().map(|k| (k.time, quat(k.value)));
    let s = node.scale_keys.iter().map(|k| (k.time, vec3(k.value)));
    Ok(JointTracks {
        translation: track(t.collect(), span)?,
        rotation: track(r.collect(), span)?,
        scale: track(s.collect(), span)?,
    })
}

/// Linear keys (ufbx bakes to linear, slerp for rotations); none for an empty list. Keys
/// are held out to the stack's range, as FBX's constant extrapolation does, so the clip
/// starts and ends where the stack does.
fn track<T: retarget_core::clip::Keyframe>(
    mut keys: Vec<(f64, T)>,
    span: Window,
) -> Result<Option<Track<T>>, retarget_core::ClipError> {
    const EPS: f64 = 1e-6;
    if let Window::Keys(begin, end) = span {
        // A node's one constant key sits at the stack's start: kept, at the window's.
        let held = keys.first().map(|&(_, v)| (begin, v));
        keys.retain(|k| (begin - EPS..=end + EPS).contains(&k.0));
        if keys.is_empty() {
            keys.extend(held);
        }
    }
    let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
        return Ok(None);
    };
    if let Window::Stack(begin, end) = span {
        if begin < first.0 - EPS {
            keys.insert(0, (begin, first.1));
        }
        if end > last.0 + EPS {
            keys.push((end, last.1));
        }
    }
    let (times, values): (Vec<f32>, Vec<T>) = keys.into_iter().map(|(t, v)| (t as f32, v)).unzip();
    Track::new(times, values, Interpolation::Linear).map(Some)
}
