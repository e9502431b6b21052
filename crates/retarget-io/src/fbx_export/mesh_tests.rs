//! Meshes written, read back by our FBX reader, and skinned by the read-back skeleton: the
//! vertices land where the original asset's skin puts them.

use super::super::{FbxExportOptions, export_fbx};
use super::material::looks;
use crate::ImportOptions;
use crate::asset::{AlphaMode, Asset, Format, MeshPrimitive, Provenance, SkinnedMesh};
use glam::{Mat4, Quat, Vec3};
use retarget_core::{
    Axis, Clip, Interpolation, JointDef, JointTracks, Pose, Skeleton, Track, Transform, Unit,
};
use std::path::{Path, PathBuf};

fn bundled(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../assets")
        .join(path)
}

fn load(path: &Path) -> Asset {
    crate::load(path, &ImportOptions::default()).unwrap()
}

/// World matrices of `s` in `clip` at `t` (the bind pose without a clip).
fn worlds(s: &Skeleton, clip: Option<&Clip>, t: f32) -> Vec<Mat4> {
    let Some(clip) = clip else {
        return Pose::bind(s).world_matrices(s);
    };
    let mut pose = Pose::rest(s);
    clip.sample(t, &mut pose);
    pose.world_matrices(s)
}

/// Skinned positions of every triangle corner, primitives grouped by material in the order
/// the writer numbers them (as the reader splits them back).
fn skinned_corners(mesh: &SkinnedMesh, worlds: &[Mat4]) -> Vec<Vec3> {
    let (materials, firsts) = looks(mesh);
    let mut out = Vec::new();
    for k in 0..firsts.len() {
        for (p, _) in mesh
            .primitives
            .iter()
            .zip(&materials)
            .filter(|(_, m)| **m == Some(k))
        {
            for &i in &p.indices[..p.indices.len() / 3 * 3] {
                let i = i as usize;
                // Weights that do not sum to 1 (RobotExpressive's hands) are renormalised.
                let total: f32 = p.weights[i].iter().filter(|w| **w > 0.0).sum();
                let mut skin = Mat4::ZERO;
                for (&j, &w) in p.joints[i].iter().zip(&p.weights[i]) {
                    if w > 0.0 {
                        skin += worlds[j as usize] * mesh.inverse_bind[j as usize] * (w / total);
                    }
                }
                out.push(skin.transform_point3(p.positions[i]));
            }
        }
    }
    out
}

/// Distinct vertices the triangles use, per primitive: what the reader gives back.
fn used_vertices(mesh: &SkinnedMesh) -> usize {
    let mut n = 0;
    for p in &mesh.primitives {
        let mut used = vec![false; p.positions.len()];
        for &i in &p.indices {
            used[i as usize] = true;
        }
        n += used.iter().filter(|u| **u).count();
    }
    n
}

/// Writes `asset` with its first clip, reads it back, and returns the largest distance
/// between original and read-back skinned corners (bind pose and four frames) over the
/// figure's height.
fn round_trip(asset: &Asset, options: &FbxExportOptions) -> (f32, Asset) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.fbx");
    let clips: Vec<Clip> = asset.clips_of(0).take(1).cloned().collect();
    let report = export_fbx(asset, 0, &clips, options, &out).unwrap();
    assert!(
        report.notes.iter().any(|n| n.contains("mesh(es) written")),
        "{:?}",
        report.notes
    );
    let back = load(&out);
    let ours: Vec<&SkinnedMesh> = asset.meshes.iter().filter(|m| m.skeleton == 0).collect();
    assert_eq!(back.meshes.len(), ours.len(), "{:?}", back.warnings);
    let (s, b) = (&asset.skeletons[0], &back.skeletons[0]);
    let bind = worlds(s, None, 0.0);
    let (lo, hi) = ours
        .iter()
        .flat_map(|m| skinned_corners(m, &bind))
        .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let height = (hi - lo).max_element();
    let mut worst = 0.0f32;
    let mut times = vec![None];
    if let (Some(clip), Some(read)) = (clips.first(), back.clips.first()) {
        times.extend(clip.even_times(4).map(|t| Some((clip, &read.clip, t))));
    }
    for time in times {
        let (wa, wb) = match time {
            None => (bind.clone(), worlds(b, None, 0.0)),
            Some((ca, cb, t)) => (worlds(s, Some(ca), t), worlds(b, Some(cb), t)),
        };
        for (m, r) in ours.iter().zip(&back.meshes) {
            assert_eq!(r.vertex_count(), used_vertices(m), "mesh '{}'", m.name);
            assert_eq!(r.triangle_count(), m.triangle_count(), "mesh '{}'", m.name);
            let (a, c) = (skinned_corners(m, &wa), skinned_corners(r, &wb));
            assert_eq!(a.len(), c.len());
            for (x, y) in a.iter().zip(&c) {
                worst = worst.max(x.distance(*y));
            }
        }
    }
    (worst / height, back)
}

