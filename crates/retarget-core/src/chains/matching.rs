//! Automatic chain mapping (the paper's section 3.1): every target limb takes the source
//! limb whose tags and place score best, so two target arm pairs may share one source pair
//! (the four-armed biped of figure 8). Effectors follow their limbs; spine chains follow the
//! limbs they carry; the pelvis maps to the pelvis. Inside a pair of chains, joints pair
//! up by their place along the chain (`pair_joints`), so bone counts may differ.

use super::{Chain, ChainKind, ChainSkeleton, Lateral};
use crate::skeleton::is_ancestor_in;
use glam::Vec3;

/// One target chain and the source chain that drives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChainMatch {
    pub target: usize,
    pub source: usize,
    /// 0..1: how well tags and places agree.
    pub score: f32,
}

/// One side as the matcher sees it.
pub struct Side<'a> {
    pub chains: &'a ChainSkeleton,
    pub parents: &'a [Option<usize>],
    pub positions: &'a [Vec3],
}

impl Side<'_> {
    fn size(&self) -> f32 {
        super::build::rig_size(self.positions)
    }

    /// Each chain's place: its joints' mean from the pelvis, in sizes.
    fn places(&self) -> Vec<Vec3> {
        let pelvis = self
            .chains
            .pelvis()
            .map_or(Vec3::ZERO, |p| self.positions[p]);
        let size = self.size();
        self.chains
            .chains
            .iter()
            .map(|c| {
                let sum = c.joints.iter().map(|&j| self.positions[j]).sum::<Vec3>();
                (sum / c.joints.len() as f32 - pelvis) / size
            })
            .collect()
    }

    fn is_below(&self, top: usize, j: usize) -> bool {
        j == top || is_ancestor_in(self.parents, top, j)
    }
}

/// Tag agreement plus nearness of place: 10 for a perfect twin.
fn limb_score(t: (&Chain, Vec3), s: (&Chain, Vec3)) -> f32 {
    let (tt, st) = (&t.0.tags, &s.0.tags);
    let mut score = 0.0;
    score += if tt.limb == st.limb { 3.0 } else { 0.0 };
    score += match (tt.lateral, st.lateral) {
        (a, b) if a == b => 3.0,
        (Lateral::Left, Lateral::Right) | (Lateral::Right, Lateral::Left) => -4.0,
        _ => 0.0,
    };
    score += if tt.height == st.height { 2.0 } else { 0.0 };
    score += if tt.depth == st.depth { 2.0 } else { 0.0 };
    score - 2.0 * t.1.distance(s.1)
}

/// The source chain each target limb, effector, spine chain and pelvis maps to.
pub fn match_chains(source: &Side, target: &Side) -> Vec<ChainMatch> {
    let mut out = Vec::new();
    let limbs = |side: &Side| -> Vec<usize> {
        (0..side.chains.chains.len())
            .filter(|&i| side.chains.chains[i].kind == ChainKind::Limb)
            .collect()
    };
    let (s_limbs, t_limbs) = (limbs(source), limbs(target));
    let (s_places, t_places) = (source.places(), target.places());
    for &t in &t_limbs {
        let tc = &target.chains.chains[t];
        let best = s_limbs
            .iter()
            .map(|&s| {
                let sc = &source.chains.chains[s];
                (s, limb_score((tc, t_places[t]), (sc, s_places[s])))
            })
            .max_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((s, score)) = best.filter(|b| b.1 >= 4.0) {
            out.push(ChainMatch {
                target: t,
                source: s,
                score: (score / 10.0).clamp(0.0, 1.0),
            });
        }
    }
    let limb_pairs = out.clone();
    for m in &limb_pairs {
        effector_matches(source, target, m, &mut out);
    }
    spine_matches(source, target, &limb_pairs, &mut out);
    root_and_helper_matches(source, target, (&s_places, &t_places), &mut out);
    if let (Some(sp), Some(tp)) = (
        source
            .chains
            .chains
            .iter()
            .position(|c| c.kind == ChainKind::Pelvis),
        target
            .chains
            .chains
            .iter()
            .position(|c| c.kind == ChainKind::Pelvis),
    ) {
        out.push(ChainMatch {
            target: tp,
            source: sp,
            score: 1.0,
        });
    }
    out
}

