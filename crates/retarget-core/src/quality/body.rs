//! Body integrity: the output's bones keep the lengths of the target's own. A stretched shin
//! or a torn-off arm is something no animator accepts, whatever the motion looks like.

use super::motion::{Motion, Side};
use super::report::{Measure, Report};
use super::text;
use super::thresholds::Thresholds;
use serde::Serialize;

/// A bone length may vary by less than this share of the height over T and still be rigid.
pub const RIGID: f64 = 1e-3;

/// A bone's worst length change in the output, in target heights; the bone is named by its
/// child joint.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BoneChange {
    pub bone: String,
    pub change: f64,
    pub frame: usize,
}

/// The body measure: the worst bone length change, with the bone and frame where it happens.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BodyFigures {
    /// In target heights.
    pub max: f64,
    /// `None` when no bone changes at all (or none is rigid).
    pub bone: Option<String>,
    pub frame: Option<usize>,
    /// Bones judged, and bones of the reference (joints with a parent).
    pub rigid_bones: usize,
    pub bones: usize,
    /// Each judged bone's worst change, worst first.
    pub per_bone: Vec<BoneChange>,
}

/// One judged bone's change in the output per frame, in target heights.
pub(super) struct BoneTrack {
    pub bone: String,
    pub changes: Vec<f64>,
}

/// The bones the judge holds rigid: T joint `j` with parent `p`, where `p` has a parent too
/// (joints hung from the top, root motion or IK targets, may move against it), both present
/// in B by name, and `|T[j] − T[p]|` varying by less than `RIGID`·height(T) over T's frames.
fn rigid(t: &Motion, b: &Motion, free: &[usize]) -> Vec<(usize, usize, usize, usize)> {
    let tolerance = RIGID * t.height(0);
    let mut out = Vec::new();
    for (j, parent) in t.parents.iter().enumerate() {
        let Some(p) = *parent else { continue };
        let (Some(bj), Some(bp)) = (b.joint(&t.names[j]), b.joint(&t.names[p])) else {
            continue;
        };
        if free.contains(&bj) {
            continue;
        }
        let lengths = (0..t.frames()).map(|i| t.at(i, j).distance(t.at(i, p)));
        let (lo, hi) = lengths.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), l| {
            (lo.min(l), hi.max(l))
        });
        if t.parents[p].is_some() && hi - lo < tolerance {
            out.push((j, p, bj, bp));
        }
    }
    out
}

/// Per rigid bone, `|(|B[j] − B[p]|) − L| / height(T)` over B's frames, with `L` the length
/// at T's frame 0.
pub(super) fn bone_tracks(t: &Motion, b: &Motion, free: &[usize]) -> Vec<BoneTrack> {
    let height = t.height(0);
    let track = |(j, p, bj, bp): (usize, usize, usize, usize)| {
        let length = t.at(0, j).distance(t.at(0, p));
        let change = |i: usize| (b.at(i, bj).distance(b.at(i, bp)) - length).abs() / height;
        BoneTrack {
            bone: t.names[j].clone(),
            changes: (0..b.frames()).map(change).collect(),
        }
    };
    rigid(t, b, free).into_iter().map(track).collect()
}

pub(super) fn body_figures(t: &Motion, tracks: &[BoneTrack]) -> BodyFigures {
    let worst = |track: &BoneTrack| {
        let first_max = |(k, m): (usize, f64), (i, &c): (usize, &f64)| {
            if c > m { (i, c) } else { (k, m) }
        };
        let (frame, change) = track.changes.iter().enumerate().fold((0, 0.0), first_max);
        BoneChange {
            bone: track.bone.clone(),
            change,
            frame,
        }
    };
    let mut per_bone: Vec<BoneChange> = tracks.iter().map(worst).collect();
    per_bone.sort_by(|x, y| y.change.total_cmp(&x.change));
    let top = per_bone.first().filter(|w| w.change > 0.0);
    BodyFigures {
        max: top.map_or(0.0, |w| w.change),
        bone: top.map(|w| w.bone.clone()),
        frame: top.map(|w| w.frame),
        rigid_bones: tracks.len(),
        bones: t.parents.iter().flatten().count(),
        per_bone,
    }
}

