//! Clips as FBX takes: one AnimationStack with one layer per clip, and per animated joint
//! curve nodes for translation, rotation (Euler XYZ, degrees, continuous) and scale, keyed
//! at the output rate. Key reduction runs here, on the curves as the file interpolates them
//! (angle by angle), not on the quaternions.

use super::frames::{FileFrame, euler_xyz};
use super::node::{Attr, Node, Props, object_name};
use glam::Vec3;
use retarget_core::reduce::{Tolerance, kept_vector_keys};
use retarget_core::{Clip, Interpolation, Pose, Skeleton, Track};

/// FBX time: ticks per second.
pub(super) const TICKS_PER_SECOND: f64 = 46_186_158_000.0;

/// `KeyAttrFlags` of a linear key: FBX SDK's `eInterpolationLinear`.
const LINEAR: i32 = 0x0000_0004;

pub(super) fn ticks(secs: f64) -> i64 {
    (secs * TICKS_PER_SECOND).round() as i64
}

/// The rate clips are keyed at, and what curve reduction keeps.
#[derive(Clone, Copy, Debug)]
pub(super) struct Keying {
    pub fps: Option<f32>,
    /// `length` in the skeleton's joint units, as `reduce_keys` takes it.
    pub reduce: Option<Tolerance>,
}

/// What the takes added.
#[derive(Default)]
pub(super) struct Takes {
    pub objects: Vec<Node>,
    pub connections: Vec<Node>,
    pub clips: usize,
    /// Keys written, and the keys before reduction.
    pub keys: usize,
    pub keys_before: usize,
    /// The span of all takes, in seconds.
    pub span: Option<(f64, f64)>,
    /// The rate of the first take (the scene's frame rate).
    pub fps: Option<f64>,
}

/// Ids for new objects, unique in the file.
pub(super) struct Ids(i64);

impl Ids {
    pub fn new() -> Self {
        Self(1_000_000)
    }
    pub fn next(&mut self) -> i64 {
        self.0 += 1;
        self.0
    }
}

pub(super) fn connect(child: i64, parent: i64) -> Node {
    Node::new("C").attr("OO").attr(child).attr(parent)
}

fn connect_property(child: i64, parent: i64, property: &str) -> Node {
    Node::new("C")
        .attr("OP")
        .attr(child)
        .attr(parent)
        .attr(property)
}

/// What the takes drive: the joints' models (`models[j]` for joint `j`) and the blend
/// shape channels (mesh, morph, id) of `target`.
pub(super) struct Driven<'a> {
    pub skeleton: &'a Skeleton,
    pub models: &'a [i64],
    pub target: &'a crate::asset::Asset,
    pub channels: &'a [(usize, usize, i64)],
}

/// One take per clip.
pub(super) fn push_takes(
    driven: &Driven,
    frame: &FileFrame,
    clips: &[Clip],
    keying: Keying,
    ids: &mut Ids,
) -> Takes {
    let (skeleton, models) = (driven.skeleton, driven.models);
    let mut takes = Takes::default();
    for clip in clips {
        let times = frame_times(clip, keying.fps.map(f64::from));
        let fps = keying
            .fps
            .or(clip.fps())
            .filter(|f| *f > 0.0)
            .unwrap_or(30.0) as f64;
        let (start, stop) = (times[0], *times.last().expect("at least one frame"));
        takes.span = Some(match takes.span {
            None => (start, stop),
            Some((a, b)) => (a.min(start), b.max(stop)),
        });
        takes.fps.get_or_insert(fps);
        let key_times: Vec<i64> = times.iter().map(|&t| ticks(t)).collect();

        let stack = ids.next();
        let layer = ids.next();
        let mut props = Props::default();
        props
            .time("LocalStart", ticks(start))
            .time("LocalStop", ticks(stop))
            .time("ReferenceStart", ticks(start))
            .time("ReferenceStop", ticks(stop));
        takes.objects.push(
            Node::new("AnimationStack")
                .attr(stack)
                .attr(object_name(&clip.name, "AnimStack"))
                .attr("")
                .child(props.node()),
        );
        takes.objects.push(
            Node::new("AnimationLayer")
                .attr(layer)
                .attr(object_name("BaseLayer", "AnimLayer"))
                .attr(""),
        );
        takes.connections.push(connect(layer, stack));

        let samples = sample(skeleton, frame, clip, &times);
        let length_limit = keying.reduce.map(|t| t.length * frame.base_length());
        let angle_limit = keying.reduce.map(|t| t.degrees / 3f32.sqrt());
        let scale_limit = keying.reduce.map(|t| t.length);
        for (j, tracks) in clip.tracks().iter().enumerate() {
            let root = skeleton.parents()[j].is_none();
            let curves = [
                (
                    "T",
                    "Lcl Translation",
                    tracks.translation.is_some() || root,
                    &samples.translations[j],
                    length_limit,
                ),
                (
                    "R",
                    "Lcl Rotation",
                    tracks.rotation.is_some() || root,
                    &samples.eulers[j],
                    angle_limit,
                ),
                (
                    "S",
                    "Lcl Scaling",
                    tracks.scale.is_some(),
                    &samples.scales[j],
                    scale_limit,
                ),
            ];
            for (short, property, animated, values, limit) in curves {
                if !animated {
                    continue;
                }
                let kept = kept(&times, values, limit);
                takes.keys_before += 3 * values.len();
                takes.keys += 3 * kept.len();
                let node = ids.next();
                let first = values[0];
                let mut props = Props::default();
                for (axis, v) in ["d|X", "d|Y", "d|Z"].iter().zip(first) {
                    props.number(axis, v);
                }
                takes.objects.push(
                    Node::new("AnimationCurveNode")
                        .attr(node)
                        .attr(object_name(short, "AnimCurveNode"))
                        .attr("")
                        .child(props.node()),
                );
                takes.connections.push(connect(node, layer));
                takes
                    .connections
                    .push(connect_property(node, models[j], property));
                for (axis, name) in ["d|X", "d|Y", "d|Z"].iter().enumerate() {
                    let curve = ids.next();
                    takes.objects.push(curve_node(
                        curve,
                        kept.iter().map(|&k| key_times[k]).collect(),
                        kept.iter().map(|&k| values[k][axis] as f32).collect(),
                    ));
                    takes.connections.push(connect_property(curve, node, name));
                }
            }
        }
        push_shape_curves(driven, clip, layer, ids, &mut takes);
        takes.clips += 1;
    }
    takes
}

