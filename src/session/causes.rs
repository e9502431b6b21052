//! The likeliest causes of a failing quality report, in a user's words, each with the bone
//! map rows it means and one undoable fix (an `Edit`). A cause is a hypothesis the session
//! tests: the fix is applied to a copy and the clip judged again, and only a fix that brings
//! a failing measure back towards its limit, without breaking one that held, is offered.

use super::{Edit, Session, SessionError};
use crate::core::HumanBone;
use crate::core::mapping::{BoneMap, TranslationMode};
use crate::core::quality::{Measure, Report, Thresholds};

/// A failing measure's likely cause and its tested fix.
#[derive(Clone, Debug, PartialEq)]
pub struct Cause {
    /// The failing measure the fix brings back furthest.
    pub measure: Measure,
    /// What is wrong, in a user's words, with the measure's figure: "the target flies 19
    /// leg lengths high: 8 fingertip joints copy the source's translation".
    pub words: String,
    /// The target joints (bone map rows) it means; empty for a solve setting.
    pub rows: Vec<usize>,
    /// The fix, one undo step.
    pub fix: Edit,
    /// The fix in a button's words ("Copy rotation only on these 8 joints").
    pub fix_label: String,
    /// The measure's figure now and with the fix, as the report prints it.
    pub before: f64,
    pub after: f64,
    /// Every measure keeps its limit with the fix.
    pub passes_after: bool,
}

/// A fix worth testing: what it says and what it changes.
struct Hypothesis {
    what: String,
    rows: Vec<usize>,
    fix: Edit,
    fix_label: String,
}

/// How far off a measure is, in a user's words ("flies 19 leg lengths high").
fn symptom(r: &Report, measure: Measure) -> String {
    let v = r.verdicts.iter().find(|v| v.measure == measure);
    let value = v.map_or(0.0, |v| v.value);
    match measure {
        Measure::Pelvis if value > 0.0 => {
            format!("the pelvis stands {value:.2} leg lengths higher than the source's")
        }
        Measure::Pelvis => format!(
            "the pelvis stands {:.2} leg lengths lower than the source's",
            -value
        ),
        Measure::Body => format!(
            "bones stretch by up to {:.1} % of the height",
            value * 100.0
        ),
        Measure::Direction => format!("the limbs point {value:.1}° off the source's"),
        Measure::Ground if value > 0.0 => {
            format!("the planted feet float {value:.0} mm above the floor")
        }
        Measure::Ground => format!("the planted feet sink {:.0} mm into the floor", -value),
        Measure::Skate => format!("the planted feet slide {value:.0} mm more than the source's"),
        Measure::SameRig => format!("the joints are {value:.1e} of the height off the source's"),
        Measure::Grip => format!("the hands' contacts are {value:.0} mm off"),
        Measure::Fingers => format!("the fingers point {value:.1}° off the source's"),
        Measure::Penetration => format!("limbs go {value:.0} mm into the body"),
        Measure::Reach => format!("a limb ends {value:.0} mm short of its source"),
    }
}

/// The body part a humanoid bone belongs to, for telling a toe mapped from a finger.
fn part(bone: HumanBone) -> &'static str {
    let name = bone.as_str();
    let has = |s: &str| name.contains(s);
    if ["Thumb", "Index", "Middle", "Ring", "Little"]
        .iter()
        .any(|f| has(f))
    {
        "finger"
    } else if has("Toes") {
        "toe"
    } else if has("Leg") || has("Foot") {
        "leg"
    } else if has("Shoulder") || has("Arm") || has("Hand") {
        "arm"
    } else if has("ead") || has("eck") || has("Eye") || has("aw") {
        "head"
    } else {
        "trunk"
    }
}

/// Up to four names of `rows` on the target, then "…".
fn some_names(session: &Session, rows: &[usize]) -> String {
    let names = session.target.skeleton().names();
    first_few(rows.iter().map(|&j| names[j].clone()), rows.len(), 4)
}

