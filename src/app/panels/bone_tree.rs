//! Reading a long bone list: a name too long for its cell shortened where it says least
//! (Left to L, long words to their first letters: "L_Pinky_Prox", not "Left_Pi…roximal"),
//! then cut in the middle, the full name on hover, and subtrees that fold like a tree.

use eframe::egui;
use std::collections::BTreeSet;

const ELLIPSIS: &str = "…";

/// `text` cut in its middle to `keep` characters around an ellipsis.
pub fn elide_chars(text: &str, keep: usize) -> String {
    let chars: Vec<char> = text.chars().collect();
    if chars.len() <= keep {
        return text.to_owned();
    }
    let head = keep.div_ceil(2);
    let tail = keep / 2;
    let mut out: String = chars[..head].iter().collect();
    out.push_str(ELLIPSIS);
    out.extend(&chars[chars.len() - tail..]);
    out
}

/// The pieces of a joint name: words (a camelCase capital starts one), numbers, and the
/// separators between them, in order.
fn pieces(name: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let kind = |c: char| {
        if c.is_alphabetic() {
            0
        } else if c.is_numeric() {
            1
        } else {
            2
        }
    };
    let mut last: Option<char> = None;
    for c in name.chars() {
        let split = match last {
            None => true,
            Some(p) => kind(p) != kind(c) || (p.is_lowercase() && c.is_uppercase()),
        };
        match out.last_mut() {
            Some(piece) if !split => piece.push(c),
            _ => out.push(c.to_string()),
        }
        last = Some(c);
    }
    out
}

/// Shorter spellings of a joint name, each shorter than the one before, keeping what tells
/// joints apart: the side first becomes a letter (Left to L), then the longest word is cut
/// to its first four letters, and the next, until none is longer than five ("Pinky" and
/// "Spine" stay whole). Numbers stay whole.
pub fn abbreviations(name: &str) -> Vec<String> {
    let mut pieces = pieces(name);
    let mut out = Vec::new();
    let mut sided = false;
    for piece in &mut pieces {
        let side = match piece.to_lowercase().as_str() {
            "left" => Some("L"),
            "right" => Some("R"),
            _ => None,
        };
        if let Some(letter) = side {
            let upper = piece.starts_with(|c: char| c.is_uppercase());
            *piece = if upper {
                letter.into()
            } else {
                letter.to_lowercase()
            };
            sided = true;
        }
    }
    if sided {
        out.push(pieces.concat());
    }
    const WORD: usize = 4;
    loop {
        let longest = (0..pieces.len())
            .filter(|&i| pieces[i].chars().all(char::is_alphabetic))
            .max_by_key(|&i| (pieces[i].chars().count(), usize::MAX - i));
        match longest {
            Some(i) if pieces[i].chars().count() > WORD + 1 => {
                pieces[i] = pieces[i].chars().take(WORD).collect();
                out.push(pieces.concat());
            }
            _ => return out,
        }
    }
}

/// `text` as it fits `width` points in the body font: shortened by [`abbreviations`], then
/// elided in the middle; `None` when it fits whole.
pub fn elide_middle(ui: &egui::Ui, text: &str, width: f32) -> Option<String> {
    let font = egui::TextStyle::Body.resolve(ui.style());
    let measure = |s: &str| {
        ui.ctx().fonts_mut(|f| {
            f.layout_no_wrap(s.to_owned(), font.clone(), egui::Color32::WHITE)
                .size()
                .x
        })
    };
    if measure(text) <= width {
        return None;
    }
    let shorter = abbreviations(text);
    if let Some(fits) = shorter.iter().find(|s| measure(s) <= width) {
        return Some(fits.clone());
    }
    let text = shorter.last().map_or(text, String::as_str);
    // The most characters that fit, by bisection: a name is short, measures are cached.
    let (mut lo, mut hi) = (1, text.chars().count());
    while lo < hi {
        let mid = (lo + hi).div_ceil(2);
        if measure(&elide_chars(text, mid)) <= width {
            lo = mid;
        } else {
            hi = mid - 1;
        }
    }
    Some(elide_chars(text, lo))
}

/// A clickable name that fits its cell: `short` (the name as shown, see `app::names`)
/// elided in the middle, the full `name` on hover and for screen readers (and tests).
pub fn name_label(ui: &mut egui::Ui, short: &str, name: &str) -> egui::Response {
    let shown = elide_middle(ui, short, ui.available_width());
    let label = egui::Label::new(shown.as_deref().unwrap_or(short))
        .sense(egui::Sense::click())
        .truncate();
    let mut response = ui.add(label);
    if shown.is_some() || short != name {
        response = response.on_hover_text(name);
        let full = name.to_owned();
        response.widget_info(move || {
            egui::WidgetInfo::labeled(egui::accesskit::Role::Label, true, &full)
        });
    }
    response
}

