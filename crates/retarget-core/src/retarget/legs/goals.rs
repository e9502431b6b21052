//! Where planted feet go: each contact's plant on the ground plane, eased in and out,
//! and how far the hips come down for legs that cannot reach.

use crate::contacts::FootContact;
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

/// How far past the source's slide, scaled, a contact left to the retarget may slide its
/// foot over any stretch of its frames, as a share of the target's height (1.75 mm at
/// 1.75 m): the judge reads every contact's own path, so a foot that keeps up with the
/// source's over the whole contact may still slide past it over the part that counts.
const FREE_EXCESS: f32 = 0.001;

/// How a source foot's slide and height scale onto the target, and the target's height.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::retarget) struct Sizes {
    /// A slide on the ground plane.
    pub slide: f32,
    /// A foot's height above its lowest: target over source height.
    pub lift: f32,
    /// The target's height.
    pub height: f32,
}

impl Sizes {
    /// From the two figures' heights and the stride's scale (the root motion's: target over
    /// source leg length). A slide scales as the stride does, by height only where that is
    /// less: a height counts whatever a file hangs above the head (CMU's 01_01 has a head
    /// end 0.1 m up where 02_01 has none: 7 % taller on the same legs), and a foot allowed
    /// that much more slide than the source's slid 6.5 mm past the source's worst contact.
    pub fn new(source_height: f32, target_height: f32, stride: Option<f32>) -> Self {
        let lift = target_height / source_height;
        let stride = stride.filter(|s| s.is_finite() && *s > 0.0);
        Self {
            slide: stride.map_or(lift, |s| s.min(lift)),
            lift,
            height: target_height,
        }
    }
}

/// Step length on the ground plane into frame `k` of `path`.
fn step(path: &[Vec3], k: usize) -> f32 {
    let d = path[k] - path[k - 1];
    Vec3::new(d.x, 0.0, d.z).length()
}

/// The most the `solved` foot slides past the `source` foot's slide, scaled, over any run
/// of consecutive frames (a running sum of the excess that restarts where it would go
/// negative: the largest sum over any stretch).
fn worst_excess(solved: &[Vec3], source: &[Vec3], scale: f32) -> f32 {
    let (mut run, mut worst) = (0.0f32, 0.0f32);
    for k in 1..solved.len().min(source.len()) {
        run = (run + step(solved, k) - step(source, k) * scale).max(0.0);
        worst = worst.max(run);
    }
    worst
}

/// A contact to plant, and the frame its hold begins: the first of the frames before it
/// where the source foot already stays (`contacts::settled_from`), or its first frame.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(in crate::retarget) struct Hold {
    pub contact: FootContact,
    pub from: usize,
}

/// How `hold` (within the tracks, its end at most `end`) moves its plant. Free only where
/// the solved foot slides no further than the source's over every stretch of frames a
/// contact there could be judged on (each step into a held frame, the first included); a
/// slide on purpose by the source foot's net travel over the contact itself (not the
/// arrival the hold reaches back over).
fn plant_kind(solved: &[Vec3], source: &[Vec3], hold: Hold, end: usize, sizes: Sizes) -> Plant {
    let before = hold.from.saturating_sub(1);
    let (run, src) = (&solved[before..=end], &source[before..=end]);
    if worst_excess(run, src, sizes.slide) <= FREE_EXCESS * sizes.height {
        return Plant::Free;
    }
    let (a, b) = (source[hold.contact.start], source[end]);
    let net = Vec3::new(b.x - a.x, 0.0, b.z - a.z).length() * sizes.slide;
    if net > DELIBERATE_SLIDE * sizes.height {
        Plant::Following
    } else {
        Plant::Still
    }
}

/// The weight of a plant `d` frames outside its hold, eased over `blend` frames
/// (smoothstep): 1 inside, 0 from `blend + 1` frames out.
fn ease(d: usize, blend: usize) -> f32 {
    let x = 1.0 - d as f32 / (blend + 1) as f32;
    x * x * (3.0 - 2.0 * x)
}

