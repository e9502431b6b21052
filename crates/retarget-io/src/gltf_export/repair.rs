//! Repairs of what the Khronos validator calls errors in a character that is carried over,
//! so that every written GLB validates even when its source did not (RobotExpressive's
//! skin weights do not sum to one on 752 vertex attributes).
//!
//! Skin weights are checked the way the validator checks them: per vertex, over all
//! JOINTS_n/WEIGHTS_n sets, the float32 sum of the non-zero weights on distinct joints
//! must be within 2e-7 per weight of one, with no negative weight and no joint past the
//! skin's list. A primitive with one failing vertex gets new JOINTS_n/WEIGHTS_n accessors.

use super::bin::{Extra, to_json};
use gltf::json::accessor::Type;
use gltf::json::buffer::Target;
use gltf::json::mesh::Semantic;
use gltf::json::validation::Checked;
use gltf::json::{self, Root};
use std::collections::{HashMap, HashSet};

/// New skinning attributes for one primitive.
pub(super) struct WeightFix {
    mesh: usize,
    primitive: usize,
    /// Per set: four joints per vertex, flattened.
    joints: Vec<Vec<u16>>,
    /// Per set: four weights per vertex, flattened.
    weights: Vec<Vec<f32>>,
    /// Vertices whose values changed (0 for a primitive sharing another's accessors).
    pub changed: usize,
}

/// A POSITION accessor whose declared bounds are missing or wrong.
pub(super) struct BoundsFix {
    accessor: usize,
    min: Vec<f32>,
    max: Vec<f32>,
}

/// Finds the skinned primitives whose weights fail the validator's check.
pub(super) fn plan_weights(doc: &gltf::Document, buffers: &[gltf::buffer::Data]) -> Vec<WeightFix> {
    let max_joint = skin_joint_limits(doc);
    let mut fixes = Vec::new();
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    for mesh in doc.meshes() {
        let limit = max_joint.get(&mesh.index()).copied().unwrap_or(u16::MAX);
        for prim in mesh.primitives() {
            let reader = prim.reader(|b| buffers.get(b.index()).map(|d| &d.0[..]));
            let mut joints = Vec::new();
            let mut weights = Vec::new();
            while let (Some(j), Some(w)) = (
                reader.read_joints(joints.len() as u32),
                reader.read_weights(weights.len() as u32),
            ) {
                joints.push(j.into_u16().flatten().collect::<Vec<u16>>());
                weights.push(w.into_f32().flatten().collect::<Vec<f32>>());
            }
            // Sets of different lengths are left to the validator rather than guessed at.
            let len = joints.first().map_or(0, Vec::len);
            let mut lengths = joints
                .iter()
                .map(Vec::len)
                .chain(weights.iter().map(Vec::len));
            let uneven = lengths.any(|l| l != len);
            if joints.is_empty() || uneven {
                continue;
            }
            let changed = repair_vertices(&mut joints, &mut weights, limit);
            if changed == 0 {
                continue;
            }
            // Primitives sharing accessors count their vertices once.
            let first = seen.insert(attribute_key(&prim));
            fixes.push(WeightFix {
                mesh: mesh.index(),
                primitive: prim.index(),
                joints,
                weights,
                changed: if first { changed } else { 0 },
            });
        }
    }
    fixes
}

fn attribute_key(prim: &gltf::Primitive) -> Vec<usize> {
    prim.attributes()
        .filter(|(s, _)| matches!(s, gltf::Semantic::Joints(_) | gltf::Semantic::Weights(_)))
        .map(|(_, a)| a.index())
        .collect()
}

/// The largest joint index each mesh may use: the smallest joint list among the skins of
/// the nodes that draw it.
fn skin_joint_limits(doc: &gltf::Document) -> HashMap<usize, u16> {
    let mut limits: HashMap<usize, u16> = HashMap::new();
    for node in doc.nodes() {
        if let (Some(mesh), Some(skin)) = (node.mesh(), node.skin()) {
            let last = skin.joints().len().saturating_sub(1).min(u16::MAX as usize) as u16;
            let entry = limits.entry(mesh.index()).or_insert(last);
            *entry = (*entry).min(last);
        }
    }
    limits
}

