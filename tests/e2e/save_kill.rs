//! Saves survive a kill: the hidden `save-loop` command saves a large project over and over,
//! two versions in turn, and is killed (SIGKILL) at 200 random moments. Each time the file
//! on disk parses as one whole version, and the temp files killed saves leave behind are gone
//! after the next save.

use retarget_studio::cli::save_loop::version;
use retarget_studio::io::project::ProjectFile;
use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

const KILLS: usize = 200;
const PAIRS: usize = 5000;

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

#[test]
fn a_save_killed_at_any_moment_leaves_the_old_or_the_new_project() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.ron");
    let (old, new) = (version('a', PAIRS), version('b', PAIRS));
    old.save(&path).unwrap();
    let mut rng = Rng(0x5eed_0011);
    let mut seen = [0usize; 2];
    for kill in 0..KILLS {
        let mut child = crate::common::studio()
            .args(["save-loop", "--pairs", &PAIRS.to_string(), "--out"])
            .arg(&path)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        assert_eq!(line.trim(), "saving", "kill {kill}: the loop started");
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
