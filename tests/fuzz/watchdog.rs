//! The hang bound, on the case's own CPU time where the system says it (Linux's /proc), so
//! that a busy machine stretching a slow case's wall time is not taken for a hang; a case
//! blocked without using the CPU still meets a wall-time bound.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The hang bound: no case may use more CPU time (or, where that is unknown, wall time).
pub const CASE_LIMIT: Duration = Duration::from_secs(5);

/// The wall-time bound where CPU time is known: a case waiting on nothing for this long
/// hangs even without using the CPU.
const WALL_LIMIT: Duration = Duration::from_secs(60);

/// The exit code of a process whose case outlived its bound.
pub const HANG_EXIT: i32 = 3;

/// Linux's clock ticks a second in /proc's CPU times (USER_HZ).
const TICKS_PER_SEC: u64 = 100;

/// The case being watched: when it started, the stat file of its thread and that thread's
/// CPU time at the start (when known), and its name.
struct Case {
    started: Instant,
    cpu: Option<(PathBuf, Duration)>,
    name: String,
}

/// A thread that ends the process when one case outlives its bound: a hung case cannot be
/// stopped from outside, and this names it before exiting.
pub struct Watchdog {
    current: Arc<Mutex<Option<Case>>>,
    stop: Arc<AtomicBool>,
}

impl Watchdog {
    pub fn start() -> Watchdog {
        let current: Arc<Mutex<Option<Case>>> = Arc::default();
        let stop = Arc::new(AtomicBool::new(false));
        let (c, s) = (current.clone(), stop.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(200));
                let guard = c.lock().unwrap_or_else(|e| e.into_inner());
                if let Some(case) = guard.as_ref()
                    && let Some(past) = outlived(case)
                {
                    eprintln!("fuzz: HANG: {} ran past {past}", case.name);
                    std::process::exit(HANG_EXIT);
                }
            }
        });
        Watchdog { current, stop }
    }

    /// Watches the case `name` from now, run on the calling thread; `None` stops watching.
    pub fn watch(&self, name: Option<String>) {
        let case = name.map(|name| Case {
            started: Instant::now(),
            cpu: thread_stat().and_then(|p| cpu_of(&p).map(|t| (p, t))),
            name,
        });
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = case;
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// Which bound `case` has outlived, if any.
fn outlived(case: &Case) -> Option<String> {
    let wall = case.started.elapsed();
    match &case.cpu {
        Some((stat, at_start)) => {
            let used = cpu_of(stat).map(|now| now.saturating_sub(*at_start));
            if used.is_some_and(|u| u > CASE_LIMIT) {
                Some(format!("{CASE_LIMIT:?} of CPU time"))
            } else if wall > WALL_LIMIT {
                Some(format!("{WALL_LIMIT:?} of wall time"))
            } else {
                None
            }
        }
        None => (wall > CASE_LIMIT).then(|| format!("{CASE_LIMIT:?}")),
    }
}

/// The calling thread's stat file, where /proc has one.
fn thread_stat() -> Option<PathBuf> {
    let link = std::fs::read_link("/proc/thread-self").ok()?;
    Some(Path::new("/proc").join(link).join("stat"))
}

/// User plus system CPU time from a /proc stat file (fields 14 and 15, after the
/// parenthesised command name).
fn cpu_of(stat: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    let fields: Vec<&str> = text
        .get(text.rfind(')')? + 1..)?
        .split_whitespace()
        .collect();
    let ticks = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 1000 / TICKS_PER_SEC))
}

#[test]
fn this_thread_has_a_cpu_time_where_proc_says_it() {
    if let Some(stat) = thread_stat() {
        assert!(cpu_of(&stat).is_some(), "{}", stat.display());
    }
}