fn options(asset: &Asset, unit: Option<Unit>, up: Option<Axis>) -> FbxExportOptions {
    let mut o = FbxExportOptions::as_target(asset);
    o.unit = unit.unwrap_or(o.unit);
    o.up = up.unwrap_or(o.up);
    o
}

#[test]
fn skinned_meshes_read_back_where_the_skin_puts_them() {
    let files = [
        "gltf/CesiumMan.glb",
        "gltf/RobotExpressive.glb",
        "fbx/RobotExpressive.fbx",
    ];
    let variants = [
        (None, None),
        (Some(Unit::Metre), Some(Axis::PosZ)),
        (Some(Unit::Centimetre), None),
    ];
    for file in files {
        let asset = load(&bundled(file));
        assert!(!asset.meshes.is_empty(), "{file}");
        for (unit, up) in variants {
            let (error, _) = round_trip(&asset, &options(&asset, unit, up));
            eprintln!("{file} {unit:?} {up:?}: skinned vertex error / height {error:e}");
            assert!(error < 1e-4, "{file} {unit:?} {up:?}: {error}");
        }
    }
}

#[test]
fn the_embedded_texture_reads_back_byte_for_byte() {
    let asset = load(&bundled("gltf/CesiumMan.glb"));
    let original = asset.meshes[0].primitives[0]
        .base_color_texture
        .as_ref()
        .expect("CesiumMan is textured");
    let (_, back) = round_trip(&asset, &FbxExportOptions::as_target(&asset));
    let read = back.meshes[0].primitives[0]
        .base_color_texture
        .as_ref()
        .expect("the texture reads back");
    assert_eq!(read.image.mime, original.image.mime);
    assert!(read.image.bytes == original.image.bytes, "same bytes");
    let uv = |a: &Asset| a.meshes[0].primitives[0].uvs.clone();
    let (a, b) = (uv(&asset), uv(&back));
    assert_eq!(a.len(), b.len());
    let worst = a
        .iter()
        .zip(&b)
        .map(|(x, y)| (x[0] - y[0]).abs().max((x[1] - y[1]).abs()))
        .fold(0.0f32, f32::max);
    assert!(worst < 1e-6, "UVs differ by {worst}");
}

