//! The source's curves (morph weights, expressions) carried onto the target's weights by
//! name: the automatic curve map with the user's choices on top, saved in the project.

use super::Session;
use crate::core::curve_map::{CurveMap, CurvePair};
use crate::core::{Clip, Curve};

impl Session {
    /// Every curve name of the source's clips, once, in order of first appearance.
    pub fn source_curve_names(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for c in self.source.clips().iter().flat_map(|c| c.curves()) {
            if !names.contains(&c.name) {
                names.push(c.name.clone());
            }
        }
        names
    }

    /// The weights the target can play (morph targets, expressions).
    pub fn target_curve_names(&self) -> Vec<String> {
        self.target
            .asset
            .curve_targets
            .iter()
            .map(|t| t.name.clone())
            .collect()
    }

    /// The curve map: names matched automatically, the project's choices on top; choices
    /// naming a curve or weight these files lack come back apart, in words.
    pub fn curve_map(&self) -> (CurveMap, Vec<String>) {
        let sources = self.source_curve_names();
        let targets = self.target_curve_names();
        let s: Vec<&str> = sources.iter().map(String::as_str).collect();
        let t: Vec<&str> = targets.iter().map(String::as_str).collect();
        CurveMap::automatic(&s, &t).with_edits(&self.curve_edits, &t)
    }

    /// Points source curve `source` at target weight `target` (or at nothing).
    pub(super) fn set_curve(&mut self, source: &str, target: Option<String>) -> String {
        let label = match &target {
            Some(t) => format!("Curve {source} → {t}"),
            None => format!("Curve {source} dropped"),
        };
        self.curve_edits.retain(|p| p.source != source);
        self.curve_edits.push(CurvePair {
            source: source.to_owned(),
            target,
            manual: true,
        });
        label
    }

    /// `source`'s curves renamed onto the target's weights, and notes on what was dropped.
    pub fn target_curves_of(&self, source: &Clip) -> (Vec<Curve>, Vec<String>) {
        let mut notes = Vec::new();
        if source.curves().is_empty() {
            return (Vec::new(), notes);
        }
        let names = |v: &[String]| {
            v.iter()
                .map(|n| format!("'{n}'"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        if self.target.asset.curve_targets.is_empty() {
            let all: Vec<String> = source.curves().iter().map(|c| c.name.clone()).collect();
            notes.push(format!(
                "clip '{}': the target has no morph targets or expressions; its curves were \
                 dropped: {}",
                source.name,
                names(&all)
            ));
            return (Vec::new(), notes);
        }
        let (map, missing) = self.curve_map();
        notes.extend(missing);
        let (mut curves, mut dropped) = map.transfer(source.curves());
        self.gaze_onto_look_expressions(source, &mut curves, &mut dropped);
        if !dropped.is_empty() {
            notes.push(format!(
                "clip '{}': curves that drive no weight of the target were dropped: {}",
                source.name,
                names(&dropped)
            ));
        }
        (curves, notes)
    }

    /// A VRMA's gaze (`lookAt.yaw`, `lookAt.pitch`, degrees) onto a VRM's look expressions
    /// when the map left it unplaced: `lookLeft` takes the yaw to the character's left,
    /// `lookRight` the other way, `lookDown`/`lookUp` the pitch, each at 1 by 90° (VRM's
    /// default range map).
    fn gaze_onto_look_expressions(
        &self,
        source: &Clip,
        curves: &mut Vec<Curve>,
        dropped: &mut Vec<String>,
    ) {
        let has = |curves: &[Curve], name: &str| {
            self.target
                .asset
                .curve_targets
                .iter()
                .any(|t| t.expression && t.name == name)
                && !curves.iter().any(|c| c.name == name)
        };
        let pairs = [
            ("lookAt.yaw", "lookLeft", "lookRight"),
            ("lookAt.pitch", "lookDown", "lookUp"),
        ];
        for (gaze, positive, negative) in pairs {
            let Some(at) = dropped.iter().position(|d| d == gaze) else {
                continue;
            };
            let Some(curve) = source.curves().iter().find(|c| c.name == gaze) else {
                continue;
            };
            if !(has(curves, positive) && has(curves, negative)) {
                continue;
            }
            for (name, sign) in [(positive, 1.0f32), (negative, -1.0)] {
                let times = curve.track.times().to_vec();
                let values = times
                    .iter()
                    .map(|&t| (sign * curve.sample(t) / 90.0).clamp(0.0, 1.0))
                    .collect();
                if let Ok(track) =
                    crate::core::Track::new(times, values, crate::core::Interpolation::Linear)
                {
                    curves.push(Curve::new(name, track));
                }
            }
            dropped.remove(at);
        }
    }
}
