//! The quality matrix: every bundled source clip onto every bundled target and onto generated
//! variants of those targets (other bone axes, Mixamo and Unreal names, ×0.01 and ×100,
//! longer legs, Mixamo through Blender, a skin bound away from the rest), and the FBX of two
//! of them as sources and targets, plus mocap whose zero pose is not a T-pose, and BVH
//! targets (CMU's walk and its variants, written as BVH), each judged by `check`'s measures
//! (`session::quality_report`). Set `RETARGET_MATRIX_OUT=DIR` to also write each case's GLB or BVH
//! and a table there (CI judges those with Blender).

use crate::common::matrix_export::{export_case, own_clip};
use retarget_studio::core::quality::{Report, Thresholds};
use retarget_studio::core::retarget::Stride;
use retarget_studio::io::ImportOptions;
use retarget_studio::session::Session;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

mod cases;
mod fbx;
mod fingers;

use cases::*;

struct Row {
    pair: String,
    report: Result<Report, String>,
    /// One body on both sides (`Session::same_rig`) whose target has no clip of the
    /// source's name: its floor measures are excused (`IDENTITY_FLOOR`).
    same_body: bool,
}

/// Measures an identity may break where the target file has no clip of the source's name
/// (CesiumMan's GLB and FBX name their clip differently): the output then stands on the
/// target's rest floor while the source stands on its clip's, and CesiumMan's walk never
/// lowers its feet to its rest pose's floor (26 mm above it). With a clip of that name, the
/// target's own clip is its pose (`Session::quality`) and no measure is excused.
const IDENTITY_FLOOR: [&str; 2] = ["ground", "pelvis"];

/// Retargets one case and measures it; with `out`, also writes its GLB and returns its
/// manifest line for the independent judge.
fn run(
    source: &Path,
    clip: Option<&str>,
    target: &Path,
    out: Option<(&Path, &str)>,
    stride: Stride,
) -> Result<(Report, Option<serde_json::Value>, bool), String> {
    let mut session =
        Session::automatic(source, target, &ImportOptions::default()).map_err(|e| e.to_string())?;
    let name = session
        .source_clip(clip)
        .map_err(|e| e.to_string())?
        .name
        .clone();
    session.solve.set_stride(&name, stride);
    // One body on both sides, without a clip of the source's name on the target's side.
    let same_body = session.same_rig() && own_clip(&session, clip).is_none();
    let report = session
        .quality(clip, &Thresholds::default())
        .map_err(|e| e.to_string())?;
    // Every humanoid case (forearms and hands mapped on both sides) carries the
    // penetration figure; judge has no penetration mode, so it is ours alone here
    // (scripts/judge-matrix.py computes it again from Blender's readings).
    let humanoid = session
        .judged_joints()
        .is_some_and(|j| (j.segments.iter()).any(|s| s.0 == "leftLowerArm→leftHand"));
    if humanoid && report.penetration.is_none() {
        return Err("a humanoid case without the penetration figure".into());
    }
    let retargeted = session
        .retarget_clip(clip, None)
        .map_err(|e| e.to_string())?;
    let scratch = tempfile::tempdir().map_err(|e| e.to_string())?;
    let fbx = fbx::worst_share(&session, &retargeted, scratch.path())?;
    if fbx > fbx::TOLERANCE {
        return Err(format!(
            "its FBX reads back {fbx:.2e} of the height away (limit {:.0e})",
            fbx::TOLERANCE
        ));
    }
    let line = match out {
        Some((path, pair)) => {
            let mut known: Vec<&str> = KNOWN
                .iter()
                .filter(|(p, _, _)| known_pair(p, pair))
                .map(|(_, m, _)| *m)
                .collect();
            if same_body {
                known.extend(IDENTITY_FLOOR);
            }
            Some(export_case(&session, pair, clip, &report, path, &known)?)
        }
        None => None,
    };
    Ok((report, line, same_body))
}

