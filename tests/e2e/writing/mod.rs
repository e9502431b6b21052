mod bvh_export;
mod fbx_export;
mod gltf_export;
mod root_motion;
