//! A crowd: the instances of one rig pair, updated in parallel.

use super::Output;
use super::instance::{Flags, Instance};
use super::rig::RigPair;
use super::step::{STREAM_BYTES, Scratch, fence, solve, step};
use crate::pose::Pose;
use crate::sampler::Cursor;
use glam::Mat4;
use rayon::prelude::*;
use std::sync::Arc;

/// Work is split into at most this many chunks, each with its own scratch: enough for
/// work stealing to even out a few cores, few enough that the scratch stays small.
const CHUNKS: usize = 64;

/// The instances of one [`RigPair`] and the scratch their updates use.
pub struct Crowd {
    rig: Arc<RigPair>,
    instances: Vec<Instance>,
    scratch: Vec<Scratch>,
}

impl Crowd {
    pub fn new(rig: Arc<RigPair>) -> Self {
        let scratch = (0..CHUNKS).map(|_| Scratch::new(&rig)).collect();
        Self {
            rig,
            instances: Vec::new(),
            scratch,
        }
    }

    pub fn rig(&self) -> &Arc<RigPair> {
        &self.rig
    }

    /// Adds a character playing clip `clip` from `time` (seconds on the clip's clock) at
    /// `placement`; returns its index. Allocates its cursor (once).
    pub fn spawn(&mut self, clip: usize, time: f32, placement: Mat4, flags: Flags) -> usize {
        assert!(
            clip < self.rig.clip_count(),
            "clip {clip} is not in the rig pair"
        );
        let mut cursor = Cursor::default();
        cursor.reserve(self.rig.max_groups);
        cursor.reset(self.rig.clip(clip));
        self.instances.push(Instance {
            clip: clip as u32,
            time,
            speed: 1.0,
            flags,
            placement,
            cursor,
        });
        self.instances.len() - 1
    }

    /// Switches instance `i` to clip `clip` at `time` (no allocation).
    pub fn set_clip(&mut self, i: usize, clip: usize, time: f32) {
        assert!(
            clip < self.rig.clip_count(),
            "clip {clip} is not in the rig pair"
        );
        let inst = &mut self.instances[i];
        inst.clip = clip as u32;
        inst.time = time;
        inst.cursor.reset(self.rig.clip(clip));
    }

    pub fn len(&self) -> usize {
        self.instances.len()
    }

    pub fn is_empty(&self) -> bool {
        self.instances.is_empty()
    }

    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    pub fn instance_mut(&mut self, i: usize) -> &mut Instance {
        &mut self.instances[i]
    }

    /// Instance `i`'s target pose (local transforms) at its time, clip and flags: right
    /// after an update (before a seek, clip or flag change), the pose that update wrote the
    /// matrices of. Solved again here (the instances keep no pose, see [`Self::update`]);
    /// allocates, so not for every frame.
    pub fn pose(&self, i: usize) -> Pose {
        let inst = &self.instances[i];
        let mut cursor = inst.cursor.clone();
        let mut scratch = Scratch::new(&self.rig);
        solve(
            &self.rig,
            inst.clip,
            inst.time,
            inst.flags,
            &mut cursor,
            &mut scratch.poses,
        )
        .clone()
    }

    /// Matrices `update` writes: `len() * rig().target_len()`.
    pub fn output_len(&self) -> usize {
        self.instances.len() * self.rig.target_len()
    }

    /// Advances every instance by `dt` seconds and writes its matrices into `out`
    /// (instance `i`'s at `i * target_len()..`), in parallel on the current rayon pool
    /// (run it inside `ThreadPool::install` to choose the threads). Allocates nothing.
    /// The poses are solved in per-thread scratch and not kept ([`Self::pose`] gives one).
    pub fn update(&mut self, dt: f32, output: Output, out: &mut [Mat4]) {
        let n = self.rig.target_len();
        assert_eq!(
            out.len(),
            self.instances.len() * n,
            "one block of matrices per instance"
        );
        if self.instances.is_empty() || n == 0 {
            return;
        }
        let chunk = self.instances.len().div_ceil(self.scratch.len());
        let rig = &*self.rig;
        let streamed = size_of_val(out) > STREAM_BYTES;
        self.instances
            .par_chunks_mut(chunk)
            .zip(out.par_chunks_mut(chunk * n))
            .zip(self.scratch.par_iter_mut())
            .for_each(|((instances, out), scratch)| {
                let instances = instances.iter_mut().zip(out.chunks_exact_mut(n));
                run(rig, instances, (dt, output, streamed), scratch);
            });
    }

    /// [`Self::update`] on the calling thread alone.
    pub fn update_serial(&mut self, dt: f32, output: Output, out: &mut [Mat4]) {
        let n = self.rig.target_len();
        assert_eq!(
            out.len(),
            self.instances.len() * n,
            "one block of matrices per instance"
        );
        let (rig, scratch) = (&*self.rig, &mut self.scratch[0]);
        let streamed = size_of_val(out) > STREAM_BYTES;
        let instances = self
            .instances
            .iter_mut()
            .zip(out.chunks_exact_mut(n.max(1)));
        run(rig, instances, (dt, output, streamed), scratch);
    }
}

/// Steps `instances` (each with its block of output) on one thread, streaming the output
/// past the caches when `streamed` (then fenced, before anyone reads it).
fn run<'a>(
    rig: &RigPair,
    instances: impl Iterator<Item = (&'a mut Instance, &'a mut [Mat4])>,
    (dt, output, streamed): (f32, Output, bool),
    scratch: &mut Scratch,
) {
    if streamed {
        for (inst, out) in instances {
            step::<true>(rig, inst, dt, output, scratch, out);
        }
        fence();
    } else {
        for (inst, out) in instances {
            step::<false>(rig, inst, dt, output, scratch, out);
        }
    }
}
