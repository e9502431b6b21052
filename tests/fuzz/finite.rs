//! "Every accepted input gives finite output": the checks, as a description of the first
//! non-finite number found.

use retarget_studio::core::clip::Keyframe;
use retarget_studio::core::{Clip, Pose, Skeleton, Track};
use retarget_studio::io::{AlphaMode, Asset};

fn track<T: Keyframe>(t: &Track<T>) -> bool {
    t.times().iter().all(|v| v.is_finite()) && t.values().iter().all(|v| v.is_finite_value())
}

/// Where `clip` holds a NaN or infinity, if anywhere.
pub fn clip(clip: &Clip) -> Option<String> {
    for (j, tracks) in clip.tracks().iter().enumerate() {
        let ok = tracks.translation.as_ref().is_none_or(track)
            && tracks.rotation.as_ref().is_none_or(track)
            && tracks.scale.as_ref().is_none_or(track);
        if !ok {
            return Some(format!(
                "clip '{}', joint {j}: a key is not finite",
                clip.name
            ));
        }
    }
    if !(clip.start_secs().is_finite() && clip.end_secs().is_finite()) {
        return Some(format!("clip '{}': its time span is not finite", clip.name));
    }
    None
}

pub fn skeleton(s: &Skeleton) -> Option<String> {
    if !s.container().is_finite() {
        return Some(format!(
            "skeleton '{}': its container is not finite",
            s.name
        ));
    }
    let bad = s.rest().iter().chain(s.bind()).position(|t| !t.is_finite());
    bad.map(|j| {
        format!(
            "skeleton '{}': joint {j}'s rest or bind is not finite",
            s.name
        )
    })
}

/// The clip sampled at its start, middle and end, as world matrices.
pub fn poses(s: &Skeleton, c: &Clip) -> Option<String> {
    let mut pose = Pose::rest(s);
    for k in 0..3 {
        let t = c.start_secs() + c.duration_secs() * k as f32 / 2.0;
        pose.copy_from(&Pose::rest(s));
        c.sample(t, &mut pose);
        if pose.world_matrices(s).iter().any(|m| !m.is_finite()) {
            return Some(format!(
                "clip '{}' at {t} s: a world matrix is not finite",
                c.name
            ));
        }
    }
    None
}

pub fn asset(a: &Asset) -> Option<String> {
    for s in &a.skeletons {
        if let Some(p) = skeleton(s) {
            return Some(p);
        }
    }
    for c in &a.clips {
        let s = a.skeletons.get(c.skeleton)?;
        if c.clip.tracks().len() != s.len() {
            return Some(format!(
                "clip '{}' has a track count unlike its skeleton",
                c.clip.name
            ));
        }
        if let Some(p) = clip(&c.clip).or_else(|| poses(s, &c.clip)) {
            return Some(p);
        }
    }
    for m in &a.meshes {
        let prims_ok = m.primitives.iter().all(|p| {
            p.positions.iter().all(|v| v.is_finite())
                && p.normals.iter().all(|v| v.is_finite())
                && p.weights.iter().flatten().all(|w| w.is_finite())
                && p.uvs.iter().flatten().all(|w| w.is_finite())
                && p.base_color.iter().all(|c| c.is_finite())
                && match p.alpha_mode {
                    AlphaMode::Mask { cutoff } => cutoff.is_finite(),
                    _ => true,
                }
        });
        if !prims_ok || m.inverse_bind.iter().any(|b| !b.is_finite()) {
            return Some(format!(
                "mesh '{}': a vertex, material factor or bind matrix is not finite",
                m.name
            ));
        }
    }
    None
}
