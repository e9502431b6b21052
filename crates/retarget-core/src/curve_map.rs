//! Which target weight each source curve drives. Names match once case, separators,
//! namespaces and side suffixes are taken out, and across the known name sets: VRM 1.0's
//! expression presets, VRM 0.x's blend shape groups (`joy` is `happy`, `a` is `aa`) and
//! ARKit's 52 (`eyeBlinkLeft` is VRM's `blinkLeft`). The user's choices override.

use crate::clip::Curve;
use serde::{Deserialize, Serialize};

/// One source curve and the target weight it drives (`None`: dropped).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurvePair {
    pub source: String,
    pub target: Option<String>,
    /// Set by the user (kept when the map is made again), not matched by name.
    #[serde(default)]
    pub manual: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurveMap {
    pairs: Vec<CurvePair>,
}

/// VRM 0.x preset names and others' names for VRM 1.0's presets, in canonical form.
const SYNONYMS: &[(&str, &str)] = &[
    ("joy", "happy"),
    ("sorrow", "sad"),
    ("fun", "relaxed"),
    ("a", "aa"),
    ("i", "ih"),
    ("u", "ou"),
    ("e", "ee"),
    ("o", "oh"),
    ("eyeblinkleft", "blinkleft"),
    ("eyeblinkright", "blinkright"),
];

/// The form names are compared in: the part after a namespace (`blendShape1.`, `mixamo:`,
/// `Armature|`), lower case, letters and digits only, `_L`/`.R` suffixes spelled `left` and
/// `right`, and a VRM 0 or ARKit synonym replaced by VRM 1.0's name.
pub fn canonical(name: &str) -> String {
    let tail = name.rsplit(['.', ':', '|']).next().unwrap_or(name);
    let tail = if tail.is_empty() { name } else { tail };
    let lower = tail.to_ascii_lowercase();
    let side = [
        ("_l", "left"),
        ("-l", "left"),
        ("_r", "right"),
        ("-r", "right"),
    ]
    .iter()
    .find_map(|(suffix, side)| lower.strip_suffix(suffix).map(|s| format!("{s}{side}")));
    let plain: String = side
        .unwrap_or(lower)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect();
    SYNONYMS
        .iter()
        .find(|(from, _)| *from == plain)
        .map_or(plain, |(_, to)| (*to).to_owned())
}

impl CurveMap {
    /// Each source curve onto the target weight of the same name, else of the same
    /// canonical name; unmatched curves map to nothing.
    pub fn automatic(sources: &[&str], targets: &[&str]) -> Self {
        let canon: Vec<String> = targets.iter().map(|t| canonical(t)).collect();
        let pairs = sources
            .iter()
            .map(|&s| {
                let exact = targets.iter().find(|&&t| t == s);
                let c = canonical(s);
                let similar = || {
                    targets
                        .iter()
                        .zip(&canon)
                        .find(|(_, k)| **k == c)
                        .map(|(t, _)| t)
                };
                CurvePair {
                    source: s.to_owned(),
                    target: exact.or_else(similar).map(|t| (*t).to_owned()),
                    manual: false,
                }
            })
            .collect();
        Self { pairs }
    }

    /// The automatic map with the user's `edits` on top; edits naming a source curve or a
    /// target weight these files do not have are returned apart, in words.
    pub fn with_edits(mut self, edits: &[CurvePair], targets: &[&str]) -> (Self, Vec<String>) {
        let mut missing = Vec::new();
        for e in edits {
            if let Some(t) = e.target.as_deref().filter(|t| !targets.contains(t)) {
                missing.push(format!(
                    "curve '{}' → '{t}': the target has no weight '{t}'",
                    e.source
                ));
                continue;
            }
            match self.pairs.iter_mut().find(|p| p.source == e.source) {
                Some(p) => {
                    p.target = e.target.clone();
                    p.manual = true;
                }
                None => missing.push(format!(
                    "curve '{}': the source has no such curve",
                    e.source
                )),
            }
        }
        (self, missing)
    }

    pub fn pairs(&self) -> &[CurvePair] {
        &self.pairs
    }

    /// The user's choices: what a project saves.
    pub fn edits(&self) -> Vec<CurvePair> {
        self.pairs.iter().filter(|p| p.manual).cloned().collect()
    }

