//! What a session sets on a built retargeter: how clips are solved, each leg's planting,
//! pole, contacts and joint limits, and which joints mirror which.

use super::Retargeter;
use super::legs::{ik, options, plant};

impl Retargeter {
    /// How clips are solved after the frame-by-frame retarget (feet planting, IK, limits).
    pub fn set_solve(&mut self, settings: plant::SolveSettings) {
        self.plan_mut().solve = settings.sanitized();
    }

    pub fn solve_settings(&self) -> &plant::SolveSettings {
        &self.plan.solve
    }

    /// Plants the leg whose foot is target joint `foot` on its contacts, or leaves it to
    /// the frame-by-frame solve (a per-leg IK switch).
    pub fn set_leg_planting(&mut self, foot: usize, on: bool) {
        for leg in self.legs_at(foot) {
            leg.planted = on;
        }
    }

    /// The legs whose foot is target joint `foot` (the per-leg settings' one lookup).
    fn legs_at(&mut self, foot: usize) -> impl Iterator<Item = &mut ik::LegIk> {
        self.plan_mut()
            .legs
            .iter_mut()
            .filter(move |l| l.foot() == foot)
    }

    /// Which way the leg whose foot is target joint `foot` bends its knee.
    pub fn set_leg_pole(&mut self, foot: usize, pole: options::PoleAt) {
        let n = self.plan.target_parents.len();
        let pole = match pole {
            options::PoleAt::Joint(j) if j >= n => options::PoleAt::Solved,
            options::PoleAt::Direction(d) if !d.is_finite() || d.length_squared() < 1e-12 => {
                options::PoleAt::Solved
            }
            p => p,
        };
        for leg in self.legs_at(foot) {
            leg.pole = pole;
        }
    }

    /// The contact thresholds of the leg whose foot is `foot` (`None`: the solve's).
    pub fn set_leg_contacts(
        &mut self,
        foot: usize,
        limits: Option<crate::contacts::ContactThresholds>,
    ) {
        for leg in self.legs_at(foot) {
            leg.contacts = limits.map(|l| l.sanitized());
        }
    }

    /// Contacts drawn by hand for `foot`, in the seconds of the clips retargeted next, in
    /// place of the detected ones (`None`: detected).
    pub fn set_contact_spans(&mut self, foot: usize, spans: Option<Vec<(f32, f32)>>) {
        for leg in self.legs_at(foot) {
            leg.spans = spans.clone();
        }
    }

    /// The limit IK holds target joint `joint` to (`None`: unlimited), in place of the
    /// humanoid profile's default.
    pub fn set_joint_limit(&mut self, joint: usize, limit: Option<crate::ik::JointLimit>) {
        let limit = limit.and_then(|l| l.sanitized());
        for leg in &mut self.plan_mut().legs {
            if let ik::LegKind::Path { joints, limits, .. } = &mut leg.kind {
                for (j, l) in joints.iter().zip(limits.iter_mut()) {
                    if *j == joint {
                        *l = limit;
                    }
                }
            }
        }
    }

    /// Which target joint mirrors which (`core::mirror::twins_of`).
    pub fn set_mirror_twins(&mut self, twins: Vec<usize>) {
        if twins.len() == self.plan.target_parents.len() {
            self.plan_mut().mirror_twins = Some(twins);
        }
    }
}
