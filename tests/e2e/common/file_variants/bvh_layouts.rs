//! BVH layouts of other mocap pipelines, made from a file we have with the same world motion:
//! a research dataset's (every bone along +X, six channels on every joint, an extra root,
//! ZXY, far from the origin) and a quadruped's position-channel habits.

use super::bvh_variants::{Bvh, BvhNode, degenerate_zero_pose, euler_to_quat, quat_to_euler};
use glam::DVec3;

const POSITIONS: [&str; 3] = ["Xposition", "Yposition", "Zposition"];

fn axis_of(ch: &str, kind: &str) -> Option<usize> {
    let lower = ch.to_ascii_lowercase();
    let axis = lower.strip_suffix(kind)?;
    ["x", "y", "z"].iter().position(|a| *a == axis)
}

/// The layout of a research mocap dataset (Bandai Namco's): the zero pose lays every bone
/// along +X (rotations make the figure), an extra zero-offset root `joint_Root` carries the
/// path, every joint has six channels whose positions repeat its OFFSET, rotations are
/// `Zrotation Xrotation Yrotation`, and the whole path is moved `away` (file units) from
/// the origin. Every joint's world position is the original's plus `away`.
pub fn research_dataset_layout(bvh: &str, seed: u64, away: DVec3) -> String {
    let flat = Bvh::parse(&degenerate_zero_pose(bvh, seed));
    let order = ["Zrotation", "Xrotation", "Yrotation"];
    let six: Vec<String> = POSITIONS
        .iter()
        .chain(&order)
        .map(|s| s.to_string())
        .collect();
    let mut nodes = vec![BvhNode {
        name: "joint_Root".into(),
        parent: None,
        offset: DVec3::ZERO,
        channels: six.clone(),
        end_site: false,
    }];
    for n in &flat.nodes {
        let mut m = n.clone();
        m.parent = Some(n.parent.map_or(0, |p| p + 1));
        if !m.end_site {
            m.channels = six.clone();
        }
        nodes.push(m);
    }
    // The old root's path rides on `joint_Root`; its own OFFSET and positions are zero.
    nodes[1].offset = DVec3::ZERO;
    let mut frames = Vec::with_capacity(flat.frames.len());
    for row in &flat.frames {
        let mut at = 0;
        let mut out = Vec::new();
        for (j, n) in flat.nodes.iter().enumerate() {
            let values = &row[at..at + n.channels.len()];
            at += n.channels.len();
            if n.end_site {
                continue;
            }
            let mut position = n.offset;
            let (mut axes, mut angles) = (Vec::new(), Vec::new());
            for (c, v) in n.channels.iter().zip(values) {
                if let Some(a) = axis_of(c, "position") {
                    position[a] = *v;
                } else if let Some(a) = axis_of(c, "rotation") {
                    axes.push(a);
                    angles.push(v.to_radians());
                }
            }
            if j == 0 {
                out.extend((position + away).to_array());
                out.extend([0.0; 3]);
                position = DVec3::ZERO;
            }
            let q = euler_to_quat(&axes, &angles);
            out.extend(position.to_array());
            out.extend(quat_to_euler(&[2, 0, 1], q).iter().map(|r| r.to_degrees()));
        }
        frames.push(out);
    }
    let mut b = Bvh {
        nodes,
        frame_time: flat.frame_time.clone(),
        frames,
    };
    b.unwrap_rotations();
    b.write()
}

/// A quadruped's mocap: the Fox's walk written as BVH (in metres, Y up) by our writer,
/// then turned to face +X as creature mocap often does (a long body along X).
pub fn fox_walk_bvh_facing_x() -> String {
    fox_walk_bvh_travelling(90.0, 0.0)
}

