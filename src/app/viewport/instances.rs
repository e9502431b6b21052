//! The instanced shapes the renderer draws, worked out in glam so that they can be tested
//! without a GL context: one transform and colour per joint sphere, per bone cylinder and per
//! grid line. The renderer's unit sphere has radius 1 at the origin; its unit cylinder runs
//! along +X from 0 to 1 with radius 1 (three-d's `CpuMesh::sphere`/`cylinder`).

use super::scene::CharacterScene;
use glam::{Mat4, Quat, Vec3};

/// Linear RGBA of the character's own bones and joints.
pub const SKELETON_COLOR: [f32; 4] = [0.95, 0.85, 0.25, 1.0];
/// Linear RGBA of the selected joint: far from the skeleton's yellow and from most skins.
pub const SELECTED_COLOR: [f32; 4] = [0.1, 0.9, 1.0, 1.0];
/// Linear RGBA of the chain selected in the Skeleton tab: magenta, apart from the yellow
/// skeleton, the cyan selected joint and the blue overlay.
pub const CHAIN_COLOR: [f32; 4] = [1.0, 0.15, 0.75, 1.0];
/// A highlighted chain's bones are drawn this much thicker, over the skeleton's own.
const CHAIN_SCALE: f32 = 1.4;
/// The selected joint is drawn this much larger, so it stands out in grey-scale too.
const SELECTED_SCALE: f32 = 1.6;
/// Joint spheres are this many bone radii across.
const JOINT_SCALE: f32 = 2.0;

/// One instance of a unit shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Instance {
    pub world_from_shape: Mat4,
    /// Linear RGBA.
    pub color: [f32; 4],
}

/// The unit cylinder stretched from `a` to `b`; `None` for a zero-length segment, which has
/// no direction to turn the cylinder to.
pub fn segment_transform(a: Vec3, b: Vec3, radius: f32) -> Option<Mat4> {
    let d = b - a;
    let len = d.length();
    if !(len > 1e-9 && len.is_finite()) {
        return None;
    }
    let rotation = Quat::from_rotation_arc(Vec3::X, d / len);
    Some(Mat4::from_scale_rotation_translation(
        Vec3::new(len, radius, radius),
        rotation,
        a,
    ))
}

pub fn sphere_transform(centre: Vec3, radius: f32) -> Mat4 {
    Mat4::from_scale_rotation_translation(Vec3::splat(radius), Quat::IDENTITY, centre)
}

/// Joint spheres and bone cylinders of the scene's skeleton and of its overlay, in that
/// order; empty when the skeleton is hidden.
pub fn skeleton_instances(scene: &CharacterScene) -> (Vec<Instance>, Vec<Instance>) {
    let (mut joints, mut bones) = (Vec::new(), Vec::new());
    if !scene.show_skeleton {
        return (joints, bones);
    }
    let r = scene.bone_radius;
    push_skeleton(
        &mut joints,
        &mut bones,
        &scene.joints,
        &scene.bones,
        r,
        SKELETON_COLOR,
    );
    for (j, joint) in joints.iter_mut().enumerate() {
        if scene.is_hidden(j) {
            // A zero scale draws nothing yet keeps joint `j` at index `j`.
            joint.world_from_shape = Mat4::ZERO;
        }
    }
    push_chain(&mut joints, &mut bones, scene);
    if let Some(i) = scene.selected_joint.filter(|i| *i < scene.joints.len()) {
        joints[i] = Instance {
            world_from_shape: sphere_transform(scene.joints[i], r * JOINT_SCALE * SELECTED_SCALE),
            color: SELECTED_COLOR,
        };
    }
    if let Some(o) = &scene.overlay {
        push_skeleton(
            &mut joints,
            &mut bones,
            &o.joints,
            &o.bones,
            r * 0.8,
            o.color,
        );
    }
    (joints, bones)
}

