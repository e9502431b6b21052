//! A foot under its IK control: the GDQuest robot hangs `foot.L` from `foot_IK.L.001`
//! under the root, a control the retarget carries along with the foot. Planting moved the
//! foot alone (its translation in the control's frame), so the bone from the control to
//! the foot stretched by up to 4 % of the height wherever a foot was planted.

use crate::common::{walk_onto_corpus, world_frames};
use retarget_studio::core::Pose;

const GDBOT: &str = "sets/gltf/gdquest_gdbot_ikfk_triplicate_empty_first_scene.glb";

/// A walk planted on the robot keeps each foot on its control: the bone between them keeps
/// one length over the clip, and that within the judge's limit of its rest length.
#[test]
fn planted_feet_stay_on_the_ik_controls_that_carry_them() {
    let Some(session) = walk_onto_corpus(GDBOT) else {
        return;
    };
    let s = session.target.skeleton();
    let clip = session.retarget_clip(None, None).unwrap();
    let rest = Pose::bind(s).world_positions(s);
    let (lo, hi) = rest.iter().fold((f32::MAX, f32::MIN), |(lo, hi), p| {
        (lo.min(p.y), hi.max(p.y))
    });
    let height = hi - lo;
    let frames = world_frames(s, &clip, 120);
    for (foot, control) in [("foot.L", "foot_IK.L.001"), ("foot.R", "foot_IK.R.001")] {
        let (j, p) = (s.find(foot).unwrap(), s.find(control).unwrap());
        assert_eq!(s.parents()[j], Some(p));
        let length = rest[j].distance(rest[p]);
        let changes: Vec<f32> = frames
            .iter()
            .map(|f| (f[j].distance(f[p]) - length) / height)
            .collect();
        let (min, max) = changes
            .iter()
            .fold((f32::MAX, f32::MIN), |(lo, hi), &c| (lo.min(c), hi.max(c)));
        // Before: 0.037 of the height at the plants, 0.008 elsewhere.
        assert!(
            max - min < 1e-3,
            "{foot} moved {:.2e} of the height against {control} over the clip",
            max - min
        );
        assert!(
            max.abs().max(min.abs()) < 1e-2,
            "{foot} is {max:.2e} of the height off {control}"
        );
    }
}
