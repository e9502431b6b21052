//! The chain skeletons as `map` prints them: each chain's name, kind, joints and tags, and
//! for the target which source chain drives it, with `(!)` where nothing does.

use crate::core::chains::ChainSkeleton;
use crate::core::chains::{ChainKind, kind_name};
use crate::session::Session;
use std::fmt::Write as _;

fn joints_text(chains: &ChainSkeleton, c: usize, names: &[String]) -> String {
    let chain = &chains.chains[c];
    let (first, last) = (&names[chain.start()], &names[chain.end()]);
    match chain.joints.len() {
        1 => first.clone(),
        n => format!("{first} … {last} ({n} joints)"),
    }
}

/// Both sides' chains, the target's with their sources.
pub fn chains_table(session: &Session) -> String {
    let mut out = String::new();
    for (title, side) in [("source", &session.source), ("target", &session.target)] {
        let names = side.skeleton().names();
        let chain_names = side.chains.names();
        let _ = writeln!(out, "{title} chains:");
        for (c, chain) in side.chains.chains.iter().enumerate() {
            let driven = if std::ptr::eq(side, &session.target) && body(chain.kind) {
                match session.chain_source(c) {
                    Some(s) => format!("  ← {}", session.source.chains.names()[s]),
                    None => "  (!) not mapped".to_owned(),
                }
            } else {
                String::new()
            };
            let _ = writeln!(
                out,
                "  {:<26} {:<9} {}{driven}",
                chain_names[c],
                kind_name(chain.kind),
                joints_text(&side.chains, c, names),
            );
        }
    }
    out
}

fn body(kind: ChainKind) -> bool {
    matches!(
        kind,
        ChainKind::Pelvis | ChainKind::Spine | ChainKind::Limb | ChainKind::Effector
    )
}
