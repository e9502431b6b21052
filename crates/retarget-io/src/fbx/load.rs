//! Opening a file with ufbx: the options this reader relies on, and ufbx's errors in words.

use crate::error::Problem;

/// FBX 6.1 (6100) is the oldest version read: older files (FBX 5, 1998-2005) have no
/// object/connection model that the rest of the reader can trust.
pub(super) const OLDEST_VERSION: u32 = 6100;

/// The deepest node hierarchy read; ufbx refuses a deeper one.
pub(crate) const NODE_DEPTH_LIMIT: u32 = 1024;

/// Parses `bytes` as FBX, converted to glTF's space: +Y up, +Z front, right-handed, metres.
/// The conversion sits in the scene root's transform (`TransformRoot`), so every node's
/// local transform stays as the file wrote it and only worlds carry the conversion.
pub(super) fn parse(bytes: &[u8]) -> Result<ufbx::SceneRoot, Problem> {
    // A binary file states its version in its header: refuse an old one before ufbx reads
    // its records in a layout they do not have.
    if let Some(version) = binary_version(bytes) {
        check_version(version)?;
    }
    let opts = ufbx::LoadOpts {
        file_format: ufbx::FileFormat::Fbx,
        no_format_from_content: true,
        target_axes: ufbx::CoordinateAxes {
            right: ufbx::CoordinateAxis::PositiveX,
            up: ufbx::CoordinateAxis::PositiveY,
            front: ufbx::CoordinateAxis::PositiveZ,
        },
        target_unit_meters: 1.0,
        space_conversion: ufbx::SpaceConversion::TransformRoot,
        generate_missing_normals: true,
        // Maya's segment scale compensate (a joint that ignores its parent's scale): ufbx
        // scales such a child back by its parent's scale, so that plain parent × local
        // composition (the skeleton's) puts it where the file does. A HumanIK rig scales
        // every joint by 0.01 this way: composed plainly, the scales multiply to nothing.
        inherit_mode_handling: ufbx::InheritModeHandling::CompensateNoFallback,
        // The skeleton walks each joint's path to the root: a bounded depth keeps that linear
        // in the file's size (real rigs are tens of joints deep).
        node_depth_limit: NODE_DEPTH_LIMIT,
        ..Default::default()
    };
    let scene = ufbx::load_memory(bytes, opts).map_err(|e| Problem::Fbx(describe(&e)))?;
    check_version(scene.metadata.version)?;
    Ok(scene)
}

/// The version in a binary FBX header: the magic, 0x1A 0x00, then a little-endian u32.
pub(super) fn binary_version(bytes: &[u8]) -> Option<u32> {
    const MAGIC: &[u8] = b"Kaydara FBX Binary  \0";
    let rest = bytes.strip_prefix(MAGIC)?;
    let v = rest.get(2..6)?;
    Some(u32::from_le_bytes([v[0], v[1], v[2], v[3]]))
}

fn check_version(version: u32) -> Result<(), Problem> {
    if version < OLDEST_VERSION {
        return Err(Problem::Fbx(format!(
            "FBX version {}.{} is older than 6.1, the oldest this reader supports",
            version / 1000,
            version % 1000 / 100
        )));
    }
    Ok(())
}

/// ufbx's message ("Truncated file", "Unrecognized file format (...)") without its version
/// banner and call stack, with a word on what it means.
pub(super) fn describe(error: &ufbx::Error) -> String {
    let mut buf = [0u8; 1024];
    let len = ufbx::format_error(&mut buf, error).min(buf.len());
    let text = String::from_utf8_lossy(&buf[..len]);
    let first = text.lines().next().unwrap_or("").trim();
    let message = first
        .split_once("error: ")
        .map_or(first, |(_, m)| m)
        .to_owned();
    let hint = match error.type_ {
        ufbx::ErrorType::TruncatedFile => "; the file ends early: is it cut short?",
        ufbx::ErrorType::UnrecognizedFileFormat => "; this is not an FBX file",
        ufbx::ErrorType::EmptyFile => "; the file is empty",
        ufbx::ErrorType::UnsupportedVersion => "; this FBX version is not supported",
        ufbx::ErrorType::NodeDepthLimit => "; the node hierarchy is deeper than this reader takes",
        ufbx::ErrorType::OutOfMemory | ufbx::ErrorType::MemoryLimit => {
            "; the file asks for more memory than it can hold"
        }
        _ => "",
    };
    if message.is_empty() {
        format!("ufbx could not read it ({:?}){hint}", error.type_)
    } else {
        format!("{message}{hint}")
    }
}
