//! Twist bones in the target's limbs: UE's beside the next joint, DAZ's and Rigify's inside
//! the chain. The body must move as it does on the same rig without them, each twist bone
//! must stay on its limb and turn about it by its share of the limb's roll, and one rig in
//! a T-pose onto itself in an A-pose must keep every joint where its parent holds it.

use crate::common::file_variants::twist::{TwistBone, TwistLayout, arms_lowered, twist_bones};
use crate::common::{asset_path, session, world_matrices};
use glam::{Mat4, Quat, Vec3};
use retarget_studio::core::ik::limits::swing_twist_deg;
use retarget_studio::core::reference::rotation_of;
use retarget_studio::core::{Pose, Skeleton};
use retarget_studio::session::{Edit, Session};

fn height(s: &Skeleton) -> f32 {
    let ys: Vec<f32> = Pose::rest(s)
        .world_positions(s)
        .iter()
        .map(|p| p.y)
        .collect();
    ys.iter().copied().fold(f32::MIN, f32::max) - ys.iter().copied().fold(f32::MAX, f32::min)
}

fn at(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// The twist angle, in degrees, of world rotation `b` from `a` about `axis`, each taken
/// from its reference (`ra`, `rb`): the roll between two joints' motions.
fn roll(a: Quat, ra: Quat, b: Quat, rb: Quat, axis: Vec3) -> f32 {
    let (da, db) = (a * ra.inverse(), b * rb.inverse());
    swing_twist_deg(da.inverse() * db, axis).1
}

/// The worst of: a body joint's distance from its namesake on the plain rig, a twist bone's
/// distance off its limb's line (both over the height), and a twist bone's roll from its
/// share of the limb's (degrees).
fn worst(source: &str, plain: &str, layout: TwistLayout) -> (f32, f32, f32) {
    let (variant, twists) = twist_bones(&std::fs::read(asset_path(plain)).unwrap(), layout);
    assert!(twists.len() >= 4, "{plain}: {} twist bones", twists.len());
    let (_dir, a, b) = crate::common::onto_plain_and_variant(source, plain, &variant);
    let frames = |s: &Session| {
        let clip = s.retarget_clip(None, Some(30.0)).unwrap();
        world_matrices(s.target.skeleton(), &clip, 24)
    };
    let (fa, fb) = (frames(&a), frames(&b));
    let (sa, sb) = (a.target.skeleton(), b.target.skeleton());
    let h = height(sa);
    let find = |n: &str| sb.find(n).unwrap_or_else(|| panic!("{n} in the variant"));
    // The pose the solve measures turns from (its reference), without the container's edits.
    let reference = b.target.reference.locals.world_matrices(sb);
    let (mut body, mut line, mut turn) = (0.0f32, 0.0f32, 0.0f32);
    let (mut worst_bone, mut worst_joint) = (String::new(), String::new());
    for (pa, pb) in fa.iter().zip(&fb) {
        for (j, n) in sa.names().iter().enumerate() {
            let gap = at(&pa[j]).distance(at(&pb[find(n)])) / h;
            if gap > body {
                body = gap;
                worst_joint = n.clone();
            }
        }
        for t in &twists {
            let (l, r) = twist_figures(t, pb, &reference, &find, sb);
            line = line.max(l / h);
            if r > turn {
                turn = r;
                worst_bone = t.name.clone();
            }
        }
    }
    if turn > 2.0 || body > 2e-3 {
        let (ns, nt) = (b.source.skeleton().names(), sb.names());
        for p in b.map.pairs() {
            eprintln!(
                "  {} <- {} {:?} {:?}",
                nt[p.target], ns[p.source], p.bone, p.method
            );
        }
    }
    eprintln!(
        "{plain} {layout:?}: body {body:.1e} ({worst_joint}), off the limb {line:.1e}, roll {turn:.1}° ({worst_bone})"
    );
    (body, line, turn)
}

/// A twist bone's distance off its limb's line, and its roll from its share: `along` of the
/// next joint's roll about the limb, less the rest of the segment's own roll from its
/// parent (the twist rule Unity and HumanIK follow).
fn twist_figures(
    t: &TwistBone,
    frame: &[Mat4],
    reference: &[Mat4],
    find: &impl Fn(&str) -> usize,
    s: &Skeleton,
) -> (f32, f32) {
    let (j, seg, end) = (find(&t.name), find(&t.segment), find(&t.end));
    let (p, q) = (at(&frame[seg]), at(&frame[end]));
    let x = at(&frame[j]);
    let along = (q - p).normalize();
    // Against the next joint where it hangs below the segment (an IK foot need not).
    let below = std::iter::successors(s.parents()[end], |&k| s.parents()[k]).any(|k| k == seg);
    let off = if below {
        (x - p - along * (x - p).dot(along)).length()
    } else {
        0.0
    };
    let rot = |m: &Mat4| rotation_of(*m);
    let axis = (at(&reference[end]) - at(&reference[seg])).normalize();
    let r = |a: usize, b: usize| {
        roll(
            rot(&frame[a]),
            rot(&reference[a]),
            rot(&frame[b]),
            rot(&reference[b]),
            axis,
        )
    };
    // The segment's own roll is taken from the joint above it, past other twist bones.
    let mut above = s.parents()[seg];
    while let Some(a) = above.filter(|&a| s.names()[a].contains("twist")) {
        above = s.parents()[a];
    }
    let own = above.map_or(0.0, |a| r(a, seg));
    let want = t.along * r(seg, end) - (1.0 - t.along) * own;
    let got = r(seg, j);
    let miss = (got - want + 180.0).rem_euclid(360.0) - 180.0;
    (off, miss.abs())
}

/// UE-style twist leaves and DAZ-style split limbs on CesiumMan and the robot, driven by
/// CMU mocap. Before, a leaf kept its rest turn (a forearm's twist bone stayed unrolled as
/// the hand turned), and a split limb's middle joint took half the wrist's bend, so the
/// hand left the forearm's line.
#[test]
fn twist_bones_roll_with_their_limb_and_leave_the_body_as_it_was() {
    for plain in ["gltf/CesiumMan.glb", "gltf/RobotExpressive.glb"] {
        for layout in [TwistLayout::Beside, TwistLayout::Inside] {
            let (body, line, turn) = worst("bvh/02_01.bvh", plain, layout);
            assert!(
                body < 2e-3,
                "{plain} {layout:?}: the body moves {body:.1e} of the height"
            );
            assert!(
                line < 1e-3,
                "{plain} {layout:?}: a twist bone leaves its limb by {line:.1e}"
            );
            assert!(
                turn < 2.0,
                "{plain} {layout:?}: a twist bone rolls {turn:.1}° off its share"
            );
        }
    }
}

/// One rig with twist bones, in its T-pose onto itself lowered into an A-pose (rest ≠
/// bind): every joint stays as far from its parent as on the source, frame after frame. Placing
/// each copied joint where the source's world motion took it put the twist bones 0.089 of
/// the height off their parents.
#[test]
fn one_rig_onto_itself_in_an_a_pose_keeps_every_offset() {
    let plain = std::fs::read(asset_path("gltf/RobotExpressive.glb")).unwrap();
    let (variant, twists) = twist_bones(&plain, TwistLayout::Beside);
    let dir = tempfile::tempdir().unwrap();
    let (t_pose, a_pose) = (dir.path().join("t.glb"), dir.path().join("a.glb"));
    std::fs::write(&t_pose, &variant).unwrap();
    std::fs::write(&a_pose, arms_lowered(&variant, 40.0)).unwrap();
    let s = session(&t_pose, &a_pose);
    assert!(s.same_rig(), "one rig on both sides");
    let skeleton = s.target.skeleton();
    let clip = s.retarget_clip(None, Some(30.0)).unwrap();
    let frames = world_matrices(skeleton, &clip, 24);
    let source = world_matrices(s.source.skeleton(), s.source_clip(None).unwrap(), 24);
    let h = height(skeleton);
    let mut worst = (0.0f32, String::new());
    for (frame, source) in frames.iter().zip(&source) {
        for (j, parent) in skeleton.parents().iter().enumerate() {
            let Some(p) = *parent else { continue };
            let want = at(&source[j]).distance(at(&source[p]));
            let gap = (at(&frame[j]).distance(at(&frame[p])) - want).abs() / h;
            if gap > worst.0 {
                worst = (gap, skeleton.names()[j].clone());
            }
        }
    }
    eprintln!(
        "worst offset change {:.1e} of the height at {}",
        worst.0, worst.1
    );
    assert!(!twists.is_empty());
    assert!(
        worst.0 < 1e-4,
        "{} moves {:.1e} of the height off its parent",
        worst.1,
        worst.0
    );
}

/// The forearm twist's roll from its limb, in degrees, at `frames` times of `s`'s retarget.
fn forearm_twist_rolls(s: &Session, twist: &TwistBone) -> Vec<f32> {
    let sk = s.target.skeleton();
    let clip = s.retarget_clip(None, Some(30.0)).unwrap();
    let reference = s.target.reference.locals.world_matrices(sk);
    let find = |n: &str| sk.find(n).unwrap();
    let (j, seg, end) = (find(&twist.name), find(&twist.segment), find(&twist.end));
    let axis = (at(&reference[end]) - at(&reference[seg])).normalize();
    world_matrices(sk, &clip, 12)
        .iter()
        .map(|f| {
            let q = |k: usize| (rotation_of(f[k]), rotation_of(reference[k]));
            let ((a, ra), (b, rb)) = (q(seg), q(j));
            roll(a, ra, b, rb, axis)
        })
        .collect()
}

/// A twist bone's share set by hand (the Solve tab's edit) turns it as much, comes back
/// with undo, and is saved in the project and read back from it.
#[test]
fn a_twist_share_set_by_hand_is_undone_and_saved() {
    let plain = std::fs::read(asset_path("gltf/CesiumMan.glb")).unwrap();
    let (variant, twists) = twist_bones(&plain, TwistLayout::Beside);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("twist.glb");
    std::fs::write(&path, variant).unwrap();
    // `map` tells which joints it reads as twist bones, and their shares.
    let source = asset_path("bvh/02_01.bvh");
    let table = crate::common::cli_ok(&[
        "map",
        "--source",
        source.to_str().unwrap(),
        "--target",
        path.to_str().unwrap(),
    ]);
    for t in &twists {
        let row = table
            .lines()
            .find(|l| l.trim_start().starts_with(&t.name))
            .unwrap();
        let share = format!("(twist bone, {:.2} of the roll)", t.along);
        assert!(row.contains(&share), "map shows {row}");
    }
    let mut s = session(&source, &path);
    let forearm = twists.iter().find(|t| t.along > 0.7).unwrap();
    let by_place = forearm_twist_rolls(&s, forearm);
    let before = s.edit_state();
    let edit = Edit::SetTwistWeight {
        joint: forearm.name.clone(),
        weight: Some(0.0),
    };
    s.apply_edit(&edit).unwrap();
    let unrolled = forearm_twist_rolls(&s, forearm);
    let moved = by_place
        .iter()
        .zip(&unrolled)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f32::max);
    assert!(moved > 5.0, "a share of 0 changes the roll by {moved}°");
    let project = dir.path().join("p.retarget");
    s.to_project().save(&project).unwrap();
    let reopened = Session::from_project(&project).unwrap();
    assert_eq!(reopened.solve.twists, vec![(forearm.name.clone(), 0.0)]);
    assert_eq!(forearm_twist_rolls(&reopened, forearm), unrolled);
    s.restore(before).unwrap();
    assert_eq!(forearm_twist_rolls(&s, forearm), by_place);
}

