//! The glTF node tree made explicit: parents, local and world matrices, with cycles and
//! shared children refused up front so that nothing later can loop or panic on them.

use crate::error::Problem;
use glam::{Mat4, Quat, Vec3};
use retarget_core::Transform;

pub(super) struct Hierarchy {
    pub names: Vec<String>,
    pub parents: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    pub locals: Vec<Transform>,
    pub local_matrices: Vec<Mat4>,
    pub worlds: Vec<Mat4>,
}

impl Hierarchy {
    pub fn new(doc: &gltf::Document) -> Result<Self, Problem> {
        let n = doc.nodes().len();
        let mut names = Vec::with_capacity(n);
        let mut children = vec![Vec::new(); n];
        let mut parents: Vec<Option<usize>> = vec![None; n];
        let mut locals = Vec::with_capacity(n);
        let mut local_matrices = Vec::with_capacity(n);
        for node in doc.nodes() {
            let i = node.index();
            let name = node
                .name()
                .map(str::to_owned)
                .unwrap_or_else(|| format!("node_{i}"));
            let matrix = Mat4::from_cols_array_2d(&node.transform().matrix());
            let (t, r, s) = node.transform().decomposed();
            let local = Transform::new(Vec3::from(t), Quat::from_array(r), Vec3::from(s));
            if !matrix.is_finite() || !local.is_finite() {
                return Err(Problem::BadData {
                    what: format!("node {i} ('{name}')"),
                    reason: "its transform has a NaN or infinite value".into(),
                });
            }
            if !is_affine(&matrix) {
                return Err(Problem::BadData {
                    what: format!("node {i} ('{name}')"),
                    reason: NOT_AFFINE.into(),
                });
            }
            let local = Transform {
                rotation: normalise_rotation(local.rotation, i, &name)?,
                ..local
            };
            for child in node.children() {
                let c = child.index();
                if c == i {
                    return Err(Problem::ParentCycle { node: i, name });
                }
                if parents[c].is_some() {
                    return Err(Problem::SharedChild {
                        node: c,
                        name: child.name().unwrap_or("").to_owned(),
                    });
                }
                parents[c] = Some(i);
                children[i].push(c);
            }
            names.push(name);
            locals.push(local);
            local_matrices.push(matrix);
        }
        check_acyclic(&parents, &names)?;
        let mut h = Hierarchy {
            names,
            parents,
            children,
            locals,
            local_matrices,
            worlds: vec![Mat4::IDENTITY; n],
        };
        h.compute_worlds();
        Ok(h)
    }

    fn compute_worlds(&mut self) {
        let mut done = vec![false; self.names.len()];
        let mut stack = Vec::new();
        for start in 0..self.names.len() {
            let mut at = Some(start);
            while let Some(i) = at {
                if done[i] {
                    break;
                }
                stack.push(i);
                at = self.parents[i];
            }
            while let Some(i) = stack.pop() {
                let parent_world = self.parents[i].map_or(Mat4::IDENTITY, |p| self.worlds[p]);
                self.worlds[i] = parent_world * self.local_matrices[i];
                done[i] = true;
            }
        }
    }
}

/// Every parent walk ends at a root. Linear: a walk stops at a node an earlier walk proved
/// (walking each node to its root would be quadratic on a 100,000-node chain).
fn check_acyclic(parents: &[Option<usize>], names: &[String]) -> Result<(), Problem> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        Unseen,
        OnWalk,
        Proven,
    }
    let mut state = vec![State::Unseen; parents.len()];
    let mut walk = Vec::new();
    for start in 0..parents.len() {
        let mut at = Some(start);
        while let Some(n) = at {
            match state[n] {
                State::Proven => break,
                State::OnWalk => {
                    return Err(Problem::ParentCycle {
                        node: n,
                        name: names[n].clone(),
                    });
                }
                State::Unseen => {
                    state[n] = State::OnWalk;
                    walk.push(n);
                    at = parents[n];
                }
            }
        }
        for n in walk.drain(..) {
            state[n] = State::Proven;
        }
    }
    Ok(())
}

/// Why a matrix with a projective row is refused: glTF nodes and skins hold only affine
/// transforms, and the writer can only write those (a node as translation, rotation, scale),
/// so an accepted projective row would not read back.
pub(super) const NOT_AFFINE: &str =
    "its matrix's last row is not 0 0 0 1: glTF allows only affine transforms";

/// The last row is (0, 0, 0, 1), up to rounding.
pub(super) fn is_affine(m: &Mat4) -> bool {
    let row = m.row(3);
    row.truncate().abs().max_element() <= 1e-6 && (row.w - 1.0).abs() <= 1e-6
}

fn normalise_rotation(q: Quat, node: usize, name: &str) -> Result<Quat, Problem> {
    retarget_core::clip::normalised(q).ok_or_else(|| Problem::BadData {
        what: format!("node {node} ('{name}')"),
        reason: "its rotation quaternion has zero length".into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_matrix(matrix: &str) -> Result<Hierarchy, Problem> {
        let json = format!(
            r#"{{"asset": {{"version": "2.0"}}, "nodes": [{{"name": "a", "matrix": {matrix}}}]}}"#
        );
        let root = gltf::json::deserialize::from_str(&json).expect("a glTF root");
        Hierarchy::new(&gltf::Document::from_json_without_validation(root))
    }

    #[test]
    fn a_projective_node_matrix_is_refused_and_an_affine_one_read() {
        let affine = "[1,0,0,0, 0,1,0,0, 0,0,1,0, 5,0,0,1]";
        assert!(with_matrix(affine).is_ok());
        // The writer writes nodes as translation, rotation and scale: this row cannot be.
        let projective = "[1,0,0,0, 0,1,0,65535, 0,0,1,0, 0,0,0,1]";
        let e = with_matrix(projective).err().expect("refused");
        assert!(e.to_string().contains("0 0 0 1"), "{e}");
    }
}
