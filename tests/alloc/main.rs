//! The runtime allocates nothing per frame: a counting global allocator around
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
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(rel)
}

/// Allocations made while `frames` updates run, after ten to warm up.
fn allocations(frames: usize, mut update: impl FnMut(usize)) -> usize {
    update(10);
    ALLOCATIONS.store(0, Ordering::SeqCst);
    COUNTING.store(true, Ordering::SeqCst);
    update(frames);
    COUNTING.store(false, Ordering::SeqCst);
    ALLOCATIONS.load(Ordering::SeqCst)
}

#[test]
fn a_crowd_update_allocates_nothing() {
    let options = ImportOptions::default();
    let s = Session::automatic(
        &asset("bvh/01_01.bvh"),
        &asset("gltf/RobotExpressive.glb"),
        &options,
    )
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
        crowd.instance_mut(k).speed = if k % 7 == 0 {
            -1.0
        } else {
            1.0 + k as f32 * 0.01
        };
    }
    let mut out = vec![Mat4::IDENTITY; crowd.output_len()];
    let dt = 1.0 / 30.0;
    // 700 frames at 30 fps: every instance loops past the 23 s clip's end at least once.
    let serial = allocations(700, |frames| {
        for _ in 0..frames {
            crowd.update_serial(dt, Output::Skinning, &mut out);
        }
    });
    assert_eq!(serial, 0, "serial");
    // A game loop on the pool: the parallel update allocates nothing.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let parallel = allocations(300, |frames| {
        pool.install(|| {
            for _ in 0..frames {
                crowd.update(dt, Output::Skinning, &mut out);
            }
        })
    });
    assert_eq!(parallel, 0, "2 threads, frames driven inside the pool");
    // Each call into the pool from outside it queues one job on rayon's injector, which
    // takes a new block every 63 jobs: rayon's, not the update's, and bounded.
    let outside = allocations(300, |frames| {
        for _ in 0..frames {
            pool.install(|| crowd.update(dt, Output::Skinning, &mut out));
        }
    });
    assert!(
        outside <= 300 / 63 + 1,
        "{outside} allocations from outside the pool"
    );
    println!(
        "allocations over 300 frames: serial 0, in the pool {parallel}, from outside {outside}"
    );
}
