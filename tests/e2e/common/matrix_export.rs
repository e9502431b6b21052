//! The quality matrix's cases written out for an independent judge: each output GLB (BVH
//! for a BVH target) and a manifest line (files, clip, the joints judge compares, and our own figures), which
//! `scripts/judge-matrix.py` reads back with Blender (`pose-dump`) and `judge`.

use crate::common::file_variants::deltas_in_place;
use crate::common::file_variants::glb::Glb;
use retarget_studio::core::Pose;
use retarget_studio::core::quality::Report;
use retarget_studio::io::{Format, ImportOptions};
use retarget_studio::session::{ExportFormat, ExportJob, Session};
use serde_json::{Value, json};
use std::path::Path;

/// A joint's name as Blender's importers name it (unnamed glTF nodes are `Node_<index>`).
fn blender_name(name: &str) -> String {
    match name.strip_prefix("node_") {
        Some(i) if i.parse::<usize>().is_ok() => format!("Node_{i}"),
        _ => name.to_owned(),
    }
}

/// judge's SPEC: the joints on both sides, as `check` measures them (`Session::judged_joints`).
pub fn judge_spec(session: &Session) -> Option<Value> {
    let judged = session.judged_joints()?;
    let b = |(s, t): &(String, String)| (blender_name(s), blender_name(t));
    let (ll, rl) = (b(&judged.hips[0]), b(&judged.hips[1]));
    let segments: Vec<Value> = judged
        .segments
        .iter()
        .map(|(_, (sf, st), (tf, tt))| {
            json!([
                [blender_name(sf), blender_name(st)],
                [blender_name(tf), blender_name(tt)]
            ])
        })
        .collect();
    let feet: Vec<Value> = judged
        .feet
        .iter()
        .map(|f| json!([b(f).0, b(f).1]))
        .collect();
    // The fingers measure's hands (judge's `fingers` SPEC), as `check` pairs them.
    let hands: Vec<Value> = session
        .judged_hands()
        .iter()
        .map(|h| {
            let names = |n: &[String]| n.iter().map(|x| blender_name(x)).collect::<Vec<_>>();
            let segments: Vec<Value> = h
                .segments
                .iter()
                .map(|[s, t]| json!([names(s), names(t)]))
                .collect();
            json!({"a": names(&h.a), "b": names(&h.b), "segments": segments})
        })
        .collect();
    Some(json!({
        "hips_a": [ll.0, rl.0], "hips_b": [ll.1, rl.1],
        "segments": segments, "feet": feet, "hands": hands,
    }))
}

/// Our figures, in judge's terms.
/// Both figures' body capsules by joint name, for the judge script's own penetration
/// figure on Blender's readings (judge has no penetration mode).
fn capsules(session: &Session) -> Value {
    let (source, target) = session.named_bodies();
    json!({"source": source, "target": target})
}

fn ours(report: &Report) -> Value {
    json!({
        "penetration_src": report.penetration.as_ref().map(|p| p.source.max_mm),
        "penetration_tgt": report.penetration.as_ref().map(|p| p.target.max_mm),
        "penetration": report
            .verdicts
            .iter()
            .find(|v| v.measure == retarget_studio::core::quality::Measure::Penetration)
            .map(|v| v.value),
        "direction_mean": report.direction.as_ref().map(|d| d.mean_deg),
        "body": report.body.max,
        "pelvis_src": report.pelvis.source,
        "pelvis_tgt": report.pelvis.target,
        "ground_src": report.ground.as_ref().map(|g| g.source.mean_mm),
        "ground_tgt": report.ground.as_ref().map(|g| g.target.mean_mm),
        "skate_src": report.skate.as_ref().map(|g| g.source.mean_mm),
        "skate_tgt": report.skate.as_ref().map(|g| g.target.mean_mm),
        "grip": held_grips(report).map(|(_, worst)| worst),
        "fingers_mean": report.fingers.as_ref().map(|f| f.mean_deg),
    })
}

/// judge's `grips` pairs for the hand contacts that hold through every frame (judge's grip
/// compares every frame of the dumps), and our worst frame over them (mm at 1.75 m).
fn held_grips(report: &Report) -> Option<(Vec<Value>, f64)> {
    let held: Vec<_> = (report.grip.iter().flat_map(|g| &g.contacts))
        .filter(|c| c.start == 0 && c.end + 1 == report.frames)
        .collect();
    let worst = held.iter().map(|c| c.diff_max_mm).reduce(f64::max)?;
    let pairs = held
        .iter()
        .map(|c| {
            let ((a0, a1), (b0, b1)) = &c.joints;
            json!([
                [blender_name(a0), blender_name(a1)],
                [blender_name(b0), blender_name(b1)]
            ])
        })
        .collect();
    Some((pairs, worst))
}

