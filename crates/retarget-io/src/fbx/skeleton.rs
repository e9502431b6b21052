//! The skeleton: which FBX nodes are joints, their rest pose (the nodes' own local
//! transforms, FBX's full transform evaluated by ufbx) and their bind pose (the clusters'
//! TransformLink, else the BindPose, else the rest pose).

use super::convert::{invert, mat4, transform};
use crate::error::Problem;
use glam::Mat4;
use retarget_core::{JointDef, Skeleton, Transform};
use std::collections::{BTreeSet, HashMap};

/// A skeleton with the ufbx node each joint came from.
pub(super) struct Built {
    pub skeleton: Skeleton,
    pub joint_of_node: HashMap<usize, usize>,
    /// `world_from_joint` in the bind pose, per joint (container included).
    pub bind_worlds: Vec<Mat4>,
}

/// Joints that decide the skeleton, and how they were found (for the user).
fn seeds(scene: &ufbx::Scene) -> (BTreeSet<usize>, &'static str) {
    let deforming: BTreeSet<usize> = scene
        .skin_clusters
        .iter()
        .filter_map(|c| c.bone_node.as_ref())
        .map(|n| n.element.typed_id as usize)
        .collect();
    if !deforming.is_empty() {
        return (deforming, "the bones the skin clusters use");
    }
    let bones: BTreeSet<usize> = scene
        .nodes
        .iter()
        .filter(|n| !n.is_root && n.bone.is_some())
        .map(|n| n.element.typed_id as usize)
        .collect();
    if !bones.is_empty() {
        return (bones, "the file's LimbNode/Limb bones (no skin)");
    }
    let animated: BTreeSet<usize> = scene
        .anim_layers
        .iter()
        .flat_map(|l| l.anim_props.iter())
        .filter_map(|p| ufbx::as_node(&p.element))
        .filter(|n| !n.is_root)
        .map(|n| n.element.typed_id as usize)
        .collect();
    (animated, "the animated nodes (no skin, no bones)")
}

/// A node that can be a joint: a bone, a Null or a bare transform; not a mesh, camera or light.
fn is_skeletal(node: &ufbx::Node) -> bool {
    !node.is_root
        && matches!(
            node.attrib_type,
            ufbx::ElementType::Bone | ufbx::ElementType::Empty | ufbx::ElementType::Unknown
        )
        && node.mesh.is_none()
}

fn parent_index(node: &ufbx::Node) -> Option<usize> {
    node.parent
        .as_ref()
        .filter(|p| !p.is_root)
        .map(|p| p.element.typed_id as usize)
}

fn path_from_root(scene: &ufbx::Scene, node: usize) -> Vec<usize> {
    let mut path = vec![node];
    while let Some(p) = parent_index(&scene.nodes[*path.last().unwrap_or(&node)]) {
        if path.len() > scene.nodes.len() {
            break;
        }
        path.push(p);
    }
    path.reverse();
    path
}

/// The seeds, every node between them, the bones above them (a non-deforming root) and the
/// bone or Null helpers below them (IK controls, end joints), parents first.
fn closure(scene: &ufbx::Scene, seeds: &BTreeSet<usize>) -> Vec<usize> {
    let paths: Vec<Vec<usize>> = seeds.iter().map(|&s| path_from_root(scene, s)).collect();
    let mut included = BTreeSet::new();
    let common = paths.iter().skip(1).fold(paths[0].len(), |c, p| {
        c.min(paths[0].iter().zip(p).take_while(|(a, b)| a == b).count())
    });
    for p in &paths {
        // From the lowest common ancestor down when there is one, else from the top seed.
        let first = match common {
            0 => p.iter().position(|n| seeds.contains(n)).unwrap_or(0),
            c if seeds.contains(&p[c - 1]) || scene.nodes[p[c - 1]].bone.is_some() => c - 1,
            c => c,
        };
        included.extend(p[first..].iter().copied());
    }
    // Bones above the top: a Maya "Root" joint above the hips.
    let mut top: Vec<usize> = roots_of(scene, &included);
    while top.len() == 1 {
        match parent_index(&scene.nodes[top[0]]) {
            Some(p) if scene.nodes[p].bone.is_some() => {
                included.insert(p);
                top = vec![p];
            }
            _ => break,
        }
    }
    let mut ordered = Vec::with_capacity(included.len());
    let mut stack: Vec<usize> = roots_of(scene, &included).into_iter().rev().collect();
    while let Some(n) = stack.pop() {
        ordered.push(n);
        for child in scene.nodes[n].children.iter().rev() {
            let c = child.element.typed_id as usize;
            if is_leaf_marker(child, &scene.nodes[n], seeds) {
                continue;
            }
            if included.contains(&c) || is_skeletal(child) {
                stack.push(c);
            }
        }
    }
    ordered
}

