//! Dog mocap onto a horse (MANN's gallop, Quaternius' horse): every leg of the horse takes
//! the dog's leg of the same side and end, its head the dog's head, its tail the dog's tail,
//! its `Body` (which carries the legs) the dog's hips. Before, the dog's bent neck was read
//! as a second left front leg and its tail as a left grasper, the horse faced where its death
//! clip rolls it (38° off), and its legs, ending at the hock, were graspers: the horse's
//! front left leg followed the dog's tail and its front right leg and `Body` stayed still.

use crate::common::corpus_path;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;

const DOG: &str = "creatures/bvh/mann_dog_D1_010_gallop_humanoid_names_straight_rest_cm.bvh";
const HORSE: &str = "creatures/fbx/quaternius_horse_blender279_ik_feet_under_root.fbx";

/// The source joint that drives the target joint `name`, by name.
fn source_of(s: &Session, name: &str) -> Option<String> {
    let t = s.target.skeleton().find(name).expect(name);
    s.map
        .for_target(t)
        .map(|p| s.source.skeleton().names()[p.source].clone())
}

#[test]
fn dog_mocap_onto_a_horse_maps_each_leg_from_the_same_leg_and_the_body_from_the_hips() {
    let (Some(dog), Some(horse)) = (corpus_path(DOG), corpus_path(HORSE)) else {
        return;
    };
    let s = Session::automatic(&dog, &horse, &ImportOptions::default()).unwrap();
    // Each horse leg joint takes the dog's joint of the same side and place. (The knee, the
    // last joint of a chain whose cannon bone reaches a hoof no joint marks, takes the dog's
    // toe tip: pairing by place does not know where that bone ends.)
    for side in ["Left", "Right"] {
        let s_ = &side[..1];
        for (target, source) in [
            ("FrontLeg", "Shoulder"),
            ("FrontUpLeg", "Arm"),
            ("FrontLowLeg", "Hand_end"),
            ("BackUpLeg", "UpLeg"),
            ("BackLowLeg", "Foot_end"),
        ] {
            let target = format!("{target}.{s_}");
            assert_eq!(
                source_of(&s, &target),
                Some(format!("{side}{source}")),
                "{target}"
            );
        }
    }
    assert_eq!(source_of(&s, "Body").as_deref(), Some("Hips"));
    assert_eq!(source_of(&s, "Head").as_deref(), Some("Head"));
    assert_eq!(source_of(&s, "Neck").as_deref(), Some("Neck"));
    for tail in ["Back", "Tail1"] {
        let source = source_of(&s, tail).unwrap_or_default();
        assert!(source.starts_with("Tail"), "{tail} takes {source:?}");
    }
    // The horse is read facing +Z, as its file and its pose say: no turn.
    assert!(
        !s.target
            .asset
            .warnings
            .iter()
            .any(|w| w.starts_with("forward is")),
        "{:?}",
        s.target.asset.warnings
    );
}
