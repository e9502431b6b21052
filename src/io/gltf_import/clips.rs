//! glTF animations as `Clip`s: one clip per animation and skeleton, of the channels that
//! target that skeleton's joints. Channels the skeleton cannot hold are reported.

use super::hierarchy::Hierarchy;
use super::skeletons::BuiltSkeleton;
use crate::core::{Clip, ClipError, Interpolation, JointTracks, Track};
use crate::io::asset::AssetClip;
use crate::io::error::Problem;
use glam::{Quat, Vec3};
use gltf::animation::util::ReadOutputs;
use gltf::animation::{Channel, Property};

pub(super) fn read_clips(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
    h: &Hierarchy,
    skeletons: &[BuiltSkeleton],
    warnings: &mut Vec<String>,
) -> Result<Vec<AssetClip>, Problem> {
    let mut clips = Vec::new();
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
                    read_channel(&channel, buffers, &mut per_skeleton[s][joint])
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

fn read_channel(
    channel: &Channel,
    buffers: &[gltf::buffer::Data],
    out: &mut JointTracks,
) -> Result<(), ClipError> {
    let reader = channel.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
    let times: Vec<f32> = reader.read_inputs().ok_or(ClipError::NoKeys)?.collect();
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
