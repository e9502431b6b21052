//! Where planted feet go (#12): each contact's plant on the ground plane, eased in and out,
//! and how far the hips come down for legs that cannot reach.

use crate::core::contacts::FootContact;
use glam::Vec3;

/// How a contact's plant moves: not at all, or as the source's foot moves.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Plant {
    /// The retarget slides the foot no more than the source does: leave it.
    Free,
    /// Held still where the solved foot averages (the source's foot only jitters).
    Still,
    /// Moved as the source's foot moves about its own average, scaled (the source slides
    /// it on purpose: an in-place walk, a skid).
    Following,
}

/// A foot that travels less than this share of the figure's height over a contact is
/// planted; one that travels further slides on purpose.
const DELIBERATE_SLIDE: f32 = 0.03;

/// Path length on the ground plane over `frames`.
fn travel(path: &[Vec3]) -> f32 {
    path.windows(2)
        .map(|w| Vec3::new(w[1].x - w[0].x, 0.0, w[1].z - w[0].z).length())
        .sum()
}

fn plant_kind(solved: &[Vec3], source: &[Vec3], scale: f32, height: f32) -> Plant {
    let wanted = travel(source) * scale;
    if travel(solved) <= wanted * 1.02 + 1e-4 * height {
        return Plant::Free;
    }
    let (a, b) = (source[0], source[source.len() - 1]);
    let net = Vec3::new(b.x - a.x, 0.0, b.z - a.z).length() * scale;
    if net > DELIBERATE_SLIDE * height {
        Plant::Following
    } else {
        Plant::Still
    }
}

/// Per frame, the goal of a foot: `None` where it is free, else the solved position eased
/// onto the contact's plant on the ground plane (`plant_kind`): a contact the retarget
/// does not make slide is left alone (one body under other names gives its clip back), a
/// planted foot is held at the solved foot's average over the contact, and a foot the
/// source slides on purpose slides as the source's does (`scale`: target over source
/// height). With `ground` (the target's floor under this foot, the source foot's lowest
/// height) the goal's height is the source's above its lowest, scaled, over that floor, so
/// a planted foot stands as high as the source's; every contact then gets a goal, a free
/// one for its height alone. `height` is the target's.
pub(super) fn eased_goals(
    solved: &[Vec3],
    source: &[Vec3],
    (scale, height): (f32, f32),
    ground: Option<(f32, f32)>,
    contacts: &[FootContact],
    blend: usize,
) -> Vec<Option<Vec3>> {
    let frames = solved.len().min(source.len());
    let mut best = vec![0.0f32; frames];
    let mut goal = vec![None; frames];
    for c in contacts {
        let end = c.end.min(frames.saturating_sub(1));
        if c.start > end {
            continue;
        }
        let (run, src) = (&solved[c.start..=end], &source[c.start..=end]);
        let kind = plant_kind(run, src, scale, height);
        if kind == Plant::Free && ground.is_none() {
            continue;
        }
        let count = run.len() as f32;
        let plant = run.iter().sum::<Vec3>() / count;
        let centre = src.iter().sum::<Vec3>() / count;
        let anchor = |f: usize| match kind {
            Plant::Following => plant + (source[f.clamp(c.start, end)] - centre) * scale,
            // Not held: only its height is set (below).
            Plant::Free => solved[f],
            Plant::Still => plant,
        };
        let from = c.start.saturating_sub(blend);
        let to = (end + blend).min(frames - 1);
        for f in from..=to {
            let d = if f < c.start {
                c.start - f
            } else {
                f.saturating_sub(end)
            };
            let x = 1.0 - d as f32 / (blend + 1) as f32;
            let w = x * x * (3.0 - 2.0 * x);
            if w > best[f] {
                best[f] = w;
                let held = solved[f].lerp(anchor(f), w);
                let y = ground.map_or(solved[f].y, |(floor, lowest)| {
                    let src = source[f.clamp(c.start, end)].y;
                    let stands = floor + (src - lowest) * scale;
                    solved[f].y + (stands - solved[f].y) * w
                });
                goal[f] = Some(Vec3::new(held.x, y, held.z));
            }
        }
    }
    goal
}

