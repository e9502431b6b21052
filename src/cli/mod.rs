//! The headless commands, on core, io and the session only.

pub mod batch;
pub mod chains;
pub mod check;
pub mod dump;
pub mod fbx_args;
pub mod inspect;
pub mod interrupt;
pub mod map;
pub mod progress;
pub mod retarget;
pub mod self_check;

use crate::core::{Axis, Unit};
use clap::{Parser, Subcommand};
use std::path::PathBuf;

#[derive(Parser, Debug)]
#[command(
    name = "retarget-studio",
    version,
    about = "Retargets skeletal animation between characters. Without a command, opens the editor."
)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    pub open: EditorArgs,
}

/// What the editor opens: `retarget-studio [PROJECT | SOURCE [TARGET]]`, with `--source` and
/// `--target` naming a side outright.
#[derive(clap::Args, Debug, Default)]
pub struct EditorArgs {
    /// A project (.ron); or a source and a target (GLB/glTF/VRM/VRMA/BVH/FBX), in that
    /// order; or one file, opened onto the demo's other side: as the source when it has
    /// animation, as the target otherwise. Nothing: the bundled demo.
    #[arg(value_name = "FILE", num_args = 0..=2)]
    pub files: Vec<PathBuf>,
    /// The animated file, whatever it holds.
    #[arg(long, value_name = "FILE")]
    pub source: Option<PathBuf>,
    /// The character to animate, whatever it holds.
    #[arg(long, value_name = "FILE")]
    pub target: Option<PathBuf>,
    /// The window's size in points, as WxH (default: the last session's).
    #[arg(long, value_parser = parse_size)]
    pub size: Option<[f32; 2]>,
}

/// The files the editor opens, sorted out from [`EditorArgs`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EditorFiles {
    pub project: Option<PathBuf>,
    pub source: Option<PathBuf>,
    pub target: Option<PathBuf>,
    /// One file named without a side: its side is chosen by what it holds.
    pub either: Option<PathBuf>,
}

impl EditorArgs {
    /// Which file is what: a `.ron` is the project; two other files are source then target;
    /// one other file is the source or the target as `--source`/`--target` leave it.
    pub fn files(&self) -> anyhow::Result<EditorFiles> {
        let is_project = |p: &PathBuf| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("ron"));
        let (projects, others): (Vec<_>, Vec<_>) = self.files.iter().cloned().partition(is_project);
        if projects.len() > 1 {
            anyhow::bail!("open one project at a time (named: {})", names(&projects));
        }
        let mut files = EditorFiles {
            project: projects.into_iter().next(),
            source: self.source.clone(),
            target: self.target.clone(),
            either: None,
        };
        match others.as_slice() {
            [] => {}
            [one] => match (&files.source, &files.target) {
                (None, None) => files.either = Some(one.clone()),
                (None, Some(_)) => files.source = Some(one.clone()),
                (Some(_), None) => files.target = Some(one.clone()),
                (Some(_), Some(_)) => anyhow::bail!(
                    "{}: --source and --target already name both sides",
                    one.display()
                ),
            },
            [source, target] => {
                if files.source.is_some() || files.target.is_some() {
                    anyhow::bail!(
                        "two files and --source or --target: name each side once (SOURCE TARGET, or --source and --target)"
                    );
                }
                files.source = Some(source.clone());
                files.target = Some(target.clone());
            }
            _ => unreachable!("clap takes at most two files"),
        }
        Ok(files)
    }
}

fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Print the skeletons, clips, meshes, unit and up axis of a glTF/GLB/VRM/VRMA/BVH/FBX file.
    Inspect(inspect::InspectArgs),
    /// Map a source's bones onto a target's; print the map, optionally save a project.
    Map(map::MapArgs),
    /// Retarget a source clip onto a target character and write GLB or BVH.
    Retarget(retarget::RetargetArgs),
    /// Every clip of every source onto every target, in parallel: one GLB per output and a
    /// table of frames, time and quality (exit 1 when some file or output failed).
    Batch(batch::BatchArgs),
    /// The quality report of a retarget: feet on the floor, body in one piece, moving like
    /// the source (exit 1 when a measure breaks its threshold).
    Check(check::CheckArgs),
    /// World joint positions per frame as JSON (the format of the independent pose-dump).
    DumpPose(dump::DumpArgs),
    /// Open the editor on a project (or the demo), render a frame, save a PNG and exit.
    Screenshot(ScreenshotArgs),
}

