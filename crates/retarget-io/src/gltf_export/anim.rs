//! `Clip`s as glTF animations: one sampler and channel per track, keeping each track's
//! interpolation and (for CUBICSPLINE) its tangents. Where a clip breaks a rule of the
//! glTF spec that the clip type allows (equal key times, negative times, a one-key cubic
//! track) the keys are adjusted as little as possible and the adjustment is reported.

use super::bin::Extra;
use crate::error::ExportProblem;
use glam::{Quat, Vec3};
use gltf::json::accessor::Type;
use gltf::json::animation::{self as janim, Property};
use gltf::json::validation::Checked;
use gltf::json::{self, Index, Root};
use retarget_core::{Clip, Interpolation, Track};
use std::collections::HashMap;

/// What the animations added to the file hold.
#[derive(Default)]
pub(super) struct Written {
    pub clips: usize,
    pub keys: usize,
}

/// One track flattened for writing.
struct Keys {
    times: Vec<f32>,
    values: Vec<f32>,
    type_: Type,
    interpolation: Interpolation,
}

impl Keys {
    /// Everything a sampler holds, bit for bit: equal keys can share one sampler.
    fn bits(&self) -> (Vec<u32>, Vec<u32>, u8) {
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect();
        let kind = match self.interpolation {
            Interpolation::Step => 0,
            Interpolation::Linear => 1,
            Interpolation::CubicSpline => 2,
        };
        (bits(&self.times), bits(&self.values), kind)
    }
}

/// How a clip's keys had to be changed to be valid glTF.
#[derive(Default)]
struct Adjustments {
    nudged_times: usize,
    single_key_cubic: usize,
}

/// Clips and the nodes they drive: `nodes[j]` for joint `j` of each clip; `morphs[i]`,
/// the `weights` channels of clip `i`'s curves (empty: none).
#[derive(Clone, Copy)]
pub(super) struct Driven<'a> {
    pub clips: &'a [Clip],
    pub nodes: &'a [u32],
    pub morphs: &'a [Vec<super::weights::MorphChannel>],
}

/// Adds one animation per clip of `sets[0]`, whose channels drive `nodes[j]` for joint `j`.
/// Further sets (copies of the skeleton in the same file) hold as many clips, and clip `i`
/// of each joins animation `i`; channels with equal keys share one sampler. Clips without a
/// single track are left out (glTF wants at least one channel) and said so.
pub(super) fn push_clips(
    root: &mut Root,
    extra: &mut Extra,
    sets: &[Driven],
    notes: &mut Vec<String>,
) -> Result<Written, ExportProblem> {
    let mut inputs = HashMap::new();
    let mut written = Written::default();
    let Some(first) = sets.first() else {
        return Ok(written);
    };
    for set in sets {
        check_set(set, first.clips.len())?;
    }
    for (i, clip) in first.clips.iter().enumerate() {
        let shift = start_shift(clip, notes);
        let mut adjust = Adjustments::default();
        let mut anim = janim::Animation {
            extensions: None,
            extras: Default::default(),
            channels: Vec::new(),
            name: Some(clip.name.clone()),
            samplers: Vec::new(),
        };
        let mut samplers = HashMap::new();
        for (s, set) in sets.iter().enumerate() {
            let mut adjust_copy = Adjustments::default();
            let adjust = if s == 0 {
                &mut adjust
            } else {
                &mut adjust_copy
            };
            let joints = set.clips[i].tracks().iter().zip(set.nodes).enumerate();
            for (j, (tracks, &node)) in joints {
                for (mut keys, property) in joint_keys(tracks) {
                    make_valid(&mut keys, shift, adjust);
                    // A copy's channel shares the first skeleton's sampler when its keys
                    // are the same.
                    let slot = (j, property_index(property));
                    let sampler = match samplers.get(&slot) {
                        Some((bits, sampler)) if s > 0 && *bits == keys.bits() => *sampler,
                        _ => {
                            written.keys += keys.times.len();
                            let input = input_accessor(root, extra, &mut inputs, &keys.times);
                            let sampler = push_sampler(root, extra, &mut anim, input, &keys);
                            if s == 0 {
                                samplers.insert(slot, (keys.bits(), sampler));
                            }
                            sampler
                        }
                    };
                    push_channel(&mut anim, sampler, node, property);
                }
            }
        }
        for m in first.morphs.get(i).into_iter().flatten() {
            let mut keys = Keys {
                times: m.times.clone(),
                values: m.values.clone(),
                type_: Type::Scalar,
                interpolation: Interpolation::Linear,
            };
            make_valid(&mut keys, shift, &mut adjust);
            written.keys += keys.times.len();
            let input = input_accessor(root, extra, &mut inputs, &keys.times);
            let sampler = push_sampler(root, extra, &mut anim, input, &keys);
            push_channel(&mut anim, sampler, m.node, Property::MorphTargetWeights);
        }
        note_adjustments(clip, &adjust, notes);
        if anim.channels.is_empty() {
            notes.push(format!(
                "clip '{}' has no tracks and was left out",
                clip.name
            ));
            continue;
        }
        root.animations.push(anim);
        written.clips += 1;
    }
    Ok(written)
}

