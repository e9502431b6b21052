//! The skeleton the skin deforms with. Rigs exported with their controls (Rigify's `MCH-`
//! and `c.` bones, a game character's IK feet, knee poles and roll controls) carry joints
//! beside the body that no vertex follows, and some of them are named like body parts (a
//! Rigify `c.hips` or `c.head` control sits elsewhere than the hips or the head). The skin
//! says which joints are the body: those with vertex weights, and the chains above them.
//! Labelling and chain building look only at those, so the controls are left where their
//! parents take them.

/// Below this share of the skin's total weight a joint counts as unweighted: stray
/// influences from quantised or normalised weights are not a body part.
const STRAY: f32 = 1e-4;

/// Which joints the skin deforms with: every joint with vertex weight (summed over the
/// skeleton's meshes, `weights` one entry per joint) and every joint above one. `None` when
/// the weights say nothing (no mesh, fewer than two weighted joints, or every joint in).
pub fn deforming(parents: &[Option<usize>], weights: &[f32]) -> Option<Vec<bool>> {
    if weights.len() != parents.len() {
        return None;
    }
    let total: f32 = weights.iter().filter(|w| w.is_finite()).sum();
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let weighted: Vec<bool> = weights.iter().map(|&w| w > STRAY * total).collect();
    if weighted.iter().filter(|&&w| w).count() < 2 {
        return None;
    }
    let mut keep = weighted;
    for j in (0..parents.len()).rev() {
        if keep[j]
            && let Some(p) = parents[j].filter(|&p| p < j)
        {
            keep[p] = true;
        }
    }
    (!keep.iter().all(|&k| k)).then_some(keep)
}

/// Drops from a `deforming` mask the unweighted joints off the trunk's line: neither above
/// the weighted `hips` joint nor below it. A rig exported with its controls (Rigify's
/// `torso` → `MCH-spine` → `ORG-spine` carrying `DEF-thigh.L`, Godot's `foot_IK.L` carrying
/// `foot.L`) hangs weighted joints from controls beside the body; those controls only carry
/// them, and read as body they would make a second pelvis and spine. The weighted joints
/// they carry stay: the retarget places them after their limbs (`retarget::plan`).
pub fn off_the_trunk(parents: &[Option<usize>], weights: &[f32], hips: usize, keep: &mut [bool]) {
    let n = parents.len();
    if weights.len() != n || keep.len() != n || hips >= n {
        return;
    }
    let total: f32 = weights.iter().filter(|w| w.is_finite()).sum();
    let weighted = |j: usize| weights[j] > STRAY * total;
    if total.is_nan() || total <= 0.0 || !weighted(hips) {
        return;
    }
    // On the trunk's line: the hips, its ancestors and everything below it.
    let mut line = vec![false; n];
    let mut at = Some(hips);
    while let Some(j) = at {
        line[j] = true;
        at = parents[j].filter(|&p| p < j);
    }
    let mut under = vec![false; n];
    under[hips] = true;
    for j in hips + 1..n {
        if let Some(p) = parents[j].filter(|&p| p < j) {
            under[j] = under[p];
        }
    }
    for j in 0..n {
        if keep[j] && !line[j] && !under[j] && !weighted(j) {
            keep[j] = false;
        }
    }
}

/// The joints a mask keeps, as a skeleton of their own: indices into the full skeleton and
/// parents among the kept joints. A kept joint's parent is its nearest kept ancestor
/// (with `deforming`'s masks, always its own parent).
pub struct Subset {
    /// Full-skeleton index of each kept joint, in order.
    pub joints: Vec<usize>,
    pub parents: Vec<Option<usize>>,
}

impl Subset {
    /// The kept joints of `parents` (all of them without a mask).
    pub fn new(parents: &[Option<usize>], keep: Option<&[bool]>) -> Self {
        let kept = |j: usize| keep.is_none_or(|k| k.get(j).copied().unwrap_or(true));
        let mut index = vec![None; parents.len()];
        let mut joints = Vec::new();
        let mut sub_parents = Vec::new();
        for j in 0..parents.len() {
            if !kept(j) {
                continue;
            }
            let mut at = parents[j].filter(|&p| p < j);
            while let Some(p) = at {
                if index[p].is_some() {
                    break;
                }
                at = parents[p];
            }
            index[j] = Some(joints.len());
            joints.push(j);
            sub_parents.push(at.and_then(|p| index[p]));
        }
        Self {
            joints,
            parents: sub_parents,
        }
    }