/// The target file with its joints in its own pose (the bind pose as our reader reads the
/// inverse bind matrices or clusters, placed where the rig rests: `Pose::bind_in_place`) and
/// no animation: judge's reference for the target's own floor and bone lengths. Its rest
/// pose may not stand (the Mixamo variant turns its legs 35° at rest). An FBX target's copy
/// is made from the GLB written for it (`written`), which carries its rig.
fn bind_pose_copy(session: &Session, written: &Path, out: &Path) -> Result<(), String> {
    let side = &session.target;
    let skeleton = side.skeleton();
    let fbx = side.asset.format == Format::Fbx;
    let file = if fbx { written } else { side.path.as_path() };
    let bytes = std::fs::read(file).map_err(|e| e.to_string())?;
    let nodes: Vec<usize> = if fbx {
        let asset = retarget_studio::io::load(written, &ImportOptions::default())
            .map_err(|e| e.to_string())?;
        let names = asset.skeletons[0].names();
        skeleton
            .names()
            .iter()
            .map(|n| {
                names
                    .iter()
                    .position(|m| m == n)
                    .map(|j| asset.joint_nodes[0][j])
            })
            .collect::<Option<_>>()
            .ok_or("a target joint is missing from the written GLB")?
    } else {
        side.asset.joint_nodes[side.skeleton_index].clone()
    };
    let own = Pose::bind_in_place(skeleton);
    let mut glb = Glb::parse(&bytes);
    for (j, &node) in nodes.iter().enumerate() {
        let b = own.local(j);
        glb.set_node_trs(node, (b.translation, b.rotation, b.scale));
    }
    if let Some(doc) = glb.json.as_object_mut() {
        doc.remove("animations");
    }
    std::fs::write(out, glb.to_bytes()).map_err(|e| e.to_string())
}

/// The target file, when its body is judged against its own clip rather than its bind pose:
/// its root motion moves a joint that is not hung from the top of the hierarchy (a fox's
/// hip under `_rootJoint` and `b_Root_00`), which judge holds rigid in a single pose but
/// which the target's own clips move just as the retarget does ("the target's own dump:
/// rest pose, or its own clip").
fn own_clip_target(session: &Session) -> Option<std::path::PathBuf> {
    use retarget_studio::core::TranslationMode::{HipsScaled, InPlace};
    let t = session.target.skeleton();
    let deep = session.map.pairs().iter().any(|p| {
        matches!(p.translation, HipsScaled | InPlace)
            && t.parents()[p.target].is_some_and(|q| t.parents()[q].is_some())
    });
    (deep && !session.target.clips().is_empty()).then(|| session.target.path.clone())
}

/// pose-dump's arguments for a BVH as our reader read it: its unit to metres, and the axes
/// our reader detected (Blender's importer assumes Y up, -Z forward).
fn bvh_args(asset: &retarget_studio::io::Asset) -> Vec<String> {
    let turn = glam::Quat::from_rotation_arc(asset.up.vector(), glam::Vec3::Y);
    let forward = retarget_studio::core::Axis::dominant(turn.inverse() * glam::Vec3::NEG_Z);
    let axis = |a: retarget_studio::core::Axis| a.name().trim_start_matches('+').to_owned();
    vec![
        "--scale".into(),
        asset.unit.metres().to_string(),
        // `=`: argparse would read a bare "-Z" as an option.
        format!("--bvh-axis-up={}", axis(asset.up)),
        format!("--bvh-axis-forward={}", axis(forward)),
    ]
}

/// One character on both sides, and the target file's own clip of the source clip's name
/// (`clip`, else the source's first): what `check` measures the output against
/// (`Session::quality`), and what judge is given as the target's own pose.
pub fn own_clip<'s>(
    session: &'s Session,
    clip: Option<&str>,
) -> Option<&'s retarget_studio::io::AssetClip> {
    let source_clips = session.source.clips();
    let name = clip.or_else(|| source_clips.first().map(|c| c.name.as_str()))?;
    let own = session
        .target
        .asset
        .clips
        .iter()
        .find(|c| c.clip.name == name);
    own.filter(|_| session.same_rig())
}