fn check_set(set: &Driven, clips: usize) -> Result<(), ExportProblem> {
    if set.clips.len() != clips {
        return Err(ExportProblem::Invalid(format!(
            "{} clips for a copy of the skeleton, {clips} for the skeleton",
            set.clips.len()
        )));
    }
    for clip in set.clips {
        if clip.tracks().len() != set.nodes.len() {
            return Err(ExportProblem::Invalid(format!(
                "clip '{}' has tracks for {} joints but the skeleton has {}",
                clip.name,
                clip.tracks().len(),
                set.nodes.len()
            )));
        }
    }
    Ok(())
}

fn property_index(property: Property) -> u8 {
    match property {
        Property::Translation => 0,
        Property::Rotation => 1,
        Property::Scale => 2,
        Property::MorphTargetWeights => 3,
    }
}

/// One joint's tracks, flattened, with the property each drives.
fn joint_keys(tracks: &retarget_core::JointTracks) -> impl Iterator<Item = (Keys, Property)> {
    [
        tracks
            .translation
            .as_ref()
            .map(|t| (vec3_keys(t), Property::Translation)),
        tracks
            .rotation
            .as_ref()
            .map(|t| (quat_keys(t), Property::Rotation)),
        tracks
            .scale
            .as_ref()
            .map(|t| (vec3_keys(t), Property::Scale)),
    ]
    .into_iter()
    .flatten()
}

/// glTF times cannot be negative: a clip that starts before 0 s is moved to start at 0 s.
fn start_shift(clip: &Clip, notes: &mut Vec<String>) -> f32 {
    if clip.start_secs() >= 0.0 {
        return 0.0;
    }
    notes.push(format!(
        "clip '{}' starts at {} s; glTF times cannot be negative, so it was shifted to start \
         at 0 s",
        clip.name,
        clip.start_secs()
    ));
    -clip.start_secs()
}

fn vec3_keys(track: &Track<Vec3>) -> Keys {
    Keys {
        times: track.times().to_vec(),
        values: track.values().iter().flat_map(|v| v.to_array()).collect(),
        type_: Type::Vec3,
        interpolation: track.interpolation(),
    }
}

fn quat_keys(track: &Track<Quat>) -> Keys {
    Keys {
        times: track.times().to_vec(),
        values: track.values().iter().flat_map(|q| q.to_array()).collect(),
        type_: Type::Vec4,
        interpolation: track.interpolation(),
    }
}

/// Shifts times by `shift`, makes them strictly increasing (an equal time moves up by one
/// f32 step, which keeps a jump a jump), and turns a one-key cubic track (glTF wants two)
/// into the constant STEP track it is.
fn make_valid(keys: &mut Keys, shift: f32, adjust: &mut Adjustments) {
    if shift != 0.0 {
        keys.times
            .iter_mut()
            .for_each(|t| *t = (*t + shift).max(0.0));
    }
    for k in 1..keys.times.len() {
        if keys.times[k] <= keys.times[k - 1] {
            keys.times[k] = next_up(keys.times[k - 1]);
            adjust.nudged_times += 1;
        }
    }
    if keys.interpolation == Interpolation::CubicSpline && keys.times.len() < 2 {
        let width = keys.type_.multiplicity();
        keys.values = keys.values[width..2 * width].to_vec();
        keys.interpolation = Interpolation::Step;
        adjust.single_key_cubic += 1;
    }
}

