//! The joint hierarchy with its world positions, in the forms the labelling passes ask about:
//! children, depth, ancestry and how far each subtree reaches up and down.

use glam::Vec3;

/// Read-only view of a skeleton for labelling. Built once per `auto_label` call; nothing here
/// is on a per-frame path, so plain `Vec`s are fine.
pub(super) struct Tree {
    pub parents: Vec<Option<usize>>,
    pub children: Vec<Vec<usize>>,
    pub depth: Vec<usize>,
    /// World positions of the joint origins (container included).
    pub pos: Vec<Vec3>,
    /// Height of all joints along +Y, at least a tiny positive number so ratios stay finite.
    pub height: f32,
    /// Lowest joint height.
    pub floor: f32,
    /// Lowest and highest `y` over each joint's subtree (the joint included).
    pub sub_min_y: Vec<f32>,
    pub sub_max_y: Vec<f32>,
    /// The lowest joint of each subtree.
    pub sub_lowest: Vec<usize>,
}

impl Tree {
    /// `parents` must be in topological order (`parent < child`), as `Skeleton` guarantees;
    /// a parent that breaks it is treated as a root rather than trusted.
    pub fn new(parents: &[Option<usize>], pos: Vec<Vec3>) -> Self {
        let n = parents.len();
        let parents: Vec<Option<usize>> = parents
            .iter()
            .enumerate()
            .map(|(i, p)| p.filter(|&p| p < i))
            .collect();
        let mut children = vec![Vec::new(); n];
        let mut depth = vec![0; n];
        for (i, p) in parents.iter().enumerate() {
            if let Some(p) = *p {
                children[p].push(i);
                depth[i] = depth[p] + 1;
            }
        }
        let ys: Vec<f32> = pos.iter().map(|p| finite_or_zero(p.y)).collect();
        let (mut sub_min_y, mut sub_max_y) = (ys.clone(), ys.clone());
        let mut sub_lowest: Vec<usize> = (0..n).collect();
        for i in (0..n).rev() {
            if let Some(p) = parents[i] {
                if sub_min_y[i] < sub_min_y[p] {
                    sub_min_y[p] = sub_min_y[i];
                    sub_lowest[p] = sub_lowest[i];
                }
                sub_max_y[p] = sub_max_y[p].max(sub_max_y[i]);
            }
        }
        let floor = ys.iter().copied().fold(f32::INFINITY, f32::min);
        let top = ys.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let height = if top > floor { top - floor } else { 1e-6 };
        Self {
            parents,
            children,
            depth,
            pos,
            height,
            floor: if floor.is_finite() { floor } else { 0.0 },
            sub_min_y,
            sub_max_y,
            sub_lowest,
        }
    }

    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Whether `a` is a proper ancestor of `b`.
    pub fn is_ancestor(&self, a: usize, b: usize) -> bool {
        let mut cur = self.parents.get(b).copied().flatten();
        while let Some(c) = cur {
            if c == a {
                return true;
            }
            cur = self.parents[c];
        }
        false
    }

    /// Proper ancestors of `j`, nearest first.
    pub fn ancestors(&self, j: usize) -> impl Iterator<Item = usize> + '_ {
        std::iter::successors(self.parents.get(j).copied().flatten(), move |&c| {
            self.parents[c]
        })
    }

    /// `j` and all its descendants, in index order (so parents come first).
    pub fn subtree(&self, j: usize) -> Vec<usize> {
        let mut inside = vec![false; self.len()];
        let mut out = Vec::new();
        if j >= self.len() {
            return out;
        }
        inside[j] = true;
        out.push(j);
        for i in j + 1..self.len() {
            if let Some(p) = self.parents[i]
                && inside[p]
            {
                inside[i] = true;
                out.push(i);
            }
        }
        out
    }

    /// The joints strictly between `top` and its ancestor `bottom`, from `bottom`'s side;
    /// `None` when `bottom` is not an ancestor of `top`.
    pub fn between(&self, bottom: usize, top: usize) -> Option<Vec<usize>> {
        let mut path: Vec<usize> = self.ancestors(top).take_while(|&a| a != bottom).collect();
        if !self.is_ancestor(bottom, top) {
            return None;
        }
        path.reverse();
        Some(path)
    }

    /// Walks down from `start`, at each joint taking the child that `score` rates highest,
    /// until a leaf. The path starts with `start`.
    pub fn descend(&self, start: usize, score: impl Fn(usize) -> f32) -> Vec<usize> {
        let mut path = vec![start];
        let mut cur = start;
        while let Some(&next) = self.children[cur]
            .iter()
            .max_by(|&&a, &&b| score(a).total_cmp(&score(b)).then(b.cmp(&a)))
        {
            path.push(next);
            cur = next;
        }
        path
    }

    /// Horizontal (XZ) distance between two joints.
    pub fn horizontal_distance(&self, a: usize, b: usize) -> f32 {
        horizontal(self.pos[a] - self.pos[b]).length()
    }

    pub fn distance(&self, a: usize, b: usize) -> f32 {
        self.pos[a].distance(self.pos[b])
    }

    /// For every joint, the largest horizontal distance from `from` reached in its subtree:
    /// what an arm chain follows outwards from the chest.
    pub fn horizontal_reach(&self, from: Vec3) -> Vec<f32> {
        let mut reach: Vec<f32> = self
            .pos
            .iter()
            .map(|p| finite_or_zero(horizontal(*p - from).length()))
            .collect();
        for i in (0..self.len()).rev() {
            if let Some(p) = self.parents[i] {
                reach[p] = reach[p].max(reach[i]);
            }
        }
        reach
    }
}

/// The part of `v` in the ground plane (Y is up, the glTF convention that importers bring
/// every file into through the container).
pub(super) fn horizontal(v: Vec3) -> Vec3 {
    Vec3::new(v.x, 0.0, v.z)
}

fn finite_or_zero(x: f32) -> f32 {
    if x.is_finite() { x } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> Tree {
        // 0 ─ 1 ─ 2
        //   └ 3 ─ 4
        let parents = [None, Some(0), Some(1), Some(0), Some(3)];
        let pos = vec![
            Vec3::ZERO,
            Vec3::Y,
            Vec3::new(0.0, 2.0, 0.0),
            Vec3::NEG_Y,
            Vec3::new(1.0, -2.0, 0.0),
        ];
        Tree::new(&parents, pos)
    }

    #[test]
    fn ancestry_subtrees_and_extents() {
        let t = tree();
        assert!(t.is_ancestor(0, 4) && t.is_ancestor(3, 4) && !t.is_ancestor(1, 4));
        assert_eq!(t.subtree(3), vec![3, 4]);
        assert_eq!(t.between(0, 2), Some(vec![1]));
        assert_eq!(t.between(3, 2), None);
        assert_eq!(t.depth, vec![0, 1, 2, 1, 2]);
        assert_eq!((t.sub_min_y[0], t.sub_max_y[0]), (-2.0, 2.0));
        assert_eq!(t.sub_lowest[0], 4);
        assert_eq!(t.horizontal_reach(Vec3::ZERO)[3], 1.0);
        assert_eq!(t.height, 4.0);
        assert_eq!(t.descend(0, |j| t.sub_max_y[j]), vec![0, 1, 2]);
    }

    #[test]
    fn bad_parents_do_not_loop() {
        let t = Tree::new(&[Some(0), Some(5)], vec![Vec3::ZERO, Vec3::ONE]);
        assert_eq!(t.parents, vec![None, None]);
        assert_eq!(t.subtree(7), Vec::<usize>::new());
    }
}
