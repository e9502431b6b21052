//! The runtime allocates nothing per frame (#13): a counting global allocator around
//! `Crowd::update` on the CMU walk onto RobotExpressive, IK on, mirrored and not, looping
//! past the clip's end, serial and on a 2-thread rayon pool. Its own test binary, because
//! the allocator counts every thread of the process.

use glam::Mat4;
use retarget_studio::io::ImportOptions;
use retarget_studio::runtime::{Crowd, Flags, Output, RigOptions, RigPair};
use retarget_studio::session::Session;
use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

struct Counting;

static COUNTING: AtomicBool = AtomicBool::new(false);
static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.load(Ordering::Relaxed) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn asset(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("assets").join(rel)
}

/// Allocations made by `frames` updates after two to warm up.
fn allocations(crowd: &mut Crowd, out: &mut [Mat4], frames: usize, pool: Option<&rayon::ThreadPool>) -> usize {
    let mut run = |crowd: &mut Crowd, out: &mut [Mat4]| match pool {
        Some(p) => p.install(|| crowd.update(1.0 / 30.0, Output::Skinning, out)),
        None => crowd.update_serial(1.0 / 30.0, Output::Skinning, out),
    };
    run(crowd, out);
    run(crowd, out);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    for _ in 0..frames {
        run(crowd, out);
    }
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}

#[test]
fn a_crowd_update_allocates_nothing() {
    let options = ImportOptions::default();
    let s = Session::automatic(&asset("bvh/01_01.bvh"), &asset("gltf/RobotExpressive.glb"), &options)
        .unwrap();
    let clip = s.source.clips()[0].clone();
    let r = s.retargeter().unwrap();
    let (source, target) = (s.source.skeleton(), s.target.skeleton());
    let rig = Arc::new(RigPair::new(&r, source, target, &[clip], RigOptions::default()).unwrap());
    let mut crowd = Crowd::new(rig);
    for k in 0..200 {
        let mut flags = Flags::LOOP | Flags::IK;
        flags.set(Flags::MIRROR, k % 3 == 0);
        flags.set(Flags::LOW_DETAIL, k % 5 == 0);
        crowd.spawn(0, k as f32 * 0.137, Mat4::IDENTITY, flags);
        crowd.instance_mut(k).speed = if k % 7 == 0 { -1.0 } else { 1.0 + k as f32 * 0.01 };
    }
    let mut out = vec![Mat4::IDENTITY; crowd.output_len()];
    // 700 frames at 30 fps: every instance loops past the 23 s clip's end at least once.
    assert_eq!(allocations(&mut crowd, &mut out, 700, None), 0, "serial");
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    assert_eq!(allocations(&mut crowd, &mut out, 100, Some(&pool)), 0, "2 threads");
}
