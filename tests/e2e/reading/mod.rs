mod bad_input;
mod bvh_import;
mod compressed_gltf;
mod fbx_import;
mod file_variants;
mod gltf_import;
mod textures;
mod two_armatures;