#[derive(clap::Args, Debug)]
pub struct ScreenshotArgs {
    /// The project to show (default: the bundled demo), or one file onto the demo's other
    /// side.
    pub project: Option<PathBuf>,
    /// A source file: with --target, a new project of the two; alone, onto the project's
    /// (or the demo's) target.
    #[arg(long, value_name = "FILE")]
    pub source: Option<PathBuf>,
    /// A target file, as --source.
    #[arg(long, value_name = "FILE")]
    pub target: Option<PathBuf>,
    /// Start empty, as File ▸ New leaves the editor (the picture of a first start).
    #[arg(long)]
    pub empty: bool,
    /// Where to write the PNG.
    #[arg(long)]
    pub out: PathBuf,
    /// The frame of the source clip to show (default: the first).
    #[arg(long)]
    pub frame: Option<usize>,
    /// Window size in points, as WxH.
    #[arg(long, value_parser = parse_size)]
    pub size: Option<[f32; 2]>,
    /// The tool tab to show: bone-map, skeleton, pose, solve, export, history or
    /// quality.
    #[arg(long)]
    pub tab: Option<String>,
    /// Both cameras look from the front or the side (the keys 1 and 3 in the editor).
    #[arg(long, value_parser = ["front", "side"])]
    pub view: Option<String>,
    /// A target bone to select (highlighted in both viewports; with `--tab pose`, its
    /// rotation gizmo is drawn; with `--tab skeleton`, its chain is picked and highlighted).
    #[arg(long, value_name = "BONE")]
    pub select: Option<String>,
    /// Hide the tool panel (Ctrl+T in the editor): the viewports get the whole width.
    #[arg(long)]
    pub hide_tools: bool,
    /// Tick the export panel's "Extract to root": the target pelvis's path is drawn on the
    /// floor, where the root joint will travel.
    #[arg(long)]
    pub extract_root: bool,
}

impl Command {
    /// The commands that run without a window: Ctrl+C stops them cleanly (`interrupt`).
    pub fn is_headless(&self) -> bool {
        !matches!(self, Command::Screenshot(_))
    }
}

pub fn parse_size(s: &str) -> Result<[f32; 2], String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("'{s}' is not WxH"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<f32>()
            .ok()
            .filter(|v| *v >= 200.0 && *v <= 8192.0)
    };
    match (parse(w), parse(h)) {
        (Some(w), Some(h)) => Ok([w, h]),
        _ => Err(format!("'{s}': width and height must be 200..8192")),
    }
}

/// The source and target files of a command.
#[derive(clap::Args, Debug)]
pub struct SideArgs {
    /// The animated file (GLB/glTF/VRM/VRMA/BVH/FBX).
    #[arg(long)]
    pub source: PathBuf,
    /// The character to animate (GLB/glTF/VRM/FBX).
    #[arg(long)]
    pub target: PathBuf,
    #[command(flatten)]
    pub bvh: BvhArgs,
}

/// The files a command opens: a project, or a source and a target (or both, the files
/// overriding the project's).
#[derive(clap::Args, Debug, Default)]
pub struct OpenArgs {
    /// The animated file (GLB/glTF/VRM/VRMA/BVH/FBX); optional with --project.
    #[arg(long)]
    pub source: Option<PathBuf>,
    /// The character to animate (GLB/glTF/VRM/FBX); optional with --project.
    #[arg(long)]
    pub target: Option<PathBuf>,
    /// A project file (map, reference poses); without one the map is automatic.
    #[arg(long)]
    pub project: Option<PathBuf>,
    #[command(flatten)]
    pub bvh: BvhArgs,
}