/// Repairs every failing vertex in place; returns how many there were.
fn repair_vertices(joints: &mut [Vec<u16>], weights: &mut [Vec<f32>], limit: u16) -> usize {
    let sets = joints.len();
    let vertices = joints[0].len() / 4;
    let mut slots = vec![(0u16, 0f32); sets * 4];
    let mut changed = 0;
    for v in 0..vertices {
        // The validator walks component 0 of every set, then component 1, and so on.
        for c in 0..4 {
            for s in 0..sets {
                slots[c * sets + s] = (joints[s][v * 4 + c], weights[s][v * 4 + c]);
            }
        }
        if passes(&slots, limit) {
            continue;
        }
        fix(&mut slots, limit);
        changed += 1;
        for c in 0..4 {
            for s in 0..sets {
                (joints[s][v * 4 + c], weights[s][v * 4 + c]) = slots[c * sets + s];
            }
        }
    }
    changed
}

/// The validator's test of one vertex.
fn passes(slots: &[(u16, f32)], limit: u16) -> bool {
    let mut seen = Vec::with_capacity(slots.len());
    let mut sum = 0f32;
    let mut tolerance = 0f64;
    for &(joint, weight) in slots {
        if joint > limit || weight < 0.0 || !weight.is_finite() {
            return false;
        }
        if weight != 0.0 {
            if seen.contains(&joint) {
                return false;
            }
            seen.push(joint);
            sum += weight;
            tolerance += 2e-7;
        }
    }
    (f64::from(sum) - 1.0).abs() <= tolerance
}

/// Drops invalid weights, merges weights given twice to one joint, clears the joint of a
/// zero weight, and scales the rest to sum to one (all on the first slot's joint when
/// nothing is left). The last float rounding goes to the largest weight.
fn fix(slots: &mut [(u16, f32)], limit: u16) {
    let first_joint = slots.first().map_or(0, |s| s.0).min(limit);
    // Merged and scaled in f64: two weights near f32's largest would overflow their sum to
    // infinity, and infinity over infinity is NaN.
    let mut merged: Vec<(u16, f64)> = vec![(0, 0.0); slots.len()];
    for i in 0..slots.len() {
        let (joint, weight) = slots[i];
        let valid = joint <= limit && weight.is_finite() && weight > 0.0;
        let earlier = merged[..i].iter().position(|s| s.0 == joint && s.1 > 0.0);
        match (valid, earlier) {
            (true, Some(e)) => merged[e].1 += f64::from(weight),
            (true, None) => merged[i] = (joint, f64::from(weight)),
            (false, _) => {}
        }
    }
    let total: f64 = merged.iter().map(|s| s.1).sum();
    if total <= 0.0 {
        slots.iter_mut().for_each(|s| *s = (0, 0.0));
        slots[0] = (first_joint, 1.0);
        return;
    }
    for (slot, (joint, weight)) in slots.iter_mut().zip(merged) {
        *slot = (joint, (weight / total) as f32);
    }
    for _ in 0..4 {
        let sum: f32 = slots.iter().map(|s| s.1).sum();
        if passes(slots, limit) {
            break;
        }
        let largest = (0..slots.len())
            .max_by(|&a, &b| slots[a].1.total_cmp(&slots[b].1))
            .unwrap_or(0);
        slots[largest].1 += 1.0 - sum;
    }
}