/// A centimetre rig bound away from its rest, and a mesh whose world positions are its own
/// (inverse binds undo the bind worlds).
fn odd_asset(primitives: Vec<MeshPrimitive>) -> Asset {
    let rest = |y: f32| Transform::from_translation(Vec3::new(0.0, y, 0.0));
    let mut hips = JointDef::new("hips", None, rest(90.0));
    hips.bind = Transform::new(
        Vec3::new(5.0, 80.0, 0.0),
        Quat::from_rotation_y(0.5),
        Vec3::ONE,
    );
    let mut spine = JointDef::new("spine", Some(0), rest(40.0));
    spine.bind = Transform::new(
        Vec3::new(0.0, 40.0, 0.0),
        Quat::from_rotation_x(0.3),
        Vec3::ONE,
    );
    let s = Skeleton::new(
        "rig",
        Mat4::from_scale(Vec3::splat(0.01)),
        vec![hips, spine],
    )
    .unwrap();
    let inverse_bind = Pose::bind(&s)
        .world_matrices(&s)
        .iter()
        .map(|m| m.inverse())
        .collect();
    let mesh = SkinnedMesh {
        name: "odd".into(),
        skeleton: 0,
        inverse_bind,
        primitives,
        morph_weights: Vec::new(),
    };
    Asset {
        path: "odd.glb".into(),
        format: Format::Glb,
        skeletons: vec![s],
        clips: Vec::new(),
        meshes: vec![mesh],
        joint_nodes: Vec::new(),
        unit: Unit::Centimetre,
        unit_source: Provenance::Assumed,
        up: Axis::PosY,
        up_source: Provenance::Assumed,
        warnings: Vec::new(),
        curve_targets: Vec::new(),
        readings: Default::default(),
    }
}

/// Four vertices of a quad at chest height, one slightly off its plane.
const QUAD: [[f32; 3]; 4] = [
    [0.0, 0.9, 0.0],
    [0.2, 0.9, 0.0],
    [0.2, 1.3, 0.0],
    [0.0, 1.3, 0.1],
];

/// The quad as two triangles, every vertex wholly on joint 0.
fn quad_on_joint_0() -> MeshPrimitive {
    primitive(
        &QUAD,
        &[0, 1, 2, 0, 2, 3],
        &[[0, 0, 0, 0]; 4],
        &[[1.0, 0.0, 0.0, 0.0]; 4],
    )
}

fn primitive(
    positions: &[[f32; 3]],
    indices: &[u32],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
) -> MeshPrimitive {
    MeshPrimitive {
        positions: positions.iter().map(|p| Vec3::from_array(*p)).collect(),
        normals: Vec::new(),
        indices: indices.to_vec(),
        joints: joints.to_vec(),
        weights: weights.to_vec(),
        base_color: [0.8, 0.2, 0.1, 0.5],
        uvs: Vec::new(),
        base_color_texture: None,
        alpha_mode: AlphaMode::Blend,
        morphs: Vec::new(),
    }
}

fn export(asset: &Asset) -> Result<(Vec<String>, Asset), String> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("odd.fbx");
    let options = FbxExportOptions::as_target(asset);
    let report = export_fbx(asset, 0, &[], &options, &out).map_err(|e| e.to_string())?;
    Ok((report.notes, load(&out)))
}

#[test]
fn odd_meshes_are_written_or_refused_in_words() {
    let quad = QUAD;
    let joints = [[0, 1, 0, 0]; 4];
    // The last vertex has no weight; the second primitive is empty; the third has no normals.
    let weights = [
        [0.5, 0.5, 0.0, 0.0],
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 0.7, 0.0, 0.0],
        [0.0; 4],
    ];
    let good = vec![
        primitive(&quad, &[0, 1, 2, 0, 2, 3], &joints, &weights),
        primitive(&[], &[], &[], &[]),
        primitive(&quad[..3], &[0, 2, 1, 1], &joints[..3], &weights[..3]),
    ];
    let asset = odd_asset(good.clone());
    let (notes, back) = export(&asset).unwrap();
    for words in [
        "no joint weight",
        "no normals",
        "past the last whole triangle",
    ] {
        assert!(
            notes.iter().any(|n| n.contains(words)),
            "{words}: {notes:?}"
        );
    }
    let read = &back.meshes[0];
    assert_eq!((read.vertex_count(), read.triangle_count()), (7, 3));
    assert_eq!(read.primitives.len(), 1, "one look, one material");
    assert!((read.primitives[0].base_color[0] - 0.8).abs() < 1e-6);
    // Bound where it stands: at the bind pose every vertex is where the asset has it.
    let bind = worlds(&back.skeletons[0], None, 0.0);
    let corners = skinned_corners(read, &bind);
    let want = [0, 1, 2, 0, 2, 3, 0, 2, 1].map(|i| Vec3::from_array(quad[i]));
    for (got, want) in corners.iter().zip(want) {
        assert!(got.distance(want) < 1e-5, "{got} vs {want}");
    }

    let refuse = |edit: &dyn Fn(&mut MeshPrimitive), words: &str| {
        let mut bad = good.clone();
        edit(&mut bad[0]);
        let err = export(&odd_asset(bad)).expect_err(words);
        assert!(err.contains(words), "{words}: {err}");
    };
    refuse(&|p| p.joints[1] = [7, 0, 0, 0], "joint 7");
    refuse(&|p| p.weights[2][1] = f32::NAN, "not finite");
    refuse(&|p| p.positions[0].x = f32::INFINITY, "not finite");
    refuse(&|p| p.indices[4] = 9, "index 9");
}