/// One line per pair: each measure's figure, `!` where it breaks its threshold.
fn table(rows: &[Row]) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "| pair | direction mean ° | body (of height) | pelvis Δ (leg lengths) | ground Δ mm | skate Δ mm | same rig | penetration Δ mm |\n|---|---|---|---|---|---|---|---|"
    );
    for row in rows {
        let Ok(r) = &row.report else {
            let _ = writeln!(
                s,
                "| {} | error: {} |||||",
                row.pair,
                row.report.as_ref().err().unwrap()
            );
            continue;
        };
        let mark = |m: &str| {
            let failed = r
                .verdicts
                .iter()
                .any(|v| !v.passed && v.measure.label() == m);
            if failed { "!" } else { "" }
        };
        let dir = r.direction.as_ref().map_or("-".into(), |d| {
            format!("{:.2}{}", d.mean_deg, mark("direction"))
        });
        let ground = r.ground.as_ref().map_or("no contacts".into(), |g| {
            format!(
                "{:+.1}{}",
                g.target.mean_mm - g.source.mean_mm,
                mark("ground")
            )
        });
        let skate = r.skate.as_ref().map_or("no contacts".into(), |g| {
            format!(
                "{:+.1}{}",
                g.target.mean_mm - g.source.mean_mm,
                mark("skate")
            )
        });
        let same = r
            .same_rig
            .as_ref()
            .map_or("-".into(), |x| format!("{:.1e}{}", x.max, mark("same rig")));
        let penetration = (r.verdicts.iter())
            .find(|v| v.measure.label() == "penetration")
            .map_or("-".into(), |v| {
                format!("{:+.1}{}", v.value, mark("penetration"))
            });
        let _ = writeln!(
            s,
            "| {} | {} | {:.1e}{} | {:+.3}{} | {} | {} | {} | {} |",
            row.pair,
            dir,
            r.body.max,
            mark("body"),
            r.pelvis.difference,
            mark("pelvis"),
            ground,
            skate,
            same,
            penetration
        );
    }
    s
}

