//! Every matrix case also written as FBX and read back by our FBX reader (ufbx): the joints
//! stand where the retargeted clip puts them on its keys, within 1e-4 of the figure's height, in the
//! target's own unit and axes and in centimetres +Z up. (CI reads the same files with
//! Blender's FBX importer.)

use crate::common::key_times;
use glam::Vec3;
use retarget_studio::core::{Axis, Clip, Pose, Skeleton, Unit};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{ExportFormat, ExportJob, FbxSettings, Session};
use std::path::Path;

/// The most a joint may stand off, as a share of the figure's height.
pub const TOLERANCE: f32 = 1e-4;

/// The largest distance between a joint of `clip` and of its FBX read back, over the clip's
/// frames and both unit and axis settings, as a share of the figure's height.
pub fn worst_share(session: &Session, clip: &Clip, dir: &Path) -> Result<f32, String> {
    let skeleton = session.target.skeleton();
    let height = height(skeleton);
    let mut worst = 0.0f32;
    for (n, (unit, up)) in [(None, None), (Some(Unit::Centimetre), Some(Axis::PosZ))]
        .into_iter()
        .enumerate()
    {
        let out = dir.join(format!("case{n}.fbx"));
        let settings = FbxSettings {
            animation_only: true,
            unit,
            up,
        };
        let job = ExportJob::to(ExportFormat::Fbx(settings), &out);
        session
            .write_clips(vec![clip.clone()], &job)
            .map_err(|e| e.to_string())?;
        let back = retarget_studio::io::load(&out, &ImportOptions::default())
            .map_err(|e| e.to_string())?;
        let read = back
            .skeletons
            .iter()
            .position(|s| s.names() == skeleton.names())
            .ok_or("the FBX's skeleton has other joints")?;
        let read_clip = back
            .clips_of(read)
            .next()
            .ok_or("the FBX has no take for the skeleton")?;
        let s = &back.skeletons[read];
        // On the keys: an FBX interpolates Euler angles between them where the clip slerps.
        let times = key_times(clip);
        let step = times.len().div_ceil(40).max(1);
        for t in times.into_iter().step_by(step) {
            let (mut a, mut b) = (Pose::rest(skeleton), Pose::rest(s));
            clip.sample(t, &mut a);
            read_clip.sample(t, &mut b);
            for (p, q) in a.world_positions(skeleton).iter().zip(b.world_positions(s)) {
                worst = worst.max(p.distance(q) / height);
            }
        }
    }
    Ok(worst)
}

/// The figure's size: its rest pose's largest extent along any axis, in metres (a rest
/// pose lying along +X has no height to speak of).
fn height(s: &Skeleton) -> f32 {
    let points = Pose::rest(s).world_positions(s);
    let (lo, hi) = points
        .iter()
        .fold((Vec3::INFINITY, Vec3::NEG_INFINITY), |(lo, hi), p| {
            (lo.min(*p), hi.max(*p))
        });
    (hi - lo).max_element().max(1e-3)
}