/// The highlighted chain: its joints recoloured and enlarged, and a thicker bone over each
/// link between two of its joints.
fn push_chain(joints: &mut [Instance], bones: &mut Vec<Instance>, scene: &CharacterScene) {
    let chain: Vec<usize> = scene
        .highlighted_chain
        .iter()
        .copied()
        .filter(|&j| j < joints.len())
        .collect();
    let r = scene.bone_radius * CHAIN_SCALE;
    for &j in &chain {
        joints[j] = Instance {
            world_from_shape: sphere_transform(scene.joints[j], r * JOINT_SCALE),
            color: CHAIN_COLOR,
        };
    }
    bones.extend(chain.windows(2).filter_map(|w| {
        segment_transform(scene.joints[w[0]], scene.joints[w[1]], r).map(|m| Instance {
            world_from_shape: m,
            color: CHAIN_COLOR,
        })
    }));
}

fn push_skeleton(
    joints_out: &mut Vec<Instance>,
    bones_out: &mut Vec<Instance>,
    joints: &[Vec3],
    bones: &[(Vec3, Vec3)],
    radius: f32,
    color: [f32; 4],
) {
    joints_out.extend(joints.iter().map(|p| Instance {
        world_from_shape: sphere_transform(*p, radius * JOINT_SCALE),
        color,
    }));
    bones_out.extend(bones.iter().filter_map(|(a, b)| {
        segment_transform(*a, *b, radius).map(|m| Instance {
            world_from_shape: m,
            color,
        })
    }));
}

/// Ground grid lines on the XZ plane around a character.
#[derive(Clone, Debug, PartialEq)]
pub struct Grid {
    /// Distance between lines: a 1-2-5 step about a tenth of the character's size.
    pub step: f32,
    pub radius: f32,
    pub lines: Vec<(Vec3, Vec3)>,
    /// The middle of the grid, on the floor.
    pub centre: Vec3,
    /// Half the grid's side.
    pub half: f32,
}

/// Half the number of cells on each side of the grid's centre.
const GRID_HALF_CELLS: i32 = 12;

/// A 1, 2 or 5 times a power of ten, the largest not above `x`.
fn nice_step(x: f32) -> f32 {
    let p = 10f32.powf(x.log10().floor());
    [5.0, 2.0, 1.0]
        .into_iter()
        .map(|k| k * p)
        .find(|s| *s <= x)
        .unwrap_or(p)
}

/// A grid for a character with these bounds: spacing from its size, centred under it on a
/// whole step, lying on `floor` when known, else at y = 0 (the glTF ground) unless the
/// character is nowhere near it.
pub fn grid_for(min: Vec3, max: Vec3, floor: Option<f32>) -> Grid {
    let size = (max - min).max_element();
    let size = if size.is_finite() && size > 0.0 {
        size
    } else {
        1.0
    };
    let step = nice_step(size / 4.0);
    let ground = match floor.filter(|f| f.is_finite()) {
        Some(f) => f,
        None if min.y > size || max.y < 0.0 => min.y,
        None => 0.0,
    };
    let mut centre = ((min + max) * 0.5 / step).round() * step;
    centre.y = ground;
    let half = GRID_HALF_CELLS as f32 * step;
    let mut lines = Vec::with_capacity(2 * (2 * GRID_HALF_CELLS as usize + 1));
    for i in -GRID_HALF_CELLS..=GRID_HALF_CELLS {
        let o = i as f32 * step;
        lines.push((
            Vec3::new(centre.x + o, ground, centre.z - half),
            Vec3::new(centre.x + o, ground, centre.z + half),
        ));
        lines.push((
            Vec3::new(centre.x - half, ground, centre.z + o),
            Vec3::new(centre.x + half, ground, centre.z + o),
        ));
    }
    Grid {
        step,
        radius: size * 0.0012,
        lines,
        centre,
        half,
    }
}

/// Linear RGBA of the floor under the grid: a dark blue-green slate, lit like the
/// characters, so that it reads as ground against the background and under white or
/// orange characters alike.
pub const FLOOR_COLOR: [f32; 4] = [0.055, 0.085, 0.085, 1.0];

/// The unit square of the renderer (-1..1 in XY, facing +Z) laid on the grid's floor,
/// facing up and as large as the grid. It sits a hair below the grid, whose lines then
/// show on it without fighting it for depth.
pub fn floor_transform(grid: &Grid) -> Mat4 {
    let below = grid.radius * 0.5;
    Mat4::from_scale_rotation_translation(
        Vec3::splat(grid.half),
        Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
        grid.centre - Vec3::Y * below,
    )
}