/// A BVH source whose position channels our reader takes as deltas on the OFFSET
/// (MakeHuman's): Blender puts them in the OFFSET's place and folds every bone onto its
/// parent, so the judge reads a copy written in that form (`deltas_in_place`, a text edit
/// independent of our reader) next to `out`.
fn in_place_copy(
    source: &retarget_studio::session::Side,
    out: &Path,
) -> Result<Option<std::path::PathBuf>, String> {
    let deltas = source.asset.format == Format::Bvh
        && source.asset.warnings.iter().any(|w| w.contains("deltas"));
    if !deltas {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&source.path).map_err(|e| e.to_string())?;
    let copy = out.with_extension("source-in-place.bvh");
    std::fs::write(&copy, deltas_in_place(&text)).map_err(|e| e.to_string())?;
    Ok(Some(copy))
}

/// Writes the case's GLB or BVH to `out` and returns its manifest line.
pub fn export_case(
    session: &Session,
    pair: &str,
    clip: Option<&str>,
    report: &Report,
    out: &Path,
    known: &[&str],
) -> Result<Value, String> {
    let job = ExportJob {
        format: ExportFormat::from_path(out, false).ok_or("not a .glb or .bvh")?,
        clips: vec![clip.map(str::to_owned)],
        fps: None,
        out: out.to_path_buf(),
        reduce: None,
        root_motion: None,
        extract_root: false,
        add_root: false,
    };
    session.export(&job).map_err(|e| e.to_string())?;
    // The same retarget as FBX, which Blender's FBX importer must read as the GLB (or BVH).
    let fbx = out.with_extension("fbx");
    let fbx_job = ExportJob {
        format: ExportFormat::Fbx(Default::default()),
        out: fbx.clone(),
        ..job
    };
    session.export(&fbx_job).map_err(|e| e.to_string())?;
    let target = &session.target;
    // A BVH target is judged against its own clip (its floor is its motion's, see
    // `Side::floor_from_motion`), and our writer gives a BVH target its own unit and axes.
    let a0 = vec!["-a".to_owned(), "0".to_owned()];
    // One character on both sides: its own clip is its own pose, as `check` takes it.
    // By the file's animation index: Blender names an unnamed glTF animation `Anim_0`
    // where our reader says `animation_0`.
    let own_clip = own_clip(session, clip).map(|c| c.animation.to_string());
    let (target_bind, target_args, output_args, target_own) = if target.floor_from_motion() {
        let own = bvh_args(&target.asset);
        (target.path.clone(), own.clone(), own, None)
    } else if let Some(name) = own_clip {
        let own = vec!["-a".to_owned(), name];
        (target.path.clone(), own, a0.clone(), None)
    } else {
        let bind = out.with_extension("bind.glb");
        bind_pose_copy(session, out, &bind)?;
        (bind, Vec::new(), a0.clone(), own_clip_target(session))
    };
    // Of several armatures (a Rigify export's unskinned `metarig` beside its `rig`), Blender
    // names the first one's bones plainly: the judge reads the one the retarget drove.
    let (mut target_args, mut output_args) = (target_args, output_args);
    if target.asset.skeletons.len() > 1 {
        let armature = ["--armature".to_owned(), target.skeleton().name.clone()];
        target_args.extend(armature.clone());
        output_args.extend(armature);
    }
    // `check` holds the body to the target as its file declares it as well as to the bind
    // (`Report::add_declared_body`): judge reads the file's own first clip too, by Blender.
    let keyed = target.asset.clips.iter().find(|c| c.clip.frame_count() > 0);
    let declared = keyed
        .filter(|_| target_bind != target.path && target_own.is_none())
        .map(|c| {
            let clip = ["-a".to_owned(), c.animation.to_string()];
            (
                target.path.clone(),
                target_args.iter().cloned().chain(clip).collect::<Vec<_>>(),
            )
        });
    let (declared, declared_args) = declared.unzip();
    let source = &session.source;
    let judge_source = in_place_copy(source, out)?.unwrap_or_else(|| source.path.clone());
    let source_args: Vec<String> = if source.asset.format == Format::Bvh {
        bvh_args(&source.asset)
    } else {
        vec!["-a".into(), clip.unwrap_or("0").to_owned()]
    };
    Ok(json!({
        "pair": pair,
        "source": judge_source,
        "source_file": source.path,
        "source_args": source_args,
        "clip": clip,
        "target": target.path,
        "target_bind": target_bind,
        "target_args": target_args,
        "target_own": target_own,
        "target_declared": declared,
        "target_declared_args": declared_args,
        "output": out,
        "output_args": output_args,
        "fbx": fbx,
        "spec": judge_spec(session).map(|mut spec| {
            if let Some((grips, _)) = held_grips(report) {
                spec["grips"] = Value::Array(grips);
            }
            spec
        }),
        "ours": ours(report),
        "capsules": capsules(session),
        "known": known,
    }))
}
