//! Root motion as engines want it: the pelvis's path on the ground and its facing moved onto
//! the rig's root joint, so Unreal's and Unity's root motion carry the character; the pelvis
//! keeps only what is left (its height, sway and lean), and every joint stays where it was.

use crate::clip::{Clip, Interpolation, JointTracks, Track};
use crate::pose::Pose;
use crate::skeleton::{JointDef, Skeleton};
use crate::transform::Transform;
use glam::{Mat4, Quat, Vec3};
use std::sync::Arc;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum RootMotionError {
    #[error("'{hips}' is the top joint: there is no root joint above the hips to carry the motion")]
    NoRootAboveHips { hips: String },
    #[error("clip '{clip}' has no keys")]
    NoKeys { clip: String },
}

/// The joint that carries root motion for `hips`: the top joint of its chain.
pub fn root_of(skeleton: &Skeleton, hips: usize) -> Option<usize> {
    let parents = skeleton.parents();
    let top = std::iter::successors(Some(hips), |&j| parents[j]).last()?;
    (top != hips).then_some(top)
}

/// `skeleton` with a joint added above its top joints at the container's origin (identity
/// rest and bind), named `root` (or `root_2`, … when taken): a root for engines' root
/// motion on a rig whose hips are its top joint. Joint `j` becomes joint `j + 1`.
pub fn with_added_root(skeleton: &Skeleton) -> Skeleton {
    let names = skeleton.names();
    let name = std::iter::once("root".to_owned())
        .chain((2..).map(|k| format!("root_{k}")))
        .find(|n| !names.contains(n))
        .expect("a free name");
    let mut joints = vec![JointDef::new(name, None, Transform::IDENTITY)];
    for (j, name) in names.iter().enumerate() {
        joints.push(JointDef {
            name: name.clone(),
            parent: Some(skeleton.parents()[j].map_or(0, |p| p + 1)),
            rest: skeleton.rest()[j],
            bind: skeleton.bind()[j],
            humanoid: skeleton.humanoid()[j],
        });
    }
    Skeleton::new(skeleton.name.clone(), skeleton.container(), joints)
        .expect("a valid skeleton with a root above it stays valid")
}

/// `clip` for [`with_added_root`]'s skeleton: the new root has no tracks.
pub fn clip_with_added_root(clip: &Clip) -> Clip {
    let mut tracks = Vec::with_capacity(clip.tracks().len() + 1);
    tracks.push(JointTracks::default());
    tracks.extend_from_slice(clip.tracks());
    Clip::new(clip.name.clone(), tracks, clip.fps()).with_curves(clip.curves().to_vec())
}

