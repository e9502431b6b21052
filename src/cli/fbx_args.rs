//! The FBX output's unit and up axis, as `retarget` and `batch` take them.

use crate::core::{Axis, Unit};
use crate::session::FbxSettings;

#[derive(clap::Args, Debug, Clone, Default)]
pub struct FbxArgs {
    /// FBX output: its length unit, cm or m (default: the target's own). Maya and Unreal
    /// work in centimetres.
    #[arg(long, value_name = "cm|m", value_parser = parse_fbx_unit)]
    pub fbx_units: Option<Unit>,
    /// FBX output: its up axis, y or z (default: the target's own).
    #[arg(long, value_name = "y|z", value_parser = parse_fbx_up)]
    pub fbx_up: Option<Axis>,
}

impl FbxArgs {
    pub fn settings(&self, animation_only: bool) -> FbxSettings {
        FbxSettings {
            animation_only,
            unit: self.fbx_units,
            up: self.fbx_up,
        }
    }

    /// Whether any FBX option was given (an error for another output format).
    pub fn any(&self) -> bool {
        self.fbx_units.is_some() || self.fbx_up.is_some()
    }
}

fn parse_fbx_unit(s: &str) -> Result<Unit, String> {
    match s.to_ascii_lowercase().as_str() {
        "cm" => Ok(Unit::Centimetre),
        "m" => Ok(Unit::Metre),
        _ => Err(format!("'{s}': cm or m")),
    }
}

fn parse_fbx_up(s: &str) -> Result<Axis, String> {
    match s.to_ascii_lowercase().trim_start_matches('+') {
        "y" => Ok(Axis::PosY),
        "z" => Ok(Axis::PosZ),
        _ => Err(format!("'{s}': y or z")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_and_axes_parse_and_others_are_refused_with_the_choices() {
        assert_eq!(parse_fbx_unit("CM"), Ok(Unit::Centimetre));
        assert_eq!(parse_fbx_unit("m"), Ok(Unit::Metre));
        assert!(parse_fbx_unit("in").unwrap_err().contains("cm or m"));
        assert_eq!(parse_fbx_up("Z"), Ok(Axis::PosZ));
        assert_eq!(parse_fbx_up("+y"), Ok(Axis::PosY));
        assert!(parse_fbx_up("x").unwrap_err().contains("y or z"));
    }
}