/// Contact shadows are three stacked discs, each smaller and darker: a cheap soft edge.
/// Per disc: its size against the whole shadow, and how much of the darkness it has.
const SHADOW_RINGS: [(f32, f32); 3] = [(1.0, 0.3), (0.75, 0.6), (0.5, 1.0)];
/// The darkest a shadow gets (a planted foot): this share of the floor's light is taken.
const SHADOW_STRENGTH: f32 = 0.85;
/// A foot this share of the character's height above its planted height casts no shadow.
const SHADOW_FADE: f32 = 0.1;

/// Contact shadows under the feet, for the renderer's unit disc (radius 1 in XY, facing
/// +Z): an ellipse along each foot (ankle to toes) on the grid's floor, darkest when the
/// ankle is at its planted height and gone a tenth of the character's height above it, so
/// whether a foot touches the ground reads at a glance from any side.
pub fn shadow_instances(scene: &CharacterScene, grid: &Grid, size: f32) -> Vec<Instance> {
    let floor = grid.centre.y;
    let lift = grid.radius * 0.15;
    let ankle_height = scene.ankle_height.max(0.0);
    let mut out = Vec::new();
    for &(ankle, toes) in &scene.feet {
        let above = ankle.y - (floor + ankle_height);
        let darkness = (1.0 - above.max(0.0) / (SHADOW_FADE * size).max(1e-6)).clamp(0.0, 1.0);
        if darkness <= 0.0 || !ankle.is_finite() {
            continue;
        }
        let flat = |p: Vec3| Vec3::new(p.x, floor, p.z);
        let along = toes.map_or(Vec3::ZERO, |t| flat(t) - flat(ankle));
        let length = along.length();
        let reach = if ankle_height > 0.0 {
            ankle_height
        } else {
            size * 0.04
        };
        let (dir, centre, a, b) = if length > 1e-6 {
            let centre = flat(ankle) + along * 0.5;
            (along / length, centre, length * 0.5 + reach, reach * 1.1)
        } else {
            (Vec3::X, flat(ankle), reach * 1.2, reach * 1.2)
        };
        let across = Vec3::Y.cross(dir);
        for (k, (scale, share)) in SHADOW_RINGS.into_iter().enumerate() {
            let dim = 1.0 - SHADOW_STRENGTH * darkness * share;
            let [r, g, bl, alpha] = FLOOR_COLOR;
            out.push(Instance {
                world_from_shape: Mat4::from_cols(
                    (dir * a * scale).extend(0.0),
                    (across * b * scale).extend(0.0),
                    Vec3::Y.extend(0.0),
                    (centre + Vec3::Y * lift * (k + 1) as f32).extend(1.0),
                ),
                color: [r * dim, g * dim, bl * dim, alpha],
            });
        }
    }
    out
}

/// Linear RGBA of the grid lines, and of the two through the world origin: lighter than
/// the floor they lie on.
pub const GRID_COLOR: [f32; 4] = [0.2, 0.24, 0.24, 1.0];
pub const GRID_AXIS_COLOR: [f32; 4] = [0.42, 0.45, 0.45, 1.0];

