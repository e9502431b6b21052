//! Limbs through the body: per frame, how deep the forearms and hands go into the torso's
//! capsules and one thigh into the other (`core::body`), in mm at a 1.75 m scale, above
//! what the figure's own bind pose overlaps (where the capsules only approximate a skin
//! that does not cut itself). The target is judged against the source's own at each frame.

use super::motion::Motion;
use super::report::{Measure, Pair, Report};
use super::thresholds::Thresholds;
use crate::body::{BodyCapsules, PAIRS};
use glam::Vec3;
use serde::Serialize;

/// One figure's penetration over a clip.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PenetrationFigures {
    /// Per frame, the deepest pair's depth (mm at 1.75 m; 0 where nothing goes in).
    pub per_frame_mm: Vec<f64>,
    pub max_mm: f64,
    pub worst_frame: usize,
    /// The deepest pair at the worst frame ("left forearm into torso"); `None` if none goes in.
    pub worst_pair: Option<String>,
}

/// The depth of each pair at `positions` (metres of the capsules' world), `None` for a pair
/// the figure lacks.
fn depths(body: &BodyCapsules, positions: &[Vec3]) -> [Option<f32>; PAIRS.len()] {
    PAIRS.map(|(limb, other)| {
        body.deepest(limb, other, positions, 1.0)
            .map(|(c, _, _)| c.depth)
    })
}

/// The penetration of `m` (its joints indexed as `body`'s), above the overlap of the same
/// pairs at `bind` (the figure's bind pose, where its skin does not cut itself).
pub fn penetration(m: &Motion, body: &BodyCapsules, bind: &[Vec3]) -> PenetrationFigures {
    let mm = 1750.0 / f64::from(body.height.max(1e-9));
    let base = depths(body, bind);
    let mut figures = PenetrationFigures {
        per_frame_mm: Vec::with_capacity(m.frames()),
        max_mm: 0.0,
        worst_frame: 0,
        worst_pair: None,
    };
    for (f, frame) in m.positions.iter().enumerate() {
        let mut deepest = (0.0f64, None);
        for (k, d) in depths(body, frame).iter().enumerate() {
            let Some(d) = d else { continue };
            let over = f64::from(d - base[k].unwrap_or(0.0).max(0.0)) * mm;
            if over > deepest.0 {
                deepest = (over, Some(k));
            }
        }
        if deepest.0 > figures.max_mm {
            figures.max_mm = deepest.0;
            figures.worst_frame = f;
            figures.worst_pair = deepest
                .1
                .map(|k| format!("{} into {}", PAIRS[k].0.label(), PAIRS[k].1.label()));
        }
        figures.per_frame_mm.push(deepest.0);
    }
    figures
}

/// Per frame, how much deeper the target goes than the source's own at that frame (mm).
fn excess(p: &Pair<PenetrationFigures>) -> Vec<f64> {
    let (s, t) = (&p.source.per_frame_mm, &p.target.per_frame_mm);
    (0..t.len())
        .map(|f| t[f] - s.get(f).copied().unwrap_or(0.0))
        .collect()
}

