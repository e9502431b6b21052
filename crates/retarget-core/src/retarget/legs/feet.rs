//! Planted feet lie flat. A source's reference foot need not be its planted foot: CMU's
//! T-pose foot points 13–25° further down than the foot it stands on, and a rest-relative
//! solve hands that whole turn to the target, whose planted foot then digs its toe in (a
//! toeless foot block, as RobotExpressive's, sinks into the floor). Per clip, the source
//! foot's tilt while planted is measured and taken as its neutral, so a planted source foot
//! gives the target its own reference foot (flat, as it was bound), turned only in heading.

use glam::{Quat, Vec3};

/// One mapped foot whose neutral pitch can be fitted.
#[derive(Clone, Debug)]
pub(in crate::retarget) struct FootFit {
    /// The target foot (its rotation solve gets the fitted offset).
    pub target: usize,
    pub source_foot: usize,
    /// The source foot's world rotation in the reference pose.
    pub source_reference: Quat,
    /// The solve's offset as built from the reference pose.
    pub offset: Quat,
}

impl FootFit {
    /// The solve offset with the source's neutral foot taken as it is while planted in
    /// `frames` (the source foot's world position per frame, `dt` seconds apart; contacts
    /// by judge's rule; `turns` its world rotation per frame): its average tilt away from the
    /// reference pose, with the heading removed. `None` when it is never planted.
    pub fn fitted_offset(
        &self,
        frames: &[Vec3],
        turns: &[Quat],
        height: f32,
        dt: f32,
    ) -> Option<Quat> {
        let floor = frames.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
        let flat = |v: Vec3| Vec3::new(v.x, 0.0, v.z).length();
        let reference = self.source_reference;
        let mut sum = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        let mut count = 0;
        for k in 1..frames.len().min(turns.len()) {
            let speed = flat(frames[k] - frames[k - 1]) / dt.max(1e-6);
            if frames[k].y - floor >= 0.04 * height || speed >= 0.10 * height {
                continue;
            }
            // From the reference to this frame: a heading (about +Y, applied last) and a tilt.
            let delta = (turns[k] * reference.inverse()).normalize();
            let heading = Quat::from_xyzw(0.0, delta.y, 0.0, delta.w);
            if heading.length() < 1e-6 {
                continue; // turned upside down: no heading to take out
            }
            let heading = heading.normalize();
            let mut tilt = heading.inverse() * delta;
            if tilt.w < 0.0 {
                tilt = -tilt;
            }
            sum += tilt;
            count += 1;
        }
        if count < 3 || sum.length() < 1e-6 {
            return None;
        }
        let tilt = sum.normalize();
        // offset = Bs⁻¹ · Bt; with the neutral foot `tilt · Bs` it is Bs⁻¹ · tilt⁻¹ · Bt.
        Some((reference.inverse() * tilt.inverse() * reference * self.offset).normalize())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A source foot planted with a 20° tilt from its reference, walking round in heading:
    /// the fitted offset makes that planted foot give the target its reference foot,
    /// turned only in heading.
    #[test]
    fn a_planted_tilt_becomes_the_neutral_foot() {
        let reference = Quat::from_rotation_x(0.3);
        let tilt = Quat::from_rotation_z(20f32.to_radians());
        let target_reference = Quat::from_rotation_y(0.5);
        let fit = FootFit {
            target: 0,
            source_foot: 0,
            source_reference: reference,
            offset: reference.inverse() * target_reference,
        };
        let headings: Vec<Quat> = (0..10)
            .map(|k| Quat::from_rotation_y(k as f32 * 0.2))
            .collect();
        let turns: Vec<Quat> = headings.iter().map(|h| *h * tilt * reference).collect();
        // Planted: on the floor and still.
        let frames = vec![Vec3::new(0.0, 0.05, 0.0); 10];
        let offset = fit.fitted_offset(&frames, &turns, 1.7, 1.0 / 30.0).unwrap();
        for (h, w) in headings.iter().zip(&turns) {
            let target = *w * offset;
            let agreement = target.dot(*h * target_reference).abs();
            assert!(agreement > 1.0 - 1e-6, "{agreement}");
        }
        // A foot that never touches down keeps the reference's offset.
        let flying: Vec<Vec3> = (0..10).map(|k| Vec3::new(k as f32, 1.0, 0.0)).collect();
        assert!(
            fit.fitted_offset(&flying, &turns, 1.7, 1.0 / 30.0)
                .is_none()
        );
    }
}
