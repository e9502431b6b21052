//! Import errors: every one names the file and says what is wrong with it.

use retarget_core::{ClipError, SkeletonError};
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
    #[error("cannot read the file: {}", io_words(.0))]
    Read(#[source] std::io::Error),
    #[error("unknown file type (expected .gltf, .glb, .vrm, .vrma, .bvh or .fbx)")]
    UnknownFormat,
    #[error("not a glTF file: {0}")]
    NotGltf(String),
    #[error("truncated or corrupt GLB: {0}")]
    CorruptGlb(String),
    #[error("cannot load buffer data: {0}")]
    Buffers(String),
    #[error("invalid glTF: {0}")]
    Gltf(#[from] crate::gltf_import::validate::Invalid),
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
    /// A compressed part of a glTF (Draco, meshopt, quantization) that cannot be decoded.
    #[error("{extension}: {what}: {reason}")]
    Compressed {
        extension: &'static str,
        what: String,
        reason: String,
    },
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
    #[error("cannot write the file: {}", io_words(.0))]
    Write(#[source] std::io::Error),
    #[error("cannot re-read the character to export: {0}")]
    Source(String),
    #[error("{0}")]
    Invalid(String),
}

/// An I/O error in words, without the OS's "(os error 2)" suffix: what a user can act on.
pub fn io_words(e: &std::io::Error) -> String {
    use std::io::ErrorKind as K;
    let words = match e.kind() {
        K::NotFound => "no such file",
        K::PermissionDenied => "permission denied",
        K::IsADirectory => "it is a folder, not a file",
        K::NotADirectory => "a folder on its path is a file",
        K::AlreadyExists => "it already exists",
        K::StorageFull => "the disk is full",
        K::ReadOnlyFilesystem => "the disk is read-only",
        K::UnexpectedEof => "the file ends early",
        K::OutOfMemory => "out of memory",
        K::Interrupted => "interrupted",
        _ => return without_os_code(&e.to_string()),
    };
    words.to_owned()
}

/// "Text (os error 22)" as "text".
fn without_os_code(text: &str) -> String {
    match text.rfind(" (os error ") {
        Some(at) if text.ends_with(')') => text[..at].to_owned(),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Error;

    #[test]
    fn io_errors_are_words_without_os_codes() {
        let missing = Error::from_raw_os_error(2);
        assert_eq!(io_words(&missing), "no such file");
        let e = ImportError::new(Path::new("/x/walk.bvh"), Problem::Read(missing));
        assert_eq!(
            e.to_string(),
            "/x/walk.bvh: cannot read the file: no such file"
        );
        let other = Error::from_raw_os_error(22);
        assert!(
            !io_words(&other).contains("os error"),
            "{}",
            io_words(&other)
        );
        assert_eq!(io_words(&Error::other("odd")), "odd");
    }
}
