//! Errors as the editor shows them: in words, one line per cause, without the "(os error 2)"
//! of the platform's codes. Typed errors often repeat their cause in their own message
//! ("walk.ron: cannot read the project: No such file"); the cause then gets its own line.

/// The error's chain, one line per cause, repeated causes once.
pub fn error_lines(e: &anyhow::Error) -> String {
    let mut lines: Vec<String> = Vec::new();
    for cause in e.chain() {
        let text = without_os_codes(&cause.to_string());
        if let Some(last) = lines.last_mut() {
            if let Some(head) = last
                .strip_suffix(text.as_str())
                .and_then(|h| h.strip_suffix(": "))
            {
                *last = head.to_owned();
            } else if last.contains(text.as_str()) {
                continue;
            }
        }
        lines.push(text);
    }
    lines.join("\n")
}

/// "Could not save:" and the error's lines under it.
pub fn describe(what: &str, e: &anyhow::Error) -> String {
    format!("{what}:\n{}", error_lines(e))
}

/// Drops every " (os error N)": the words before it already say what happened.
fn without_os_codes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(" (os error ") {
        out.push_str(&rest[..at]);
        let after = &rest[at + " (os error ".len()..];
        let digits = after.chars().take_while(char::is_ascii_digit).count();
        if digits > 0 && after[digits..].starts_with(')') {
            rest = &after[digits + 1..];
        } else {
            out.push_str(" (os error ");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("walk.ron: cannot read the project: {0}")]
    struct Read(#[source] std::io::Error);

    #[test]
    fn one_line_per_cause_without_os_codes() {
        let io = std::io::Error::from(std::io::ErrorKind::NotFound);
        let raw = std::io::Error::from_raw_os_error(2);
        assert!(raw.to_string().contains("(os error 2)"), "{raw}");
        let e = anyhow::Error::new(Read(raw)).context("opening the demo");
        let text = describe("Could not open the project", &e);
        assert_eq!(
            text,
            format!(
                "Could not open the project:\nopening the demo\nwalk.ron: cannot read the project\n{}",
                without_os_codes(&std::io::Error::from_raw_os_error(2).to_string())
            )
        );
        assert!(!text.contains("os error"), "{text}");
        let plain = anyhow::Error::new(Read(io));
        assert_eq!(error_lines(&plain).lines().count(), 2);
    }

    #[test]
    fn a_cause_repeated_inside_the_message_is_shown_once() {
        let e = anyhow::anyhow!("inner problem").context("outer (inner problem) here");
        assert_eq!(error_lines(&e), "outer (inner problem) here");
        assert_eq!(
            without_os_codes("a (os error x) b (os error 13)"),
            "a (os error x) b"
        );
    }
}
