//! Import errors: every one names the file and says what is wrong with it.

use crate::core::{ClipError, SkeletonError};
use std::path::{Path, PathBuf};

#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct ImportError {
    pub path: PathBuf,
    pub problem: Problem,
}

impl ImportError {
    pub fn new(path: &Path, problem: Problem) -> Self {
        Self {
            path: path.to_path_buf(),
            problem,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum Problem {
    #[error("cannot read the file: {0}")]
    Read(#[source] std::io::Error),
    #[error("unknown file type (expected .gltf, .glb, .vrm, .vrma, .bvh or .fbx)")]
    UnknownFormat,
    #[error("not a glTF file: {0}")]
    NotGltf(String),
    #[error("truncated or corrupt GLB: {0}")]
    CorruptGlb(String),
    #[error("cannot load buffer data: {0}")]
    Buffers(String),
    #[error("node {node} ('{name}') is its own ancestor: the node hierarchy has a cycle")]
    ParentCycle { node: usize, name: String },
    #[error("node {node} ('{name}') is the child of more than one node")]
    SharedChild { node: usize, name: String },
    #[error("no joints: the file has no skin, no humanoid table and no animated nodes")]
    NoJoints,
    #[error("skeleton '{skeleton}': {source}")]
    Skeleton {
        skeleton: String,
        #[source]
        source: SkeletonError,
    },
    #[error("animation '{animation}', channel {channel} ({target}): {source}")]
    Channel {
        animation: String,
        channel: usize,
        target: String,
        #[source]
        source: ClipError,
    },
    #[error("{what}: {reason}")]
    BadData { what: String, reason: String },
    /// ufbx could not read the file, or it is an FBX this reader refuses (older than 6.1).
    #[error("cannot read it as FBX: {0}")]
    Fbx(String),
    #[error("line {line}: {message}")]
    Bvh { line: usize, message: String },
}

/// Export errors name the file being written and what went wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}: {problem}", path.display())]
pub struct ExportError {
    pub path: PathBuf,
    pub problem: ExportProblem,
}

impl ExportError {
    pub fn new(path: &Path, problem: ExportProblem) -> Self {
        Self {
            path: path.to_path_buf(),
            problem,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ExportProblem {
    #[error("cannot write the file: {0}")]
    Write(#[source] std::io::Error),
    #[error("cannot re-read the character to export: {0}")]
    Source(String),
    #[error("{0}")]
    Invalid(String),
}
