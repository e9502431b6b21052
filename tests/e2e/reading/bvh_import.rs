//! BVH import on the CMU files in assets/ and on small files with answers worked by hand.
#![allow(clippy::excessive_precision)] // numbers are copied as the file writes them

use crate::common::{BVH_ASSETS, load};
use glam::{Mat3, Vec3};
use retarget_studio::core::{Axis, Pose, Unit};
use retarget_studio::io::{ImportOptions, Provenance};

/// Rotation about one axis by `deg` degrees, written out with cos/sin.
fn rot(axis: char, deg: f32) -> Mat3 {
    let (s, c) = deg.to_radians().sin_cos();
    match axis {
        'X' => Mat3::from_cols_array(&[1.0, 0.0, 0.0, 0.0, c, s, 0.0, -s, c]),
        'Y' => Mat3::from_cols_array(&[c, 0.0, -s, 0.0, 1.0, 0.0, s, 0.0, c]),
        _ => Mat3::from_cols_array(&[c, s, 0.0, -s, c, 0.0, 0.0, 0.0, 1.0]),
    }
}

/// `Zrotation Yrotation Xrotation`, as every CMU joint declares: R = Rz · Ry · Rx.
fn zyx(z: f32, y: f32, x: f32) -> Mat3 {
    rot('Z', z) * rot('Y', y) * rot('X', x)
}

#[test]
fn cmu_walk_joint_positions_match_the_files_numbers_by_hand() {
    let asset = load("bvh/02_01.bvh");
    let s = &asset.skeletons[0];
    let clip = &asset.clips[0].clip;
    // Frame 1 (second motion line) of 02_01.bvh, the first 12 values:
    // Hips: Xpos Ypos Zpos Zrot Yrot Xrot; LHipJoint: Z Y X; LeftUpLeg: Z Y X.
    let hips_pos = Vec3::new(11.068865, 17.737060, -31.805088);
    let r_hips = zyx(-2.999167, -13.323206, 1.772196);
    let r_lhip = zyx(-7.097022, -0.523936, -1.314090);
    let r_upleg = zyx(-7.346718, -3.797991, -28.315778);
    // OFFSETs from the hierarchy: LHipJoint 0 0 0, LeftUpLeg, LeftLeg.
    let o_upleg = Vec3::new(1.363060, -1.794630, 0.839290);
    let o_leg = Vec3::new(2.448110, -6.726130, 0.0);
    let upleg = hips_pos + r_hips * (r_lhip * o_upleg);
    let leg = hips_pos + r_hips * (r_lhip * (o_upleg + r_upleg * o_leg));

    let mut pose = Pose::rest(s);
    clip.sample(1.0 * 0.008333, &mut pose);
    let world = pose.world_positions(s);
    let k = Unit::CmuAsf.metres();
    for (name, expected) in [("Hips", hips_pos), ("LeftUpLeg", upleg), ("LeftLeg", leg)] {
        let got = world[s.find(name).unwrap()];
        assert!(
            got.abs_diff_eq(expected * k, 1e-5),
            "{name}: {got} vs {}",
            expected * k
        );
    }
}

const TWO_BONES: &str = "HIERARCHY
ROOT root
{
  OFFSET 0 0 0
  CHANNELS 6 Xposition Yposition Zposition Yrotation Xrotation Zrotation
  JOINT arm
  {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Zrotation Yrotation
    End Site
    {
      OFFSET 0 5 0
    }
  }
}
MOTION
Frames: 2
Frame Time: 0.5
1 2 3 0 0 0 0 0 0
0 0 0 90 0 0 0 90 0
";

fn load_text(name: &str, text: &str, options: ImportOptions) -> retarget_studio::io::Asset {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    retarget_studio::io::load(&path, &options).unwrap()
}

#[test]
fn small_file_worked_by_hand() {
    let options = ImportOptions {
        unit: Some(Unit::Metre),
        up: Some(Axis::PosY),
    };
    let asset = load_text("two.bvh", TWO_BONES, options);
    let s = &asset.skeletons[0];
    assert_eq!(s.names(), ["root", "arm", "arm_end"]);
    assert_eq!(s.parents(), [None, Some(0), Some(1)]);
    let clip = &asset.clips[0].clip;
    assert_eq!(clip.fps(), Some(2.0));
    assert_eq!(clip.frame_count(), 2);

    // Frame 0: root moved to (1,2,3), no rotation: arm at (1,12,3), its end at (1,17,3).
    let mut pose = Pose::rest(s);
    clip.sample(0.0, &mut pose);
    let p = pose.world_positions(s);
    assert!(p[1].abs_diff_eq(Vec3::new(1.0, 12.0, 3.0), 1e-5));
    assert!(p[2].abs_diff_eq(Vec3::new(1.0, 17.0, 3.0), 1e-5));

    // Frame 1: root turned 90° about Y (does not move +Y offsets), arm turned 90° about Z
    // (its second channel): +Y becomes -X locally, then root's Y turn takes -X to +Z.
    clip.sample(0.5, &mut pose);
    let p = pose.world_positions(s);
    assert!(
        p[1].abs_diff_eq(Vec3::new(0.0, 10.0, 0.0), 1e-5),
        "{}",
        p[1]
    );
    assert!(
        p[2].abs_diff_eq(Vec3::new(0.0, 10.0, 5.0), 1e-5),
        "{}",
        p[2]
    );
}

