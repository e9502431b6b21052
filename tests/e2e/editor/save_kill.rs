//! Saves survive a kill: a worker process (this test binary, run as [`save_loop_worker`])
//! saves a large project over and over, two versions in turn, and is killed (SIGKILL) at 200
//! random moments. Each time the file on disk parses as one whole version, and the temp files
//! killed saves leave behind are gone after the next save.

use retarget_studio::io::project::{PairFile, ProjectFile, SideFile};
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::Duration;

const KILLS: usize = 200;
const PAIRS: usize = 5000;
/// Set to the project path, it makes [`save_loop_worker`] save there until killed.
const WORKER_VAR: &str = "RETARGET_SAVE_LOOP_OUT";

/// xorshift64: fixed seed, so a failing run replays its kill times.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Version `tag` ('a' or 'b') of the synthetic project: every joint name starts with it
/// (about 200 bytes a pair).
fn version(tag: char, pairs: usize) -> ProjectFile {
    ProjectFile {
        map: (0..pairs)
            .map(|i| PairFile {
                source: format!("{tag}_source_joint_{i}"),
                target: format!("{tag}_target_joint_{i}"),
                bone: None,
                rotation: Default::default(),
                translation: Default::default(),
                method: Default::default(),
                confidence: 1.0,
            })
            .collect(),
        ..ProjectFile::of_sides(SideFile::new("source.glb"), SideFile::new("target.glb"))
    }
}

/// The process the test kills: prints "saving" once started, then saves 'b', 'a', 'b', …
/// to the path in [`WORKER_VAR`] (10,000 saves at most). Does nothing without it.
#[test]
#[ignore = "started by a_save_killed_at_any_moment_leaves_the_old_or_the_new_project"]
fn save_loop_worker() {
    let Some(out) = std::env::var_os(WORKER_VAR) else {
        return;
    };
    let versions = [version('b', PAIRS), version('a', PAIRS)];
    let mut stdout = std::io::stdout();
    writeln!(stdout, "saving").unwrap();
    stdout.flush().unwrap();
    for i in 0..10_000 {
        versions[i % 2].save(out.as_ref()).unwrap();
    }
}

#[test]
fn a_save_killed_at_any_moment_leaves_the_old_or_the_new_project() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.ron");
    let (old, new) = (version('a', PAIRS), version('b', PAIRS));
    old.save(&path).unwrap();
    let mut rng = Rng(0x5eed_0011);
    let mut seen = [0usize; 2];
    let me = std::env::current_exe().unwrap();
    for kill in 0..KILLS {
        let mut child = Command::new(&me)
            .args([
                "--ignored",
                "--exact",
                "editor::save_kill::save_loop_worker",
            ])
            .args(["--nocapture", "--quiet", "--test-threads=1"])
            .env(WORKER_VAR, &path)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut reader = BufReader::new(child.stdout.take().unwrap());
        let mut line = String::new();
        // The test harness prints its own lines ("running 1 test") before the worker's.
        while line.trim() != "saving" {
            line.clear();
            let read = reader.read_line(&mut line).unwrap();
            assert!(read > 0, "kill {kill}: the loop never started");
        }
        std::thread::sleep(Duration::from_micros(rng.below(60_000)));
        child.kill().unwrap();
        let status = child.wait().unwrap();
        assert!(!status.success(), "kill {kill}: killed, not finished");
        let back = ProjectFile::load(&path)
            .unwrap_or_else(|e| panic!("kill {kill}: the project is broken: {e}"));
        let which = [&old, &new].iter().position(|v| back.map == v.map);
        let which = which.unwrap_or_else(|| panic!("kill {kill}: neither version"));
        seen[which] += 1;
    }
    eprintln!("{KILLS} kills: old version {}, new {}", seen[0], seen[1]);
    old.save(&path).unwrap();
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, ["big.ron"], "no temp file piles up");
}
