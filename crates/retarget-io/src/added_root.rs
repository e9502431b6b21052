//! A target with a root joint added above its skeleton's top joints (for engines' root
//! motion on a rig that has none): joint `j` becomes `j + 1` in its meshes and clips too. The
//! file's own nodes no longer match the skeleton, so writers put the meshes as read.

use crate::asset::Asset;
use retarget_core::root_motion::{clip_with_added_root, with_added_root};

/// `asset` with a root joint added to skeleton `skeleton`.
pub fn with_root_joint(asset: &Asset, skeleton: usize) -> Result<Asset, String> {
    let s = asset
        .skeletons
        .get(skeleton)
        .ok_or_else(|| format!("skeleton {skeleton} does not exist"))?;
    if s.len() >= u16::MAX as usize {
        return Err(format!(
            "skeleton '{}' has {} joints: no room for one more in a mesh's joint indices",
            s.name,
            s.len()
        ));
    }
    let mut out = asset.clone();
    out.skeletons[skeleton] = with_added_root(s);
    out.joint_nodes = Vec::new();
    for m in out.meshes.iter_mut().filter(|m| m.skeleton == skeleton) {
        m.inverse_bind.insert(0, glam::Mat4::IDENTITY);
        for p in &mut m.primitives {
            for js in &mut p.joints {
                *js = js.map(|j| j + 1);
            }
        }
    }
    for c in out.clips.iter_mut().filter(|c| c.skeleton == skeleton) {
        c.clip = clip_with_added_root(&c.clip);
    }
    for t in &mut out.curve_targets {
        for b in &mut t.binds {
            b.node = None;
        }
    }
    Ok(out)
}