/// Writes the new attributes and points the primitives at them; returns the number of
/// vertices repaired.
pub(super) fn apply_weights(
    root: &mut Root,
    extra: &mut Extra,
    fixes: Vec<WeightFix>,
    notes: &mut Vec<String>,
) -> usize {
    let mut repaired = 0;
    let mut where_ = Vec::new();
    for fix in fixes {
        let mut new = Vec::new();
        for (set, (j, w)) in fix.joints.iter().zip(&fix.weights).enumerate() {
            let target = Some(Target::ArrayBuffer);
            let joints = extra.push_u16(root, j, Type::Vec4, target);
            let weights = extra.push_f32(root, w, Type::Vec4, false, target);
            new.push((Semantic::Joints(set as u32), joints));
            new.push((Semantic::Weights(set as u32), weights));
        }
        let Some(prim) = root
            .meshes
            .get_mut(fix.mesh)
            .and_then(|m| m.primitives.get_mut(fix.primitive))
        else {
            continue;
        };
        for (semantic, accessor) in new {
            prim.attributes.insert(Checked::Valid(semantic), accessor);
        }
        repaired += fix.changed;
        where_.push(format!("mesh {} primitive {}", fix.mesh, fix.primitive));
    }
    if repaired > 0 {
        notes.push(format!(
            "skin weights of {repaired} vertices did not sum to one (or used a joint twice, \
             or a joint outside the skin) and were normalised; rewritten as float JOINTS/WEIGHTS \
             in {}",
            where_.join(", ")
        ));
    }
    repaired
}

/// POSITION accessors (of meshes and morph targets) whose min/max are missing or differ
/// from the data; the spec requires them and the validator checks them.
pub(super) fn plan_position_bounds(
    doc: &gltf::Document,
    buffers: &[gltf::buffer::Data],
) -> Vec<BoundsFix> {
    let get = |b: gltf::Buffer| buffers.get(b.index()).map(|d| &d.0[..]);
    let mut fixes: Vec<BoundsFix> = Vec::new();
    let positions = doc.meshes().flat_map(|m| m.primitives()).flat_map(|p| {
        let base = p.get(&gltf::Semantic::Positions);
        let targets: Vec<_> = p.morph_targets().filter_map(|t| t.positions()).collect();
        base.into_iter().chain(targets)
    });
    for accessor in positions {
        let float = accessor.data_type() == gltf::accessor::DataType::F32
            && accessor.dimensions() == gltf::accessor::Dimensions::Vec3;
        if !float || accessor.normalized() || fixes.iter().any(|f| f.accessor == accessor.index()) {
            continue;
        }
        let Some(iter) = gltf::accessor::Iter::<[f32; 3]>::new(accessor.clone(), get) else {
            continue;
        };
        let values: Vec<f32> = iter.flatten().collect();
        if values.is_empty() {
            continue;
        }
        let (min, max) = super::bin::min_max(&values, 3);
        let same = |declared: Option<json::Value>, actual: &json::Value| {
            declared.is_some_and(|d| as_f32s(&d) == as_f32s(actual))
        };
        if same(accessor.min(), &min) && same(accessor.max(), &max) {
            continue;
        }
        fixes.push(BoundsFix {
            accessor: accessor.index(),
            min: as_f32s(&min),
            max: as_f32s(&max),
        });
    }
    fixes
}

fn as_f32s(v: &json::Value) -> Vec<f32> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|x| x.as_f64().unwrap_or(f64::NAN) as f32)
                .collect()
        })
        .unwrap_or_default()
}

pub(super) fn apply_position_bounds(
    root: &mut Root,
    fixes: Vec<BoundsFix>,
    notes: &mut Vec<String>,
) {
    let count = fixes.len();
    for fix in fixes {
        if let Some(a) = root.accessors.get_mut(fix.accessor) {
            a.min = Some(to_json(&fix.min));
            a.max = Some(to_json(&fix.max));
        }
    }
    if count > 0 {
        notes.push(format!(
            "{count} POSITION accessor(s) had missing or wrong min/max; recomputed from the data"
        ));
    }
}