/// Whether `joint` sits under a folded joint.
pub fn folded_away(parents: &[Option<usize>], folded: &BTreeSet<usize>, joint: usize) -> bool {
    if folded.is_empty() {
        return false;
    }
    let mut at = parents.get(joint).copied().flatten();
    while let Some(p) = at {
        if folded.contains(&p) {
            return true;
        }
        at = parents.get(p).copied().flatten();
    }
    false
}

/// Which joints have children (they get a fold toggle).
pub fn with_children(parents: &[Option<usize>]) -> Vec<bool> {
    let mut has = vec![false; parents.len()];
    for p in parents.iter().flatten() {
        if let Some(h) = has.get_mut(*p) {
            *h = true;
        }
    }
    has
}

/// A small triangle that folds (points right) or unfolds (points down) a subtree; drawn,
/// not a glyph, so it needs no symbol font.
pub fn fold_toggle(ui: &mut egui::Ui, open: bool, name: &str) -> egui::Response {
    let size = egui::vec2(12.0, 12.0);
    let (rect, response) = ui.allocate_exact_size(size, egui::Sense::click());
    let color = ui.style().interact(&response).fg_stroke.color;
    let c = rect.center();
    let r = 4.0;
    let points = if open {
        vec![
            c + egui::vec2(-r, -r * 0.5),
            c + egui::vec2(r, -r * 0.5),
            c + egui::vec2(0.0, r),
        ]
    } else {
        vec![
            c + egui::vec2(-r * 0.5, -r),
            c + egui::vec2(r, 0.0),
            c + egui::vec2(-r * 0.5, r),
        ]
    };
    ui.painter().add(egui::Shape::convex_polygon(
        points,
        color,
        egui::Stroke::NONE,
    ));
    let label = format!("{} {name}", if open { "Fold" } else { "Unfold" });
    response.widget_info(move || {
        egui::WidgetInfo::labeled(egui::accesskit::Role::Button, true, &label)
    });
    response.on_hover_text(if open {
        "Fold this chain"
    } else {
        "Unfold this chain"
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shortened_name_keeps_its_side_finger_and_segment() {
        let short = abbreviations("Left_Pinky_Proximal");
        assert_eq!(short, ["L_Pinky_Proximal", "L_Pinky_Prox"]);
        let other = abbreviations("Right_Ring_Intermediate");
        assert_eq!(other[1], "R_Ring_Inte");
        assert_eq!(abbreviations("LeftHandIndex2")[0], "LHandIndex2");
        assert_eq!(abbreviations("spine_01"), Vec::<String>::new());
        assert_eq!(abbreviations("upperarm_left")[0], "upperarm_l");
        // Each is shorter than the one before.
        for w in short.windows(2) {
            assert!(w[1].chars().count() < w[0].chars().count());
        }
    }

    #[test]
    fn a_cell_too_narrow_shows_the_shortened_name_before_cutting_it() {
        let ctx = egui::Context::default();
        let mut shown = None;
        let mut out = ctx.run_ui(Default::default(), |ui| {
            let font = egui::TextStyle::Body.resolve(ui.style());
            let width = ui.ctx().fonts_mut(|f| {
                f.layout_no_wrap("L_Pinky_Prox".into(), font, egui::Color32::WHITE)
                    .size()
                    .x
            });
            shown = elide_middle(ui, "Left_Pinky_Proximal", width + 1.0);
        });
        out.textures_delta.clear();
        assert_eq!(shown.as_deref(), Some("L_Pinky_Prox"));
    }

    #[test]
    fn names_are_cut_in_the_middle_so_both_ends_tell_them_apart() {
        let a = elide_chars("mixamorig:LeftHandIndex2", 14);
        let b = elide_chars("mixamorig:LeftHandPinky2", 14);
        assert_eq!(a, "mixamor…dIndex2");
        assert_ne!(a, b);
        assert_eq!(elide_chars("Hips", 14), "Hips");
        assert_eq!(elide_chars("αβγδεζηθ", 4), "αβ…ηθ");
    }

    #[test]
    fn a_folded_joint_hides_its_whole_subtree_only() {
        // 0 - 1 - 2, 0 - 3
        let parents = [None, Some(0), Some(1), Some(0)];
        let folded = BTreeSet::from([1]);
        let hidden: Vec<bool> = (0..4).map(|j| folded_away(&parents, &folded, j)).collect();
        assert_eq!(hidden, [false, false, true, false]);
        assert_eq!(with_children(&parents), [true, true, false, false]);
    }
}
