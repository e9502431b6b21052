//! End-to-end tests on the real rigs and clips in `assets/`, built as one test binary: each
//! integration test file would otherwise link the whole GUI stack again, which costs minutes and
//! gigabytes on a 2-core CI machine.

mod common;

mod bad_input;
mod bind_placement;
mod bvh_export;
mod bvh_import;
mod bvh_target_floor;
mod cli_batch;
mod cli_check;
mod cli_inspect;
mod cli_interrupt;
mod cli_retarget;
mod compressed_gltf;
mod control_rigs;
mod creature_facing;
mod creature_variants;
mod creatures;
mod fbx_import;
mod feet_ik;
mod file_variants;
mod gltf_export;
mod gltf_import;
mod leg_options;
mod mirror;
mod moved_files;
mod profile_labels;
mod quality_matrix;
mod real_rigs;
mod retarget_invariants;
mod retarget_real;
mod runtime;
mod save_kill;
mod screenshot;
mod textures;
mod twist_bones;
mod two_armatures;
mod ui;
mod ui_layout;
mod ui_safety;
mod ui_skeleton;
mod ui_solve;
mod ui_tools;
mod ui_views;
mod ui_workday;
