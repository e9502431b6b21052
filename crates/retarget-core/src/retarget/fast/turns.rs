//! Local rotations of the form `before · Ls · after` (`locals`), four joints at a time. One
//! joint's two quaternion products and normalisation in glam's SSE2 code are about 90
//! instructions, shuffles mostly; four joints laid out as lanes (x, y, z, w of four
//! quaternions in four registers) take plain multiplies and adds, and the normalisation is
//! one Newton step, exact to float noise for the near-unit products of unit quaternions.

use crate::quat_lanes::{Lanes, lanes, quats};
use glam::{Quat, Vec4};

/// How far from 1 a squared length may be for the Newton step (its error, `3e²/8`, is then
/// under 4e-7); a lane farther out takes glam's normalisation.
const NEAR_UNIT: f32 = 1e-3;

/// The joints, four to a batch (the last batch repeats its last joint).
#[derive(Clone, Debug, Default)]
pub(in crate::retarget) struct Turns {
    targets: Vec<[usize; 4]>,
    sources: Vec<[usize; 4]>,
    before: Vec<Lanes>,
    after: Vec<Lanes>,
}

/// Hamilton products `a · b`, lane by lane.
#[inline(always)]
fn mul([ax, ay, az, aw]: Lanes, [bx, by, bz, bw]: Lanes) -> Lanes {
    [
        aw * bx + ax * bw + ay * bz - az * by,
        aw * by - ax * bz + ay * bw + az * bx,
        aw * bz + ax * by - ay * bx + az * bw,
        aw * bw - ax * bx - ay * by - az * bz,
    ]
}

/// Unit quaternions of `l`: one Newton step of `1/√n²` about 1 where every lane is near
/// unit, glam's `normalize` per lane otherwise (a source that is far from unit, or NaN).
#[inline(always)]
fn normalized(l: Lanes) -> [Quat; 4] {
    let [x, y, z, w] = l;
    let n2 = x * x + y * y + z * z + w * w;
    let near = (n2 - Vec4::ONE).abs().cmplt(Vec4::splat(NEAR_UNIT)).all();
    if near {
        let k = Vec4::splat(1.5) - n2 * 0.5;
        quats([x * k, y * k, z * k, w * k])
    } else {
        quats(l).map(Quat::normalize)
    }
}

impl Turns {
    /// `joints`: (target, source joint, before, after).
    pub fn new(joints: &[(usize, usize, Quat, Quat)]) -> Self {
        let mut t = Self::default();
        for batch in joints.chunks(4) {
            let at = |k: usize| batch[k.min(batch.len() - 1)];
            t.targets.push(std::array::from_fn(|k| at(k).0));
            t.sources.push(std::array::from_fn(|k| at(k).1));
            t.before.push(lanes(std::array::from_fn(|k| at(k).2)));
            t.after.push(lanes(std::array::from_fn(|k| at(k).3)));
        }
        t
    }

    /// Writes each joint's `before · source[s] · after`, normalised, into `out`.
    pub fn solve(&self, source: &[Quat], out: &mut [Quat]) {
        let batches = self.targets.iter().zip(&self.sources);
        for ((targets, sources), (before, after)) in
            batches.zip(self.before.iter().zip(&self.after))
        {
            let local = lanes(sources.map(|s| source[s]));
            let turned = normalized(mul(mul(*before, local), *after));
            for (&t, q) in targets.iter().zip(turned) {
                out[t] = q;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::EulerRot;

    fn q(k: usize) -> Quat {
        let k = k as f32;
        Quat::from_euler(EulerRot::XYZ, 0.7 * k, -0.4 + 0.1 * k, 0.3 * k * k)
    }

    /// Batches of four and a partial one give glam's products, normalised, within float
    /// noise; a far-from-unit source is normalised exactly.
    #[test]
    fn lanes_give_glams_products() {
        let mut source: Vec<Quat> = (0..9).map(q).collect();
        source[4] *= 3.0;
        let joints: Vec<_> = (0..7)
            .map(|k| (k + 2, 8 - k, q(k + 10), q(k + 20)))
            .collect();
        let turns = Turns::new(&joints);
        let mut out = vec![Quat::IDENTITY; 9];
        turns.solve(&source, &mut out);
        for &(t, s, before, after) in &joints {
            let want = (before * source[s] * after).normalize();
            let same = out[t].abs_diff_eq(want, 2e-6) || out[t].abs_diff_eq(-want, 2e-6);
            assert!(same, "joint {t}: {} against {want}", out[t]);
            assert!((out[t].length() - 1.0).abs() < 1e-6);
        }
        assert_eq!(
            out[..2],
            [Quat::IDENTITY; 2],
            "only the targets are written"
        );
    }
}
