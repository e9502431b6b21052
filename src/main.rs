use clap::Parser;
use retarget_studio::cli::{
    Cli, Command, EXIT_BAD_INPUT, batch, check, dump, inspect, interrupt, map, retarget,
};
use std::io::Write;

fn main() {
    let cli = Cli::parse();
    if cli.command.as_ref().is_some_and(Command::is_headless) {
        interrupt::install();
    }
    let result = match cli.command {
        Some(Command::Inspect(args)) => inspect::run(&args).map(print),
        Some(Command::Map(args)) => map::run(&args).map(print),
        Some(Command::Retarget(args)) => retarget::run(&args).map(print),
        Some(Command::Batch(args)) => batch::run(&args).map(|(out, code)| {
            print(out);
            // 1: some file or output failed (the rest written); 130: Ctrl+C.
            if code != 0 {
                std::process::exit(code);
            }
        }),
        Some(Command::DumpPose(args)) => dump::run(&args).map(print),
        Some(Command::Check(args)) => check::run(&args).map(|(out, passed)| {
            print(out);
            if !passed {
                // A report that breaks a threshold: 1, apart from bad input (2).
                std::process::exit(1);
            }
        }),
        Some(Command::Screenshot(args)) => screenshot(args),
        None => open_editor(&cli.open),
    };
    if let Err(e) = result {
        if interrupt::is_interrupted(&e) {
            eprintln!("{}", interrupt::Interrupted);
            std::process::exit(interrupt::EXIT_INTERRUPTED);
        }
        eprintln!("error: {e:#}");
        std::process::exit(EXIT_BAD_INPUT);
    }
}

/// Prints a command's output; a closed pipe (`| head`) is not an error worth reporting.
fn print(out: String) {
    let _ = std::io::stdout().write_all(out.as_bytes());
}

#[cfg(feature = "gui")]
fn open_editor(args: &retarget_studio::cli::EditorArgs) -> anyhow::Result<()> {
    let files = args.files()?;
    if let (Some(_), Some(file)) = (&files.project, &files.either) {
        anyhow::bail!(
            "{}: with a project, say which side it replaces (--source or --target)",
            file.display()
        );
    }
    retarget_studio::app::run(retarget_studio::app::Launch {
        project: files.project.or(files.either),
        source: files.source,
        target: files.target,
        size: args.size,
        ..Default::default()
    })
}

#[cfg(feature = "gui")]
fn screenshot(args: retarget_studio::cli::ScreenshotArgs) -> anyhow::Result<()> {
    use retarget_studio::app::panels::Tab;
    use retarget_studio::app::viewport::ViewDirection;
    use retarget_studio::app::{Launch, ScreenshotRequest};
    let out = args.out.clone();
    let tab = match args.tab.as_deref() {
        None => None,
        Some("bone-map") => Some(Tab::BoneMap),
        Some("skeleton") => Some(Tab::Skeleton),
        Some("pose") => Some(Tab::Pose),
        Some("solve") => Some(Tab::Solve),
        Some("export") => Some(Tab::Export),
        Some("history") => Some(Tab::History),
        Some("quality") => Some(Tab::Quality),
        Some(other) => {
            anyhow::bail!(
                "unknown tab '{other}' (bone-map, skeleton, pose, solve, export, history, quality)"
            )
        }
    };
    let view = match args.view.as_deref() {
        Some("front") => Some(ViewDirection::Front),
        Some("side") => Some(ViewDirection::Side),
        _ => None,
    };
    retarget_studio::app::run(Launch {
        tab,
        project: args.project,
        source: args.source,
        target: args.target,
        empty: args.empty,
        screenshot: Some(ScreenshotRequest {
            out: args.out,
            frame: args.frame,
        }),
        size: args.size,
        select: args.select,
        view,
        recovery: None,
        hide_tools: args.hide_tools,
        extract_root: args.extract_root,
    })?;
    if !out.exists() {
        anyhow::bail!("{}: no screenshot was written", out.display());
    }
    println!("wrote {}", out.display());
    Ok(())
}

#[cfg(not(feature = "gui"))]
fn screenshot(_: retarget_studio::cli::ScreenshotArgs) -> anyhow::Result<()> {
    anyhow::bail!("this build has no editor (built without the `gui` feature)")
}

#[cfg(not(feature = "gui"))]
fn open_editor(_: &retarget_studio::cli::EditorArgs) -> anyhow::Result<()> {
    anyhow::bail!("this build has no editor (built without the `gui` feature); try `inspect`")
}