/// How far the leg's top must come down for a goal `reach` away to be reached; `None`
/// when it already reaches, or when the goal is too far to the side for lowering to help.
pub(super) fn drop_to_reach(top: Vec3, goal: Vec3, reach: f32) -> Option<f32> {
    let d = goal - top;
    if d.length() <= reach {
        return None;
    }
    let side = Vec3::new(d.x, 0.0, d.z).length();
    if side >= reach {
        return None;
    }
    let drop = -d.y - (reach * reach - side * side).sqrt();
    (drop > 0.0).then_some(drop)
}

/// A running maximum over ±`radius` frames, then a running mean over ±`radius`: never
/// below the need at any frame, and eased in and out.
pub(super) fn smoothed_max(need: &[f32], radius: usize) -> Vec<f32> {
    let n = need.len();
    let radius = radius.min(n);
    let window = |f: usize| f.saturating_sub(radius)..(f + radius + 1).min(n);
    let peak: Vec<f32> = (0..n)
        .map(|f| need[window(f)].iter().copied().fold(0.0, f32::max))
        .collect();
    (0..n)
        .map(|f| {
            let w = window(f);
            let count = w.len() as f32;
            let mean = peak[w].iter().sum::<f32>() / count;
            // The edges of the clip average fewer frames; never below the need itself.
            mean.max(need[f])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_goal_out_of_reach_below_asks_the_hips_down_just_enough() {
        let top = Vec3::new(0.0, 1.0, 0.0);
        let goal = Vec3::new(0.3, 0.0, 0.0);
        let drop = drop_to_reach(top, goal, 0.9).unwrap();
        let lowered = top - Vec3::Y * drop;
        assert!((lowered.distance(goal) - 0.9).abs() < 1e-5);
        assert!(drop_to_reach(top, Vec3::new(0.0, 0.5, 0.0), 0.9).is_none());
        assert!(drop_to_reach(top, Vec3::new(2.0, 1.0, 0.0), 0.9).is_none());
    }

    #[test]
    fn the_smoothed_drop_covers_every_frame_s_need_and_eases() {
        let mut need = vec![0.0; 20];
        need[10] = 0.05;
        need[11] = 0.04;
        let s = smoothed_max(&need, 3);
        for (a, b) in need.iter().zip(&s) {
            assert!(b >= a);
        }
        assert_eq!(s[0], 0.0);
        assert!(s[6] > 0.0 && s[6] < s[8], "{s:?}");
    }

    #[test]
    fn a_planted_foot_holds_one_place_and_eases_there() {
        // The solved foot slides 1 cm a frame; the contact holds it at the average.
        let solved: Vec<Vec3> = (0..20)
            .map(|f| Vec3::new(f as f32 * 0.01, 0.0, 0.0))
            .collect();
        let still = vec![Vec3::new(0.3, 0.0, 0.0); 20];
        let contact = [FootContact { start: 5, end: 12 }];
        let goals = eased_goals(&solved, &still, (1.0, 1.7), None, &contact, 2);
        let plant = goals[5].unwrap();
        for g in &goals[5..=12] {
            assert_eq!(g.unwrap(), plant);
        }
        assert!((plant.x - 0.085).abs() < 1e-6);
        assert_eq!(plant.y, 0.0);
        assert!(goals[2].is_none() && goals[15].is_none());
        assert!(goals[3].is_some() && goals[14].is_some());
        // A source foot that slides as the solved one does: left alone.
        let sliding: Vec<Vec3> = solved.iter().map(|p| *p * 2.0).collect();
        let goals = eased_goals(&solved, &sliding, (0.5, 1.7), None, &contact, 2);
        assert!(goals.iter().all(Option::is_none));
        // One the source slides on purpose, but half as far: the goal slides as the source.
        let half: Vec<Vec3> = solved.iter().map(|p| *p * 0.5).collect();
        let goals = eased_goals(&solved, &half, (1.0, 0.5), None, &contact, 2);
        let (a, b) = (goals[5].unwrap(), goals[12].unwrap());
        assert!((b.x - a.x - 0.035).abs() < 1e-5, "{a} {b}");
    }
}
