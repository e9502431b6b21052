//! A skeleton: flat arrays in topological order (`parent < child`), so forward kinematics
//! is a single forward pass with no recursion.

use super::humanoid::HumanBone;
use super::transform::Transform;
use glam::Mat4;

/// One joint as an importer describes it, before the skeleton checks and flattens them.
#[derive(Clone, Debug, PartialEq)]
pub struct JointDef {
    pub name: String,
    pub parent: Option<usize>,
    /// The node's own local transform at load (glTF node TRS, BVH offset).
    pub rest: Transform,
    /// The local transform that the skin was bound in; equal to `rest` where the file says
    /// nothing else (no inverse bind matrix, BVH).
    pub bind: Transform,
    pub humanoid: Option<HumanBone>,
}

impl JointDef {
    pub fn new(name: impl Into<String>, parent: Option<usize>, rest: Transform) -> Self {
        Self {
            name: name.into(),
            parent,
            rest,
            bind: rest,
            humanoid: None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SkeletonError {
    #[error("the skeleton has no joints")]
    Empty,
    #[error("joint {index} ('{name}') has parent {parent}, which does not come before it")]
    ParentOrder {
        index: usize,
        name: String,
        parent: usize,
    },
    #[error("joint {index} ('{name}') has a non-finite {what} transform")]
    NonFinite {
        index: usize,
        name: String,
        what: &'static str,
    },
    #[error("the container transform is not finite")]
    NonFiniteContainer,
    #[error(
        "joint {index} ('{name}') lies or scales beyond {MAX_EXTENT:e} units in the {what} \
         pose: the file's numbers are too large for a figure"
    )]
    TooLarge {
        index: usize,
        name: String,
        what: &'static str,
    },
}

/// The largest entry a joint's world matrix may have (skeleton space, rest or bind): past
/// it, inverting and composing matrices overflows `f32` and the solve returns NaN.
pub const MAX_EXTENT: f32 = 1e9;

#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    pub name: String,
    names: Vec<String>,
    parents: Vec<Option<usize>>,
    rest: Vec<Transform>,
    bind: Vec<Transform>,
    humanoid: Vec<Option<HumanBone>>,
    /// What sits above the root joints: the armature node's own transform, a unit or an
    /// axis conversion. Kept apart so that joint data stays as the file wrote it.
    container: Mat4,
}

impl Skeleton {
    pub fn new(
        name: impl Into<String>,
        container: Mat4,
        joints: Vec<JointDef>,
    ) -> Result<Self, SkeletonError> {
        if joints.is_empty() {
            return Err(SkeletonError::Empty);
        }
        if !container.is_finite() {
            return Err(SkeletonError::NonFiniteContainer);
        }
        for (index, j) in joints.iter().enumerate() {
            if let Some(parent) = j.parent
                && parent >= index
            {
                return Err(SkeletonError::ParentOrder {
                    index,
                    name: j.name.clone(),
                    parent,
                });
            }
            for (what, t) in [("rest", &j.rest), ("bind", &j.bind)] {
                if !t.is_finite() {
                    return Err(SkeletonError::NonFinite {
                        index,
                        name: j.name.clone(),
                        what,
                    });
                }
            }
        }
        let n = joints.len();
        let mut s = Skeleton {
            name: name.into(),
            names: Vec::with_capacity(n),
            parents: Vec::with_capacity(n),
            rest: Vec::with_capacity(n),
            bind: Vec::with_capacity(n),
            humanoid: Vec::with_capacity(n),
            container,
        };
        for j in joints {
            s.names.push(j.name);
            s.parents.push(j.parent);
            s.rest.push(j.rest);
            s.bind.push(j.bind);
            s.humanoid.push(j.humanoid);
        }
        s.check_extent()?;
        Ok(s)
    }