/// `clip` (on `skeleton`, under `container`, world up +Y) with the root of `hips` keyed on
/// the ground under the hips, turned by the hips' turn about up from their rest; the root's
/// children are keyed so that they stay where they were. Its height and tilt stay the rest's.
pub fn extract_to_root(
    skeleton: &Skeleton,
    container: Mat4,
    clip: &Clip,
    hips: usize,
) -> Result<Clip, RootMotionError> {
    let root = root_of(skeleton, hips).ok_or_else(|| RootMotionError::NoRootAboveHips {
        hips: skeleton.names()[hips].clone(),
    })?;
    let times = key_times(clip).ok_or_else(|| RootMotionError::NoKeys {
        clip: clip.name.clone(),
    })?;
    let parents = skeleton.parents();
    let children: Vec<usize> = (0..skeleton.len())
        .filter(|&j| parents[j] == Some(root))
        .collect();
    let rest = Pose::rest(skeleton);
    let mut world = vec![Mat4::IDENTITY; skeleton.len()];
    rest.world_matrices_under(skeleton, container, &mut world);
    let (root_rest, hips_rest) = (world[root], world[hips]);
    let (root_scale, root_turn, root_at) = root_rest.to_scale_rotation_translation();
    let hips_turn = rotation_of(hips_rest);

    let mut root_keys = Keyed::default();
    let mut child_keys: Vec<Keyed> = children.iter().map(|_| Keyed::default()).collect();
    let mut pose = rest.clone();
    for &t in times.iter() {
        pose.copy_from(&rest);
        clip.sample(t, &mut pose);
        pose.world_matrices_under(skeleton, container, &mut world);
        let h = world[hips];
        let on_ground = Vec3::new(h.w_axis.x, root_at.y, h.w_axis.z);
        let yaw = about_up(rotation_of(h) * hips_turn.inverse());
        let turned = (yaw * root_turn).normalize();
        let root_world = Mat4::from_scale_rotation_translation(root_scale, turned, on_ground);
        let parent = parents[root].map_or(container, |p| world[p]);
        root_keys.push(parent.inverse() * root_world);
        let from_root = root_world.inverse();
        for (keys, &c) in child_keys.iter_mut().zip(&children) {
            keys.push(from_root * world[c]);
        }
    }

    let mut tracks = clip.tracks().to_vec();
    tracks[root] = root_keys.into_tracks(&times);
    for (keys, &c) in child_keys.into_iter().zip(&children) {
        tracks[c] = keys.into_tracks(&times);
    }
    Ok(Clip::new(clip.name.clone(), tracks, clip.fps()).with_curves(clip.curves().to_vec()))
}

/// `clip` (on `skeleton`, under `container`) with its whole body moved by `moved` in the
/// container's world: each top joint keyed at the clip's key times so that every joint lands
/// where `moved` puts it. A character whose rest lies tilted in its file is solved stood up;
/// this writes it stood up in the file's world instead of tilted back.
pub fn moved_by(skeleton: &Skeleton, container: Mat4, clip: &Clip, moved: Mat4) -> Clip {
    let Some(times) = key_times(clip) else {
        return clip.clone();
    };
    let local_move = container.inverse() * moved * container;
    let tops: Vec<usize> = (0..skeleton.len())
        .filter(|&j| skeleton.parents()[j].is_none())
        .collect();
    let mut keys: Vec<Keyed> = tops.iter().map(|_| Keyed::default()).collect();
    let rest = Pose::rest(skeleton);
    let mut pose = rest.clone();
    for &t in times.iter() {
        pose.copy_from(&rest);
        clip.sample(t, &mut pose);
        for (k, &j) in keys.iter_mut().zip(&tops) {
            let local = Mat4::from_scale_rotation_translation(
                pose.scales[j],
                pose.rotations[j],
                pose.translations[j],
            );
            k.push(local_move * local);
        }
    }
    let mut tracks = clip.tracks().to_vec();
    for (k, &j) in keys.into_iter().zip(&tops) {
        tracks[j] = k.into_tracks(&times);
    }
    Clip::new(clip.name.clone(), tracks, clip.fps()).with_curves(clip.curves().to_vec())
}

/// The key times of the clip's longest track (a solved clip's tracks share one).
fn key_times(clip: &Clip) -> Option<Arc<[f32]>> {
    clip.tracks()
        .iter()
        .flat_map(|t| {
            [
                t.translation.as_ref().map(|k| k.times()),
                t.rotation.as_ref().map(|k| k.times()),
            ]
        })
        .flatten()
        .max_by_key(|t| t.len())
        .map(Arc::from)
}

/// A joint's local transforms, a key per time, continuous in rotation.
#[derive(Default)]
struct Keyed {
    translations: Vec<Vec3>,
    rotations: Vec<Quat>,
    scales: Vec<Vec3>,
}

impl Keyed {
    fn push(&mut self, local: Mat4) {
        let (s, mut r, t) = local.to_scale_rotation_translation();
        if let Some(last) = self.rotations.last()
            && last.dot(r) < 0.0
        {
            r = -r;
        }
        self.translations.push(t);
        self.rotations.push(r.normalize());
        self.scales.push(s);
    }