/// Blender's "leaf bones": FBX has no bone tails, so Blender's exporter hangs a bone named
/// `<parent>_end` under every bone that has no child (its own importer can ignore them).
/// They deform nothing and move with their parent; kept, they read as one more joint on
/// every finger, foot and IK target, which hides the rig's shape from the chain builder and
/// makes the FBX of a glTF character a different rig from its glTF.
fn is_leaf_marker(node: &ufbx::Node, parent: &ufbx::Node, seeds: &BTreeSet<usize>) -> bool {
    let name: &str = &node.element.name;
    let parent_name: &str = &parent.element.name;
    node.children.is_empty()
        && !seeds.contains(&(node.element.typed_id as usize))
        && node.mesh.is_none()
        && name.len() == parent_name.len() + 4
        && name.starts_with(parent_name)
        && name[parent_name.len()..].eq_ignore_ascii_case("_end")
}

fn roots_of(scene: &ufbx::Scene, included: &BTreeSet<usize>) -> Vec<usize> {
    included
        .iter()
        .copied()
        .filter(|&n| parent_index(&scene.nodes[n]).is_none_or(|p| !included.contains(&p)))
        .collect()
}

/// Where each joint was bound: the first cluster that uses it (TransformLink), else the
/// BindPose entry for it.
fn bind_links(scene: &ufbx::Scene) -> HashMap<usize, Mat4> {
    let mut links = HashMap::new();
    for pose in scene.poses.iter().filter(|p| p.is_bind_pose) {
        for bp in pose.bone_poses.iter() {
            links.insert(
                bp.bone_node.element.typed_id as usize,
                mat4(&bp.bone_to_world),
            );
        }
    }
    for cluster in scene.skin_clusters.iter() {
        if let Some(bone) = &cluster.bone_node {
            links.insert(bone.element.typed_id as usize, mat4(&cluster.bind_to_world));
        }
    }
    links
}

pub(super) fn build(
    scene: &ufbx::Scene,
    name: &str,
    warnings: &mut Vec<String>,
) -> Result<Built, Problem> {
    let (seeds, how) = seeds(scene);
    if seeds.is_empty() {
        return Err(Problem::NoJoints);
    }
    let ordered = closure(scene, &seeds);
    let joint_of_node: HashMap<usize, usize> =
        ordered.iter().enumerate().map(|(j, &n)| (n, j)).collect();
    // Everything above the top joint (the scene root's unit and axis conversion, an
    // "Armature" Null) is the container.
    let container_node = scene.nodes[ordered[0]].parent.as_ref();
    let container = container_node.map_or(Mat4::IDENTITY, |p| mat4(&p.node_to_world));
    let inverse_container = invert(container).ok_or_else(|| Problem::BadData {
        what: format!("the node above '{}'", scene.nodes[ordered[0]].element.name),
        reason: "its transform cannot be inverted (zero scale)".into(),
    })?;
    let links = bind_links(scene);
    let mut defs = Vec::with_capacity(ordered.len());
    let mut bind_worlds: Vec<Mat4> = Vec::with_capacity(ordered.len());
    let mut singular = Vec::new();
    for &n in &ordered {
        let node = &scene.nodes[n];
        let parent = parent_index(node).and_then(|p| joint_of_node.get(&p).copied());
        let same_parent = node.parent.as_ref().map(|p| p.element.typed_id)
            == container_node.map(|p| p.element.typed_id);
        let rest = match parent {
            Some(_) => transform(&node.local_transform),
            None if same_parent => transform(&node.local_transform),
            // A root hung from another node than the first root: its world, in the container.
            None => Transform::from_mat4(inverse_container * mat4(&node.node_to_world)),
        };
        // A mutated file can order a joint before its parent: refuse rather than index.
        let parent_bind = match parent {
            None => container,
            Some(p) => *bind_worlds.get(p).ok_or_else(|| Problem::BadData {
                what: format!("joint '{}'", node.element.name),
                reason: "it comes before its parent in the hierarchy".into(),
            })?,
        };
        let (bind, bind_world) = match links.get(&n) {
            Some(&link) => joint_bind(node, parent_bind, link, rest, &mut singular),
            None => joint_bind(
                node,
                parent_bind,
                parent_bind * rest.to_mat4(),
                rest,
                &mut singular,
            ),
        };
        bind_worlds.push(bind_world);
        defs.push(JointDef {
            bind,
            ..JointDef::new(node.element.name.to_string(), parent, rest)
        });
    }
    note_singular_binds(&singular, warnings);
    if seeds.len() < ordered.len() || how.contains("no skin") {
        warnings.push(format!(
            "skeleton from {how}: {} joint(s), {} of them decided by that and the rest \
             nodes between, above or under them",
            ordered.len(),
            seeds.len().min(ordered.len())
        ));
    }
    note_leaf_markers(scene, &ordered, &seeds, warnings);
    note_inherit_modes(scene, &ordered, &joint_of_node, warnings);
    let skeleton = Skeleton::new(name, container, defs).map_err(|source| Problem::Skeleton {
        skeleton: name.to_owned(),
        source,
    })?;
    Ok(Built {
        skeleton,
        joint_of_node,
        bind_worlds,
    })
}