impl OpenArgs {
    /// The session of these files (see [`open_session`]).
    pub fn session(
        &self,
        progress: &progress::Progress,
    ) -> anyhow::Result<crate::session::Session> {
        open_session(
            self.project.as_deref(),
            self.source.as_deref(),
            self.target.as_deref(),
            &self.bvh.import_options(),
            progress,
        )
    }
}

/// What a BVH file does not say for sure (and an FBX's unit and up axis), set by hand.
#[derive(clap::Args, Debug, Default)]
pub struct BvhArgs {
    /// Source: its length unit (m, dm, cm, mm, in, cmu): a BVH's instead of the detected one,
    /// an FBX's instead of the declared one.
    #[arg(long, value_parser = parse_unit)]
    pub unit: Option<Unit>,
    /// Source: its up axis (+Y, -Z, ...): a BVH's instead of the detected one, an FBX's
    /// instead of the declared one.
    #[arg(long, value_parser = parse_axis, allow_hyphen_values = true)]
    pub up: Option<Axis>,
}

impl BvhArgs {
    pub fn import_options(&self) -> crate::io::ImportOptions {
        crate::io::ImportOptions {
            unit: self.unit,
            up: self.up,
        }
    }
}

impl SideArgs {
    pub fn import_options(&self) -> crate::io::ImportOptions {
        self.bvh.import_options()
    }
}

/// How clips are solved after the frame-by-frame retarget.
#[derive(clap::Args, Debug, Clone)]
pub struct SolveArgs {
    /// Leave the target's feet where the frame-by-frame retarget puts them, without planting
    /// them on the source's contacts (no IK, no hip lowering; the project's setting otherwise).
    #[arg(long)]
    pub no_plant: bool,
    /// Mirror the result left to right on the target (twins from labels, names and chains;
    /// the plane from the rig's symmetry).
    #[arg(long)]
    pub mirror: bool,
    /// Solve the target chain ending at this joint so it reaches its source's end, scaled
    /// (absolute mode; repeat for more chains), e.g. `--reach LeftHand`.
    #[arg(long, value_name = "JOINT")]
    pub reach: Vec<String>,
    /// How a walk covers ground on legs of another length: `legs` scales the source's path
    /// by leg length (every step as the target's legs make it; the default), `path` keeps
    /// the source's path in metres and warps the strides to cover it (every clip retargeted).
    #[arg(long, value_parser = parse_stride)]
    pub stride: Option<crate::core::retarget::Stride>,
    /// Keep the source's hand contacts (hands together or on one prop, a hand on the hips,
    /// chest or head) with arm IK: `on` (the default, for humanoids with both arms mapped) or `off`.
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub hand_contacts: Option<bool>,
    /// Push forearms and hands out of the target's torso, and a thigh out of the other,
    /// where they go in deeper than the source's own (`on` by default; the project's
    /// setting otherwise).
    #[arg(long, value_name = "on|off", value_parser = parse_on_off)]
    pub keep_out: Option<bool>,
}

fn parse_stride(s: &str) -> Result<crate::core::retarget::Stride, String> {
    use crate::core::retarget::Stride;
    match s {
        "legs" => Ok(Stride::ScaledByLegs),
        "path" => Ok(Stride::SourcePath),
        _ => Err(format!("unknown stride '{s}' (legs, path)")),
    }
}

impl SolveArgs {
    pub fn apply(&self, session: &mut crate::session::Session) {
        if self.no_plant {
            session.solve.settings.plant_feet = false;
        }
        if self.mirror {
            session.solve.settings.mirror = true;
        }
        if let Some(on) = self.hand_contacts {
            session.solve.settings.hand_contacts = on;
        }
        if let Some(on) = self.keep_out {
            session.solve.settings.keep_out = on;
        }
        for joint in &self.reach {
            if !session.solve.reach.contains(joint) {
                session.solve.reach.push(joint.clone());
            }
        }
        if let Some(stride) = self.stride {
            let clips: Vec<String> = session
                .source
                .clips()
                .iter()
                .map(|c| c.name.clone())
                .collect();
            for clip in clips {
                session.solve.set_stride(&clip, stride);
            }
        }
    }
}

