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
        let span = stack_span(stack);
        let mut tracks = vec![JointTracks::default(); built.skeleton.len()];
        let mut outside = Vec::new();
        for node in baked.nodes.iter() {
            let Some(&joint) = built.joint_of_node.get(&(node.typed_id as usize)) else {
                if !node.constant_translation || !node.constant_rotation || !node.constant_scale {
                    outside.push(scene.nodes[node.typed_id as usize].element.name.to_string());
                }
                continue;
            };
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
        if tracks.iter().all(JointTracks::is_empty) && curves.is_empty() {
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

fn joint_tracks(
    node: &ufbx::BakedNode,
    span: Option<(f64, f64)>,
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
    span: Option<(f64, f64)>,
) -> Result<Option<Track<T>>, retarget_core::ClipError> {
    let (Some(&first), Some(&last)) = (keys.first(), keys.last()) else {
        return Ok(None);
    };
    const EPS: f64 = 1e-6;
    if let Some((begin, end)) = span {
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