#[test]
fn every_source_onto_every_target_and_variant() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = std::env::var_os("RETARGET_MATRIX_OUT").map(PathBuf::from);
    if let Some(d) = &out_dir {
        std::fs::create_dir_all(d).unwrap();
    }
    // With an output folder the variant files go there too: the judge reads them back.
    let work = out_dir.clone().unwrap_or_else(|| dir.path().to_path_buf());
    let targets = targets(&work);
    let mut rows = Vec::new();
    let mut manifest = Vec::new();
    let (fox_sources, fox_targets) = quadrupeds(&work);
    let mut blocks = vec![
        (sources(&work), targets),
        creature_mocap(&work, &fox_targets),
        (fox_sources, fox_targets),
        bvh_targets(&work),
        class_files(),
    ];
    blocks.extend(poses_and_bare_humanoid());
    blocks.extend(creature_files());
    blocks.push(fingers::finger_block(&work));
    blocks.push(kept_path());
    for (src_label, src, clip, targets) in blocks.iter().flat_map(|(sources, targets)| {
        sources
            .iter()
            .map(move |s| (s.0.clone(), s.1.clone(), s.2, targets))
    }) {
        for (tgt_label, tgt) in targets {
            let pair = format!("{src_label} → {tgt_label}");
            // Blender judges the bundled targets under every clip, and every variant under
            // the CMU walk and the fox's walk: a few minutes of CI. FBX sources and targets
            // are read back by Blender's FBX importer.
            // The renamed robot is also judged onto itself: Blender must read its
            // walk back.
            let renamed_self =
                src_label == "RobotExpressive:Walking" && tgt_label == "RobotExpressive[renamed]";
            // The fox's run is keyed at uneven times that Blender resamples onto whole
            // frames, so its reading is another clip: judged by `check` alone.
            let bvh = tgt.extension().is_some_and(|e| e == "bvh");
            let judged = src_label != "Fox:Run"
                && (!tgt_label.contains('[')
                    || src_label == "02_01"
                    || src_label == "Fox:Walk"
                    || renamed_self
                    || src_label == "RobotExpressive:ThumbsUp"
                    || bvh);
            let out = out_dir.as_ref().filter(|_| judged).map(|d| {
                d.join(format!(
                    "{}.{}",
                    pair.replace(" → ", "__")
                        .replace([':', '[', ']', ' ', '+'], "_"),
                    if bvh { "bvh" } else { "glb" }
                ))
            });
            let stride = if src_label.ends_with(PATH_KEPT) {
                Stride::SourcePath
            } else {
                Stride::ScaledByLegs
            };
            let out = out.as_deref().map(|o| (o, pair.as_str()));
            let result = run(&src, clip, tgt, out, stride);
            let same_body = result.as_ref().is_ok_and(|r| r.2);
            let report = result.map(|(report, line, _)| {
                manifest.extend(line);
                report
            });
            rows.push(Row {
                pair,
                report,
                same_body,
            });
        }
    }
    if let Some(d) = &out_dir {
        let text = serde_json::to_string_pretty(&manifest).unwrap();
        std::fs::write(d.join("manifest.json"), text).unwrap();
    }
    let table = table(&rows);
    println!("{table}");
    if let Some(d) = &out_dir {
        std::fs::write(d.join("matrix.md"), &table).unwrap();
    }
    let errors: Vec<String> = rows
        .iter()
        .filter_map(|r| r.report.as_ref().err().map(|e| format!("{}: {e}", r.pair)))
        .collect();
    assert!(errors.is_empty(), "cases that did not run: {errors:?}");
    let mut broken = Vec::new();
    for row in &rows {
        let Ok(r) = &row.report else { continue };
        for v in r.verdicts.iter().filter(|v| !v.passed) {
            let measure = v.measure.label();
            let known = KNOWN
                .iter()
                .any(|(pair, m, _)| known_pair(pair, &row.pair) && (*m == measure || *m == "*"))
                || (row.same_body && IDENTITY_FLOOR.contains(&measure));
            if !known {
                broken.push(format!(
                    "{}: {measure} {:.3} (limit {})",
                    row.pair, v.value, v.limit
                ));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "measures over their threshold:\n{}",
        broken.join("\n")
    );
}

/// A KNOWN entry naming a pair (`A → B`) matches that pair only; one without an arrow
/// matches every pair it begins.
fn known_pair(known: &str, pair: &str) -> bool {
    if known.contains(" → ") {
        known == pair
    } else {
        pair.starts_with(known)
    }
}

/// Failures understood and left for later issues: (pair prefix, measure or `*`, why).
const KNOWN: &[(&str, &str, &str)] = &[
    (
        "02_01(path kept)",
        "direction",
        "the source's path kept in metres: legs of other lengths stride wider or shorter than \
         the source's to cover it (0.43 of its leg on the chibi), so their segments point off \
         the source's, with the arms kept out of the torso as well (5.1-5.5°); the stride's \
         own measures hold: pelvis within 0.024 leg lengths, ground within 1 mm, skate under \
         the source's own",
    ),
    (
        "02_01[grip]",
        "direction",
        "both hands on one grip through the walk: on arms of other proportions the arms' IK \
         turns them off the source's directions to keep the hands together, and on CesiumMan \
         the held hands then leave its torso together (direction mean 5.6-11.5°; CesiumMan's \
         hands part by 145 mm without the grip kept, and its forearms go 63 mm into its \
         torso without the keep-out); grip holds within 1.7 mm, penetration within 5.3 mm: \
         the measures trade against each other",
    ),
    (
        "02_01[prop]",
        "direction",
        "a rifle carried in both hands 0.3 m apart and raised through the walk: the arms' IK \
         turns the arms off the source's directions to keep the rifle's length (direction \
         mean 6.0-9.1° against 0.8-2.1° without; the hands part by 116-488 mm without the \
         pass, 4-8 mm with it)",
    ),
    (
        "minnyquinn:retreat → OpenBot(rigify)",
        "body",
        "OpenBot's control bone MCH-ROT-neck changes length by 0.025 of the height at frame 6 \
         (not a finger: the same without the fingers work)",
    ),
    (
        "RobotExpressive:Walking → walk1(makehuman)",
        "direction",
        "the robot swings its forearms 44 mm into MakeHuman's torso (a BVH: capsules in \
         proportion to the height); kept out, its arms turn 5 to 13° off the robot's, and \
         this pair's mean was already 4.94°: penetration is judged, direction gives way",
    ),
];
