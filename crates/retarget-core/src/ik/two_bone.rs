//! The analytic two-bone solver of the crowd paper (§4): the middle joint lies on the circle
//! where the spheres about the chain's two ends meet, at the point of that circle on the
//! chain's half-plane. Exact, no iteration, no allocation.

use glam::Vec3;

/// Where the middle joint goes: `root` and the goal (clamped into reach) fixed, the bones
/// `upper` and `lower` long, the joint on the half-plane that contains the root→goal line
/// and points towards `pole` (a direction, any length, perpendicular part used). Returns the
/// middle joint and the end's position (the goal, or the nearest point in reach).
pub fn solve(root: Vec3, goal: Vec3, upper: f32, lower: f32, pole: Vec3) -> (Vec3, Vec3) {
    let to_goal = goal - root;
    let reach_max = (upper + lower) * (1.0 - 1e-5);
    let reach_min = (upper - lower).abs() * (1.0 + 1e-5);
    let dist = to_goal.length();
    let axis = if dist > 1e-9 {
        to_goal / dist
    } else {
        pole.try_normalize()
            .unwrap_or(Vec3::Y)
            .any_orthonormal_vector()
    };
    // Bones of very different lengths in f32 can round the band shut: never min > max.
    let hi = reach_max.max(1e-9);
    let d = dist.clamp(reach_min.max(1e-9).min(hi), hi);
    let end = root + axis * d;
    // The circle: centre along the axis at `x`, radius `r` (law of cosines).
    let x = (d * d + upper * upper - lower * lower) / (2.0 * d);
    let r = (upper * upper - x * x).max(0.0).sqrt();
    let bend = half_plane(axis, pole);
    (root + axis * x + bend * r, end)
}

/// The unit direction in the plane of `axis` and `pole`, perpendicular to `axis`, on the
/// pole's side; any perpendicular when the pole lies along the axis.
pub fn half_plane(axis: Vec3, pole: Vec3) -> Vec3 {
    (pole - axis * pole.dot(axis))
        .try_normalize()
        .unwrap_or_else(|| axis.any_orthonormal_vector())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_reaches_a_goal_in_reach_and_the_bones_keep_their_lengths() {
        let (root, goal) = (Vec3::ZERO, Vec3::new(0.3, -0.7, 0.2));
        let (mid, end) = solve(root, goal, 0.5, 0.45, Vec3::Z);
        assert!(end.abs_diff_eq(goal, 1e-6));
        assert!((mid.distance(root) - 0.5).abs() < 1e-5);
        assert!((mid.distance(end) - 0.45).abs() < 1e-5);
        // The knee bends to the pole's side of the root→goal line.
        let axis = (goal - root).normalize();
        let off = mid - root - axis * (mid - root).dot(axis);
        assert!(off.dot(Vec3::Z) > 0.0);
    }

    #[test]
    fn out_of_reach_the_chain_straightens_towards_the_goal() {
        let (mid, end) = solve(Vec3::ZERO, Vec3::new(0.0, -3.0, 0.0), 1.0, 1.0, Vec3::Z);
        assert!(end.abs_diff_eq(Vec3::new(0.0, -2.0, 0.0), 1e-3));
        assert!(mid.abs_diff_eq(Vec3::new(0.0, -1.0, 0.0), 1e-2));
        // Too close: the nearest reachable distance, not NaN.
        let (mid, end) = solve(Vec3::ZERO, Vec3::ZERO, 1.0, 0.5, Vec3::Z);
        assert!(mid.is_finite() && end.is_finite());
        assert!((end.length() - 0.5).abs() < 1e-3);
    }

    #[test]
    fn bones_of_very_different_lengths_do_not_panic() {
        // Found by the fuzz harness (a VRMA whose bone was 65535 long next to a tiny one).
        let (mid, end) = solve(Vec3::ZERO, Vec3::X, 65535.0, 0.0002, Vec3::Z);
        assert!(mid.is_finite() && end.is_finite());
    }

    #[test]
    fn the_half_plane_holds_whatever_the_goal() {
        // Goals all round the root: the knee never crosses to the other side (no flips).
        for k in 0..36 {
            let a = k as f32 * 10f32.to_radians();
            let goal = Vec3::new(a.sin() * 0.2, -0.8, a.cos() * 0.1 - 0.3);
            let (mid, _) = solve(Vec3::ZERO, goal, 0.5, 0.5, Vec3::Z);
            let axis = goal.normalize();
            let bend = mid - axis * mid.dot(axis);
            assert!(bend.dot(half_plane(axis, Vec3::Z)) > 0.0, "goal {goal}");
        }
    }
}