    /// Every rest and bind world matrix is finite and within [`MAX_EXTENT`].
    fn check_extent(&self) -> Result<(), SkeletonError> {
        let within = |m: &Mat4| m.to_cols_array().iter().all(|v| v.abs() <= MAX_EXTENT);
        for (what, pose) in [
            ("rest", crate::Pose::rest(self)),
            ("bind", crate::Pose::bind(self)),
        ] {
            if let Some(index) = pose.world_matrices(self).iter().position(|m| !within(m)) {
                return Err(SkeletonError::TooLarge {
                    index,
                    name: self.names[index].clone(),
                    what,
                });
            }
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn parents(&self) -> &[Option<usize>] {
        &self.parents
    }

    pub fn rest(&self) -> &[Transform] {
        &self.rest
    }

    pub fn bind(&self) -> &[Transform] {
        &self.bind
    }

    pub fn humanoid(&self) -> &[Option<HumanBone>] {
        &self.humanoid
    }

    pub fn container(&self) -> Mat4 {
        self.container
    }

    pub fn set_container(&mut self, world_from_skeleton: Mat4) {
        self.container = world_from_skeleton;
    }

    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    pub fn find_humanoid(&self, bone: HumanBone) -> Option<usize> {
        self.humanoid.iter().position(|h| *h == Some(bone))
    }

    /// Labels joints that have no label yet; existing labels win (a VRM table beats a name).
    pub fn label_unlabelled(&mut self, mut label: impl FnMut(&str) -> Option<HumanBone>) {
        for (name, slot) in self.names.iter().zip(self.humanoid.iter_mut()) {
            if slot.is_none() {
                *slot = label(name);
            }
        }
    }

    pub fn set_humanoid(&mut self, joint: usize, bone: Option<HumanBone>) {
        self.humanoid[joint] = bone;
    }

    /// The joints as an importer would describe them: for making edited copies.
    pub fn joint_defs(&self) -> Vec<JointDef> {
        (0..self.len())
            .map(|i| JointDef {
                name: self.names[i].clone(),
                parent: self.parents[i],
                rest: self.rest[i],
                bind: self.bind[i],
                humanoid: self.humanoid[i],
            })
            .collect()
    }

    /// Whether `ancestor` hangs above `joint` (a joint is not its own ancestor).
    pub fn is_ancestor(&self, ancestor: usize, joint: usize) -> bool {
        is_ancestor_in(&self.parents, ancestor, joint)
    }

    pub fn children(&self, joint: usize) -> impl Iterator<Item = usize> + '_ {
        self.parents
            .iter()
            .enumerate()
            .skip(joint + 1)
            .filter(move |(_, p)| **p == Some(joint))
            .map(|(i, _)| i)
    }
}

/// `Skeleton::is_ancestor` over a bare parents array (the chain skeleton and the automatic
/// map work on arrays).
pub fn is_ancestor_in(parents: &[Option<usize>], ancestor: usize, joint: usize) -> bool {
    let mut at = parents[joint];
    while let Some(j) = at {
        if j == ancestor {
            return true;
        }
        at = parents[j];
    }
    false
}

/// Lowest common ancestor of `joints` over a parents array (a joint counts as its own).
pub fn common_ancestor_in(parents: &[Option<usize>], joints: &[usize]) -> Option<usize> {
    let path = |j: usize| {
        let mut p = vec![j];
        while let Some(up) = parents[*p.last().expect("starts with j")] {
            p.push(up);
        }
        p.reverse();
        p
    };
    let mut common = path(*joints.first()?);
    for &j in &joints[1..] {
        let other = path(j);
        let n = common
            .iter()
            .zip(&other)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(n);
    }
    common.last().copied()
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Vec3;

    fn joint(name: &str, parent: Option<usize>) -> JointDef {
        JointDef::new(name, parent, Transform::from_translation(Vec3::Y))
    }

    #[test]
    fn rejects_empty_and_out_of_order_parents() {
        assert_eq!(
            Skeleton::new("s", Mat4::IDENTITY, vec![]),
            Err(SkeletonError::Empty)
        );
        let err = Skeleton::new(
            "s",
            Mat4::IDENTITY,
            vec![joint("a", None), joint("b", Some(2)), joint("c", Some(0))],
        )
        .unwrap_err();
        assert!(matches!(err, SkeletonError::ParentOrder { index: 1, .. }));
        let self_parent = Skeleton::new("s", Mat4::IDENTITY, vec![joint("a", Some(0))]);
        assert!(self_parent.is_err());
    }

    #[test]
    fn rejects_joints_too_far_out_to_compose() {
        // Finite, but a chain of them overflows f32 once matrices are inverted.
        let far = JointDef::new("far", None, Transform::from_translation(Vec3::Z * 1e38));
        let err = Skeleton::new("s", Mat4::IDENTITY, vec![far, joint("b", Some(0))]).unwrap_err();
        assert!(
            matches!(err, SkeletonError::TooLarge { index: 0, .. }),
            "{err}"
        );
        assert!(err.to_string().contains("too large"), "{err}");
    }

    #[test]
    fn rejects_nan() {
        let mut j = joint("a", None);
        j.rest.translation.x = f32::NAN;
        let err = Skeleton::new("s", Mat4::IDENTITY, vec![j]).unwrap_err();
        assert!(err.to_string().contains("non-finite rest"), "{err}");
    }

    #[test]
    fn children_and_lookup() {
        let s = Skeleton::new(
            "s",
            Mat4::IDENTITY,
            vec![
                joint("root", None),
                joint("a", Some(0)),
                joint("b", Some(0)),
                joint("c", Some(1)),
            ],
        )
        .unwrap();
        assert_eq!(s.children(0).collect::<Vec<_>>(), vec![1, 2]);
        assert_eq!(s.find("c"), Some(3));
        assert_eq!(s.find("zz"), None);
    }
}
