//! BVH motion capture: the hierarchy (any channel order per joint, End Sites as leaf
//! joints) and the motion as one clip. Units and up axis are detected from the figure and put
//! into the skeleton's container, leaving the file's numbers untouched in the joints.

use crate::ImportOptions;
use crate::asset::{Asset, AssetClip, Format, Provenance};
use crate::error::{ImportError, Problem};
use glam::{Mat4, Quat, Vec3};
use retarget_core::{
    Axis, Clip, Interpolation, JointDef, JointTracks, Pose, Skeleton, Track, Transform, Unit,
    gravity::read_up, height_along,
};
use std::path::Path;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Channel {
    Position(usize),
    Rotation(usize),
}

impl Channel {
    fn parse(s: &str) -> Option<Channel> {
        let axis = match s.as_bytes().first()?.to_ascii_uppercase() {
            b'X' => 0,
            b'Y' => 1,
            b'Z' => 2,
            _ => return None,
        };
        match s[1..].to_ascii_lowercase().as_str() {
            "position" => Some(Channel::Position(axis)),
            "rotation" => Some(Channel::Rotation(axis)),
            _ => None,
        }
    }
}

struct BvhJoint {
    name: String,
    parent: Option<usize>,
    offset: Option<Vec3>,
    channels: Vec<Channel>,
}

pub fn import_bvh(path: &Path, options: &ImportOptions) -> Result<Asset, ImportError> {
    let bytes = std::fs::read(path).map_err(|e| ImportError::new(path, Problem::Read(e)))?;
    import_bvh_bytes(path, &bytes, options)
}

pub fn import_bvh_bytes(
    path: &Path,
    bytes: &[u8],
    options: &ImportOptions,
) -> Result<Asset, ImportError> {
    parse(path, bytes, options).map_err(|p| ImportError::new(path, p))
}

fn err(line: usize, message: impl Into<String>) -> Problem {
    Problem::Bvh {
        line,
        message: message.into(),
    }
}

fn number(token: &str, line: usize) -> Result<f32, Problem> {
    let v: f32 = token
        .parse()
        .map_err(|_| err(line, format!("'{token}' is not a number")))?;
    if !v.is_finite() {
        return Err(err(line, format!("'{token}' is not a finite number")));
    }
    Ok(v)
}

