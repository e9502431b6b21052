//! The retargeting core: pure Rust on glam, no GUI, no file formats.

pub mod clip;
pub mod deform;
pub mod floor;
pub mod gravity;
pub mod heading;
pub mod humanoid;
pub mod ik;
pub mod pose;
pub mod profile;
pub mod quality;
pub mod quat_lanes;
pub mod skeleton;
pub mod slerp;
pub mod transform;

pub use clip::{Clip, ClipError, Interpolation, JointTracks, Track};
pub use humanoid::HumanBone;
pub use pose::Pose;
pub use skeleton::{JointDef, Skeleton, SkeletonError};
pub use transform::Transform;
pub mod units;
pub use units::{Axis, FigureExtent, Unit, figure_extent, height_along};
pub mod mapping;
pub mod reference;
pub mod retarget;
pub use mapping::{BoneMap, BonePair, MapMethod, RotationMode, SideLabel, TranslationMode};
pub use reference::{ContainerEdit, PoseSource, ReferencePose};
pub use retarget::{RetargetClipOptions, RetargetError, Retargeter};
pub mod align;
pub mod automap;
pub mod chains;
pub mod characterize;
pub mod contacts;
pub mod mirror;
pub mod reduce;
pub mod sampler;
pub use sampler::{CompiledClip, Cursor};
