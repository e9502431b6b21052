//! Generators of variant files: each takes the bytes (or text) of a real file and returns a
//! variant file in a convention animators meet (Mixamo through Blender, other names, scale,
//! joint axes or proportions, a BVH whose zero pose is not a T-pose), with the same motion.
//! Working on files, not on in-memory skeletons, lets the whole import → retarget → export
//! path, and Blender as an independent reader, see the convention.
//!
//! glTF variants work on any skinned GLB/VRM, keep rotation keys unit quaternions and keep
//! the file valid glTF. Humanoid joints are found without the product's labeller: the file's
//! VRM table, else hand-written tables of the bundled rigs' names (`labels`).
//!
//! The creature variants (`creatures`, `four_armed`, `joint_names`) work on any
//! skinned rig, joints picked by node index or name predicate (`node_edit::joint_named`):
//! renamed joints, one more root node, a bone split, a chain shortened, limbs lengthened,
//! and (humanoids) a second pair of arms.

pub mod anim;
pub mod bvh_layouts;
pub mod bvh_variants;
pub mod checks;
pub mod controls;
pub mod creatures;
pub mod expressive_vrm;
pub mod fingers;
pub mod four_armed;
pub mod glb;
pub mod gltf_variants;
pub mod grip;
pub mod joint_names;
pub mod labels;
pub mod mesh_space;
pub mod mixamo;
pub mod node_edit;
pub mod prop;
pub mod twist;
pub mod two_armatures;
pub mod ue_ik;

pub use bvh_layouts::{
    deltas_in_place, fox_walk_bvh_facing_x, fox_walk_bvh_travelling, position_deltas,
    research_dataset_layout,
};
pub use bvh_variants::{bvh_scaled, degenerate_zero_pose, root_offset_at_hips, z_up_bvh};
pub use creatures::{extra_root_node, longer_limbs, shorten_chain, split_bone};
pub use expressive_vrm::robot_as_vrm;
pub use fingers::{curled_fingers, turned_palms};
pub use four_armed::four_armed;
pub use gltf_variants::{longer_arms, longer_legs, rename_map, renamed, reoriented, rescaled};
pub use grip::grip_walk;
pub use joint_names::{NameStyle, SideMarker, renamed_as, renamed_with};
pub use labels::Convention;
pub use mesh_space::bound_elsewhere;
pub use mixamo::mixamo_through_blender;
pub use prop::rifle_walk;
pub use two_armatures::two_armatures;
