//! FABRIK (Aristidou and Lasenby 2011), the crowd paper's solver for chains of more than two
//! bones: alternately pull the chain from its end onto the goal and from its root back onto
//! the root, each bone keeping its length. Works in place on the caller's positions, so a
//! solve allocates nothing; the starting shape decides the bend (it keeps its half-plane).

use glam::Vec3;

/// Iteration cap and tolerance (a share of the chain's length).
pub const MAX_ITERATIONS: usize = 32;
pub const TOLERANCE: f32 = 1e-5;

/// Solves `points` (joint positions root first, `lengths[i]` between points `i` and `i + 1`)
/// so the last point reaches `goal`, the first staying put. A goal out of reach straightens
/// the chain towards it. Returns the iterations used.
pub fn solve(points: &mut [Vec3], lengths: &[f32], goal: Vec3) -> usize {
    let n = points.len();
    if n < 2 || lengths.len() + 1 != n {
        return 0;
    }
    let root = points[0];
    let total: f32 = lengths.iter().sum();
    if root.distance(goal) >= total {
        let dir = (goal - root).try_normalize().unwrap_or(Vec3::NEG_Y);
        for i in 0..n - 1 {
            points[i + 1] = points[i] + dir * lengths[i];
        }
        return 0;
    }
    let tolerance = TOLERANCE * total.max(1e-9);
    for iteration in 0..MAX_ITERATIONS {
        if points[n - 1].distance(goal) <= tolerance {
            return iteration;
        }
        points[n - 1] = goal;
        for i in (0..n - 1).rev() {
            points[i] = toward(points[i + 1], points[i], lengths[i]);
        }
        points[0] = root;
        for i in 0..n - 1 {
            points[i + 1] = toward(points[i], points[i + 1], lengths[i]);
        }
    }
    MAX_ITERATIONS
}

/// The point `length` from `from` in the direction of `to` (straight down when they meet).
fn toward(from: Vec3, to: Vec3, length: f32) -> Vec3 {
    from + (to - from).try_normalize().unwrap_or(Vec3::NEG_Y) * length
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zigzag() -> (Vec<Vec3>, Vec<f32>) {
        let p = vec![
            Vec3::ZERO,
            Vec3::new(0.0, -0.3, 0.1),
            Vec3::new(0.0, -0.6, -0.05),
            Vec3::new(0.0, -0.8, 0.05),
        ];
        let l = p.windows(2).map(|w| w[0].distance(w[1])).collect();
        (p, l)
    }

    #[test]
    fn a_goal_in_reach_is_reached_with_every_bone_its_length() {
        let (mut p, l) = zigzag();
        let goal = Vec3::new(0.1, -0.6, 0.2);
        solve(&mut p, &l, goal);
        assert!(p[3].distance(goal) < 1e-4, "{}", p[3]);
        assert_eq!(p[0], Vec3::ZERO);
        for (i, w) in p.windows(2).enumerate() {
            assert!((w[0].distance(w[1]) - l[i]).abs() < 1e-5);
        }
    }

    #[test]
    fn out_of_reach_the_chain_lies_straight_towards_the_goal() {
        let (mut p, l) = zigzag();
        let total: f32 = l.iter().sum();
        solve(&mut p, &l, Vec3::new(0.0, -5.0, 0.0));
        assert!(p[3].abs_diff_eq(Vec3::new(0.0, -total, 0.0), 1e-5));
    }
}