/// Animated nodes must hold TRS, not a matrix: the nodes the new channels drive get their
/// matrix split into translation, rotation and scale.
pub(super) fn split_animated_matrices(root: &mut Root, notes: &mut Vec<String>) {
    let animated: Vec<usize> = root
        .animations
        .iter()
        .flat_map(|a| a.channels.iter().map(|c| c.target.node.value()))
        .collect();
    let mut split = 0;
    for node in animated {
        let Some(n) = root.nodes.get_mut(node) else {
            continue;
        };
        let Some(m) = n.matrix.take() else {
            continue;
        };
        let t = retarget_core::Transform::from_mat4(glam::Mat4::from_cols_array(&m));
        n.translation = Some(t.translation.to_array());
        n.rotation = Some(json::scene::UnitQuaternion(t.rotation.to_array()));
        n.scale = Some(t.scale.to_array());
        split += 1;
    }
    if split > 0 {
        notes.push(format!(
            "{split} animated node(s) held a matrix; it was split into translation, rotation \
             and scale, which glTF requires for animated nodes"
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn repaired(slots: &[(u16, f32)], limit: u16) -> Vec<(u16, f32)> {
        let mut s = slots.to_vec();
        assert!(!passes(&s, limit), "{slots:?} should fail");
        fix(&mut s, limit);
        assert!(passes(&s, limit), "{s:?} should pass");
        s
    }

    #[test]
    fn weights_that_do_not_sum_to_one_are_scaled() {
        let s = repaired(&[(1, 0.6), (2, 0.63), (3, 0.0), (4, 0.0)], 10);
        assert!((s[0].1 / s[1].1 - 0.6 / 0.63).abs() < 1e-6);
        // A zero weight's joint is cleared, which also quiets the validator's warning.
        assert_eq!((s[2], s[3]), ((0, 0.0), (0, 0.0)));
    }

    #[test]
    fn duplicate_negative_and_foreign_joints_are_dropped() {
        let s = repaired(&[(1, 0.5), (1, 0.25), (2, -0.25), (99, 0.5)], 10);
        assert_eq!(s[0].0, 1);
        assert!((s[0].1 - 1.0).abs() < 1e-7, "{s:?}");
        assert!(s[1..].iter().all(|&(j, w)| j == 0 && w == 0.0), "{s:?}");
    }

    #[test]
    fn weights_near_the_largest_float_merge_without_overflowing() {
        // 3e38 + 3e38 is infinity in f32, and infinity over infinity NaN.
        let s = repaired(&[(1, 3e38), (1, 3e38), (2, 3e38), (0, 0.0)], 10);
        assert!(s.iter().all(|&(_, w)| w.is_finite()), "{s:?}");
        assert!((s[0].1 - 2.0 / 3.0).abs() < 1e-6 && s[0].0 == 1, "{s:?}");
        assert!((s[2].1 - 1.0 / 3.0).abs() < 1e-6 && s[2].0 == 2, "{s:?}");
    }

    #[test]
    fn a_vertex_with_no_weight_goes_to_its_first_joint() {
        let s = repaired(&[(7, 0.0), (3, 0.0), (0, 0.0), (0, 0.0)], 10);
        assert_eq!(s[0], (7, 1.0));
    }

    #[test]
    fn valid_vertices_are_left_alone_and_sets_are_read_across() {
        // Two sets: component 0 of both sets comes first, as the validator reads them.
        let mut joints = vec![vec![1, 2, 0, 0, 1, 0, 0, 0], vec![3, 0, 0, 0, 2, 0, 0, 0]];
        let mut weights = vec![
            vec![0.5, 0.25, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0],
            vec![0.25, 0.0, 0.0, 0.0, 0.5, 0.0, 0.0, 0.0],
        ];
        let before = (joints.clone(), weights.clone());
        assert_eq!(repair_vertices(&mut joints, &mut weights, 10), 0);
        assert_eq!((joints.clone(), weights.clone()), before);
        weights[1][4] = 0.75;
        assert_eq!(repair_vertices(&mut joints, &mut weights, 10), 1);
        let sum: f32 = weights[0][4] + weights[1][4];
        assert!((sum - 1.0).abs() < 1e-7);
    }
}