/// UE's IK bones (`ik_foot_root`, `ik_foot_l/r`), keyed on the source to follow its feet,
/// onto the same names on a longer-legged rig: each follows its foot there too. Before,
/// paired by name but with no translation, they stayed where the rest pose put them while
/// the feet walked away.
#[test]
fn ik_bones_follow_their_feet_when_the_source_keys_them() {
    use crate::common::file_variants::longer_legs;
    use crate::common::file_variants::twist::ue_ik_bones;
    let robot = std::fs::read(asset_path("gltf/RobotExpressive.glb")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (source, target) = (dir.path().join("s.glb"), dir.path().join("t.glb"));
    std::fs::write(&source, ue_ik_bones(&robot, true)).unwrap();
    std::fs::write(&target, longer_legs(&ue_ik_bones(&robot, false), 1.3)).unwrap();
    let mut s = session(&source, &target);
    assert!(!s.same_rig());
    s.source.file.clip = Some("Walking".into());
    let sk = s.target.skeleton();
    let clip = s.retarget_clip(Some("Walking"), Some(30.0)).unwrap();
    let frames = world_matrices(sk, &clip, 24);
    let h = height(sk);
    let mut worst = 0.0f32;
    for (ik, foot) in [("ik_foot_l", "Foot.L"), ("ik_foot_r", "Foot.R")] {
        let (i, f) = (sk.find(ik).unwrap(), sk.find(foot).unwrap());
        for frame in &frames {
            worst = worst.max(at(&frame[i]).distance(at(&frame[f])) / h);
        }
    }
    eprintln!("IK bones off their feet by {worst:.3} of the height at worst");
    assert!(
        worst < 0.03,
        "an IK bone is {worst:.3} of the height off its foot"
    );
}