fn parse(path: &Path, bytes: &[u8], options: &ImportOptions) -> Result<Asset, Problem> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| err(0, format!("the file is not UTF-8 text ({e})")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.split_whitespace().collect::<Vec<_>>()))
        .filter(|(_, t)| !t.is_empty());
    match lines.next() {
        Some((_, t)) if t[0] == "HIERARCHY" => {}
        Some((n, _)) => return Err(err(n, "a BVH file starts with HIERARCHY")),
        None => return Err(err(0, "the file is empty")),
    }
    let joints = parse_hierarchy(&mut lines)?;
    let (frame_count, frame_time, motion_line) = parse_motion_header(&mut lines)?;
    let channel_total: usize = joints.iter().map(|j| j.channels.len()).sum();
    // The count is the file's word: reserve no more than its lines can hold.
    let mut frames: Vec<Vec<f32>> = Vec::with_capacity(frame_count.min(text.len() / 2));
    let mut warnings = Vec::new();
    for (line, tokens) in lines {
        if frames.len() == frame_count {
            warnings.push(format!(
                "line {line}: more frame lines than the {frame_count} declared; the rest are ignored"
            ));
            break;
        }
        if tokens.len() != channel_total {
            return Err(err(
                line,
                format!(
                    "frame {} has {} values, but the hierarchy declares {channel_total} channels",
                    frames.len(),
                    tokens.len()
                ),
            ));
        }
        frames.push(
            tokens
                .iter()
                .map(|t| number(t, line))
                .collect::<Result<_, _>>()?,
        );
    }
    if frames.len() < frame_count {
        return Err(err(
            motion_line,
            format!(
                "'Frames: {frame_count}' but the file holds only {} frame lines",
                frames.len()
            ),
        ));
    }

    let name = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("bvh")
        .to_owned();
    let mut skeleton = build_skeleton(&name, &joints)?;
    skeleton.label_unlabelled(retarget_core::HumanBone::from_mixamo);
    let mut clips = Vec::new();
    let deltas = position_deltas(&joints, &frames);
    if deltas {
        warnings.push(
            "position channels below the root are near zero where their OFFSETs are not: \
             read as deltas added to the OFFSET (MakeHuman's convention), not in its place"
                .to_owned(),
        );
    }
    if frame_count > 0 {
        let clip = build_clip(&name, &joints, &frames, frame_time, deltas)
            .map_err(|e| err(motion_line, e.to_string()))?;
        clips.push(AssetClip {
            skeleton: 0,
            clip,
            animation: 0,
        });
    }
    let labels: Vec<_> = retarget_core::profile::auto_label(&skeleton, &Pose::rest(&skeleton))
        .iter()
        .map(|l| l.map(|l| l.bone))
        .collect();
    let reading = read_up(&skeleton, &labels, clips.first().map(|c| &c.clip));
    let stance = match &reading {
        Some(r) => r.stance.clone(),
        None => Pose::rest(&skeleton),
    };
    if reading.as_ref().is_some_and(|r| r.stance_from_motion) {
        warnings.push(
            "the zero pose is not a standing figure (its bones do not stand as a body does): \
             unit and up axis read from the motion"
                .to_owned(),
        );
    }
    let (up, up_source) = match (options.up, &reading) {
        (Some(up), _) => (up, Provenance::Override),
        (None, Some(r)) => (r.up, Provenance::Detected),
        (None, None) => (Axis::PosY, Provenance::Assumed),
    };
    if let Some(r) = reading.as_ref().filter(|_| options.up.is_none())
        && (r.up != Axis::PosY || r.rest_says.is_some())
    {
        // A BVH is Y-up unless its motion says otherwise: say when it does, and why.
        warnings.push(format!("{} (a BVH's default is +Y)", r.describe()));
    }
    let mut readings = crate::asset::Readings {
        unit: None,
        up: reading.as_ref().map(|r| crate::asset::Reading {
            evidence: r.describe(),
            runner_up: r.runner_up.map(|a| a.name().to_owned()),
        }),
        declared_unit: None,
    };
    // The body's length along its bones, foot to head, does not depend on the pose or the
    // way up; a figure without labelled feet and head is measured standing.
    let by_path = retarget_core::units::body_path(&skeleton, &labels).map(Unit::from_body_path);
    let (unit, unit_source) = match (options.unit, by_path) {
        (Some(u), _) => (u, Provenance::Override),
        (None, Some(r)) => {
            let unit = r.unit;
            readings.unit = Some(crate::asset::Reading {
                evidence: r.evidence,
                runner_up: r.runner_up.map(|u| u.name().to_owned()),
            });
            (unit, Provenance::Detected)
        }
        (None, None) => {
            let height = height_along(&skeleton, &stance, up);
            let unit = Unit::guess_from_height(height);
            readings.unit = Some(crate::asset::Reading {
                evidence: format!(
                    "no labelled feet and head: {height:.3} file units tall standing, {:.2} m in {}",
                    height * unit.metres(),
                    unit.name()
                ),
                runner_up: None,
            });
            (unit, Provenance::Detected)
        }
    };
    let turn = Quat::from_rotation_arc(up.vector(), Vec3::Y);
    skeleton.set_container(Mat4::from_scale_rotation_translation(
        Vec3::splat(unit.metres()),
        turn,
        Vec3::ZERO,
    ));

    Ok(Asset {
        path: path.to_path_buf(),
        format: Format::Bvh,
        skeletons: vec![skeleton],
        clips,
        meshes: Vec::new(),
        joint_nodes: vec![Vec::new()],
        unit,
        unit_source,
        up,
        up_source,
        warnings,
        curve_targets: Vec::new(),
        readings,
    })
}

type Lines<'a> = dyn Iterator<Item = (usize, Vec<&'a str>)> + 'a;