/// A joint's bind relative to its parent's and its bind world matrix. When either bind
/// matrix cannot be inverted (zero scale), the joint binds at its `rest` (and is listed in
/// `singular`), and the joints below bind relative to where its rest puts it.
fn joint_bind(
    node: &ufbx::Node,
    parent_bind: Mat4,
    bind_world: Mat4,
    rest: Transform,
    singular: &mut Vec<String>,
) -> (Transform, Mat4) {
    let relative = invert(bind_world)
        .and(invert(parent_bind))
        .map(|inverse_parent| Transform::from_mat4(inverse_parent * bind_world))
        .filter(Transform::is_finite);
    if let Some(bind) = relative {
        return (bind, bind_world);
    }
    singular.push(node.element.name.to_string());
    let world = Some(parent_bind * rest.to_mat4())
        .filter(|m| invert(*m).is_some())
        .unwrap_or_else(|| mat4(&node.node_to_world));
    (rest, world)
}

/// Joints whose bind matrix or parent's has no inverse (a zero scale): their bind relative
/// to the parent cannot be read, so they bind at their rest.
fn note_singular_binds(joints: &[String], warnings: &mut Vec<String>) {
    if let Some(first) = joints.first() {
        warnings.push(format!(
            "{} joint(s) whose bind matrix or parent's cannot be inverted (zero scale): \
             '{first}'{}; they bind at their rest pose",
            joints.len(),
            if joints.len() > 1 { ", …" } else { "" }
        ));
    }
}

fn note_leaf_markers(
    scene: &ufbx::Scene,
    ordered: &[usize],
    seeds: &BTreeSet<usize>,
    warnings: &mut Vec<String>,
) {
    let left_out: Vec<String> = ordered
        .iter()
        .flat_map(|&n| {
            let parent = &scene.nodes[n];
            parent
                .children
                .iter()
                .filter(move |c| is_leaf_marker(c, parent, seeds))
                .map(|c| c.element.name.to_string())
        })
        .collect();
    if let Some(first) = left_out.first() {
        warnings.push(format!(
            "left out {} of Blender's leaf bones ('{first}'{}): bone tails FBX cannot store, \
             not joints of the rig",
            left_out.len(),
            if left_out.len() > 1 { ", …" } else { "" }
        ));
    }
}

/// FBX scale inheritance the solver cannot keep: it composes every joint as parent × local,
/// but a node whose inherit type ignores its parent's scale (Maya's segment scale
/// compensate) or inherits it per component does not sit there when the parent is scaled.
fn note_inherit_modes(
    scene: &ufbx::Scene,
    ordered: &[usize],
    joint_of_node: &HashMap<usize, usize>,
    warnings: &mut Vec<String>,
) {
    let mut off = Vec::new();
    for &n in ordered {
        let node = &scene.nodes[n];
        if node.inherit_mode == ufbx::InheritMode::Normal {
            continue;
        }
        let Some(parent) = node
            .parent
            .as_ref()
            .filter(|p| joint_of_node.contains_key(&(p.element.typed_id as usize)))
        else {
            continue;
        };
        let composed = mat4(&parent.node_to_world) * mat4(&node.node_to_parent);
        let truth = mat4(&node.node_to_world);
        let miss = (composed.w_axis - truth.w_axis).length();
        let size = truth.w_axis.truncate().length().max(1e-6);
        if miss > 1e-4 * size || !composed.abs_diff_eq(truth, 1e-4) {
            off.push(format!("'{}' ({:?})", node.element.name, node.inherit_mode));
        }
    }
    if !off.is_empty() {
        warnings.push(format!(
            "FBX scale inheritance that parent × local composition cannot keep, under a \
             scaled parent: {}; these joints sit where plain composition puts them",
            off.join(", ")
        ));
    }
}