#[test]
fn every_cmu_file_detects_cmu_units_and_y_up() {
    for rel in BVH_ASSETS {
        let asset = load(rel);
        assert_eq!(asset.unit, Unit::CmuAsf, "{rel}");
        assert_eq!(asset.unit_source, Provenance::Detected);
        assert_eq!(asset.up, Axis::PosY, "{rel}");
        let s = &asset.skeletons[0];
        assert_eq!(s.len(), 31 + 7, "{rel}: 31 joints and 7 End Sites");
        let hips_y = Pose::rest(s).world_positions(s)[0].y;
        let clip = &asset.clips[0].clip;
        assert_eq!(clip.fps(), Some(120.0));
        let mut pose = Pose::rest(s);
        clip.sample(0.0, &mut pose);
        let hips = pose.world_positions(s)[0];
        // pose-dump's table: CMU hips stand 0.95–1.01 m high in metres.
        assert!(
            (0.9..1.05).contains(&hips.y),
            "{rel}: hips at {hips} (rest {hips_y})"
        );
    }
    let long = load("bvh/01_01.bvh");
    assert_eq!(long.clips[0].clip.frame_count(), 2752);
}

/// A standing figure in centimetres with Z up, as some exporters write.
const Z_UP_CM: &str = "HIERARCHY
ROOT Hips
{
  OFFSET 0 0 95
  CHANNELS 6 Xposition Yposition Zposition Zrotation Yrotation Xrotation
  JOINT Head
  {
    OFFSET 0 0 70
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 0 10
    }
  }
  JOINT LeftFoot
  {
    OFFSET 10 0 -88
    CHANNELS 3 Zrotation Yrotation Xrotation
    End Site
    {
      OFFSET 0 8 -5
    }
  }
}
MOTION
Frames: 1
Frame Time: 0.0333333
0 0 95 0 0 0 0 0 0 0 0 0
";

#[test]
fn z_up_centimetres_are_detected_and_put_in_the_container() {
    let asset = load_text("zup.bvh", Z_UP_CM, ImportOptions::default());
    assert_eq!(asset.up, Axis::PosZ);
    assert_eq!(asset.unit, Unit::Centimetre);
    let s = &asset.skeletons[0];
    // Joint data stays as the file wrote it; the container turns and scales.
    assert_eq!(s.rest()[1].translation, Vec3::new(0.0, 0.0, 70.0));
    let p = Pose::rest(s).world_positions(s);
    let head = p[s.find("Head").unwrap()];
    assert!(
        head.abs_diff_eq(Vec3::new(0.0, 1.65, 0.0), 1e-5),
        "head {head}"
    );

    let forced = load_text(
        "zup.bvh",
        Z_UP_CM,
        ImportOptions {
            unit: Some(Unit::Millimetre),
            up: Some(Axis::PosY),
        },
    );
    assert_eq!(forced.unit_source, Provenance::Override);
    let s = &forced.skeletons[0];
    let head = Pose::rest(s).world_positions(s)[1];
    assert!(
        head.abs_diff_eq(Vec3::new(0.0, 0.0, 0.165), 1e-6),
        "head {head}"
    );
}

/// MakeHuman's BVH: Z-up with nothing declaring it and in decimetres (read as CMU units
/// before, a figure 0.96 m tall). Its motion stands along +Z and the note says so.
#[test]
fn makehuman_bvh_is_read_z_up_in_decimetres() {
    for rel in [
        "bvh/makehuman/walk1_zup_xyz_rootchannel_zero.bvh",
        "bvh/makehuman/dance1_zup_zyx_1frame.bvh",
    ] {
        let asset = load(rel);
        assert_eq!(asset.up, Axis::PosZ, "{rel}");
        assert_eq!(asset.unit, Unit::Decimetre, "{rel}");
        assert!(
            asset.warnings.iter().any(|w| w.starts_with("up is +Z")),
            "{rel}: {:?}",
            asset.warnings
        );
        let s = &asset.skeletons[0];
        let p = Pose::rest(s).world_positions(s);
        let (head, foot) = (p[s.find("Head").unwrap()], p[s.find("Foot_L").unwrap()]);
        let tall = head.y - foot.y;
        assert!(
            (1.2..2.0).contains(&tall),
            "{rel}: head {tall:.2} m over the foot"
        );
    }
}
