mod harness;
use harness::{
    ctrl, drag_along, harness_on, select_target, session, settle, target_container_rotation,
    target_joint, target_pose, worst_limb_angle,
};

mod basics;
mod bone_map;
mod curves;
mod fingers;
mod first_hour;
mod hand_bars;
mod layout;
mod moved_files;
mod panels;
mod pose_tools;
mod safety;
mod save_kill;
mod screenshot;
mod skeleton_tab;
mod solve_tab;
mod trust;
mod views;
mod when_wrong;
mod workday;