fn parse_hierarchy(lines: &mut Lines<'_>) -> Result<Vec<BvhJoint>, Problem> {
    let mut joints: Vec<BvhJoint> = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut pending: Option<usize> = None;
    for (line, t) in &mut *lines {
        match t[0] {
            "ROOT" | "JOINT" | "End" => {
                if pending.is_some() {
                    return Err(err(line, "expected '{' after the joint name"));
                }
                if t[0] == "JOINT" && open.is_empty() {
                    return Err(err(line, "JOINT outside any ROOT"));
                }
                let parent = open.last().copied();
                let name = if t[0] == "End" {
                    let p = parent.ok_or_else(|| err(line, "End Site outside any joint"))?;
                    format!("{}_end", joints[p].name)
                } else {
                    t[1..].join(" ")
                };
                if name.is_empty() {
                    return Err(err(line, format!("{} without a name", t[0])));
                }
                pending = Some(joints.len());
                joints.push(BvhJoint {
                    name,
                    parent,
                    offset: None,
                    channels: Vec::new(),
                });
            }
            "{" => {
                let j = pending
                    .take()
                    .ok_or_else(|| err(line, "'{' without a joint"))?;
                open.push(j);
            }
            "}" => {
                let j = open
                    .pop()
                    .ok_or_else(|| err(line, "'}' without a matching '{'"))?;
                if joints[j].offset.is_none() {
                    return Err(err(
                        line,
                        format!("joint '{}' has no OFFSET", joints[j].name),
                    ));
                }
            }
            "OFFSET" => {
                let j = *open
                    .last()
                    .ok_or_else(|| err(line, "OFFSET outside a joint"))?;
                joints[j].offset = Some(parse_offset(line, &t)?);
            }
            "CHANNELS" => {
                let j = *open
                    .last()
                    .ok_or_else(|| err(line, "CHANNELS outside a joint"))?;
                joints[j].channels = parse_channels(line, &t)?;
            }
            "MOTION" => {
                if !open.is_empty() || pending.is_some() {
                    return Err(err(line, "MOTION before the hierarchy's braces are closed"));
                }
                if joints.is_empty() {
                    return Err(Problem::NoJoints);
                }
                return Ok(joints);
            }
            other => return Err(err(line, format!("unexpected '{other}' in the hierarchy"))),
        }
    }
    if joints.is_empty() {
        return Err(Problem::NoJoints);
    }
    Err(err(0, "the file ends before MOTION"))
}

/// `OFFSET x y z`.
fn parse_offset(line: usize, t: &[&str]) -> Result<Vec3, Problem> {
    if t.len() != 4 {
        return Err(err(
            line,
            format!("OFFSET needs 3 numbers, found {}", t.len() - 1),
        ));
    }
    Ok(Vec3::new(
        number(t[1], line)?,
        number(t[2], line)?,
        number(t[3], line)?,
    ))
}

/// `CHANNELS n name...`: the count must match the names.
fn parse_channels(line: usize, t: &[&str]) -> Result<Vec<Channel>, Problem> {
    let declared: usize = t
        .get(1)
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| err(line, "CHANNELS needs a count"))?;
    let names = t.get(2..).unwrap_or_default();
    if names.len() != declared {
        return Err(err(
            line,
            format!(
                "CHANNELS declares {declared} channels but names {}",
                names.len()
            ),
        ));
    }
    names
        .iter()
        .map(|n| Channel::parse(n).ok_or_else(|| err(line, format!("unknown channel '{n}'"))))
        .collect()
}

fn parse_motion_header(lines: &mut Lines<'_>) -> Result<(usize, f32, usize), Problem> {
    let (line, t) = lines
        .next()
        .ok_or_else(|| err(0, "the file ends before 'Frames:'"))?;
    if t.first() != Some(&"Frames:") || t.len() != 2 {
        return Err(err(line, "expected 'Frames: N'"));
    }
    let frames: usize = t[1]
        .parse()
        .map_err(|_| err(line, format!("'{}' is not a frame count", t[1])))?;
    let (line2, t) = lines
        .next()
        .ok_or_else(|| err(line, "the file ends before 'Frame Time:'"))?;
    if t.len() != 3 || t[0] != "Frame" || t[1] != "Time:" {
        return Err(err(line2, "expected 'Frame Time: seconds'"));
    }
    let frame_time = number(t[2], line2)?;
    // 1 µs at the least: a subnormal frame time gives an infinite frame rate.
    if frame_time < 1e-6 {
        return Err(err(
            line2,
            "the frame time must be above zero (at least 0.000001 s)",
        ));
    }
    Ok((frames, frame_time, line))
}

