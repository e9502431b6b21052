mod bvh_export;
mod gltf_export;
