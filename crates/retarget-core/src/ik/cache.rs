//! The crowd paper's IK cache (§4): a chain's IK result, seen in the chain's own frame (the
//! root→goal line and its half-plane), depends only on how far the goal is, as a share of
//! the chain's length. FABRIK is run once per chain for 51 such ratios (a sample every 2 %)
//! and a solve interpolates the two nearest samples: no iteration per frame.

use super::fabrik;
use super::two_bone::half_plane;
use glam::Vec3;

/// Samples of the length ratio from 0 to 1: one every 2 % of the chain's length.
pub const SAMPLES: usize = 51;

/// One chain's cached shapes.
#[derive(Clone, Debug, PartialEq)]
pub struct IkCache {
    lengths: Vec<f32>,
    total: f32,
    /// `SAMPLES` shapes of `lengths.len() + 1` points, in the chain frame (x along the
    /// root→goal line, y towards the bend, z = x × y), root at the origin.
    samples: Vec<Vec3>,
}

impl IkCache {
    /// Fills the cache from the chain's joint positions in its reference pose (root first),
    /// whose bend decides the half-plane. `None` for a chain of fewer than two bones or of
    /// no length.
    pub fn new(reference: &[Vec3]) -> Option<Self> {
        if reference.len() < 3 {
            return None;
        }
        let lengths: Vec<f32> = reference.windows(2).map(|w| w[0].distance(w[1])).collect();
        let total: f32 = lengths.iter().sum();
        if total <= 1e-9 {
            return None;
        }
        let (root, end) = (reference[0], reference[reference.len() - 1]);
        let x = (end - root).try_normalize().unwrap_or(Vec3::NEG_Y);
        let y = half_plane(x, bend_of(reference));
        let z = x.cross(y);
        let shape: Vec<Vec3> = reference
            .iter()
            .map(|p| {
                let d = *p - root;
                Vec3::new(d.dot(x), d.dot(y), d.dot(z))
            })
            .collect();
        let mut samples = Vec::with_capacity(SAMPLES * shape.len());
        let mut points = shape.clone();
        for k in 0..SAMPLES {
            let ratio = k as f32 / (SAMPLES - 1) as f32;
            points.copy_from_slice(&shape);
            fabrik::solve(&mut points, &lengths, Vec3::X * ratio * total);
            samples.extend_from_slice(&points);
        }
        Some(Self {
            lengths,
            total,
            samples,
        })
    }

    /// Points per chain (bones + 1).
    pub fn points(&self) -> usize {
        self.lengths.len() + 1
    }

    pub fn lengths(&self) -> &[f32] {
        &self.lengths
    }

    /// The chain's joints for a goal, root at `root`, bending towards `pole`, written into
    /// `out` (`points()` long): the two nearest samples blended, then each bone laid at its
    /// length along the blended direction.
    pub fn solve_into(&self, root: Vec3, goal: Vec3, pole: Vec3, out: &mut [Vec3]) {
        let n = self.points();
        let to_goal = goal - root;
        let d = to_goal.length();
        let x = if d > 1e-9 { to_goal / d } else { Vec3::NEG_Y };
        let y = half_plane(x, pole);
        let z = x.cross(y);
        let at = (d / self.total).clamp(0.0, 1.0) * (SAMPLES - 1) as f32;
        let i = (at.floor() as usize).min(SAMPLES - 2);
        let t = at - i as f32;
        let (a, b) = (
            &self.samples[i * n..][..n],
            &self.samples[(i + 1) * n..][..n],
        );
        out[0] = root;
        let mut previous = a[0].lerp(b[0], t);
        for j in 1..n {
            let local = a[j].lerp(b[j], t);
            let step = local - previous;
            previous = local;
            let dir = (x * step.x + y * step.y + z * step.z)
                .try_normalize()
                .unwrap_or(x);
            out[j] = out[j - 1] + dir * self.lengths[j - 1];
        }
    }
}

/// Which way a chain bends: the middle joints' offsets from the root→end line, summed.
pub fn bend_of(points: &[Vec3]) -> Vec3 {
    let (root, end) = (points[0], points[points.len() - 1]);
    let x = (end - root).try_normalize().unwrap_or(Vec3::NEG_Y);
    points[1..points.len() - 1]
        .iter()
        .map(|p| {
            let d = *p - root;
            d - x * d.dot(x)
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leg() -> Vec<Vec3> {
        // A fox's hind leg: folded, three bones and a foot.
        vec![
            Vec3::new(0.0, 0.5, 0.0),
            Vec3::new(0.0, 0.3, 0.12),
            Vec3::new(0.0, 0.12, -0.04),
            Vec3::new(0.0, 0.0, 0.02),
        ]
    }

    #[test]
    fn cached_solves_land_near_fabrik_and_keep_the_bend() {
        let reference = leg();
        let cache = IkCache::new(&reference).unwrap();
        let pole = bend_of(&reference);
        let mut out = vec![Vec3::ZERO; 4];
        let mut worst = 0.0f32;
        for k in 0..20 {
            let goal = Vec3::new(0.02 * (k as f32).sin(), 0.05 + 0.01 * k as f32, 0.03);
            cache.solve_into(reference[0], goal, pole, &mut out);
            let mut full = reference.clone();
            fabrik::solve(&mut full, cache.lengths(), goal);
            worst = worst.max(out[3].distance(full[3]));
            for (j, l) in cache.lengths().iter().enumerate() {
                assert!((out[j].distance(out[j + 1]) - l).abs() < 1e-5);
            }
            // The knee stays on the pole's side of the root→goal line, as in the reference.
            let x = (goal - reference[0]).normalize();
            let knee = out[1] - reference[0];
            assert!(
                (knee - x * knee.dot(x)).dot(half_plane(x, pole)) > 0.0,
                "bend kept"
            );
        }
        // Within 1 % of the chain's length of the full solve (0.56 long here).
        assert!(worst < 5.6e-3, "worst end gap {worst}");
    }

    #[test]
    fn a_chain_too_short_has_no_cache() {
        assert!(IkCache::new(&[Vec3::ZERO, Vec3::Y]).is_none());
        assert!(IkCache::new(&[Vec3::ZERO; 3]).is_none());
    }
}