impl Report {
    /// Judges `p` (no frame of the target deeper than the source's own there, plus
    /// `thresholds.penetration_mm`), with its per-frame row for the quality strip.
    pub fn add_penetration(&mut self, p: Pair<PenetrationFigures>) {
        let limit = self.thresholds.penetration_mm;
        let over = excess(&p);
        let (frame, worst) = over
            .iter()
            .copied()
            .enumerate()
            .fold(
                (0, 0.0f64),
                |best, (f, d)| if d > best.1 { (f, d) } else { best },
            );
        self.set_verdict(Measure::Penetration, worst, limit, || {
            let pair = p
                .target
                .worst_pair
                .as_deref()
                .unwrap_or("a limb into the body");
            format!(
                "penetration: {pair}, {:.0} mm deeper than the source's own at frame {frame} (limit {limit} mm)",
                worst
            )
        });
        let rows: Vec<f64> = over
            .iter()
            .map(|&d| Thresholds::severity(d.max(0.0), limit))
            .collect();
        self.add_frame_row(Measure::Penetration, &rows);
        self.penetration = Some(p);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::HumanBone;
    use crate::quality::testkit::{Walk, rest as rest_of, spec};

    /// A torso from y 1.0 to 1.5 on the axis and a left arm hanging at x = 0.3, moved in
    /// by `inward` at frame 1; the hips, spine and thighs as a stick figure has them.
    fn figure(inward: f32) -> (Motion, BodyCapsules, Vec<Vec3>) {
        use HumanBone::*;
        let joints = [
            (None, Hips, Vec3::new(0.0, 1.0, 0.0)),
            (Some(0), Spine, Vec3::new(0.0, 1.2, 0.0)),
            (Some(1), Chest, Vec3::new(0.0, 1.5, 0.0)),
            (Some(2), Head, Vec3::new(0.0, 1.75, 0.0)),
            (Some(2), LeftUpperArm, Vec3::new(0.3, 1.5, 0.0)),
            (Some(4), LeftLowerArm, Vec3::new(0.3, 1.2, 0.0)),
            (Some(5), LeftHand, Vec3::new(0.3, 0.95, 0.0)),
            (Some(0), LeftUpperLeg, Vec3::new(0.1, 0.95, 0.0)),
            (Some(7), LeftLowerLeg, Vec3::new(0.1, 0.5, 0.0)),
            (Some(8), LeftFoot, Vec3::new(0.1, 0.0, 0.0)),
        ];
        let parents: Vec<_> = joints.iter().map(|j| j.0).collect();
        let labels: Vec<_> = joints.iter().map(|j| Some(j.1)).collect();
        let rest: Vec<Vec3> = joints.iter().map(|j| j.2).collect();
        let body = BodyCapsules::from_bones(&parents, &labels, &rest, 1.75);
        let mut moved = rest.clone();
        for p in &mut moved[5..7] {
            p.x -= inward;
        }
        let m = Motion {
            times: vec![0.0, 0.1],
            names: (0..rest.len()).map(|j| format!("j{j}")).collect(),
            parents,
            positions: vec![rest.clone(), moved],
        };
        (m, body, rest)
    }

    #[test]
    fn an_arm_moved_into_the_torso_reads_its_depth_at_that_frame() {
        // Radii 0.1225 (torso) and 0.035 (forearm): apart by 0.1425 at x = 0.3; 0.2 in,
        // the forearm goes 57.5 mm into the torso (the body is 1.75 m high).
        let (m, body, rest) = figure(0.2);
        let p = penetration(&m, &body, &rest);
        assert_eq!(p.per_frame_mm[0], 0.0);
        assert!((p.max_mm - 57.5).abs() < 0.01, "{p:?}");
        assert_eq!(p.worst_frame, 1);
        assert_eq!(p.worst_pair.as_deref(), Some("left forearm into torso"));
    }

    #[test]
    fn the_target_is_judged_against_the_sources_own_at_each_frame() {
        let (m, body, rest) = figure(0.2);
        let (shallow, ..) = figure(0.16);
        let walk = Walk::default().motion();
        let limits = Thresholds::default();
        let mut r =
            crate::quality::evaluate(&walk, &walk, &rest_of(&walk), &spec(), &limits).unwrap();
        let pair = |a: &Motion, b: &Motion| Pair {
            source: penetration(a, &body, &rest),
            target: penetration(b, &body, &rest),
        };
        // 17.5 mm in against the source's 57.5: passes.
        r.add_penetration(pair(&m, &shallow));
        assert!(r.passed, "{:?}", r.verdicts);
        // The other way round: 40 mm deeper than the source's own, four times the limit.
        r.add_penetration(pair(&shallow, &m));
        assert!(!r.passed);
        let v = r
            .verdicts
            .iter()
            .find(|v| v.measure == Measure::Penetration)
            .unwrap();
        assert!((v.value - 40.0).abs() < 0.01 && (v.severity - 4.0).abs() < 1e-3);
        assert_eq!(r.frame_row(Measure::Penetration), Some(&[0.0, 1.0][..]));
        assert_eq!(r.bad_frames, vec![1]);
        assert!(
            r.flags[0]
                .message
                .starts_with("penetration: left forearm into torso, 40 mm deeper")
        );
        let judged = r
            .verdicts
            .iter()
            .filter(|v| v.measure == Measure::Penetration);
        assert_eq!(judged.count(), 1, "judged once, however often added");
    }
}