    pub fn target_of(&self, source: &str) -> Option<&str> {
        self.pairs
            .iter()
            .find(|p| p.source == source)
            .and_then(|p| p.target.as_deref())
    }

    /// Points `source` at `target` (or at nothing), as the user's choice.
    pub fn set(&mut self, source: &str, target: Option<String>) {
        if let Some(p) = self.pairs.iter_mut().find(|p| p.source == source) {
            p.target = target;
            p.manual = true;
        }
    }

    /// `curves` renamed to the weights they drive; the names of those that drive nothing,
    /// and of those whose weight another curve already drives, come back apart.
    pub fn transfer(&self, curves: &[Curve]) -> (Vec<Curve>, Vec<String>) {
        let mut out: Vec<Curve> = Vec::new();
        let mut dropped = Vec::new();
        for c in curves {
            match self.target_of(&c.name) {
                Some(t) if !out.iter().any(|o| o.name == t) => {
                    out.push(Curve::new(t, c.track.clone()));
                }
                _ => dropped.push(c.name.clone()),
            }
        }
        (out, dropped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clip::{Interpolation, Track};

    #[test]
    fn known_name_sets_meet() {
        let vrm1 = [
            "happy",
            "sad",
            "relaxed",
            "aa",
            "ih",
            "blinkLeft",
            "blinkRight",
            "neutral",
        ];
        let vrm0 = [
            "Joy", "Sorrow", "Fun", "A", "I", "Blink_L", "blink_r", "Neutral",
        ];
        let map = CurveMap::automatic(&vrm0, &vrm1);
        for (s, t) in vrm0.iter().zip(vrm1) {
            assert_eq!(map.target_of(s), Some(t), "{s}");
        }
        let arkit = [
            "eyeBlinkLeft",
            "blendShape1.jawOpen",
            "mouthSmile_L",
            "cheekPuff",
        ];
        let rig = ["blinkLeft", "jawOpen", "mouthSmileLeft", "tongueOut"];
        let map = CurveMap::automatic(&arkit, &rig);
        assert_eq!(map.target_of("eyeBlinkLeft"), Some("blinkLeft"));
        assert_eq!(map.target_of("blendShape1.jawOpen"), Some("jawOpen"));
        assert_eq!(map.target_of("mouthSmile_L"), Some("mouthSmileLeft"));
        assert_eq!(map.target_of("cheekPuff"), None, "nothing of that name");
    }

    #[test]
    fn an_exact_name_wins_over_a_similar_one() {
        let map = CurveMap::automatic(&["Blink"], &["blink", "Blink"]);
        assert_eq!(map.target_of("Blink"), Some("Blink"));
    }

    #[test]
    fn edits_override_and_missing_names_are_reported() {
        let map = CurveMap::automatic(&["happy", "aa"], &["happy", "smile", "aa"]);
        let edits = [
            CurvePair {
                source: "happy".into(),
                target: Some("smile".into()),
                manual: true,
            },
            CurvePair {
                source: "aa".into(),
                target: Some("gone".into()),
                manual: true,
            },
            CurvePair {
                source: "wink".into(),
                target: None,
                manual: true,
            },
        ];
        let (map, missing) = map.with_edits(&edits, &["happy", "smile", "aa"]);
        assert_eq!(map.target_of("happy"), Some("smile"));
        assert_eq!(
            map.target_of("aa"),
            Some("aa"),
            "a bad edit leaves the pair as it was"
        );
        assert_eq!(missing.len(), 2, "{missing:?}");
        assert!(
            missing[0].contains("gone") && missing[1].contains("wink"),
            "{missing:?}"
        );
        assert_eq!(map.edits().len(), 1);
    }

    #[test]
    fn transfer_renames_and_says_what_it_dropped() {
        let track = || Track::new(vec![0.0, 1.0], vec![0.0, 1.0], Interpolation::Linear).unwrap();
        let curves = [
            Curve::new("Joy", track()),
            Curve::new("happy", track()),
            Curve::new("wink", track()),
        ];
        let map = CurveMap::automatic(&["Joy", "happy", "wink"], &["happy"]);
        let (out, dropped) = map.transfer(&curves);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].name, "happy");
        assert_eq!(dropped, vec!["happy".to_owned(), "wink".to_owned()]);
    }
}