fn build_skeleton(name: &str, joints: &[BvhJoint]) -> Result<Skeleton, Problem> {
    let defs = joints
        .iter()
        .map(|j| {
            JointDef::new(
                j.name.clone(),
                j.parent,
                Transform::from_translation(j.offset.unwrap_or(Vec3::ZERO)),
            )
        })
        .collect();
    Skeleton::new(name, Mat4::IDENTITY, defs).map_err(|source| Problem::Skeleton {
        skeleton: name.to_owned(),
        source,
    })
}

/// Euler angles in degrees, in the order the channels list them: `Zrotation Yrotation
/// Xrotation` is `Rz * Ry * Rx`.
fn euler_to_quat(order: &[usize], degrees: &[f32]) -> Quat {
    order
        .iter()
        .zip(degrees)
        .fold(Quat::IDENTITY, |q, (&axis, &deg)| {
            let r = deg.to_radians();
            q * match axis {
                0 => Quat::from_rotation_x(r),
                1 => Quat::from_rotation_y(r),
                _ => Quat::from_rotation_z(r),
            }
        })
}

/// Whether the file writes position channels below the root as deltas added to the OFFSET
/// (MakeHuman does) rather than in its place (the usual reading, and Blender's): most such
/// joints with an OFFSET of some length keep their channels under a tenth of it in every
/// frame. Read in place, those bones would fold onto their parents.
fn position_deltas(joints: &[BvhJoint], frames: &[Vec<f32>]) -> bool {
    let (mut small, mut judged) = (0usize, 0usize);
    let mut first = 0;
    for j in joints {
        let cols = first..first + j.channels.len();
        first = cols.end;
        let offset = j.offset.unwrap_or(Vec3::ZERO).length();
        let has_position = j.channels.iter().any(|c| matches!(c, Channel::Position(_)));
        if j.parent.is_none() || !has_position || offset <= 1e-4 || frames.is_empty() {
            continue;
        }
        judged += 1;
        let near_zero = frames.iter().all(|f| {
            let p = position(&j.channels, &f[cols.clone()], Vec3::ZERO, false);
            p.length() < 0.1 * offset
        });
        small += usize::from(near_zero);
    }
    judged >= 3 && small * 5 >= judged * 4
}

/// A joint's position channels in one frame's `values` (its columns): each axis keyed
/// replaces `offset`'s, or is added to it (`add`); axes not keyed keep it.
fn position(channels: &[Channel], values: &[f32], offset: Vec3, add: bool) -> Vec3 {
    let mut p = offset;
    for (c, v) in channels.iter().zip(values) {
        if let Channel::Position(a) = c {
            p[*a] = if add { offset[*a] + *v } else { *v };
        }
    }
    p
}