    /// `full`'s entries at the kept joints.
    pub fn pick<T: Clone>(&self, full: &[T]) -> Vec<T> {
        self.joints.iter().map(|&j| full[j].clone()).collect()
    }

    /// Whether every joint of a skeleton of `len` joints is kept.
    pub fn is_whole(&self, len: usize) -> bool {
        self.joints.len() == len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // 0 root ─ 1 hips ─ 2 thigh ─ 3 shin
    //        │        └ 4 control (unweighted leaf under the deforming chain)
    //        └ 5 ik_foot ─ 6 pole (unweighted, hung from the root)
    const PARENTS: [Option<usize>; 7] =
        [None, Some(0), Some(1), Some(2), Some(1), Some(0), Some(5)];

    #[test]
    fn weighted_joints_and_their_ancestors_deform() {
        let weights = [0.0, 10.0, 20.0, 15.0, 0.0, 0.0, 0.0];
        let keep = deforming(&PARENTS, &weights).unwrap();
        assert_eq!(keep, [true, true, true, true, false, false, false]);
        let sub = Subset::new(&PARENTS, Some(&keep));
        assert_eq!(sub.joints, [0, 1, 2, 3]);
        assert_eq!(sub.parents, [None, Some(0), Some(1), Some(2)]);
        assert_eq!(
            sub.pick(&["a", "b", "c", "d", "e", "f", "g"]),
            ["a", "b", "c", "d"]
        );
    }

    #[test]
    fn no_mask_without_weights_or_when_every_joint_deforms() {
        assert_eq!(deforming(&PARENTS, &[0.0; 7]), None);
        assert_eq!(deforming(&PARENTS, &[1.0; 7]), None);
        assert_eq!(deforming(&PARENTS, &[1.0; 3]), None, "wrong length");
        assert_eq!(
            deforming(&PARENTS, &[0.0, 5.0, 0.0, 0.0, 0.0, 0.0, 0.0]),
            None,
            "one weighted joint is a rigid prop, not a body"
        );
        // A stray influence is no weight.
        let keep = deforming(&PARENTS, &[0.0, 1e4, 1e4, 1e4, 1e-3, 0.0, f32::NAN]).unwrap();
        assert!(!keep[4] && !keep[6]);
    }

    #[test]
    fn controls_carrying_body_joints_beside_the_hips_leave_the_mask() {
        // 0 root ─ 1 hips ─ 2 spine
        //        └ 3 torso (control) ─ 4 org_spine ─ 5 thigh ─ 6 shin
        //        └ 7 foot_ik (control) ─ 8 foot
        //        └ 9 pole (control leaf)
        let parents = [
            None,
            Some(0),
            Some(1),
            Some(0),
            Some(3),
            Some(4),
            Some(5),
            Some(0),
            Some(7),
            Some(0),
        ];
        let weights = [0.0, 10.0, 10.0, 0.0, 0.0, 10.0, 10.0, 0.0, 10.0, 0.0];
        let mut keep = deforming(&parents, &weights).unwrap();
        assert!(
            keep[3] && keep[4] && keep[7],
            "ancestors of weighted joints"
        );
        off_the_trunk(&parents, &weights, 1, &mut keep);
        let kept: Vec<usize> = (0..10).filter(|&j| keep[j]).collect();
        assert_eq!(kept, [0, 1, 2, 5, 6, 8]);
        // Unweighted hips say nothing of where the trunk is.
        let mut keep = deforming(&parents, &weights).unwrap();
        let mut unweighted_hips = weights;
        unweighted_hips[1] = 0.0;
        off_the_trunk(&parents, &unweighted_hips, 1, &mut keep);
        assert!(keep[3] && keep[4] && keep[7]);
    }

    #[test]
    fn a_subset_skips_dropped_joints_up_to_a_kept_ancestor() {
        let keep = [true, false, true, true, false, true, true];
        let sub = Subset::new(&PARENTS, Some(&keep));
        assert_eq!(sub.joints, [0, 2, 3, 5, 6]);
        assert_eq!(sub.parents, [None, Some(0), Some(1), Some(0), Some(3)]);
        assert!(Subset::new(&PARENTS, None).is_whole(7));
    }
}