/// Per frame, the goal of a foot: `None` where it is free, else the solved position eased
/// onto the contact's plant on the ground plane (`plant_kind`): a contact the retarget
/// slides no further than the source's, over any stretch of it, is left alone, a planted
/// foot is held at the solved foot's average over the contact, and a foot the source
/// slides on purpose slides as the source's does, scaled. Each plant holds from its
/// `Hold::from` and eases in before it. With `ground` (the target's floor under this foot,
/// the source foot's lowest height) the goal's height is the source's above its lowest,
/// scaled, over that floor, so a planted foot stands as high as the source's; every
/// contact then gets a goal, a free one for its height alone.
pub(in crate::retarget) fn eased_goals(
    solved: &[Vec3],
    source: &[Vec3],
    sizes: Sizes,
    ground: Option<(f32, f32)>,
    holds: &[Hold],
    blend: usize,
) -> Vec<Option<Vec3>> {
    let frames = solved.len().min(source.len());
    let mut best = vec![0.0f32; frames];
    let mut goal = vec![None; frames];
    for &hold in holds {
        let c = hold.contact;
        let end = c.end.min(frames.saturating_sub(1));
        if c.start > end || hold.from > c.start {
            continue;
        }
        let kind = plant_kind(solved, source, hold, end, sizes);
        if kind == Plant::Free && ground.is_none() {
            continue;
        }
        let (run, src) = (&solved[c.start..=end], &source[c.start..=end]);
        let count = run.len() as f32;
        let plant = run.iter().sum::<Vec3>() / count;
        let centre = src.iter().sum::<Vec3>() / count;
        let anchor = |f: usize| match kind {
            Plant::Following => plant + (source[f.clamp(c.start, end)] - centre) * sizes.slide,
            // Not held: only its height is set (below).
            Plant::Free => solved[f],
            Plant::Still => plant,
        };
        let to = (end + blend).min(frames - 1);
        for f in hold.from.saturating_sub(blend)..=to {
            let w = ease(hold.from.saturating_sub(f) + f.saturating_sub(end), blend);
            if w > best[f] {
                best[f] = w;
                let held = solved[f].lerp(anchor(f), w);
                let y = ground.map_or(solved[f].y, |(floor, lowest)| {
                    let src = source[f.clamp(c.start, end)].y;
                    let stands = floor + (src - lowest) * sizes.lift;
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
pub(in crate::retarget) fn drop_to_reach(top: Vec3, goal: Vec3, reach: f32) -> Option<f32> {
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
pub(in crate::retarget) fn smoothed_max(need: &[f32], radius: usize) -> Vec<f32> {
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

    fn sizes(scale: f32, height: f32) -> Sizes {
        Sizes {
            slide: scale,
            lift: scale,
            height,
        }
    }

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
        let contact = [Hold {
            contact: FootContact { start: 5, end: 12 },
            from: 5,
        }];
        let goals = eased_goals(&solved, &still, sizes(1.0, 1.7), None, &contact, 2);
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
        let goals = eased_goals(&solved, &sliding, sizes(0.5, 1.7), None, &contact, 2);
        assert!(goals.iter().all(Option::is_none));
        // One the source slides on purpose, but half as far: the goal slides as the source.
        let half: Vec<Vec3> = solved.iter().map(|p| *p * 0.5).collect();
        let goals = eased_goals(&solved, &half, sizes(1.0, 0.5), None, &contact, 2);
        let (a, b) = (goals[5].unwrap(), goals[12].unwrap());
        assert!((b.x - a.x - 0.035).abs() < 1e-5, "{a} {b}");
    }

    /// Path length on the ground plane over `frames` of `goals` (the solved foot where
    /// there is no goal).
    fn slide(
        goals: &[Option<Vec3>],
        solved: &[Vec3],
        frames: std::ops::RangeInclusive<usize>,
    ) -> f32 {
        let at = |f: usize| goals[f].unwrap_or(solved[f]);
        let path: Vec<Vec3> = frames.map(at).collect();
        (1..path.len()).map(|k| step(&path, k)).sum()
    }

    /// The source foot creeps 1 mm a frame over a contact; the solved foot stands still
    /// over its first half and slides 2 mm a frame over the rest: as far as the source's
    /// over the whole contact, twice as far over its second half (where the judge may
    /// find a contact of its own). It is held, not left free.
    #[test]
    fn a_foot_sliding_past_the_source_over_part_of_a_contact_is_held() {
        let source: Vec<Vec3> = (0..30)
            .map(|f| Vec3::new(f as f32 * 0.001, 0.0, 0.0))
            .collect();
        let solved: Vec<Vec3> = (0..30usize)
            .map(|f| Vec3::new(0.002 * f.saturating_sub(15) as f32, 0.0, 0.0))
            .collect();
        let contact = FootContact { start: 5, end: 25 };
        let hold = [Hold { contact, from: 5 }];
        let goals = eased_goals(&solved, &source, sizes(1.0, 1.7), None, &hold, 2);
        let (target, own) = (slide(&goals, &solved, 15..=25), 0.010);
        assert!(target <= own + FREE_EXCESS * 1.7, "{target} against {own}");
        // A foot sliding as the source's over every stretch is left as it is.
        let goals = eased_goals(&source, &source, sizes(1.0, 1.7), None, &hold, 2);
        assert!(goals.iter().all(Option::is_none));
    }

    /// A plant holds from the first frame the source foot settled, before the contact.
    #[test]
    fn a_plant_holds_from_where_the_foot_settled() {
        let solved: Vec<Vec3> = (0..20)
            .map(|f| Vec3::new(f as f32 * 0.01, 0.0, 0.0))
            .collect();
        let still = vec![Vec3::ZERO; 20];
        let contact = FootContact { start: 5, end: 12 };
        let hold = [Hold { contact, from: 3 }];
        let goals = eased_goals(&solved, &still, sizes(1.0, 1.7), None, &hold, 2);
        let plant = goals[5].unwrap();
        assert!(goals[3..=12].iter().all(|g| *g == Some(plant)));
        assert!(goals[1].is_some() && goals[1] != Some(plant) && goals[0].is_none());
    }

    /// Same legs, the target 7 % taller by its head: its feet slide as the source's do.
    #[test]
    fn a_slide_scales_by_the_stride_where_a_taller_head_would_add_to_it() {
        let same_legs = Sizes::new(1.40, 1.50, Some(1.0));
        assert_eq!(same_legs.slide, 1.0);
        assert!((same_legs.lift - 1.50 / 1.40).abs() < 1e-6);
        // Longer legs than the height says: no more slide than the height gives.
        assert_eq!(Sizes::new(1.0, 1.2, Some(1.3)).slide, 1.2);
        // No stride (or no usable one): by height.
        assert_eq!(Sizes::new(1.0, 2.0, None).slide, 2.0);
        assert_eq!(Sizes::new(1.0, 2.0, Some(f32::NAN)).slide, 2.0);
    }
}
