//! Writing a retargeted clip: CMU's walk (343 frames) onto the robot (43 joints, 14 meshes)
//! as GLB with the character, as FBX with the character (skins, blend shapes, materials)
//! and as FBX skeleton and take only, each file written whole to a temp folder.
//! Run: `cargo bench --bench export`.

use criterion::{Criterion, criterion_group, criterion_main};
use retarget_studio::io::ImportOptions;
use retarget_studio::session::{ExportFormat, ExportJob, FbxSettings, Session};
use std::path::PathBuf;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

fn bench(c: &mut Criterion) {
    let session = Session::automatic(
        &asset("bvh/02_01.bvh"),
        &asset("gltf/RobotExpressive.glb"),
        &ImportOptions::default(),
    )
    .expect("assets load");
    let clip = session
        .retarget_clip(None, None)
        .expect("the walk retargets");
    let dir = tempfile::tempdir().unwrap();
    let mut group = c.benchmark_group("export");
    group.sample_size(20);
    let formats = [
        (
            "glb with character",
            "walk.glb",
            ExportFormat::GlbWithCharacter,
        ),
        (
            "fbx with character",
            "walk.fbx",
            ExportFormat::Fbx(FbxSettings::default()),
        ),
        (
            "fbx animation only",
            "walk_anim.fbx",
            ExportFormat::Fbx(FbxSettings {
                animation_only: true,
                ..FbxSettings::default()
            }),
        ),
    ];
    for (name, file, format) in formats {
        let job = ExportJob::to(format, dir.path().join(file));
        group.bench_function(name, |b| {
            b.iter(|| session.write_clips(vec![clip.clone()], &job).unwrap())
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