#[test]
fn morphs_become_blend_shapes_that_the_curves_animate() {
    let mut p = quad_on_joint_0();
    // `smile` lifts the third vertex 5 cm.
    let mut lift = vec![Vec3::ZERO; 4];
    lift[2] = Vec3::new(0.0, 0.05, 0.0);
    p.morphs = vec![crate::asset::MorphDelta {
        positions: lift,
        normals: Vec::new(),
    }];
    let mut asset = odd_asset(vec![p]);
    asset.meshes[0].morph_weights = vec![0.0];
    asset.curve_targets = vec![crate::asset::CurveTarget {
        name: "smile".into(),
        expression: false,
        binds: vec![crate::asset::MorphBind {
            mesh: 0,
            morph: 0,
            node: None,
            weight: 1.0,
        }],
    }];
    let track = Track::new(
        vec![0.0, 0.5, 1.0],
        vec![0.0, 1.0, 0.25],
        Interpolation::Linear,
    )
    .unwrap();
    let tracks = vec![JointTracks::default(); asset.skeletons[0].len()];
    let clip = Clip::new("smile", tracks, Some(30.0))
        .with_curves(vec![retarget_core::Curve::new("smile", track)]);
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("smile.fbx");
    export_fbx(
        &asset,
        0,
        &[clip],
        &FbxExportOptions::as_target(&asset),
        &out,
    )
    .unwrap();
    let back = load(&out);
    let smile = back
        .curve_targets
        .iter()
        .position(|t| t.name == "smile")
        .unwrap_or_else(|| panic!("a blend shape channel 'smile': {:?}", back.curve_targets));
    let bind = &back.curve_targets[smile].binds[0];
    let morph = &back.meshes[bind.mesh].primitives[0].morphs[bind.morph];
    let moved: Vec<f32> = morph.positions.iter().map(|d| d.length()).collect();
    let biggest = moved.iter().fold(0.0f32, |a, b| a.max(*b));
    // In the read mesh's own units: its 0.4 m edge gives the scale.
    let read = &back.meshes[bind.mesh].primitives[0].positions;
    let edge = read.iter().map(|p| p.y).fold(f32::NEG_INFINITY, f32::max)
        - read.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    let unit = edge / 0.4;
    assert!(
        (biggest / unit - 0.05).abs() < 1e-4,
        "the shape's offset: {moved:?} ({unit} per m)"
    );
    assert_eq!(
        moved.iter().filter(|d| **d > 0.0).count(),
        1,
        "one vertex moves"
    );
    let curve = back.clips[0]
        .clip
        .curves()
        .iter()
        .find(|c| c.name == "smile")
        .expect("the take animates the channel");
    for (t, w) in [(0.0, 0.0), (0.5, 1.0), (1.0, 0.25)] {
        assert!(
            (curve.sample(t) - w).abs() < 1e-4,
            "at {t} s: {}",
            curve.sample(t)
        );
    }
}

