//! `retarget-studio dump-pose FILE`: world joint positions per frame as JSON, in the format
//! of the independent tools' pose-dump, so an exported file can be compared with what an
//! independent reader (Blender) makes of it.

use crate::core::Pose;
use crate::io::ImportOptions;
use anyhow::Context;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct DumpArgs {
    pub file: PathBuf,
    /// The clip (default: the first).
    #[arg(long)]
    pub clip: Option<String>,
    /// Sample at this rate instead of at the clip's keys.
    #[arg(long)]
    pub fps: Option<f32>,
    /// Write here instead of standard output.
    #[arg(long, short)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub quiet: super::progress::QuietArg,
}

#[derive(Serialize)]
struct Dump {
    frames: Vec<f32>,
    joints: BTreeMap<String, Vec<[f32; 3]>>,
    meta: BTreeMap<&'static str, String>,
}

pub fn run(args: &DumpArgs) -> anyhow::Result<String> {
    let progress = super::progress::Progress::new(args.quiet);
    progress.step(format!(
        "loading {}",
        super::progress::file_name(&args.file)
    ))?;
    let asset = crate::io::load(&args.file, &ImportOptions::default())?;
    // A character with no clip (a rig in its rest pose) dumps that pose, as pose-dump does.
    let rest_only;
    let (skeleton, clip) = match &args.clip {
        Some(name) => {
            let entry = asset
                .find_clip(name)
                .with_context(|| format!("{}: no clip named '{name}'", args.file.display()))?;
            (&asset.skeletons[entry.skeleton], &entry.clip)
        }
        None => match asset.clips.first() {
            Some(entry) => (&asset.skeletons[entry.skeleton], &entry.clip),
            None => {
                let skeleton = (asset.skeletons.first())
                    .with_context(|| format!("{}: no skeleton", args.file.display()))?;
                let tracks = vec![crate::core::JointTracks::default(); skeleton.len()];
                rest_only = crate::core::Clip::new("(rest)", tracks, None);
                (skeleton, &rest_only)
            }
        },
    };
    let frames: Vec<f32> = match args.fps {
        Some(fps) => {
            let n = (clip.duration_secs() * fps).floor() as usize + 1;
            (0..n).map(|k| clip.start_secs() + k as f32 / fps).collect()
        }
        None => clip
            .tracks()
            .iter()
            .flat_map(|t| t.rotation.as_ref().map(|r| r.times().to_vec()))
            .max_by_key(Vec::len)
            .unwrap_or_else(|| vec![clip.start_secs()]),
    };
    let mut joints: BTreeMap<String, Vec<[f32; 3]>> = BTreeMap::new();
    let rest = Pose::rest(skeleton);
    let mut pose = rest.clone();
    progress.count("sampling", frames.len())?;
    for (done, &t) in frames.iter().enumerate() {
        if !progress.advance(done + 1) {
            return Err(super::interrupt::Interrupted.into());
        }
        pose.copy_from(&rest);
        clip.sample(t, &mut pose);
        for (name, p) in skeleton.names().iter().zip(pose.world_positions(skeleton)) {
            joints.entry(name.clone()).or_default().push(p.to_array());
        }
    }
    let meta = BTreeMap::from([
        ("source", args.file.display().to_string()),
        ("animation", clip.name.clone()),
        ("reader", "retarget-studio".to_owned()),
    ]);
    drop(progress);
    let json = serde_json::to_string(&Dump {
        frames,
        joints,
        meta,
    })?;
    match &args.out {
        Some(path) => {
            crate::io::atomic::write_atomic(path, |w| w.write_all(json.as_bytes()))
                .with_context(|| format!("{}: cannot write", path.display()))?;
            Ok(String::new())
        }
        None => Ok(json + "\n"),
    }
}