/// Effectors hung from a matched limb's end take the source effector that lies the same
/// way from its limb's end.
fn effector_matches(source: &Side, target: &Side, limb: &ChainMatch, out: &mut Vec<ChainMatch>) {
    let under = |side: &Side, limb: usize| -> Vec<(usize, Vec3)> {
        let end = side.chains.chains[limb].end();
        let size = side.size();
        side.chains
            .chains
            .iter()
            .enumerate()
            .filter(|(_, c)| c.kind == ChainKind::Effector && side.parents[c.start()] == Some(end))
            .map(|(i, c)| {
                let tip = side.positions[c.end()];
                (i, (tip - side.positions[end]) / size)
            })
            .collect()
    };
    let sources = under(source, limb.source);
    for (t, dir) in under(target, limb.target) {
        let best = sources
            .iter()
            .map(|&(s, d)| (s, d.distance(dir)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((s, d)) = best {
            out.push(ChainMatch {
                target: t,
                source: s,
                score: (limb.score * (1.0 - 5.0 * d)).clamp(0.0, 1.0),
            });
        }
    }
}

/// The joints above the pelvis map to those above the source's pelvis (an armature's `root`
/// onto `Bone`) where both sit at the same place from it (a root on the floor is not a
/// research dataset's zero-offset root at the hips, which carries the path), and each
/// helper (an IK target or pole) to the source helper nearest its place from the pelvis,
/// in sizes.
fn root_and_helper_matches(
    source: &Side,
    target: &Side,
    (s_places, t_places): (&[Vec3], &[Vec3]),
    out: &mut Vec<ChainMatch>,
) {
    let above_pelvis = |side: &Side| {
        let pelvis = side.chains.pelvis()?;
        side.chains
            .chains
            .iter()
            .position(|c| c.kind == ChainKind::Root && side.parents[pelvis] == Some(c.end()))
    };
    if let (Some(s), Some(t)) = (above_pelvis(source), above_pelvis(target))
        && s_places[s].distance(t_places[t]) < 0.2
    {
        out.push(ChainMatch {
            target: t,
            source: s,
            score: 0.8,
        });
    }
    let helpers = |side: &Side, places: &[Vec3]| -> Vec<(usize, Vec3)> {
        (0..side.chains.chains.len())
            .filter(|&i| side.chains.chains[i].kind == ChainKind::Helper)
            .map(|i| (i, places[i]))
            .collect()
    };
    let sources = helpers(source, s_places);
    for (t, place) in helpers(target, t_places) {
        let best = sources
            .iter()
            .map(|&(s, p)| (s, p.distance(place)))
            .min_by(|a, b| a.1.total_cmp(&b.1));
        if let Some((s, d)) = best.filter(|b| b.1 < 0.15) {
            out.push(ChainMatch {
                target: t,
                source: s,
                score: 0.8 * (1.0 - d / 0.15),
            });
        }
    }
}

/// A target spine chain maps to the source spine chain that carries the most of the
/// sources of the limbs it carries.
fn spine_matches(source: &Side, target: &Side, limbs: &[ChainMatch], out: &mut Vec<ChainMatch>) {
    let spines = |side: &Side| -> Vec<usize> {
        (0..side.chains.chains.len())
            .filter(|&i| side.chains.chains[i].kind == ChainKind::Spine)
            .collect()
    };
    let s_spines = spines(source);
    for t in spines(target) {
        let t_end = target.chains.chains[t].end();
        let carried: Vec<usize> = limbs
            .iter()
            .filter(|m| target.is_below(t_end, target.chains.chains[m.target].start()))
            .map(|m| m.source)
            .collect();
        if carried.is_empty() {
            // A spine that carries no limb (a horse's back run beside its legs) takes the
            // source's spine from the pelvis.
            let from_pelvis = |side: &Side, c: usize| {
                side.parents[side.chains.chains[c].start()] == side.chains.pelvis()
            };
            if from_pelvis(target, t)
                && let Some(&s) = s_spines
                    .iter()
                    .filter(|&&s| from_pelvis(source, s))
                    .max_by_key(|&&s| source.chains.chains[s].joints.len())
            {
                out.push(ChainMatch {
                    target: t,
                    source: s,
                    score: 0.5,
                });
            }
            continue;
        }
        let best = s_spines
            .iter()
            .map(|&s| {
                let s_end = source.chains.chains[s].end();
                let hits = carried
                    .iter()
                    .filter(|&&l| source.is_below(s_end, source.chains.chains[l].start()))
                    .count();
                (s, hits)
            })
            .filter(|&(_, hits)| hits > 0)
            .max_by_key(|&(s, hits)| (hits, source.chains.chains[s].joints.len()));
        if let Some((s, hits)) = best {
            out.push(ChainMatch {
                target: t,
                source: s,
                score: 0.8 * hits as f32 / carried.len() as f32,
            });
        }
    }
}

/// (source joint, target joint) pairs along two matched chains. Chains of one length pair
/// joint for joint. A shorter target pairs with the end of the source chain when their
/// bones agree in proportion (CMU's clavicle is skipped by an arm that starts at its
/// upper arm; a shortened tail keeps its end's direction). Otherwise the ends pair, and
/// each target joint takes the last source joint at or before its place along the chain,
/// so a bone split in three turns as one bone. A source chain's last joints that add no
/// length (a BVH End Site at its bone's end) pair only where the target has joints for them:
/// they carry no direction, and a target foot paired with one is lost to the measures.
pub fn pair_joints(
    source: (&[usize], &[Vec3]),
    target: (&[usize], &[Vec3]),
) -> Vec<(usize, usize)> {
    let (mut sj, tj) = (source.0, target.0);
    if sj.is_empty() || tj.is_empty() {
        return Vec::new();
    }
    let length = *lengths_along(sj, source.1).last().unwrap_or(&0.0);
    while let [.., a, b] = sj
        && sj.len() > tj.len()
        && source.1[*a].distance(source.1[*b]) <= 1e-4 * length
    {
        sj = &sj[..sj.len() - 1];
    }
    if sj.len() >= tj.len() {
        let tail = &sj[sj.len() - tj.len()..];
        let (a, b) = (fractions(tail, source.1), fractions(tj, target.1));
        let worst = a
            .iter()
            .zip(&b)
            .map(|(x, y)| (x - y).abs())
            .fold(0.0, f32::max);
        if worst < 0.15 {
            return tail.iter().copied().zip(tj.iter().copied()).collect();
        }
    }
    let (sf, tf) = (fractions(sj, source.1), fractions(tj, target.1));
    tj.iter()
        .enumerate()
        .map(|(k, &t)| {
            let s = if k + 1 == tj.len() {
                sj.len() - 1
            } else {
                sf.iter().rposition(|&f| f <= tf[k] + 1e-3).unwrap_or(0)
            };
            (sj[s], t)
        })
        .collect()
}

/// Cumulative length along `joints`, from 0 at the first.
fn lengths_along(joints: &[usize], positions: &[Vec3]) -> Vec<f32> {
    let mut acc = vec![0.0];
    for w in joints.windows(2) {
        let last = *acc.last().unwrap();
        acc.push(last + positions[w[0]].distance(positions[w[1]]));
    }
    acc
}

/// Cumulative length along `joints`, as fractions of the whole (0 at the start, 1 at the
/// end); a chain without length spreads its joints evenly.
fn fractions(joints: &[usize], positions: &[Vec3]) -> Vec<f32> {
    let acc = lengths_along(joints, positions);
    let total = *acc.last().unwrap();
    if total <= 1e-9 {
        let n = (joints.len().max(2) - 1) as f32;
        return (0..joints.len()).map(|k| k as f32 / n).collect();
    }
    acc.iter().map(|a| a / total).collect()
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{biped, fox_like};
    use super::super::{BuildFrame, build};
    use super::*;

    fn side_of(rig: &(Vec<String>, Vec<Option<usize>>, Vec<Vec3>)) -> ChainSkeleton {
        build(&BuildFrame {
            names: &[],
            parents: &rig.1,
            positions: &rig.2,
            forward: Vec3::Z,
        })
    }

    type Rig = (Vec<String>, Vec<Option<usize>>, Vec<Vec3>);

    fn side<'a>((r, c): (&'a Rig, &'a ChainSkeleton)) -> Side<'a> {
        Side {
            chains: c,
            parents: &r.1,
            positions: &r.2,
        }
    }

    fn matched(a: (&Rig, &ChainSkeleton), b: (&Rig, &ChainSkeleton)) -> Vec<ChainMatch> {
        match_chains(&side(a), &side(b))
    }

    fn start_names(
        rig: &(Vec<String>, Vec<Option<usize>>, Vec<Vec3>),
        cs: &ChainSkeleton,
        i: usize,
    ) -> String {
        rig.0[cs.chains[i].start()].clone()
    }

    #[test]
    fn a_rig_maps_its_limbs_onto_a_rescaled_copy_of_itself() {
        let a = fox_like();
        let mut b = a.clone();
        for p in &mut b.2 {
            *p *= 2.5;
        }
        let (ca, cb) = (side_of(&a), side_of(&b));
        let m = matched((&a, &ca), (&b, &cb));
        for c in &m {
            assert_eq!(c.source, c.target, "{}", start_names(&b, &cb, c.target));
            assert!(c.score > 0.7);
        }
        let mapped = m
            .iter()
            .filter(|c| cb.chains[c.target].kind == ChainKind::Limb)
            .count();
        assert_eq!(mapped, 6, "four legs, a tail and a neck");
    }

    #[test]
    fn four_arms_take_the_arms_of_their_side() {
        let a = biped();
        let mut b = a.clone();
        // A second pair of arms hung 0.15 lower, from the spine.
        let spine = b.0.iter().position(|n| n == "spine").unwrap();
        for side in ["l", "r"] {
            let top =
                b.0.iter()
                    .position(|n| *n == format!("{side}_shoulder"))
                    .unwrap();
            let chain: Vec<usize> = (top..top + 4).collect();
            let base = b.0.len();
            for (k, &j) in chain.iter().enumerate() {
                b.0.push(format!("{}_low", b.0[j]));
                b.1.push(Some(if k == 0 { spine } else { base + k - 1 }));
                b.2.push(b.2[j] - Vec3::Y * 0.15);
            }
        }
        let (ca, cb) = (side_of(&a), side_of(&b));
        let m = matched((&a, &ca), (&b, &cb));
        for side in ["l", "r"] {
            for name in [format!("{side}_shoulder"), format!("{side}_shoulder_low")] {
                let t = cb
                    .chains
                    .iter()
                    .position(|c| b.0[c.start()] == name)
                    .unwrap();
                let s = m.iter().find(|c| c.target == t).map(|c| c.source);
                assert_eq!(
                    s.map(|s| start_names(&a, &ca, s)),
                    Some(format!("{side}_shoulder")),
                    "{name}"
                );
            }
        }
    }

    #[test]
    fn joints_pair_by_their_place_along_the_chain() {
        let line = |n: usize, len: f32| -> Vec<Vec3> {
            (0..n)
                .map(|k| Vec3::Y * len * k as f32 / (n - 1) as f32)
                .collect()
        };
        // Two bones onto six, one body: each source bone's start takes the joints on it.
        let (s, t) = (line(3, 1.0), line(7, 2.0));
        let pairs = pair_joints((&[0, 1, 2], &s), (&[0, 1, 2, 3, 4, 5, 6], &t));
        let sources: Vec<usize> = pairs.iter().map(|p| p.0).collect();
        assert_eq!(sources, [0, 0, 0, 1, 1, 1, 2]);
        // Three onto two: the ends pair with the ends.
        let pairs = pair_joints((&[0, 1, 2], &s), (&[0, 1], &line(2, 0.5)));
        assert_eq!(pairs, [(1, 0), (2, 1)]);
        // An arm with a clavicle onto one without: the upper arms pair.
        let clavicle = [Vec3::ZERO, Vec3::X * 0.15, Vec3::X * 0.45, Vec3::X * 0.7];
        let arm = [Vec3::X * 0.15, Vec3::X * 0.45, Vec3::X * 0.7];
        let pairs = pair_joints((&[0, 1, 2, 3], &clavicle), (&[0, 1, 2], &arm));
        assert_eq!(pairs, [(1, 0), (2, 1), (3, 2)]);
    }

    #[test]
    fn an_end_site_without_length_is_no_joint_of_its_own() {
        // A fox's hind leg from its BVH (an End Site on the foot) onto the fox's own leg.
        let leg = [
            Vec3::ZERO,
            Vec3::new(0.0, -0.2, 0.02),
            Vec3::new(0.0, -0.4, -0.08),
            Vec3::new(0.0, -0.55, -0.03),
        ];
        let mut bvh = leg.to_vec();
        bvh.push(leg[3]);
        let pairs = pair_joints((&[0, 1, 2, 3, 4], &bvh), (&[0, 1, 2, 3], &leg));
        assert_eq!(pairs, [(0, 0), (1, 1), (2, 2), (3, 3)]);
        // Where the target has a joint for it, it pairs.
        let pairs = pair_joints((&[0, 1, 2, 3, 4], &bvh), (&[0, 1, 2, 3, 4], &bvh));
        assert_eq!(pairs.len(), 5);
    }
}