/// Each blend shape channel a curve of `clip` moves gets a `DeformPercent` curve (0–100),
/// keyed at the key times of the curves that move its mesh.
fn push_shape_curves(driven: &Driven, clip: &Clip, layer: i64, ids: &mut Ids, takes: &mut Takes) {
    for track in crate::morph_weights::morph_tracks(driven.target, clip.curves()) {
        let count = track.moved.len();
        let channels = driven
            .channels
            .iter()
            .filter(|&&(mesh, morph, _)| mesh == track.mesh && track.moved[morph]);
        for &(_, morph, channel) in channels {
            let values: Vec<f32> = (0..track.times.len())
                .map(|k| 100.0 * track.weights[k * count + morph])
                .collect();
            let node = ids.next();
            let mut props = Props::default();
            props.number("d|DeformPercent", values[0] as f64);
            takes.objects.push(
                Node::new("AnimationCurveNode")
                    .attr(node)
                    .attr(object_name("DeformPercent", "AnimCurveNode"))
                    .attr("")
                    .child(props.node()),
            );
            takes.connections.push(connect(node, layer));
            takes
                .connections
                .push(connect_property(node, channel, "DeformPercent"));
            let curve = ids.next();
            takes.keys += values.len();
            takes.keys_before += values.len();
            let ticks_at = track.times.iter().map(|&t| ticks(t as f64)).collect();
            takes.objects.push(curve_node(curve, ticks_at, values));
            takes
                .connections
                .push(connect_property(curve, node, "d|DeformPercent"));
        }
    }
}

/// The times the clip is keyed at in the file. Without `fps`, the clip's own key times (all
/// its tracks' together): a retargeted clip is already keyed at the output rate, and uneven
/// keys (a glTF clip's) stay where they are. With `fps`, whole frames of it from the start,
/// the end getting a key of its own when it falls between frames; but when the clip's own
/// frames are `1/fps` within 0.1% (a BVH's 0.008333 s at 120 fps) they are kept, as the
/// GLB writes them (moving them onto exact frames would retime the clip).
fn frame_times(clip: &Clip, fps: Option<f64>) -> Vec<f64> {
    let (start, end) = (clip.start_secs() as f64, clip.end_secs() as f64);
    let Some(fps) = fps else {
        return own_key_times(clip);
    };
    let span = (end - start).max(0.0);
    let exact = span * fps;
    let whole = exact.round();
    if whole >= 1.0 && (exact - whole).abs() < 1e-3 * whole {
        let step = span / whole;
        return (0..=whole as usize)
            .map(|k| start + k as f64 * step)
            .collect();
    }
    let whole = (exact + 1e-6).floor() as usize;
    let mut times: Vec<f64> = (0..=whole).map(|k| start + k as f64 / fps).collect();
    if end - times[whole] > 1e-6 / fps {
        times.push(end);
    }
    times
}

/// Every key time of every track, once (times closer than a microsecond are one).
fn own_key_times(clip: &Clip) -> Vec<f64> {
    let mut times: Vec<f64> = clip
        .tracks()
        .iter()
        .flat_map(|t| {
            let tr = t.translation.as_ref().map(|k| k.times());
            let r = t.rotation.as_ref().map(|k| k.times());
            let s = t.scale.as_ref().map(|k| k.times());
            [tr, r, s].into_iter().flatten().flatten()
        })
        .map(|&t| t as f64)
        .collect();
    times.sort_by(f64::total_cmp);
    times.dedup_by(|b, a| *b - *a < 1e-6);
    if times.is_empty() {
        times.push(clip.start_secs() as f64);
    }
    times
}

