//! glTF animations as `Clip`s: one clip per animation and skeleton, of the channels that
//! target that skeleton's joints. Channels the skeleton cannot hold are reported.

use super::hierarchy::Hierarchy;
use super::skeletons::BuiltSkeleton;
use crate::asset::AssetClip;
use crate::error::Problem;
use glam::{Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Channel, Property};
use retarget_core::{Clip, ClipError, Interpolation, JointTracks, Track};
use std::collections::HashMap;
use std::sync::Arc;

pub(super) fn read_clips(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    h: &Hierarchy,
    skeletons: &[BuiltSkeleton],
    warnings: &mut Vec<String>,
) -> Result<Vec<AssetClip>, Problem> {
    let mut clips = Vec::new();
    // Channels that read one input accessor share its times (exporters often key every
    // channel of an animation on one): samplers then group them at once.
    let mut times = HashMap::new();
    for anim in doc.animations() {
        let anim_name = anim
            .name()
            .map(str::to_owned)
            .unwrap_or_else(|| format!("animation_{}", anim.index()));
        let mut per_skeleton: Vec<Vec<JointTracks>> = skeletons
            .iter()
            .map(|s| vec![JointTracks::default(); s.skeleton.len()])
            .collect();
        let mut used = vec![false; skeletons.len()];
        let mut morph = 0;
        let mut unmapped = Vec::new();
        for channel in anim.channels() {
            let node = channel.target().node().index();
            if channel.target().property() == Property::MorphTargetWeights {
                morph += 1;
                continue;
            }
            let mut placed = false;
            for (s, built) in skeletons.iter().enumerate() {
                if let Some(&joint) = built.joint_of_node.get(&node) {
                    read_channel(&channel, buffers, &mut times, &mut per_skeleton[s][joint])
                        .map_err(|source| channel_problem(&anim_name, &channel, h, source))?;
                    used[s] = true;
                    placed = true;
                }
            }
            if !placed {
                unmapped.push(h.names[node].clone());
            }
        }
        if morph > 0 {
            warnings.push(format!(
                "animation '{anim_name}': {morph} morph-target weight channel(s) not imported"
            ));
        }
        if !unmapped.is_empty() {
            unmapped.dedup();
            warnings.push(format!(
                "animation '{anim_name}': channels on nodes outside every skeleton not imported: {}",
                unmapped.join(", ")
            ));
        }
        for (s, tracks) in per_skeleton.into_iter().enumerate() {
            if used[s] {
                clips.push(AssetClip {
                    skeleton: s,
                    clip: Clip::new(anim_name.clone(), tracks, None),
                    animation: anim.index(),
                });
            }
        }
    }
    Ok(clips)
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

/// Reads `channel` into `out`; `times`: the input accessors read so far, by index.
fn read_channel(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    times: &mut HashMap<usize, Arc<[f32]>>,
    out: &mut JointTracks,
) -> Result<(), ClipError> {
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let input = channel.sampler().input().index();
    let times = match times.get(&input) {
        Some(shared) => shared.clone(),
        None => {
            let read: Arc<[f32]> = reader.read_inputs().ok_or(ClipError::NoKeys)?.collect();
            times.insert(input, read.clone());
            read
        }
    };
    let interpolation = match channel.sampler().interpolation() {
        gltf::animation::Interpolation::Step => Interpolation::Step,
        gltf::animation::Interpolation::Linear => Interpolation::Linear,
        gltf::animation::Interpolation::CubicSpline => Interpolation::CubicSpline,
    };
    let Some(outputs) = reader.read_outputs() else {
        return Err(ClipError::CountMismatch {
            times: times.len(),
            values: 0,
            expected: times.len(),
        });
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
