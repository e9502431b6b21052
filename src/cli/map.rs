//! `retarget-studio map --source SRC --target TGT [--out PROJECT.ron]`: the automatic map as
//! a table, and a project file to start from.

use super::SideArgs;
use crate::session::Session;
use std::fmt::Write as _;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub struct MapArgs {
    #[command(flatten)]
    pub sides: SideArgs,
    /// Write the map (and the automatic alignment) as a project file.
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub quiet: super::progress::QuietArg,
}

pub fn run(args: &MapArgs) -> anyhow::Result<String> {
    let progress = super::progress::Progress::new(args.quiet);
    let session = super::open_session(
        None,
        Some(&args.sides.source),
        Some(&args.sides.target),
        &args.sides.import_options(),
        &progress,
    )?;
    drop(progress);
    let mut out = table(&session);
    out.push('\n');
    out.push_str(&super::chains::chains_table(&session));
    if let Some(path) = &args.out {
        let bytes = session.to_project().save(path)?;
        let _ = writeln!(out, "wrote {} ({bytes} bytes)", path.display());
    }
    Ok(out)
}

/// One row per target joint in hierarchy order: source, label, how mapped, confidence.
pub fn table(session: &Session) -> String {
    let src = session.source.skeleton();
    let tgt = session.target.skeleton();
    let agreement = session.reference_agreement();
    let twists = session.twist_bones();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<32} {:<32} {:<24} {:<9} {:>5} {:>8}",
        "target bone", "source bone", "humanoid", "how", "conf", "angle"
    );
    let depth = |j: usize| {
        let mut d = 0;
        let mut at = j;
        while let Some(p) = tgt.parents()[at] {
            d += 1;
            at = p;
        }
        d
    };
    for t in 0..tgt.len() {
        let indent = " ".repeat(depth(t).min(12));
        let name = format!("{indent}{}", tgt.names()[t]);
        match session.map.for_target(t) {
            Some(p) => {
                let angle = agreement
                    .iter()
                    .find(|(j, _)| *j == t)
                    .map_or("-".to_owned(), |(_, a)| format!("{a:.1}°"));
                let _ = writeln!(
                    out,
                    "{name:<32} {:<32} {:<24} {:<9} {:>5.2} {angle:>8}",
                    src.names()[p.source],
                    p.bone.map_or("-", |b| b.as_str()),
                    p.method.name(),
                    p.confidence
                );
            }
            None => {
                // A twist bone follows its limb: its share of the limb's roll.
                let how = match twists.iter().find(|(n, _)| *n == tgt.names()[t]) {
                    Some((_, w)) => format!("(twist bone, {w:.2} of the roll)"),
                    None => "(unmapped)".to_owned(),
                };
                let _ = writeln!(out, "{name:<32} {how:<32}");
            }
        }
    }
    let worst = agreement.iter().map(|(_, a)| *a).fold(0.0f32, f32::max);
    let _ = writeln!(
        out,
        "\n{} of {} target joints mapped; reference poses agree to {:.1}° at worst",
        session.map.len(),
        tgt.len(),
        worst
    );
    out
}
