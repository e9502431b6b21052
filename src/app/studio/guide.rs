//! Help ▸ User guide: the editor guide (`docs/editor.md`) built into the binary and shown
//! as text, so it is there offline and matches the version running.

use eframe::egui;

const GUIDE: &str = include_str!("../../../docs/editor.md");

/// One block of the guide as shown.
#[derive(Debug, PartialEq)]
pub enum Block {
    Heading(String),
    Paragraph(String),
    Item(String),
    Code(String),
}

/// The guide's Markdown as blocks: headings, paragraphs, list items, code and table rows
/// (as code); images are left out, links keep their text, emphasis marks go.
pub fn blocks(markdown: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut paragraph: Vec<&str> = Vec::new();
    let mut code: Option<Vec<&str>> = None;
    let flush = |paragraph: &mut Vec<&str>, out: &mut Vec<Block>| {
        if paragraph.is_empty() {
            return;
        }
        let text = inline(&paragraph.join(" "));
        match text.strip_prefix("- ") {
            Some(item) => out.push(Block::Item(item.to_owned())),
            None => out.push(Block::Paragraph(text)),
        }
        paragraph.clear();
    };
    for line in markdown.lines() {
        if let Some(lines) = &mut code {
            if line.trim_start().starts_with("```") {
                out.push(Block::Code(lines.join("\n")));
                code = None;
            } else {
                lines.push(line);
            }
            continue;
        }
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            flush(&mut paragraph, &mut out);
            code = Some(Vec::new());
        } else if let Some(title) = trimmed.strip_prefix('#') {
            flush(&mut paragraph, &mut out);
            out.push(Block::Heading(inline(title.trim_start_matches('#').trim())));
        } else if trimmed.is_empty() || trimmed.starts_with("![") {
            flush(&mut paragraph, &mut out);
        } else if trimmed.starts_with('|') {
            flush(&mut paragraph, &mut out);
            if !trimmed.trim_matches(['|', '-', ' ', ':']).is_empty() {
                let cells: Vec<String> = trimmed
                    .trim_matches('|')
                    .split('|')
                    .map(|c| inline(c.trim()))
                    .filter(|c| !c.starts_with('!'))
                    .collect();
                out.push(Block::Code(cells.join("  |  ")));
            }
        } else if trimmed.starts_with("- ") || trimmed.starts_with("1. ") {
            flush(&mut paragraph, &mut out);
            paragraph.push(trimmed);
        } else {
            paragraph.push(trimmed);
        }
    }
    flush(&mut paragraph, &mut out);
    out
}

/// `[text](link)` to `text`; `**`, and backticks around code, removed.
fn inline(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(open) = rest.find('[') {
        out.push_str(&rest[..open]);
        let after = &rest[open + 1..];
        match after.find("](").and_then(|close| {
            let end = after[close + 2..].find(')')?;
            Some((close, close + 2 + end))
        }) {
            Some((close, end)) => {
                out.push_str(&after[..close]);
                rest = &after[end + 1..];
            }
            None => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    crate::app::names::drawable(&out.replace("**", "").replace('`', "")).into_owned()
}

pub fn guide_ui(ui: &mut egui::Ui) {
    // Parsed once: the window is drawn every frame it is open.
    static BLOCKS: std::sync::OnceLock<Vec<Block>> = std::sync::OnceLock::new();
    for block in BLOCKS.get_or_init(|| blocks(GUIDE)) {
        match block {
            Block::Heading(h) => {
                ui.add_space(6.0);
                ui.heading(h);
            }
            Block::Paragraph(p) => {
                ui.label(p);
                ui.add_space(4.0);
            }
            Block::Item(i) => {
                ui.horizontal_wrapped(|ui| {
                    ui.label("•");
                    ui.label(i);
                });
            }
            Block::Code(c) => {
                ui.monospace(crate::app::names::drawable(c));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guide_reads_as_headings_paragraphs_and_items() {
        let md = "# Title\n\nSome `code` and a [link](x.md),\ncontinued **bold**.\n\n\
                  ![image](a.png)\n\n- one\n- two\n  wrapped\n\n| a | b |\n|---|---|\n| c | d |\n";
        assert_eq!(
            blocks(md),
            [
                Block::Heading("Title".into()),
                Block::Paragraph("Some code and a link, continued bold.".into()),
                Block::Item("one".into()),
                Block::Item("two wrapped".into()),
                Block::Code("a  |  b".into()),
                Block::Code("c  |  d".into()),
            ]
        );
        // The bundled guide starts with its title and names the keys.
        let guide = blocks(GUIDE);
        assert_eq!(guide[0], Block::Heading("The editor".into()));
        assert!(guide.len() > 20);
    }
}
