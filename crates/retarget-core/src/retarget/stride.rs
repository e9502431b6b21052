//! Stride or path: a walk onto legs of another length either keeps its steps (the path
//! scales by leg length, as Unreal's retargeter does by default) or keeps the source's path
//! in metres, its strides warped to cover it.

use super::Retargeter;
use serde::{Deserialize, Serialize};

/// The most a kept path lowers the hips, in leg lengths (`path_drop_limit`).
const PATH_DROP: f32 = 0.03;

/// How far the target travels for the source's travel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stride {
    /// The source's path scaled by the legs' ratio: every step as long as the target's legs
    /// make it, the feet planted where they land (the default).
    #[default]
    ScaledByLegs,
    /// The source's path in metres, whatever the legs: a target with shorter legs takes
    /// longer strides to cover it (the plants follow the root where a leg cannot reach).
    SourcePath,
}

impl Stride {
    /// In words, for menus and the CLI's help.
    pub fn label(self) -> &'static str {
        match self {
            Stride::ScaledByLegs => "path scaled by leg length",
            Stride::SourcePath => "source's path kept, stride warped",
        }
    }
}

impl Retargeter {
    /// How far the target travels: `metres` is one world unit of each side in metres
    /// (source, target), which [`Stride::SourcePath`] needs to keep the path's length.
    pub fn set_stride(&mut self, stride: Stride, metres: (f32, f32)) {
        let (s, t) = metres;
        let path = match stride {
            Stride::SourcePath if s.is_finite() && t.is_finite() && s > 0.0 && t > 0.0 => {
                Some(s / t)
            }
            _ => None,
        };
        for r in &mut self.fit.roots {
            r.path = path;
        }
    }

    /// How far the hips may come down for a plant when the source's path is kept: a share
    /// of the legs' length as small as the pelvis measure's limit allows (0.05 leg lengths),
    /// so a stride too long for the legs slides its plant rather than sinking the body.
    pub(super) fn path_drop_limit(&self) -> Option<f32> {
        self.path_scale()?;
        let legs = &self.plan.legs;
        let reach = legs.iter().map(|l| l.reach()).sum::<f32>() / legs.len().max(1) as f32;
        Some(PATH_DROP * reach)
    }

    /// The ground path's scale, target units per source unit, when it is not the legs'.
    pub fn path_scale(&self) -> Option<f32> {
        self.fit.roots.first().and_then(|r| r.path)
    }
}
