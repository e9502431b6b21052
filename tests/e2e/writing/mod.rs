mod bvh_export;
mod curves;
mod fbx_export;
mod gltf_export;
mod root_motion;
mod tilted_target;
