//! `retarget-studio save-loop` (hidden): saves a large synthetic project over and over, two
//! versions in turn, so a test can kill the process mid-save and check that the file on disk
//! is always one whole version.

use crate::io::project::{PairFile, ProjectFile, SideFile};
use std::io::Write;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct SaveLoopArgs {
    /// The project file to write.
    #[arg(long)]
    pub out: PathBuf,
    /// Map pairs in each version (about 200 bytes each).
    #[arg(long, default_value_t = 5000)]
    pub pairs: usize,
    /// Saves before stopping on its own.
    #[arg(long, default_value_t = 10_000)]
    pub saves: usize,
}

/// Version `tag` ('a' or 'b') of the synthetic project: every joint name starts with it.
pub fn version(tag: char, pairs: usize) -> ProjectFile {
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

/// Prints "saving" once started, then saves 'b', 'a', 'b', … until killed or done.
pub fn run(args: &SaveLoopArgs) -> anyhow::Result<String> {
    let versions = [version('b', args.pairs), version('a', args.pairs)];
    let mut stdout = std::io::stdout();
    writeln!(stdout, "saving")?;
    stdout.flush()?;
    for i in 0..args.saves {
        versions[i % 2].save(&args.out)?;
    }
    Ok(format!("saved {} times\n", args.saves))
}