/// The Fox's walk as BVH (metres, Y up), walking forward `lengths` of its body's length over
/// the clip (the Fox's own walk keeps to one spot; real mocap travels), the whole world then
/// turned `yaw_degrees` about +Y: 0 faces +Z as the Fox does, 90 faces +X, 180 faces -Z.
pub fn fox_walk_bvh_travelling(yaw_degrees: f64, lengths: f64) -> String {
    use retarget_studio::core::Unit;
    use retarget_studio::io::bvh_export::{BvhExportOptions, export_bvh};
    let fox = crate::common::load("gltf/Fox.glb");
    let clip = fox
        .clips
        .iter()
        .find(|c| c.clip.name == "Walk")
        .expect("the Fox has a walk");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fox.bvh");
    let options = BvhExportOptions {
        unit: Unit::Metre,
        ..BvhExportOptions::default()
    };
    export_bvh(&fox.skeletons[clip.skeleton], &clip.clip, &options, &path).unwrap();
    let mut b = Bvh::parse(&std::fs::read_to_string(&path).unwrap());
    // The body's length along +Z (its facing), from the zero pose's joints.
    let mut world = vec![DVec3::ZERO; b.nodes.len()];
    for (j, n) in b.nodes.iter().enumerate() {
        world[j] = n.parent.map_or(DVec3::ZERO, |p| world[p]) + n.offset;
    }
    let (lo, hi) = world.iter().fold((f64::MAX, f64::MIN), |(lo, hi), p| {
        (lo.min(p.z), hi.max(p.z))
    });
    let z = b.nodes[0]
        .channels
        .iter()
        .position(|c| c == "Zposition")
        .expect("the root has a Zposition channel");
    let last = (b.frames.len().max(2) - 1) as f64;
    for (k, frame) in b.frames.iter_mut().enumerate() {
        frame[z] += lengths * (hi - lo) * k as f64 / last;
    }
    super::bvh_variants::turned_bvh(
        &b.write(),
        glam::DQuat::from_rotation_y(yaw_degrees.to_radians()),
    )
}

/// MakeHuman's layout of position channels: every joint below the root gets six channels
/// whose positions are deltas added to its OFFSET, near zero (`jitter` of its length, a
/// different small value per frame and joint). Read as deltas it is the same motion.
pub fn position_deltas(bvh: &str, jitter: f64) -> String {
    let mut b = Bvh::parse(bvh);
    rewrite_positions_below_root(&mut b, |offset, k| offset * (jitter * k));
    b.write()
}

/// The same file with its position channels below the root written in the OFFSET's place
/// (OFFSET plus delta): what MakeHuman means, in the form Blender's importer and every other
/// reader takes. Independent of our reader: the judge's copy of a MakeHuman source.
pub fn deltas_in_place(bvh: &str) -> String {
    let mut b = Bvh::parse(bvh);
    let nodes = b.nodes.clone();
    let mut at = 0;
    let mut columns = Vec::new();
    for n in &nodes {
        for (c, ch) in n.channels.iter().enumerate() {
            if let (Some(_), Some(a)) = (n.parent, axis_of(ch, "position")) {
                columns.push((at + c, n.offset[a]));
            }
        }
        at += n.channels.len();
    }
    for row in &mut b.frames {
        for &(col, offset) in &columns {
            row[col] += offset;
        }
    }
    b.write()
}

/// Every joint below the root with position channels first, valued `delta(offset, k)` with
/// `k` in [-1, 1] varying by frame and joint; the root's channels are left as they are.
fn rewrite_positions_below_root(b: &mut Bvh, delta: impl Fn(DVec3, f64) -> DVec3) {
    let old = b.nodes.clone();
    for n in b
        .nodes
        .iter_mut()
        .filter(|n| n.parent.is_some() && !n.end_site)
    {
        let rotations = n
            .channels
            .iter()
            .filter(|c| axis_of(c, "rotation").is_some());
        let rotations: Vec<String> = rotations.cloned().collect();
        n.channels = POSITIONS
            .iter()
            .map(|s| s.to_string())
            .chain(rotations)
            .collect();
    }
    for (f, row) in b.frames.iter_mut().enumerate() {
        let (mut at, mut out) = (0, Vec::with_capacity(row.len() + 3 * old.len()));
        for (j, n) in old.iter().enumerate() {
            let values = &row[at..at + n.channels.len()];
            at += n.channels.len();
            if n.parent.is_none() {
                out.extend_from_slice(values);
                continue;
            }
            if n.end_site {
                continue;
            }
            let k = ((f * 7 + j * 13) % 17) as f64 / 8.0 - 1.0;
            out.extend(delta(n.offset, k).to_array());
            let rotations = n.channels.iter().zip(values);
            out.extend(
                rotations
                    .filter(|(c, _)| axis_of(c, "rotation").is_some())
                    .map(|(_, v)| *v),
            );
        }
        *row = out;
    }
}
