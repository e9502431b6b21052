//! Copies of the target's skeleton in one file (two armatures of one rig, each skinning its
//! own mesh): the clips written for the skeleton drive every copy too, so that no copy
//! stands still in the output.

use crate::asset::Asset;
use glam::{Mat4, Quat, Vec3};
use retarget_core::{Clip, JointTracks, Skeleton, Track, Transform};

/// Another skeleton of the file that the clips also drive.
pub(super) struct Copy {
    pub skeleton: usize,
    pub nodes: Vec<u32>,
    pub clips: Vec<Clip>,
}

/// Every other skeleton of `target` that is a copy of `skeleton` (same joints, names and
/// parents, on nodes of its own), with `clips` as that copy plays them.
pub(super) fn of(target: &Asset, skeleton: usize, clips: &[Clip]) -> Vec<Copy> {
    let (Some(main), Some(main_nodes)) = (
        target.skeletons.get(skeleton),
        target.joint_nodes.get(skeleton),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (s, other) in target.skeletons.iter().enumerate() {
        let Some(nodes) = target.joint_nodes.get(s) else {
            continue;
        };
        let own_nodes = nodes.iter().all(|n| !main_nodes.contains(n));
        if s == skeleton || !own_nodes || nodes.len() != other.len() || !is_copy(main, other) {
            continue;
        }
        out.push(Copy {
            skeleton: s,
            nodes: nodes.iter().map(|&n| n as u32).collect(),
            clips: clips.iter().map(|c| copy_clip(c, main, other)).collect(),
        });
    }
    out
}

/// The same joints in the same order, with the same parents and names (a name may carry
/// Blender's `.001` suffix of a duplicated armature).
pub(crate) fn is_copy(a: &Skeleton, b: &Skeleton) -> bool {
    a.len() == b.len()
        && a.parents() == b.parents()
        && a.names()
            .iter()
            .zip(b.names())
            .all(|(x, y)| base_name(x) == base_name(y))
}

fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, n)) if n.len() == 3 && n.bytes().all(|b| b.is_ascii_digit()) => base,
        _ => name,
    }
}

/// `clip` on the copy `b` of `a`. Below the roots the copy takes the same local values; a
/// root whose rest differs (a copy standing elsewhere) moves the same way from its own rest.
fn copy_clip(clip: &Clip, a: &Skeleton, b: &Skeleton) -> Clip {
    let tracks = clip
        .tracks()
        .iter()
        .enumerate()
        .map(|(j, t)| {
            let (ra, rb) = (a.rest()[j], b.rest()[j]);
            if a.parents()[j].is_some() || same(ra, rb) {
                return t.clone();
            }
            let d = rb.to_mat4() * ra.to_mat4().inverse();
            moved(t, d).unwrap_or_else(|| t.clone())
        })
        .collect();
    Clip::new(clip.name.clone(), tracks, clip.fps()).with_curves(clip.curves().to_vec())
}

fn same(a: Transform, b: Transform) -> bool {
    a.to_mat4().abs_diff_eq(b.to_mat4(), 1e-6)
}

/// A root's tracks moved by `d` (the copy's rest from the first's): `d * local(t)`, taken
/// apart per property; tangents of cubic tracks move as directions.
fn moved(t: &JointTracks, d: Mat4) -> Option<JointTracks> {
    let (scale, rotation, _) = d.to_scale_rotation_translation();
    let map_vec3 = |track: &Track<Vec3>, f: &dyn Fn(Vec3, bool) -> Vec3| {
        let cubic = track.interpolation() == retarget_core::Interpolation::CubicSpline;
        let values = track
            .values()
            .iter()
            .enumerate()
            .map(|(k, &v)| f(v, cubic && k % 3 != 1))
            .collect();
        Track::new(track.times().to_vec(), values, track.interpolation()).ok()
    };
    let translation = match &t.translation {
        Some(track) => Some(map_vec3(track, &|v, tangent| {
            if tangent {
                d.transform_vector3(v)
            } else {
                d.transform_point3(v)
            }
        })?),
        None => None,
    };
    let scale_track = match &t.scale {
        Some(track) => Some(map_vec3(track, &|v, _| v * scale)?),
        None => None,
    };
    let rotation_track = match &t.rotation {
        Some(track) => {
            let values: Vec<Quat> = track.values().iter().map(|&q| rotation * q).collect();
            Some(Track::new(track.times().to_vec(), values, track.interpolation()).ok()?)
        }
        None => None,
    };
    Some(JointTracks {
        translation,
        rotation: rotation_track,
        scale: scale_track,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blender_suffixes_name_the_same_joint() {
        assert_eq!(base_name("Hips.001"), "Hips");
        assert_eq!(base_name("Hips"), "Hips");
        assert_eq!(base_name("Shoulder.L"), "Shoulder.L");
        assert_eq!(base_name("Shoulder.L.002"), "Shoulder.L");
    }

    /// A copy standing 2 m to the side walks from where it stands, not from the first's
    /// place.
    #[test]
    fn a_root_standing_elsewhere_moves_from_its_own_rest() {
        let keys = Track::new(
            vec![0.0, 1.0],
            vec![Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 3.0)],
            retarget_core::Interpolation::Linear,
        )
        .unwrap();
        let tracks = JointTracks {
            translation: Some(keys),
            ..Default::default()
        };
        let d = Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0));
        let moved = moved(&tracks, d).unwrap();
        let values = moved.translation.unwrap().values().to_vec();
        assert_eq!(values, [Vec3::new(2.0, 1.0, 0.0), Vec3::new(2.0, 1.0, 3.0)]);
    }
}