/// One thin cylinder per grid line; the lines through the origin stand out so that the
/// character's offset from it can be read.
pub fn grid_instances(grid: &Grid) -> Vec<Instance> {
    let on_axis = |v: f32| v.abs() < grid.step * 1e-3;
    grid.lines
        .iter()
        .filter_map(|(a, b)| {
            let m = segment_transform(*a, *b, grid.radius)?;
            let axis = (a.x == b.x && on_axis(a.x)) || (a.z == b.z && on_axis(a.z));
            let color = if axis { GRID_AXIS_COLOR } else { GRID_COLOR };
            Some(Instance {
                world_from_shape: m,
                color,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::viewport::scene::SkeletonOverlay;

    #[test]
    fn segment_maps_the_unit_cylinder_onto_the_bone() {
        let (a, b) = (Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 2.0, 5.0));
        let m = segment_transform(a, b, 0.1).unwrap();
        assert!(m.transform_point3(Vec3::ZERO).abs_diff_eq(a, 1e-6));
        assert!(m.transform_point3(Vec3::X).abs_diff_eq(b, 1e-6));
        // The radius stays the radius, across the bone.
        assert!((m.transform_vector3(Vec3::Y).length() - 0.1).abs() < 1e-6);
        assert_eq!(segment_transform(a, a, 0.1), None);
        // Pointing straight back along -X is the degenerate case for shortest-arc rotations.
        let back = segment_transform(Vec3::ZERO, -Vec3::X, 1.0).unwrap();
        assert!(back.transform_point3(Vec3::X).abs_diff_eq(-Vec3::X, 1e-5));
    }

    #[test]
    fn selected_joint_and_overlay_get_their_colours() {
        let scene = CharacterScene {
            joints: vec![Vec3::ZERO, Vec3::Y],
            bones: vec![(Vec3::ZERO, Vec3::Y)],
            selected_joint: Some(1),
            overlay: Some(SkeletonOverlay {
                joints: vec![Vec3::X],
                bones: vec![(Vec3::X, Vec3::X)],
                color: [1.0, 0.0, 1.0, 1.0],
            }),
            ..Default::default()
        };
        let (joints, bones) = skeleton_instances(&scene);
        assert_eq!(joints.len(), 3);
        assert_eq!(joints[0].color, SKELETON_COLOR);
        assert_eq!(joints[1].color, SELECTED_COLOR);
        assert_eq!(joints[2].color, [1.0, 0.0, 1.0, 1.0]);
        // The overlay's zero-length bone is dropped.
        assert_eq!(bones.len(), 1);
        let hidden = CharacterScene {
            show_skeleton: false,
            ..scene
        };
        assert_eq!(skeleton_instances(&hidden), (vec![], vec![]));
    }

    #[test]
    fn a_highlighted_chain_is_drawn_in_its_colour() {
        let scene = CharacterScene {
            joints: vec![Vec3::ZERO, Vec3::Y, Vec3::Y * 2.0, Vec3::X],
            bones: vec![
                (Vec3::ZERO, Vec3::Y),
                (Vec3::Y, Vec3::Y * 2.0),
                (Vec3::ZERO, Vec3::X),
            ],
            highlighted_chain: vec![1, 2, 9],
            ..Default::default()
        };
        let (joints, bones) = skeleton_instances(&scene);
        let colours: Vec<_> = joints.iter().map(|j| j.color).collect();
        assert_eq!(
            colours,
            [SKELETON_COLOR, CHAIN_COLOR, CHAIN_COLOR, SKELETON_COLOR]
        );
        // The skeleton's three bones, then the chain's one link drawn over them.
        assert_eq!(bones.len(), 4);
        assert_eq!(bones[3].color, CHAIN_COLOR);
        let m = bones[3].world_from_shape;
        assert!(m.transform_point3(Vec3::ZERO).abs_diff_eq(Vec3::Y, 1e-6));
        assert!(m.transform_point3(Vec3::X).abs_diff_eq(Vec3::Y * 2.0, 1e-6));
    }

    #[test]
    fn selection_past_the_end_is_ignored() {
        let scene = CharacterScene {
            joints: vec![Vec3::ZERO],
            selected_joint: Some(5),
            ..Default::default()
        };
        let (joints, _) = skeleton_instances(&scene);
        assert_eq!(joints[0].color, SKELETON_COLOR);
    }

    #[test]
    fn grid_step_follows_character_size() {
        let small = grid_for(Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.6, 0.2), None);
        let big = grid_for(
            Vec3::new(-50.0, 0.0, -20.0),
            Vec3::new(50.0, 300.0, 20.0),
            None,
        );
        assert_eq!(small.step, 0.2);
        assert_eq!(big.step, 50.0);
        assert!(small.lines.iter().all(|(a, b)| a.y == 0.0 && b.y == 0.0));
        assert_eq!(small.lines.len(), big.lines.len());
        // A character floating far above the origin gets the grid at its feet.
        let high = grid_for(Vec3::new(0.0, 10.0, 0.0), Vec3::new(1.0, 11.0, 1.0), None);
        assert_eq!(high.lines[0].0.y, 10.0);
        // A known floor wins, wherever the character is.
        let on = grid_for(
            Vec3::new(0.0, 0.1, 0.0),
            Vec3::new(0.5, 1.7, 0.5),
            Some(0.04),
        );
        assert!(on.lines.iter().all(|(a, b)| a.y == 0.04 && b.y == 0.04));
    }

    #[test]
    fn the_floor_lies_flat_under_the_grid_and_covers_it() {
        let grid = grid_for(
            Vec3::new(0.7, 0.0, -0.2),
            Vec3::new(1.3, 1.6, 0.2),
            Some(0.0),
        );
        let m = floor_transform(&grid);
        // The square's normal (+Z) now points up, and its corners are the grid's.
        assert!(
            m.transform_vector3(Vec3::Z)
                .normalize()
                .abs_diff_eq(Vec3::Y, 1e-6)
        );
        let corner = m.transform_point3(Vec3::new(1.0, 1.0, 0.0));
        let (lo, hi) = grid
            .lines
            .iter()
            .fold((Vec3::MAX, Vec3::MIN), |(lo, hi), (a, b)| {
                (lo.min(a.min(*b)), hi.max(a.max(*b)))
            });
        assert!((corner.x - hi.x).abs() < 1e-5 && (corner.z - lo.z).abs() < 1e-5);
        assert!(corner.y < 0.0 && corner.y > -grid.radius, "{corner}");
    }

    #[test]
    fn a_planted_foot_casts_a_dark_shadow_a_lifted_one_none() {
        let grid = grid_for(
            Vec3::new(-0.3, 0.0, -0.2),
            Vec3::new(0.3, 1.6, 0.2),
            Some(0.0),
        );
        let (ankle, toes) = (Vec3::new(0.1, 0.08, 0.0), Vec3::new(0.1, 0.02, 0.15));
        let mut scene = CharacterScene {
            ankle_height: 0.08,
            feet: vec![(ankle, Some(toes))],
            ..Default::default()
        };
        let planted = shadow_instances(&scene, &grid, 1.6);
        assert_eq!(planted.len(), SHADOW_RINGS.len());
        let inner = planted.last().unwrap();
        assert!(inner.color[0] < FLOOR_COLOR[0] * 0.3, "{:?}", inner.color);
        // Lies on the floor, under the middle of the foot, longer along it than across.
        let m = planted[0].world_from_shape;
        let centre = m.transform_point3(Vec3::ZERO);
        use glam::Vec3Swizzles;
        assert!(centre.y > 0.0 && centre.y < grid.radius, "{centre}");
        assert!(centre.xz().abs_diff_eq(glam::Vec2::new(0.1, 0.075), 1e-5));
        let along = m.transform_vector3(Vec3::X);
        let across = m.transform_vector3(Vec3::Y);
        assert!(along.normalize().abs_diff_eq(Vec3::Z, 1e-5) && along.length() > across.length());
        assert!(m.transform_vector3(Vec3::Z).abs_diff_eq(Vec3::Y, 1e-6));
        // Halfway up the fade it is lighter; above it there is none.
        scene.feet = vec![(ankle + Vec3::Y * 0.08, Some(toes + Vec3::Y * 0.08))];
        let lifted = shadow_instances(&scene, &grid, 1.6);
        assert!(lifted.last().unwrap().color[0] > inner.color[0]);
        scene.feet = vec![(ankle + Vec3::Y * 0.5, None)];
        assert!(shadow_instances(&scene, &grid, 1.6).is_empty());
    }

    #[test]
    fn nice_steps() {
        assert_eq!(nice_step(0.4), 0.2);
        assert_eq!(nice_step(75.0), 50.0);
        assert_eq!(nice_step(1.0), 1.0);
        assert!((nice_step(0.0031) - 0.002).abs() < 1e-7);
    }

    #[test]
    fn grid_lines_through_the_origin_stand_out() {
        let grid = grid_for(Vec3::new(-0.3, 0.0, -0.2), Vec3::new(0.3, 1.6, 0.2), None);
        let inst = grid_instances(&grid);
        assert_eq!(inst.len(), grid.lines.len());
        let axes = inst.iter().filter(|i| i.color == GRID_AXIS_COLOR).count();
        assert_eq!(axes, 2);
    }
}