/// The count of a DOM node's first array value (ufbx keeps an array's length in `value_int`).
fn array_len(node: &ufbx::DomNode, child: &str) -> Option<usize> {
    let c = node.children.iter().find(|c| c.name == child)?;
    Some(c.values.first()?.value_int as usize)
}

/// Blender's importer asserts, for each Shape geometry and its BlendShapeChannel, that
/// `Indexes`, `Vertices` (three each) and `FullWeights` (or a single weight for all) agree
/// in count, and reads a shape with no index as a mismatch. Checked on the file's own
/// records, which ufbx keeps when asked; returns how many shapes there are.
fn blend_shape_counts_blender_accepts(path: &Path) -> Result<usize, String> {
    let opts = ufbx::LoadOpts {
        retain_dom: true,
        ..Default::default()
    };
    let scene = ufbx::load_file(path.to_str().unwrap(), opts).map_err(|e| format!("{e:?}"))?;
    let root = scene.dom_root.as_ref().ok_or("no DOM")?;
    let section = |name: &str| root.children.iter().find(|c| c.name == name);
    let objects = section("Objects").ok_or("no Objects")?;
    let connections = section("Connections").ok_or("no Connections")?;
    let id = |n: &ufbx::DomNode, k: usize| n.values.get(k).map(|v| v.value_int);
    let mut checked = 0;
    // A shape is the geometry with `Indexes` (ufbx keeps the class string as a blob).
    let shapes = objects
        .children
        .iter()
        .filter(|o| o.name == "Geometry" && o.children.iter().any(|c| c.name == "Indexes"));
    for shape in shapes {
        let name = id(shape, 0);
        let indexes = array_len(shape, "Indexes").unwrap_or(0);
        let vertices = array_len(shape, "Vertices").unwrap_or(0);
        let channel = connections
            .children
            .iter()
            .find(|c| id(c, 1) == id(shape, 0))
            .and_then(|c| id(c, 2))
            .and_then(|parent| objects.children.iter().find(|o| id(o, 0) == Some(parent)))
            .ok_or(format!("shape {name:?} has no channel"))?;
        let weights = array_len(channel, "FullWeights").unwrap_or(0);
        let weights = if weights == 1 {
            indexes.max(1)
        } else {
            weights
        };
        if indexes == 0 || vertices != 3 * indexes || weights != indexes {
            return Err(format!(
                "shape {name:?}: {indexes} indexes, {vertices} vertex numbers, {weights} weights"
            ));
        }
        checked += 1;
    }
    Ok(checked)
}

#[test]
fn a_morph_that_moves_nothing_is_still_a_shape_blender_reads() {
    let mut p = quad_on_joint_0();
    // `smile` lifts two vertices; `blank` (a viseme this mesh does not show) moves none.
    let mut lift = vec![Vec3::ZERO; 4];
    lift[2] = Vec3::new(0.0, 0.05, 0.0);
    lift[3] = Vec3::new(0.0, 0.02, 0.0);
    let delta = |positions| crate::asset::MorphDelta {
        positions,
        normals: Vec::new(),
    };
    p.morphs = vec![delta(lift), delta(vec![Vec3::ZERO; 4])];
    let mut asset = odd_asset(vec![p]);
    asset.meshes[0].morph_weights = vec![0.0, 0.0];
    asset.curve_targets = ["smile", "blank"]
        .iter()
        .enumerate()
        .map(|(morph, name)| crate::asset::CurveTarget {
            name: (*name).into(),
            expression: false,
            binds: vec![crate::asset::MorphBind {
                mesh: 0,
                morph,
                node: None,
                weight: 1.0,
            }],
        })
        .collect();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("blank.fbx");
    export_fbx(&asset, 0, &[], &FbxExportOptions::as_target(&asset), &out).unwrap();
    assert_eq!(blend_shape_counts_blender_accepts(&out), Ok(2));
    let back = load(&out);
    for name in ["smile", "blank"] {
        assert!(
            back.curve_targets.iter().any(|t| t.name == name),
            "channel {name}: {:?}",
            back.curve_targets
        );
    }
}