/// The first `shown` of `items` (of `total` in all), then "…" when some are left out.
pub(crate) fn first_few(items: impl Iterator<Item = String>, total: usize, shown: usize) -> String {
    let listed: Vec<String> = items.take(shown).collect();
    let more = if total > shown { ", …" } else { "" };
    format!("{}{more}", listed.join(", "))
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

impl Session {
    /// Joints that copy the source's translation where the automatic map would not: on a
    /// character of other proportions they pull their bones off their parents.
    fn translation_hypothesis(&self, auto: &BoneMap) -> Option<Hypothesis> {
        let rows: Vec<usize> = (self.map.pairs().iter())
            .filter(|p| p.translation != TranslationMode::None)
            .filter(|p| auto.for_target(p.target).map(|a| a.translation) != Some(p.translation))
            .map(|p| p.target)
            .collect();
        if rows.is_empty() {
            return None;
        }
        let mut map = self.map.clone();
        for &t in &rows {
            let mode = auto
                .for_target(t)
                .map_or(TranslationMode::None, |a| a.translation);
            if let Some(p) = map.for_target_mut(t) {
                p.translation = mode;
            }
        }
        let n = rows.len();
        Some(Hypothesis {
            what: format!(
                "{} the source's translation ({})",
                plural(n, "joint copies", "joints copy"),
                some_names(self, &rows)
            ),
            fix_label: format!("Copy rotation only on {}", plural(n, "joint", "joints")),
            fix: Edit::ReplaceMap {
                map,
                label: format!("Rotation only on {}", plural(n, "joint", "joints")),
            },
            rows,
        })
    }

    /// Rows whose two sides are labelled as different humanoid bones (a toe from a finger,
    /// a left arm from the right one, the upper arm from the clavicle), each grouped with
    /// the words that name it, fixed by mapping each row from the source joint its own
    /// label names (else the automatic map's pick).
    fn label_hypotheses(&self, auto: &BoneMap) -> Vec<Hypothesis> {
        let (sl, tl) = (self.source.bone_labels(), self.target.bone_labels());
        let mut groups: [(Vec<usize>, &str); 3] = [
            (Vec::new(), "the motion of another body part"),
            (Vec::new(), "the motion of the other side's joint"),
            (Vec::new(), "a neighbouring joint's motion"),
        ];
        for p in self.map.pairs() {
            let (Some(Some(s)), Some(Some(t))) = (sl.get(p.source), tl.get(p.target)) else {
                continue;
            };
            if s == t {
                continue;
            }
            let k = if part(*s) != part(*t) {
                0
            } else if s.is_left() != t.is_left() || s.is_right() != t.is_right() {
                1
            } else {
                2
            };
            groups[k].0.push(p.target);
        }
        groups
            .into_iter()
            .filter(|(rows, _)| !rows.is_empty())
            .map(|(rows, what)| {
                let mut map = self.map.clone();
                for &t in &rows {
                    let own = tl[t].and_then(|b| self.source.labelled_joint(b));
                    let pick = own.or_else(|| auto.for_target(t).map(|a| a.source));
                    map.remove_target(t);
                    if let Some(s) = pick {
                        let mut pair = auto
                            .for_target(t)
                            .filter(|a| a.source == s)
                            .cloned()
                            .unwrap_or_else(|| crate::core::mapping::BonePair::new(s, t));
                        pair.bone = tl[t];
                        map.insert(pair);
                    }
                }
                let n = rows.len();
                Hypothesis {
                    what: format!(
                        "{} {what} ({})",
                        plural(n, "joint takes", "joints take"),
                        some_mappings(self, &rows)
                    ),
                    fix_label: format!(
                        "Map {} from the source joint of {}",
                        if n == 1 { "it" } else { "them" },
                        if n == 1 { "its name" } else { "their names" }
                    ),
                    fix: Edit::ReplaceMap {
                        map,
                        label: format!("Remap {}", plural(n, "joint", "joints")),
                    },
                    rows,
                }
            })
            .collect()
    }

    /// Rows the automatic map would map otherwise, not already named by another cause.
    fn automatic_hypothesis(&self, auto: &BoneMap, named: &[usize]) -> Option<Hypothesis> {
        let targets = self.target.skeleton().len();
        let rows: Vec<usize> = (0..targets)
            .filter(|t| !named.contains(t))
            .filter(|&t| {
                let (a, b) = (self.map.for_target(t), auto.for_target(t));
                a.map(|p| (p.source, p.rotation, p.translation))
                    != b.map(|p| (p.source, p.rotation, p.translation))
            })
            .collect();
        if rows.is_empty() {
            return None;
        }
        let n = rows.len();
        Some(Hypothesis {
            what: format!(
                "{} mapped otherwise than the automatic map ({})",
                plural(n, "row is", "rows are"),
                some_names(self, &rows)
            ),
            fix_label: format!("Map {} automatically", plural(n, "row", "rows")),
            fix: Edit::ReplaceMap {
                map: auto.clone(),
                label: "Automatic map".to_owned(),
            },
            rows,
        })
    }

    /// A solve pass that changes the motion, switched off.
    fn pass_hypotheses(&self) -> Vec<Hypothesis> {
        let s = self.solve.settings;
        let mut out = Vec::new();
        let mut off = |on: bool, what: &str, name: &str, set: fn(&mut _)| {
            if on {
                let mut settings = s;
                set(&mut settings);
                out.push(Hypothesis {
                    what: what.to_owned(),
                    rows: Vec::new(),
                    fix: Edit::SetSolve(settings),
                    fix_label: format!("Turn {name} off"),
                });
            }
        };
        type S = crate::core::retarget::SolveSettings;
        off(
            s.keep_out,
            "keep-out pushes the arms and legs away from where the source holds them",
            "keep-out",
            |s: &mut S| s.keep_out = false,
        );
        off(
            s.hand_contacts,
            "the hand contacts pull the arms to contacts the target cannot keep",
            "hand contacts",
            |s: &mut S| s.hand_contacts = false,
        );
        off(
            s.plant_feet,
            "planting the feet bends or stretches the legs away from the source",
            "feet planting",
            |s: &mut S| s.plant_feet = false,
        );
        out
    }

    /// The likeliest causes of `report`'s failing measures on clip `clip`, best first: every
    /// hypothesis whose fix, tested on a copy, brings a failing measure at least a quarter
    /// of the way back and breaks no measure that held. Empty when the report passes.
    pub fn causes(
        &self,
        clip: Option<&str>,
        report: &Report,
        limits: &Thresholds,
    ) -> Result<Vec<Cause>, SessionError> {
        self.causes_with_progress(clip, report, limits, &|_, _| true)
    }

    /// `causes`, telling `progress` how many fixes of how many are tested before each (each
    /// is a solve of the whole clip); stops with `SessionError::Cancelled` when it returns
    /// false.
    pub fn causes_with_progress(
        &self,
        clip: Option<&str>,
        report: &Report,
        limits: &Thresholds,
        progress: &dyn Fn(usize, usize) -> bool,
    ) -> Result<Vec<Cause>, SessionError> {
        if report.passed {
            return Ok(Vec::new());
        }
        let hypotheses = self.hypotheses();
        let all = hypotheses.len();
        let mut causes = Vec::new();
        for (tested, h) in hypotheses.into_iter().enumerate() {
            if !progress(tested, all) {
                return Err(SessionError::Cancelled);
            }
            let mut trial = self.clone();
            if trial.apply_edit(&h.fix).is_err() {
                continue;
            }
            let Ok(after) = trial.quality(clip, limits) else {
                continue;
            };
            if let Some(cause) = judged_cause(report, &after, h) {
                causes.push(cause);
            }
        }
        progress(all, all);
        causes.sort_by(|a, b| {
            (b.passes_after.cmp(&a.passes_after)).then(gain(a).total_cmp(&gain(b)).reverse())
        });
        Ok(causes)
    }

    /// Every fix worth testing: the translation copied, the rows labelled otherwise, the
    /// rows mapped otherwise than the automatic map, the solve passes.
    fn hypotheses(&self) -> Vec<Hypothesis> {
        let auto = self.automatic_map();
        let mut hypotheses: Vec<Hypothesis> =
            self.translation_hypothesis(&auto).into_iter().collect();
        hypotheses.extend(self.label_hypotheses(&auto));
        let named: Vec<usize> = hypotheses.iter().flat_map(|h| h.rows.clone()).collect();
        hypotheses.extend(self.automatic_hypothesis(&auto, &named));
        hypotheses.extend(self.pass_hypotheses());
        hypotheses
    }
}

/// The share of the way back to its limit a cause's fix brings its measure.
fn gain(c: &Cause) -> f64 {
    if c.before.abs() < 1e-12 {
        return 0.0;
    }
    1.0 - c.after.abs() / c.before.abs()
}

/// The cause `h` makes, judged by `after` against `before`: the failing measure it brings
/// back most, if by at least a quarter of its severity, and no measure that held broken.
fn judged_cause(before: &Report, after: &Report, h: Hypothesis) -> Option<Cause> {
    let held_broken = before.verdicts.iter().any(|v| {
        v.passed
            && after
                .verdicts
                .iter()
                .any(|w| w.measure == v.measure && !w.passed)
    });
    if held_broken {
        return None;
    }
    let (v, w, eased) = before
        .verdicts
        .iter()
        .filter(|v| !v.passed)
        .filter_map(|v| {
            let w = after.verdicts.iter().find(|w| w.measure == v.measure)?;
            let eased = (v.severity - w.severity) / (v.severity - 1.0).max(v.severity * 0.25);
            Some((v, w, eased))
        })
        .max_by(|a, b| a.2.total_cmp(&b.2))?;
    if eased < 0.25 || w.severity >= v.severity * 0.9 {
        return None;
    }
    Some(Cause {
        measure: v.measure,
        words: format!("{}: {}", symptom(before, v.measure), h.what),
        rows: h.rows,
        fix: h.fix,
        fix_label: h.fix_label,
        before: v.value,
        after: w.value,
        passes_after: after.passed,
    })
}

/// Up to three rows as `target ← source`, then "…".
fn some_mappings(session: &Session, rows: &[usize]) -> String {
    let (t, s) = (
        session.target.skeleton().names(),
        session.source.skeleton().names(),
    );
    let mapped = rows.iter().take(3).filter_map(|&j| {
        let p = session.map.for_target(j)?;
        Some(format!("{} ← {}", t[j], s[p.source]))
    });
    first_few(mapped, rows.len(), 3)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{crossed_walk_on_cesium, walk_on_cesium};

    fn target_joint(s: &Session, bone: HumanBone) -> usize {
        s.target.labelled_joint(bone).unwrap()
    }

    /// The cause of the named measure, its fix applied, and the report after.
    fn fixed(s: &Session, cause: &Cause) -> Report {
        let mut s = s.clone();
        s.apply_edit(&cause.fix).unwrap();
        s.quality(None, &Thresholds::default()).unwrap()
    }

    /// Forearms and hands that move by the source's displacement (as the hips do) tear
    /// CesiumMan's arms off: the cause names the joints, and its fix (rotation only) passes
    /// again.
    #[test]
    fn joints_copying_translation_are_named_and_fixed() {
        let mut s = walk_on_cesium();
        let limits = Thresholds::default();
        assert!(s.quality(None, &limits).unwrap().passed);
        let rows: Vec<usize> = [
            HumanBone::LeftLowerArm,
            HumanBone::LeftHand,
            HumanBone::RightLowerArm,
            HumanBone::RightHand,
        ]
        .map(|b| target_joint(&s, b))
        .into();
        for &t in &rows {
            let edit = Edit::SetTranslationMode {
                target: t,
                mode: TranslationMode::HipsScaled,
            };
            s.apply_edit(&edit).unwrap();
        }
        let report = s.quality(None, &limits).unwrap();
        assert!(!report.passed, "{}", report.to_text());
        let causes = s.causes(None, &report, &limits).unwrap();
        let first = causes.first().expect("a cause");
        assert!(
            first
                .words
                .contains("4 joints copy the source's translation"),
            "{first:?}"
        );
        assert_eq!(first.rows, rows);
        assert!(first.passes_after);
        assert!(fixed(&s, first).passed);
    }

    /// `bone` on the target mapped from `from` on the source: the one cause named by
    /// `what`, on that row; its fix maps the row from its own label's joint and passes.
    fn crossed_row_is_named_and_fixed(bone: HumanBone, from: HumanBone, what: &str) {
        let (mut s, row) = crossed_walk_on_cesium(bone, from);
        let limits = Thresholds::default();
        let report = s.quality(None, &limits).unwrap();
        assert!(!report.passed);
        let causes = s.causes(None, &report, &limits).unwrap();
        let words: Vec<&str> = causes.iter().map(|c| c.words.as_str()).collect();
        let cause = causes
            .iter()
            .find(|c| c.words.contains(what))
            .unwrap_or_else(|| panic!("no cause says '{what}': {words:?}"));
        assert_eq!(cause.rows, vec![row]);
        s.apply_edit(&cause.fix).unwrap();
        let own = s.source.labelled_joint(bone);
        assert_eq!(s.map.for_target(row).map(|p| p.source), own);
        let after = s.quality(None, &limits).unwrap();
        assert!(after.passed, "{}", after.to_text());
    }

    /// A foot driven by a hand (a toe named like a finger, in the wild).
    #[test]
    fn a_row_from_another_body_part_is_named_and_fixed() {
        crossed_row_is_named_and_fixed(
            HumanBone::LeftFoot,
            HumanBone::LeftHand,
            "1 joint takes the motion of another body part (",
        );
    }

    /// A left upper arm driven by the right one.
    #[test]
    fn a_row_from_the_other_side_is_named_and_fixed() {
        crossed_row_is_named_and_fixed(
            HumanBone::LeftUpperArm,
            HumanBone::RightUpperArm,
            "1 joint takes the motion of the other side's joint",
        );
    }

    /// An upper arm driven by the clavicle above it.
    #[test]
    fn a_row_from_its_neighbour_is_named_and_fixed() {
        crossed_row_is_named_and_fixed(
            HumanBone::LeftUpperArm,
            HumanBone::LeftShoulder,
            "1 joint takes a neighbouring joint's motion",
        );
    }

    /// The search counts the fixes it tests, and stops when told to.
    #[test]
    fn the_search_counts_its_fixes_and_stops_when_told() {
        let (s, _) = crossed_walk_on_cesium(HumanBone::LeftFoot, HumanBone::LeftHand);
        let limits = Thresholds::default();
        let report = s.quality(None, &limits).unwrap();
        let steps = std::cell::RefCell::new(Vec::new());
        let counted = |done, all| {
            steps.borrow_mut().push((done, all));
            true
        };
        let causes = s
            .causes_with_progress(None, &report, &limits, &counted)
            .unwrap();
        assert!(!causes.is_empty());
        let steps = steps.into_inner();
        let all = steps[0].1;
        assert_eq!(steps, (0..=all).map(|k| (k, all)).collect::<Vec<_>>());
        let stopped = s.causes_with_progress(None, &report, &limits, &|done, _| done < 1);
        assert!(matches!(stopped, Err(SessionError::Cancelled)));
    }

    /// A passing report has no cause to name.
    #[test]
    fn a_passing_report_has_no_causes() {
        let s = walk_on_cesium();
        let limits = Thresholds::default();
        let report = s.quality(None, &limits).unwrap();
        assert!(s.causes(None, &report, &limits).unwrap().is_empty());
    }
}
