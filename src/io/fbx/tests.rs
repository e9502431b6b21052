use super::*;

fn shared(name: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets/fbx")
        .join(name)
}

#[test]
fn scratch_print_all() {
    for f in std::fs::read_dir(shared("")).unwrap() {
        let p = f.unwrap().path();
        let asset = import_fbx(&p).unwrap();
        eprintln!("== {}", p.display());
        for c in &asset.clips {
            eprintln!("  clip {} {} {} fps {:?} frames {}", c.clip.name, c.clip.start_secs(), c.clip.end_secs(), c.clip.fps(), c.clip.frame_count());
        }
        let s = &asset.skeletons[0];
        eprintln!("  joints {} {:?}", s.len(), &s.names()[..s.len().min(8)]);
        eprintln!("  container {:?}", s.container().to_scale_rotation_translation());
        eprintln!("  unit {:?} up {:?}", asset.unit, asset.up);
        let h = crate::core::Pose::rest(s).world_positions(s);
        eprintln!("  rest y range {:?}", h.iter().fold((f32::MAX, f32::MIN), |a, p| (a.0.min(p.y), a.1.max(p.y))));
        for m in &asset.meshes {
            eprintln!("  mesh {} verts {} tris {} tex {:?}", m.name, m.vertex_count(), m.triangle_count(), m.primitives.iter().map(|p| p.base_color_texture.is_some()).collect::<Vec<_>>());
        }
        eprintln!("  warnings {:?}", asset.warnings);
    }
}