/// Every joint's local transform as written, per frame.
struct Samples {
    translations: Vec<Vec<[f64; 3]>>,
    eulers: Vec<Vec<[f64; 3]>>,
    scales: Vec<Vec<[f64; 3]>>,
}

fn sample(skeleton: &Skeleton, frame: &FileFrame, clip: &Clip, times: &[f64]) -> Samples {
    let n = skeleton.len();
    let mut out = Samples {
        translations: vec![Vec::with_capacity(times.len()); n],
        eulers: vec![Vec::with_capacity(times.len()); n],
        scales: vec![Vec::with_capacity(times.len()); n],
    };
    let mut pose = Pose::rest(skeleton);
    for &t in times {
        clip.sample(t as f32, &mut pose);
        for j in 0..n {
            let local = frame.local(j, &pose.local(j));
            let previous = out.eulers[j].last().copied();
            out.eulers[j].push(euler_xyz(local.rotation, previous));
            out.translations[j].push(local.translation.as_dvec3().to_array());
            out.scales[j].push(local.scale.as_dvec3().to_array());
        }
    }
    out
}

/// The keys linear interpolation cannot drop, all of them without a tolerance.
fn kept(times: &[f64], values: &[[f64; 3]], limit: Option<f32>) -> Vec<usize> {
    let Some(limit) = limit else {
        return (0..values.len()).collect();
    };
    let track = Track::new(
        times.iter().map(|&t| t as f32).collect::<Vec<_>>(),
        values
            .iter()
            .map(|v| Vec3::from_array(v.map(|x| x as f32)))
            .collect(),
        Interpolation::Linear,
    );
    match track {
        Ok(track) => kept_vector_keys(&track, limit),
        // Times too close for f32 to keep them apart: every key stays.
        Err(_) => (0..values.len()).collect(),
    }
}

fn curve_node(id: i64, times: Vec<i64>, values: Vec<f32>) -> Node {
    let count = times.len() as i32;
    Node::new("AnimationCurve")
        .attr(id)
        .attr(object_name("", "AnimCurve"))
        .attr("")
        .value("Default", values.first().copied().unwrap_or(0.0) as f64)
        .value("KeyVer", 4009)
        .child(Node::new("KeyTime").attr(Attr::I64s(times)))
        .child(Node::new("KeyValueFloat").attr(Attr::F32s(values)))
        .child(Node::new("KeyAttrFlags").attr(Attr::I32s(vec![LINEAR])))
        .child(Node::new("KeyAttrDataFloat").attr(Attr::F32s(vec![0.0; 4])))
        .child(Node::new("KeyAttrRefCount").attr(Attr::I32s(vec![count])))
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;
    use retarget_core::JointTracks;

    fn clip_of(times: Vec<f32>) -> Clip {
        let values = vec![Quat::IDENTITY; times.len()];
        let track = Track::new(times, values, Interpolation::Linear).unwrap();
        let tracks = vec![JointTracks {
            rotation: Some(track),
            ..Default::default()
        }];
        Clip::new("c", tracks, None)
    }

    #[test]
    fn keys_stay_on_the_clips_own_times_or_fall_on_whole_frames() {
        // Uneven keys (a glTF clip's) stay where they are.
        let uneven = clip_of(vec![0.0, 0.1, 0.35, 0.4]);
        assert_eq!(
            frame_times(&uneven, None),
            vec![0.0, 0.1f32 as f64, 0.35f32 as f64, 0.4f32 as f64]
        );
        // 342 BVH frames of 0.008333 s at 120 fps: not quite 1/120, kept.
        let bvh = clip_of((0..=342).map(|k| k as f32 * 0.008333).collect());
        let times = frame_times(&bvh, Some(120.0));
        assert_eq!(times.len(), 343);
        assert!((times[342] - bvh.end_secs() as f64).abs() < 1e-6);
        assert!((times[1] - 0.008333).abs() < 1e-7, "{}", times[1]);
        // 30 fps asked of a 2.05 s clip: 61 whole frames after the first, then the end.
        let odd = clip_of(vec![0.0, 2.05]);
        let times = frame_times(&odd, Some(30.0));
        assert_eq!(times.len(), 63, "{:?}", &times[58..]);
        assert!((times[61] - 61.0 / 30.0).abs() < 1e-9 && (times[62] - 2.05).abs() < 1e-6);
        // A clip of one instant is one frame.
        assert_eq!(frame_times(&clip_of(vec![0.5]), Some(30.0)), vec![0.5]);
        assert_eq!(frame_times(&clip_of(vec![0.5]), None), vec![0.5]);
    }
}