/// The next larger f32 (`f32::next_up` is newer than this crate's MSRV).
fn next_up(t: f32) -> f32 {
    if t.is_nan() || t == f32::INFINITY {
        t
    } else if t == 0.0 {
        f32::from_bits(1)
    } else if t > 0.0 {
        f32::from_bits(t.to_bits() + 1)
    } else {
        f32::from_bits(t.to_bits() - 1)
    }
}

fn note_adjustments(clip: &Clip, adjust: &Adjustments, notes: &mut Vec<String>) {
    if adjust.nudged_times > 0 {
        notes.push(format!(
            "clip '{}': {} key time(s) equal to the one before were moved up by one float \
             step (glTF key times must increase)",
            clip.name, adjust.nudged_times
        ));
    }
    if adjust.single_key_cubic > 0 {
        notes.push(format!(
            "clip '{}': {} one-key CUBICSPLINE track(s) written as STEP (glTF cubic tracks \
             need two keys)",
            clip.name, adjust.single_key_cubic
        ));
    }
}

/// Tracks with the same key times (the usual case: every joint keyed on every frame)
/// share one input accessor.
fn input_accessor(
    root: &mut Root,
    extra: &mut Extra,
    cache: &mut HashMap<Vec<u32>, Index<json::Accessor>>,
    times: &[f32],
) -> Index<json::Accessor> {
    let key: Vec<u32> = times.iter().map(|t| t.to_bits()).collect();
    *cache
        .entry(key)
        .or_insert_with(|| extra.push_f32(root, times, Type::Scalar, true, None))
}

fn push_sampler(
    root: &mut Root,
    extra: &mut Extra,
    anim: &mut janim::Animation,
    input: Index<json::Accessor>,
    keys: &Keys,
) -> Index<janim::Sampler> {
    let output = extra.push_f32(root, &keys.values, keys.type_, false, None);
    let interpolation = match keys.interpolation {
        Interpolation::Step => janim::Interpolation::Step,
        Interpolation::Linear => janim::Interpolation::Linear,
        Interpolation::CubicSpline => janim::Interpolation::CubicSpline,
    };
    Index::push(
        &mut anim.samplers,
        janim::Sampler {
            extensions: None,
            extras: Default::default(),
            input,
            interpolation: Checked::Valid(interpolation),
            output,
        },
    )
}

fn push_channel(
    anim: &mut janim::Animation,
    sampler: Index<janim::Sampler>,
    node: u32,
    property: Property,
) {
    anim.channels.push(janim::Channel {
        sampler,
        target: janim::Target {
            extensions: None,
            extras: Default::default(),
            node: Index::new(node),
            path: Checked::Valid(property),
        },
        extensions: None,
        extras: Default::default(),
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn next_up_is_one_float_step() {
        assert_eq!(next_up(1.0), 1.0 + f32::EPSILON);
        assert!(next_up(0.0) > 0.0);
        assert!(next_up(-1.0) > -1.0 && next_up(-1.0) < -0.99999);
    }

    #[test]
    fn equal_times_become_increasing_and_a_lone_cubic_key_a_step() {
        let mut keys = Keys {
            times: vec![0.5, 0.5, 0.5, 1.0],
            values: vec![0.0; 12],
            type_: Type::Vec3,
            interpolation: Interpolation::Linear,
        };
        let mut adjust = Adjustments::default();
        make_valid(&mut keys, 0.0, &mut adjust);
        assert!(
            keys.times.windows(2).all(|w| w[1] > w[0]),
            "{:?}",
            keys.times
        );
        assert_eq!(adjust.nudged_times, 2);
        let mut lone = Keys {
            times: vec![2.0],
            values: vec![9.0, 9.0, 9.0, 1.0, 2.0, 3.0, 9.0, 9.0, 9.0],
            type_: Type::Vec3,
            interpolation: Interpolation::CubicSpline,
        };
        make_valid(&mut lone, 0.5, &mut adjust);
        assert_eq!(lone.times, [2.5]);
        assert_eq!(lone.values, [1.0, 2.0, 3.0]);
        assert_eq!(lone.interpolation, Interpolation::Step);
    }
}