/// Exit code for bad input (a file that cannot be read or understood).
pub const EXIT_BAD_INPUT: i32 = 2;

pub fn parse_on_off(s: &str) -> Result<bool, String> {
    match s {
        "on" => Ok(true),
        "off" => Ok(false),
        _ => Err(format!("'{s}' is neither on nor off")),
    }
}

pub fn parse_unit(s: &str) -> Result<Unit, String> {
    Unit::parse(s).ok_or_else(|| format!("unknown unit '{s}' (m, dm, cm, mm, in, cmu)"))
}

pub fn parse_axis(s: &str) -> Result<Axis, String> {
    Axis::parse(s).ok_or_else(|| format!("unknown axis '{s}' (+X, -X, +Y, -Y, +Z, -Z)"))
}

/// A session from a project (with its paths replaced by `source`/`target` when given), or the
/// automatic one of two files.
pub fn open_session(
    project: Option<&std::path::Path>,
    source: Option<&std::path::Path>,
    target: Option<&std::path::Path>,
    options: &crate::io::ImportOptions,
    progress: &progress::Progress,
) -> anyhow::Result<crate::session::Session> {
    use crate::session::Session;
    use anyhow::Context;
    let session = match project {
        Some(p) => {
            progress.step(format!("loading {}", progress::file_name(p)))?;
            let mut project = crate::io::project::ProjectFile::load(p)?;
            if let Some(s) = source {
                project.source.path = s.to_path_buf();
            }
            if let Some(t) = target {
                project.target.path = t.to_path_buf();
            }
            Session::from_project_file(project)
                .with_context(|| format!("{}: cannot open the project", p.display()))?
        }
        None => {
            let (Some(s), Some(t)) = (source, target) else {
                anyhow::bail!("--source and --target are needed without --project");
            };
            progress.step(format!(
                "loading {} and {}",
                progress::file_name(s),
                progress::file_name(t)
            ))?;
            Session::automatic(s, t, options)?
        }
    };
    interrupt::check()?;
    Ok(session)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(args: &[&str]) -> anyhow::Result<EditorFiles> {
        let mut all = vec!["retarget-studio"];
        all.extend(args);
        let cli = Cli::try_parse_from(all).map_err(|e| anyhow::anyhow!("{e}"))?;
        assert!(cli.command.is_none());
        cli.open.files()
    }

    #[test]
    fn the_editor_takes_a_source_and_a_target_by_place_or_by_name() {
        let two = files(&["walk.bvh", "robot.vrm"]).unwrap();
        assert_eq!(two.source, Some("walk.bvh".into()));
        assert_eq!(two.target, Some("robot.vrm".into()));
        let named = files(&["--target", "robot.vrm", "--source", "walk.bvh"]).unwrap();
        assert_eq!((named.source, named.target), (two.source, two.target));
        // One file: its side by what it holds (the app decides), or the side left free.
        assert_eq!(
            files(&["dance.fbx"]).unwrap().either,
            Some("dance.fbx".into())
        );
        let other = files(&["dance.fbx", "--target", "robot.vrm"]).unwrap();
        assert_eq!(other.source, Some("dance.fbx".into()));
        // A project, with a side replaced.
        let project = files(&["walk.ron", "--source", "run.bvh"]).unwrap();
        assert_eq!(project.project, Some("walk.ron".into()));
        assert_eq!(project.source, Some("run.bvh".into()));
        // Too many ways to say it.
        assert!(files(&["a.bvh", "b.vrm", "--source", "c.bvh"]).is_err());
        assert!(files(&["a.bvh", "b.vrm", "c.vrm"]).is_err());
        assert!(files(&["a.ron", "b.ron"]).is_err());
        // The commands are still commands.
        let cli = Cli::try_parse_from(["retarget-studio", "inspect", "x.glb"]).unwrap();
        assert!(matches!(cli.command, Some(Command::Inspect(_))));
    }
}