/// Of the joints the root motion moves (`moved`), those whose bone to the parent may
/// stretch (`Spec::free`): a joint whose parent carries nothing of `body` except through it,
/// as the judge lets a joint hung from the top move. Character Creator's pelvis hangs the
/// legs beside the spine under `CC_Base_Hip`: moved alone it walks away from the torso, and
/// its bone to the hip is judged like any other.
pub fn free_joints(parents: &[Option<usize>], moved: &[usize], body: &[usize]) -> Vec<usize> {
    let above = |a: usize, j: usize| crate::skeleton::is_ancestor_in(parents, a, j);
    let alone = |j: usize| {
        parents[j].is_none_or(|p| !body.iter().any(|&k| k != j && above(p, k) && !above(j, k)))
    };
    moved.iter().copied().filter(|&j| alone(j)).collect()
}

/// Bone lengths of `b` against the target's own dump `t` (rest pose, or its own clip).
pub fn integrity(t: &Motion, b: &Motion) -> BodyFigures {
    body_figures(t, &bone_tracks(t, b, &[]))
}

impl Report {
    /// Holds the output's bones (`b`, with the joints `free` to leave their parents) also
    /// against the target as its file declares it (`declared`: its rest and its own clip, as
    /// any reader of the file poses it), beside the reference the retarget stood on: the
    /// body figure is the worse of the two. A reference pose whose bones keep the lengths a
    /// stale bind gave them agrees with every output built on it; the file's own reading
    /// does not. A bone the declared reading itself changes is left out, as the judge does.
    pub fn add_declared_body(&mut self, declared: &Motion, b: &Motion, free: &[usize]) {
        if declared.validate(Side::Reference).is_err() || declared.height(0) <= 0.0 {
            return;
        }
        let tracks = bone_tracks(declared, b, free);
        let figures = body_figures(declared, &tracks);
        if figures.max <= self.body.max {
            return;
        }
        let limit = self.thresholds.body;
        let mut rows: Vec<f64> = match self.frame_row(Measure::Body) {
            Some(row) => row.iter().map(|&w| f64::from(w)).collect(),
            None => vec![0.0; self.frames],
        };
        for (i, &c) in tracks.iter().flat_map(|t| t.changes.iter().enumerate()) {
            if let Some(w) = rows.get_mut(i) {
                *w = w.max(Thresholds::severity(c, limit));
            }
        }
        self.set_verdict(Measure::Body, figures.max, limit, || {
            text::body_flag(&figures, limit)
        });
        self.add_frame_row(Measure::Body, &rows);
        self.body = figures;
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{HIPS, L_FOOT, L_KNEE, Walk, edited, rest};
    use super::*;
    use glam::Vec3;

    #[test]
    fn a_copy_keeps_every_bone_and_only_eleven_are_judged() {
        let a = Walk::default().motion();
        let got = integrity(&rest(&a), &a);
        assert!(got.max < 1e-5, "{}", got.max);
        // spine and both upper legs hang from the top (hips) and are left out.
        assert_eq!((got.rigid_bones, got.bones), (11, 14));
    }

    #[test]
    fn a_stretching_shin_is_found_with_its_frame() {
        let a = Walk::default().motion();
        let b = edited(&a, |i, j, p| {
            if j != L_FOOT {
                return p;
            }
            let shin = (p - a.positions[i][L_KNEE]).normalize();
            p + shin * if i == 20 { 0.035 } else { 0.0175 }
        });
        let got = integrity(&rest(&a), &b);
        assert!((got.max - 0.02).abs() < 1e-5, "{}", got.max);
        assert_eq!((got.bone.as_deref(), got.frame), (Some("foot.L"), Some(20)));
        assert_eq!(got.per_bone[0].bone, "foot.L");
        assert!(got.per_bone[1].change < 1e-5);
    }

    #[test]
    fn joints_hung_from_the_top_may_move() {
        let a = Walk::default().motion();
        // The spine and everything on it 10 cm higher: only hips→spine changes.
        let b = edited(&a, |_, j, p| {
            if [1, 2, 9, 10, 11, 12, 13, 14].contains(&j) {
                p + Vec3::Y * 0.1
            } else {
                p
            }
        });
        assert!(integrity(&rest(&a), &b).max < 1e-5);
        let hips_spine = b.positions[0][1].distance(b.positions[0][HIPS]);
        assert!((hips_spine - 0.5).abs() < 1e-5);
    }

    /// Character Creator's split at the hips: `hip` carries the spine (`waist`) and the
    /// `pelvis` (a zero-length bone) the legs.
    fn split_hips(pelvis_drift: f32) -> Motion {
        let names = ["root", "hip", "pelvis", "waist", "thigh", "calf"];
        let rest = [
            Vec3::ZERO,
            Vec3::new(0.0, 0.95, 0.0),
            Vec3::new(0.0, 0.95, 0.0),
            Vec3::new(0.0, 1.05, 0.0),
            Vec3::new(0.1, 0.9, 0.0),
            Vec3::new(0.1, 0.5, 0.0),
        ];
        let frame = |i: usize| {
            let drift = Vec3::Z * pelvis_drift * i as f32;
            (0..6)
                .map(|j| {
                    rest[j]
                        + if [2, 4, 5].contains(&j) {
                            drift
                        } else {
                            Vec3::ZERO
                        }
                })
                .collect()
        };
        Motion {
            times: (0..4).map(|i| i as f32 / 30.0).collect(),
            names: names.iter().map(|n| n.to_string()).collect(),
            parents: vec![None, Some(0), Some(1), Some(1), Some(2), Some(4)],
            positions: (0..4).map(frame).collect(),
        }
    }

    #[test]
    fn a_pelvis_that_leaves_the_spine_behind_is_not_free() {
        let (t, b) = (rest(&split_hips(0.0)), split_hips(0.5));
        // The walk's root motion put on the pelvis alone: the hip, carrying the waist,
        // stays behind.
        let free = free_joints(&t.parents, &[2], &[1, 2, 3, 4, 5]);
        assert!(free.is_empty(), "{free:?}");
        let got = body_figures(&t, &bone_tracks(&t, &b, &free));
        assert_eq!((got.bone.as_deref(), got.frame), (Some("pelvis"), Some(3)));
        assert!((got.max - 1.5 / t.height(0)).abs() < 1e-5, "{}", got.max);
        // Moved with the hip, the body stays whole; the hip hangs from the top.
        assert_eq!(free_joints(&t.parents, &[1], &[1, 2, 3, 4, 5]), [1]);
        // A fox's hips under a root bone that carries nothing else may leave it.
        let fox = [None, Some(0), Some(1), Some(2)];
        assert_eq!(free_joints(&fox, &[2], &[1, 2, 3]), [2]);
    }

    #[test]
    fn bones_that_already_vary_in_the_reference_are_left_out() {
        let a = Walk::default().motion();
        // The target's own clip nods its head 1 cm: spine→head is not rigid.
        let t = edited(&a, |i, j, p| {
            if j == 2 && i == 5 {
                p + Vec3::Y * 0.01
            } else {
                p
            }
        });
        let b = edited(&a, |_, j, p| if j == 2 { p + Vec3::Y * 0.05 } else { p });
        let got = integrity(&t, &b);
        assert_eq!(got.rigid_bones, 10);
        assert!(got.max < 1e-5);
        // Held against the rest pose, the same output is 5 cm / 1.75 m off.
        assert!((integrity(&rest(&a), &b).max - 0.05 / 1.75).abs() < 1e-5);
    }
}