fn build_clip(
    name: &str,
    joints: &[BvhJoint],
    frames: &[Vec<f32>],
    frame_time: f32,
    deltas: bool,
) -> Result<Clip, retarget_core::ClipError> {
    // One array for every track: they share their keys.
    let times: std::sync::Arc<[f32]> = (0..frames.len()).map(|i| i as f32 * frame_time).collect();
    let mut tracks = Vec::with_capacity(joints.len());
    let mut first = 0;
    for j in joints {
        let cols = first..first + j.channels.len();
        first = cols.end;
        let mut jt = JointTracks::default();
        let rot_axes: Vec<usize> = j
            .channels
            .iter()
            .filter_map(|c| match c {
                Channel::Rotation(a) => Some(*a),
                _ => None,
            })
            .collect();
        let has_position = j.channels.iter().any(|c| matches!(c, Channel::Position(_)));
        if has_position {
            // A position channel replaces the OFFSET (as Blender reads it); missing axes keep
            // it. Below the root of a file of deltas, it is added to it.
            let offset = j.offset.unwrap_or(Vec3::ZERO);
            let add = deltas && j.parent.is_some();
            let values = frames
                .iter()
                .map(|f| position(&j.channels, &f[cols.clone()], offset, add))
                .collect();
            jt.translation = Some(Track::new(times.clone(), values, Interpolation::Linear)?);
        }
        if !rot_axes.is_empty() {
            let values = frames
                .iter()
                .map(|f| {
                    let degrees: Vec<f32> = j
                        .channels
                        .iter()
                        .zip(&f[cols.clone()])
                        .filter(|(c, _)| matches!(c, Channel::Rotation(_)))
                        .map(|(_, v)| *v)
                        .collect();
                    euler_to_quat(&rot_axes, &degrees)
                })
                .collect();
            jt.rotation = Some(Track::new(times.clone(), values, Interpolation::Linear)?);
        }
        tracks.push(jt);
    }
    Ok(Clip::new(name, tracks, Some(1.0 / frame_time)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A BVH's channels all key every frame: one time array serves every track, so
    /// samplers group them at once, and the clip holds the times once.
    #[test]
    fn every_track_shares_the_clips_one_time_array() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../assets/bvh/02_01.bvh");
        let asset = crate::load(std::path::Path::new(path), &Default::default()).unwrap();
        let clip = &asset.clips[0].clip;
        let mut all: Vec<&[f32]> = Vec::new();
        for t in clip.tracks() {
            all.extend(t.translation.as_ref().map(|k| k.times()));
            all.extend(t.rotation.as_ref().map(|k| k.times()));
        }
        assert!(all.len() > 30);
        assert_eq!(all[0].len(), clip.frame_count());
        assert!(all.iter().all(|t| std::ptr::eq(*t, all[0])));
    }

    #[test]
    fn euler_order_follows_the_channel_list() {
        let q = euler_to_quat(&[2, 1, 0], &[30.0, 40.0, 50.0]);
        let expected = Quat::from_rotation_z(30f32.to_radians())
            * Quat::from_rotation_y(40f32.to_radians())
            * Quat::from_rotation_x(50f32.to_radians());
        assert!(q.abs_diff_eq(expected, 1e-6));
        let xyz = euler_to_quat(&[0, 1, 2], &[50.0, 40.0, 30.0]);
        assert!(!xyz.abs_diff_eq(expected, 1e-3), "order matters");
    }

    #[test]
    fn channel_names_parse() {
        assert_eq!(Channel::parse("Zrotation"), Some(Channel::Rotation(2)));
        assert_eq!(Channel::parse("xposition"), Some(Channel::Position(0)));
        assert_eq!(Channel::parse("Wrotation"), None);
    }

    /// A chain of four bones along +Y under the root, every joint with six channels whose
    /// position values are `positions(joint offset)`.
    fn chain_with_positions(positions: impl Fn(f32) -> f32) -> Asset {
        let mut text = String::from("HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\n");
        text += "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n";
        for j in 0..4 {
            text += &format!("JOINT j{j}\n{{\nOFFSET 0 {} 0\n", 1.0 + j as f32);
            text += "CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation\n";
        }
        text += "End Site\n{\nOFFSET 0 1 0\n}\n";
        text += &"}\n".repeat(5);
        text += "MOTION\nFrames: 2\nFrame Time: 0.1\n";
        for _ in 0..2 {
            text += "0 0 0 0 0 0";
            for j in 0..4 {
                text += &format!(" 0 {} 0 0 0 0", positions(1.0 + j as f32));
            }
            text += "\n";
        }
        import_bvh_bytes(Path::new("chain.bvh"), text.as_bytes(), &Default::default()).unwrap()
    }

    fn second_joint_at(asset: &Asset) -> Vec3 {
        let track = asset.clips[0].clip.tracks()[2]
            .translation
            .as_ref()
            .unwrap();
        track.sample(0.0)
    }

    /// MakeHuman writes position channels as deltas on the OFFSET; others repeat the OFFSET
    /// or move the joint, both read in its place. Read the first way, MakeHuman's bones
    /// fold onto their parents.
    #[test]
    fn near_zero_position_channels_below_the_root_are_deltas_on_the_offset() {
        let deltas = chain_with_positions(|_| 0.0);
        assert_eq!(second_joint_at(&deltas), Vec3::new(0.0, 2.0, 0.0));
        assert!(deltas.warnings.iter().any(|w| w.contains("deltas")));
        let repeated = chain_with_positions(|o| o);
        assert_eq!(second_joint_at(&repeated), Vec3::new(0.0, 2.0, 0.0));
        let moved = chain_with_positions(|o| 1.5 * o);
        assert_eq!(second_joint_at(&moved), Vec3::new(0.0, 3.0, 0.0));
        for asset in [&repeated, &moved] {
            assert!(!asset.warnings.iter().any(|w| w.contains("deltas")));
        }
    }
}
