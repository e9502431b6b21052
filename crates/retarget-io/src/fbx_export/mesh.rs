//! The target's meshes as FBX geometry skinned to the joints' models: a Geometry and a
//! Mesh model per mesh, a Skin deformer with one Cluster per weighted joint, a BindPose,
//! and the base colour as a material with its embedded texture.

use super::curves::Ids;
use super::frames::FileFrame;
use super::node::Node;
use crate::asset::SkinnedMesh;
use retarget_core::Skeleton;

/// What the meshes added to the file.
#[derive(Default)]
pub(super) struct Written {
    pub objects: Vec<Node>,
    pub connections: Vec<Node>,
    pub notes: Vec<String>,
}

/// `meshes` are drawn by `skeleton`, whose joint `j` is the model `models[j]`.
pub(super) fn push_meshes(
    meshes: &[&SkinnedMesh],
    skeleton: &Skeleton,
    frame: &FileFrame,
    models: &[i64],
    ids: &mut Ids,
) -> Result<Written, String> {
    let _ = (skeleton, frame, models, ids);
    let mut written = Written::default();
    if !meshes.is_empty() {
        written
            .notes
            .push("the FBX holds the skeleton and its takes; meshes are not written yet".into());
    }
    Ok(written)
}
