//! Checks shared by the variant tests and the quality matrix: load bytes through our reader,
//! sample a clip's world joint positions, compare frames within a fraction of the figure's size,
//! and skin a mesh straight from a GLB as the glTF spec says.

use super::glb::{Glb, indices};
use crate::common::asset_path;
use glam::{Mat4, Vec3};
use retarget_studio::core::{Axis, Pose, Unit};
use retarget_studio::io::{Asset, ImportOptions};

pub const REL_TOL: f32 = 1e-4;

/// A bundled asset's bytes.
pub fn bytes(rel: &str) -> Vec<u8> {
    std::fs::read(asset_path(rel)).unwrap()
}

pub fn load_as(name: &str, data: &[u8], options: ImportOptions) -> Asset {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, data).unwrap();
    retarget_studio::io::load(&path, &options).unwrap_or_else(|e| panic!("{name}: {e}"))
}

pub fn load_glb(data: &[u8]) -> Asset {
    load_as("variant.glb", data, ImportOptions::default())
}

/// BVH with unit and up fixed, so a variant's odd zero pose cannot change the guesses.
pub fn load_bvh(text: &str, up: Axis) -> Asset {
    let options = ImportOptions {
        unit: Some(Unit::CmuAsf),
        up: Some(up),
    };
    load_as("variant.bvh", text.as_bytes(), options)
}

/// World joint positions (container included) of the first clip at every key time.
pub fn clip_positions(asset: &Asset) -> Vec<Vec<Vec3>> {
    let c = &asset.clips[0];
    let s = &asset.skeletons[c.skeleton];
    let times = crate::common::key_times(&c.clip);
    crate::common::positions_at(s, &c.clip, &times)
}

pub fn bind_positions(asset: &Asset) -> Vec<Vec3> {
    let s = &asset.skeletons[0];
    Pose::bind(s).world_positions(s)
}

/// The largest extent of the points' bounding box.
pub fn size(points: &[Vec3]) -> f32 {
    let lo = points.iter().fold(Vec3::INFINITY, |a, p| a.min(*p));
    let hi = points.iter().fold(Vec3::NEG_INFINITY, |a, p| a.max(*p));
    (hi - lo).max_element()
}

/// Every frame's joints of `got` equal `map(expected)` within `REL_TOL` of the figure's size.
pub fn assert_frames(
    what: &str,
    expected: &[Vec<Vec3>],
    got: &[Vec<Vec3>],
    map: impl Fn(Vec3) -> Vec3,
) {
    if let Some(e) = frames_error(what, expected, got, map) {
        panic!("{e}");
    }
}

/// What `assert_frames` would say, or `None` when every joint is within tolerance.
pub fn frames_error(
    what: &str,
    expected: &[Vec<Vec3>],
    got: &[Vec<Vec3>],
    map: impl Fn(Vec3) -> Vec3,
) -> Option<String> {
    assert_eq!(expected.len(), got.len(), "{what}: frame count");
    let tol = REL_TOL * size(&expected[0].iter().map(|p| map(*p)).collect::<Vec<_>>());
    let mut worst = (0.0f32, 0, 0);
    for (f, (e, g)) in expected.iter().zip(got).enumerate() {
        assert_eq!(e.len(), g.len(), "{what}: joint count");
        for (j, (a, b)) in e.iter().zip(g).enumerate() {
            let d = map(*a).distance(*b);
            if d > worst.0 {
                worst = (d, f, j);
            }
        }
    }
    let (d, f, j) = worst;
    (d > tol).then(|| format!("{what}: joint {j} at frame {f} is {d} off (tolerance {tol})"))
}

/// Vertices of the first skinned node's first primitive skinned (as the glTF spec says) with
/// the node rest pose: `Σ w·G_j·IBM_j·v`, straight from the file.
pub fn rest_skinned_vertices(g: &Glb) -> Vec<Vec3> {
    let node = g.skinned_mesh_nodes()[0];
    let n = &g.json["nodes"][node];
    let skin = &g.json["skins"][n["skin"].as_u64().unwrap() as usize];
    let joints = indices(&skin["joints"]);
    let ibms = g.read_floats(skin["inverseBindMatrices"].as_u64().unwrap() as usize);
    let prim = &g.json["meshes"][n["mesh"].as_u64().unwrap() as usize]["primitives"][0];
    let attr = |a: &str| g.read_floats(prim["attributes"][a].as_u64().unwrap() as usize);
    let (pos, js, ws) = (attr("POSITION"), attr("JOINTS_0"), attr("WEIGHTS_0"));
    let globals: Vec<Mat4> = joints
        .iter()
        .zip(&ibms)
        .map(|(&j, ibm)| g.world(j) * Mat4::from_cols_slice(ibm))
        .collect();
    pos.iter()
        .zip(js.iter().zip(&ws))
        .map(|(p, (j, w))| {
            (0..4)
                .map(|k| globals[j[k] as usize].transform_point3(Vec3::from_slice(p)) * w[k])
                .sum()
        })
        .collect()
}

pub fn assert_same_mesh(what: &str, a: &[Vec3], b: &[Vec3], k: f32) {
    assert_eq!(a.len(), b.len(), "{what}: vertex count");
    let tol = REL_TOL * size(a) * k;
    let worst = a
        .iter()
        .zip(b)
        .map(|(x, y)| (*x * k).distance(*y))
        .fold(0.0, f32::max);
    assert!(
        worst <= tol,
        "{what}: a vertex is {worst} off (tolerance {tol})"
    );
}
