//! The last body capsules a side fitted, kept with what they were fitted from: fitting reads
//! every skinned vertex (80 ms on a 60k-vertex character), and the measure, the keep-out
//! pass and the capsules view ask for them again at each retargeter build and redraw.

use crate::core::HumanBone;
use crate::core::body::BodyCapsules;
use crate::io::SkinnedMesh;
use glam::Mat4;
use std::sync::Mutex;

/// What capsules were fitted from: the labels, the standing height, and a fingerprint of
/// the bind pose and the skin (a mesh edited in place, or another bind, is fitted again).
#[derive(Clone, Debug, PartialEq)]
pub(super) struct BodyKey {
    labels: Vec<Option<HumanBone>>,
    height: u32,
    skin: u64,
}

impl BodyKey {
    pub fn new(
        labels: Vec<Option<HumanBone>>,
        height: f32,
        bind: &[Mat4],
        meshes: &[&SkinnedMesh],
    ) -> Self {
        let mut h = Fingerprint::default();
        bind.iter().for_each(|m| h.floats(&m.to_cols_array()));
        for mesh in meshes {
            mesh.inverse_bind
                .iter()
                .for_each(|m| h.floats(&m.to_cols_array()));
            for prim in &mesh.primitives {
                h.word(prim.positions.len() as u32);
                prim.positions.iter().for_each(|p| h.floats(&p.to_array()));
                prim.weights.iter().for_each(|w| h.floats(w));
                (prim.joints.iter().flatten()).for_each(|&j| h.word(u32::from(j)));
            }
        }
        Self {
            labels,
            height: height.to_bits(),
            skin: h.0,
        }
    }
}

/// FNV-1a over 32-bit words: a few milliseconds for a large skin, against the fit's tens.
struct Fingerprint(u64);

impl Default for Fingerprint {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fingerprint {
    fn word(&mut self, w: u32) {
        self.0 = (self.0 ^ u64::from(w)).wrapping_mul(0x0000_0100_0000_01b3);
    }

    fn floats(&mut self, fs: &[f32]) {
        fs.iter().for_each(|f| self.word(f.to_bits()));
    }
}

#[derive(Default)]
pub(super) struct BodyMemo(Mutex<Option<(BodyKey, BodyCapsules)>>);

impl Clone for BodyMemo {
    fn clone(&self) -> Self {
        let last = self.0.lock().map(|l| l.clone()).unwrap_or_default();
        Self(Mutex::new(last))
    }
}

impl BodyMemo {
    /// The capsules fitted under `key`: the last ones when the key is the same, else `fit`'s.
    pub fn get(&self, key: BodyKey, fit: impl FnOnce() -> BodyCapsules) -> BodyCapsules {
        let Ok(mut last) = self.0.lock() else {
            return fit();
        };
        match &*last {
            Some((k, body)) if *k == key => body.clone(),
            _ => {
                let body = fit();
                *last = Some((key, body.clone()));
                body
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::session::Session;

    fn cesium() -> Session {
        crate::session::walk_on_cesium()
    }

    #[test]
    fn capsules_are_fitted_once_and_again_when_the_skin_changes() {
        let mut s = cesium();
        let first = s.target.body_capsules();
        let memo = s.target.body_memo.0.lock().unwrap().clone();
        assert!(memo.is_some_and(|(_, b)| b == first), "kept after the fit");
        // The kept capsules come back, not a fit: a fit would give these radii again, so
        // the memo's own are marked and must be what is returned.
        if let Some((_, body)) = s.target.body_memo.0.lock().unwrap().as_mut() {
            body.radius.iter_mut().for_each(|r| *r = -1.0);
        }
        let kept = s.target.body_capsules();
        assert!(kept.radius.iter().all(|&r| r == -1.0));
        // A skin made wider is fitted again: the torso's radii grow.
        for mesh in &mut s.target.asset.meshes {
            for prim in &mut mesh.primitives {
                prim.positions.iter_mut().for_each(|p| p.x *= 1.5);
            }
        }
        let wider = s.target.body_capsules();
        assert!(wider.radius.iter().all(|&r| r >= 0.0), "fitted again");
        assert!(wider.radius.iter().sum::<f32>() > first.radius.iter().sum::<f32>());
        // A copy of the side keeps the memo.
        let copy = s.target.clone();
        assert_eq!(
            copy.body_memo.0.lock().unwrap().as_ref().map(|m| &m.1),
            Some(&wider)
        );
    }
}
