//! Before any retarget: every file read once (in parallel), the unreadable ones set aside
//! with their errors, and every output named in a fixed order (source, target, clip), so a
//! run with `-j 2` names and writes exactly what a run with `-j 1` does.

use super::names::{Namer, base_name};
use crate::io::ImportOptions;
use crate::session::{SessionError, Side, SideRole};
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// A file that could not take part, or an output that could not be made, and why.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Failure {
    pub file: PathBuf,
    /// The error in words; it names the file it is about.
    pub error: String,
}

/// One output to make: a clip of `source` onto `target`, written to `out`.
#[derive(Clone, Debug)]
pub struct Planned {
    pub clip: String,
    pub out: PathBuf,
}

/// The outputs of one source onto one target (they share a session).
#[derive(Clone, Debug)]
pub struct Pair {
    pub source: usize,
    pub target: usize,
    pub outputs: Vec<Planned>,
}

/// Loads each file as a side of `role`; the files that fail are returned apart. A source
/// must have a clip.
pub fn load_sides(
    role: SideRole,
    files: &[PathBuf],
    options: &ImportOptions,
) -> (Vec<Side>, Vec<Failure>) {
    let loaded: Vec<Result<Side, Failure>> = files
        .par_iter()
        .map(|path| load_side(role, path, options))
        .collect();
    let (mut sides, mut failures) = (Vec::new(), Vec::new());
    for r in loaded {
        match r {
            Ok(side) => sides.push(side),
            Err(f) => failures.push(f),
        }
    }
    (sides, failures)
}

fn load_side(role: SideRole, path: &Path, options: &ImportOptions) -> Result<Side, Failure> {
    let fail = |e: SessionError| Failure {
        file: path.to_path_buf(),
        error: e.to_string(),
    };
    let side = Side::load(role, path, options).map_err(fail)?;
    if role == SideRole::Source && side.clips().is_empty() {
        return Err(fail(SessionError::NoClips {
            path: path.to_path_buf(),
        }));
    }
    Ok(side)
}

/// Every clip of every source onto every target, named in `out`.
pub fn plan(
    sources: &[Side],
    targets: &[Side],
    out: &Path,
    inputs: &[PathBuf],
    extension: &'static str,
) -> Vec<Pair> {
    let mut namer = Namer::new(out, inputs, extension);
    let mut pairs = Vec::new();
    for (s, source) in sources.iter().enumerate() {
        for (t, target) in targets.iter().enumerate() {
            let outputs = source
                .clips()
                .iter()
                .map(|clip| Planned {
                    clip: clip.name.clone(),
                    out: namer.claim(&base_name(&source.path, &clip.name, &target.path)),
                })
                .collect();
            pairs.push(Pair {
                source: s,
                target: t,
                outputs,
            });
        }
    }
    pairs
}

/// The K-th (from 1) of N slices of a batch's outputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// `K/N` with 1 ≤ K ≤ N.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let bad = || format!("'{s}' is not K/N with 1 <= K <= N (e.g. 2/8)");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (k, n) = (
            k.trim().parse::<usize>().map_err(|_| bad())?,
            n.trim().parse::<usize>().map_err(|_| bad())?,
        );
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Keeps this shard's outputs: every N-th in plan order, from the K-th. Dealt out one by
    /// one, a long source's clips spread over the shards instead of loading one of them.
    pub fn keep(self, pairs: &mut Vec<Pair>) {
        let mut index = 0;
        for pair in pairs.iter_mut() {
            pair.outputs.retain(|_| {
                let mine = index % self.n == self.k - 1;
                index += 1;
                mine
            });
        }
        pairs.retain(|p| !p.outputs.is_empty());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(clips: &[usize]) -> Vec<Pair> {
        clips
            .iter()
            .enumerate()
            .map(|(i, &n)| Pair {
                source: i,
                target: 0,
                outputs: (0..n)
                    .map(|c| Planned {
                        clip: format!("clip{c}"),
                        out: PathBuf::from(format!("{i}_{c}.glb")),
                    })
                    .collect(),
            })
            .collect()
    }

    fn outs(pairs: &[Pair]) -> Vec<PathBuf> {
        pairs
            .iter()
            .flat_map(|p| p.outputs.iter().map(|o| o.out.clone()))
            .collect()
    }

    #[test]
    fn shards_split_the_outputs_disjointly_and_cover_them() {
        let all = outs(&pairs(&[5, 1, 3, 0, 2]));
        for n in 1..=12 {
            let mut union = Vec::new();
            for k in 1..=n {
                let mut p = pairs(&[5, 1, 3, 0, 2]);
                Shard { k, n }.keep(&mut p);
                let mine = outs(&p);
                assert!(mine.len() <= all.len().div_ceil(n), "{k}/{n} is fair");
                union.extend(mine);
            }
            union.sort();
            let mut expected = all.clone();
            expected.sort();
            assert_eq!(union, expected, "{n} shards: each output once");
        }
    }

    #[test]
    fn a_shard_is_read_as_k_of_n() {
        assert_eq!(Shard::parse("2/8"), Ok(Shard { k: 2, n: 8 }));
        for bad in ["0/4", "5/4", "2", "a/b", "1/0", "-1/3"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }
}
