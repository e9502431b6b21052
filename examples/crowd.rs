//! A crowd of characters for an engine: 1,000 copies of RobotExpressive walking the CMU
//! walk (01_01), each at its own time, speed and place, a quarter mirrored, with leg IK
//! on the near half. Each frame writes skinning matrices into one buffer the engine would
//! upload. No GUI needed: `cargo run --release --example crowd [count] [frames]`.

use glam::{Mat4, Vec3};
use retarget_studio::io::ImportOptions;
use retarget_studio::runtime::{Crowd, Flags, Output, RigOptions, RigPair};
use retarget_studio::session::Session;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

fn main() -> anyhow::Result<()> {
    let mut args = std::env::args().skip(1);
    let count: usize = args.next().map_or(Ok(1_000), |a| a.parse())?;
    let frames: usize = args.next().map_or(Ok(300), |a| a.parse())?;

    // Once per (source, target) pair: match the rigs, fit each clip, precompute its plants.
    let session = Session::automatic(
        &asset("bvh/01_01.bvh"),
        &asset("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )?;
    let clips: Vec<_> = session.source.clips().into_iter().cloned().collect();
    let built = Instant::now();
    let rig = Arc::new(RigPair::new(
        &session.retargeter()?,
        session.source.skeleton(),
        session.target.skeleton(),
        &clips,
        RigOptions::default(),
    )?);
    println!(
        "rig pair: {} -> {} joints, {} clip(s), built in {:.0} ms",
        rig.source().len(),
        rig.target_len(),
        rig.clip_count(),
        built.elapsed().as_secs_f64() * 1e3
    );

    // Once per character: its clip, time, speed, flags and place on a grid.
    let mut crowd = Crowd::new(rig.clone());
    let duration = rig.clip(0).duration_secs();
    for k in 0..count {
        let (x, z) = ((k % 40) as f32 * 1.5, (k / 40) as f32 * 1.5);
        let mut flags = Flags::LOOP;
        flags.set(Flags::IK, z < 20.0);
        flags.set(Flags::MIRROR, k % 4 == 0);
        let placement = Mat4::from_translation(Vec3::new(x, 0.0, z));
        let i = crowd.spawn(0, (k as f32 * 0.37) % duration, placement, flags);
        crowd.instance_mut(i).speed = 0.9 + 0.2 * ((k * 7919) % 100) as f32 / 100.0;
    }

    // Every frame: the engine's buffer, owned by the caller and reused.
    let mut skinning = vec![Mat4::IDENTITY; crowd.output_len()];
    let start = Instant::now();
    for frame in 0..frames {
        // Characters that leave the near field drop IK (level of detail).
        if frame == frames / 2 {
            for i in 0..crowd.len() {
                crowd
                    .instance_mut(i)
                    .flags
                    .set(Flags::LOW_DETAIL, i % 2 == 1);
            }
        }
        crowd.update(1.0 / 60.0, Output::Skinning, &mut skinning);
    }
    let ms = start.elapsed().as_secs_f64() * 1e3 / frames as f64;
    let first = &crowd.instances()[0];
    println!(
        "{count} characters, {frames} frames: {ms:.2} ms per frame on {} thread(s); the first \
         character is {:.2} s into its clip",
        rayon::current_num_threads(),
        first.time()
    );
    Ok(())
}
