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
pub fn plan(sources: &[Side], targets: &[Side], out: &Path, inputs: &[PathBuf]) -> Vec<Pair> {
    let mut namer = Namer::new(out, inputs);
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