    fn into_tracks(self, times: &Arc<[f32]>) -> JointTracks {
        let linear = Interpolation::Linear;
        JointTracks {
            translation: Track::new(times.clone(), self.translations, linear).ok(),
            rotation: Track::new(times.clone(), self.rotations, linear).ok(),
            scale: Track::new(times.clone(), self.scales, linear).ok(),
        }
    }
}

fn rotation_of(m: Mat4) -> Quat {
    m.to_scale_rotation_translation().1.normalize()
}

/// The part of `q` that turns about +Y (swing-twist): the facing a turn gives.
fn about_up(q: Quat) -> Quat {
    let twist = Quat::from_xyzw(0.0, q.y, 0.0, q.w);
    if twist.length_squared() < 1e-12 {
        Quat::IDENTITY
    } else {
        twist.normalize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::skeleton::JointDef;
    use crate::transform::Transform;

    /// root → hips → spine, hips 1 m up; a clip that walks the hips 2 m along +Z while
    /// turning them 90° about up and swaying them 0.1 m up and down.
    fn walker() -> (Skeleton, Clip) {
        let joint = |name: &str, parent, t: Vec3| {
            let rest = Transform {
                translation: t,
                ..Transform::IDENTITY
            };
            JointDef::new(name, parent, rest)
        };
        let skeleton = Skeleton::new(
            "walker",
            Mat4::IDENTITY,
            vec![
                joint("root", None, Vec3::ZERO),
                joint("hips", Some(0), Vec3::Y),
                joint("spine", Some(1), Vec3::Y * 0.3),
            ],
        )
        .unwrap();
        let times: Arc<[f32]> = (0..11).map(|k| k as f32 * 0.1).collect();
        let hips_t: Vec<Vec3> = (0..11)
            .map(|k| Vec3::new(0.0, 1.0 + 0.1 * (k as f32).sin(), 0.2 * k as f32))
            .collect();
        let hips_r: Vec<Quat> = (0..11)
            .map(|k| Quat::from_rotation_y(k as f32 * 0.157) * Quat::from_rotation_x(0.05))
            .collect();
        let mut tracks = vec![JointTracks::default(); 3];
        tracks[1].translation = Track::new(times.clone(), hips_t, Interpolation::Linear).ok();
        tracks[1].rotation = Track::new(times, hips_r, Interpolation::Linear).ok();
        (skeleton, Clip::new("walk", tracks, Some(10.0)))
    }

    fn worlds(s: &Skeleton, clip: &Clip, t: f32, container: Mat4) -> Vec<Mat4> {
        let mut pose = Pose::rest(s);
        clip.sample(t, &mut pose);
        let mut w = vec![Mat4::IDENTITY; s.len()];
        pose.world_matrices_under(s, container, &mut w);
        w
    }

    #[test]
    fn an_added_root_carries_the_motion_of_a_rig_whose_hips_are_on_top() {
        let (walker, clip) = walker();
        // The walker without its root: hips on top, refused as it is.
        let bare = Skeleton::new(
            "bare",
            Mat4::IDENTITY,
            (1..walker.len())
                .map(|j| {
                    let parent = walker.parents()[j].and_then(|p| p.checked_sub(1));
                    JointDef::new(walker.names()[j].clone(), parent, walker.rest()[j])
                })
                .collect(),
        )
        .unwrap();
        let bare_clip = Clip::new("walk", clip.tracks()[1..].to_vec(), Some(10.0));
        assert!(extract_to_root(&bare, Mat4::IDENTITY, &bare_clip, 0).is_err());
        let rooted = with_added_root(&bare);
        assert_eq!(rooted.names()[0], "root");
        assert_eq!(rooted.parents()[1], Some(0));
        let out = extract_to_root(
            &rooted,
            Mat4::IDENTITY,
            &clip_with_added_root(&bare_clip),
            1,
        )
        .unwrap();
        let end = worlds(&rooted, &out, 1.0, Mat4::IDENTITY);
        let hips = worlds(&bare, &bare_clip, 1.0, Mat4::IDENTITY)[0];
        assert!(
            end[1].abs_diff_eq(hips, 1e-5),
            "the hips stay where they were"
        );
        let (root, under) = (end[0].w_axis, hips.w_axis);
        assert!((root.x - under.x).abs() < 1e-5 && (root.z - under.z).abs() < 1e-5);
        assert_eq!(root.y, 0.0, "on the ground");
        assert_eq!(with_added_root(&rooted).names()[0], "root_2", "a free name");
    }

    #[test]
    fn the_root_travels_under_the_hips_and_every_joint_stays_put() {
        let (s, clip) = walker();
        // A centimetre file, placed turned and off the origin in the scene.
        let placed = Quat::from_rotation_y(0.5);
        let container = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            placed,
            Vec3::new(3.0, 0.0, -1.0),
        ) * Mat4::from_scale(Vec3::splat(100.0));
        let out = extract_to_root(&s, container, &clip, 1).unwrap();
        for k in 0..11 {
            let t = k as f32 * 0.1;
            let (before, after) = (
                worlds(&s, &clip, t, container),
                worlds(&s, &out, t, container),
            );
            for j in 1..3 {
                let d = before[j].w_axis.truncate() - after[j].w_axis.truncate();
                assert!(d.length() < 1e-4, "joint {j} moved {d} at {t}");
            }
            let (root, hips) = (after[0].w_axis.truncate(), after[1].w_axis.truncate());
            assert!(root.y.abs() < 1e-4, "the root stays on the ground: {root}");
            let apart = Vec3::new(root.x - hips.x, 0.0, root.z - hips.z);
            assert!(apart.length() < 1e-4, "under the hips at {t}");
            // Facing: the root turns with the hips about up, not with their lean.
            let turn = rotation_of(after[0]);
            let expected = Quat::from_rotation_y(k as f32 * 0.157) * placed;
            assert!(turn.angle_between(expected) < 1e-3, "{t}: {turn}");
        }
    }

    #[test]
    fn a_moved_clip_moves_every_joint_with_it_under_any_container() {
        let (s, clip) = walker();
        // The root is not keyed: its tracks are made. A centimetre container, turned.
        let container = Mat4::from_scale_rotation_translation(
            Vec3::splat(0.01),
            Quat::from_rotation_x(-0.4),
            Vec3::new(1.0, 0.0, 2.0),
        );
        let moved =
            Mat4::from_rotation_translation(Quat::from_rotation_z(0.96), Vec3::new(0.0, 0.3, 0.0));
        let out = moved_by(&s, container, &clip, moved);
        assert!(out.tracks()[0].rotation.is_some() && out.tracks()[0].translation.is_some());
        for k in 0..11 {
            let t = k as f32 * 0.1;
            let (before, after) = (
                worlds(&s, &clip, t, container),
                worlds(&s, &out, t, container),
            );
            for j in 0..3 {
                let want = (moved * before[j]).w_axis.truncate();
                let d = want - after[j].w_axis.truncate();
                assert!(d.length() < 1e-4, "joint {j} off by {d} at {t}");
            }
        }
    }

    #[test]
    fn a_rig_whose_hips_are_the_top_joint_is_refused_by_name() {
        let (s, clip) = walker();
        let defs = s.joint_defs()[1..]
            .iter()
            .cloned()
            .map(|mut d| {
                d.parent = d.parent.and_then(|p| p.checked_sub(1));
                d
            })
            .collect();
        let hips_only = Skeleton::new("hips only", Mat4::IDENTITY, defs).unwrap();
        let clip = Clip::new("walk", clip.tracks()[1..].to_vec(), Some(10.0));
        assert_eq!(
            extract_to_root(&hips_only, Mat4::IDENTITY, &clip, 0),
            Err(RootMotionError::NoRootAboveHips {
                hips: "hips".into()
            })
        );
    }
}
