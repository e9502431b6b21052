//! Token-level mutations of text formats (BVH, ASCII FBX, RON): numbers turned into edge
//! values, words into other words, lines dropped, repeated or swapped.

use crate::rng::Rng;

/// Number spellings that readers mishandle: zero, signs, overflow, NaN, infinity, a count
/// far too big, a fraction where an integer belongs.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "0.5",
    "-0.0001",
    "1e-45",
    "1e38",
    "-1e38",
    "3.5e38",
    "1e300",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "99999999999999999999999",
    "2147483647",
    "-2147483648",
    "65535",
    "1.5",
    "",
    "x",
];

/// Splits into tokens that keep their separators, so the text reassembles exactly.
fn tokens(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        let word = c.is_alphanumeric() || matches!(c, '.' | '-' | '+' | '_');
        match (word, start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

fn looks_numeric(token: &str) -> bool {
    token.parse::<f64>().is_ok()
}

/// One mutation of `text`; `words` are the format's keywords to swap in.
pub fn mutate(rng: &mut Rng, text: &str, words: &[&str]) -> String {
    match rng.below(10) {
        0..=4 => replace_token(rng, text, words, true),
        5 | 6 => replace_token(rng, text, words, false),
        _ => mutate_lines(rng, text),
    }
}

/// Replaces one token; `numbers` prefers numeric tokens.
fn replace_token(rng: &mut Rng, text: &str, words: &[&str], numbers: bool) -> String {
    let all = tokens(text);
    if all.is_empty() {
        return text.to_owned();
    }
    // A handful of tries to land on the wanted kind of token.
    let mut pick = *rng.pick(&all);
    for _ in 0..8 {
        if looks_numeric(&text[pick.0..pick.1]) == numbers {
            break;
        }
        pick = *rng.pick(&all);
    }
    let old = &text[pick.0..pick.1];
    let new: String = if looks_numeric(old) {
        match rng.below(4) {
            0 => {
                // Off by a little: an index or count one too far.
                let v: f64 = old.parse().unwrap_or(0.0);
                format!("{}", v + [-1.0, 1.0, 2.0][rng.below(3)])
            }
            1 => rng.pick(words).to_string(),
            _ => rng.pick(NUMBERS).to_string(),
        }
    } else {
        match rng.below(3) {
            0 => rng.pick(NUMBERS).to_string(),
            1 => String::new(),
            _ => rng.pick(words).to_string(),
        }
    };
    format!("{}{}{}", &text[..pick.0], new, &text[pick.1..])
}

fn mutate_lines(rng: &mut Rng, text: &str) -> String {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    if lines.is_empty() {
        return text.to_owned();
    }
    let i = rng.below(lines.len());
    match rng.below(4) {
        0 => {
            lines.remove(i);
        }
        1 => lines.insert(i, lines[i]),
        2 => {
            let j = rng.below(lines.len());
            lines.swap(i, j);
        }
        _ => lines.truncate(i),
    }
    lines.concat()
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_reassemble() {
        let text = "OFFSET 1.5 -2 3e4\n  CHANNELS 3 Xrotation";
        let t = super::tokens(text);
        assert_eq!(&text[t[0].0..t[0].1], "OFFSET");
        assert_eq!(&text[t[3].0..t[3].1], "3e4");
    }
}
