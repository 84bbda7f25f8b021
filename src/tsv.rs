//! How a text field is written in the tab-separated outputs (TSV, matrix, COBS's format, the
//! `--stats` lines): one rule for every writer, so that a name with a tab or a line break
//! never shifts columns or splits a row.
//!
//! A backslash becomes `\\`, a tab `\t`, a line feed `\n`, a carriage return `\r`, and every
//! other ASCII control character (bytes 0x00 to 0x1f, and 0x7f) `\xNN` with two lowercase hex
//! digits. Nothing else changes, so a field without these characters is written as it is,
//! and an escaped field reads back unambiguously (the escapes of PostgreSQL's text format and
//! of "linear TSV"). JSON answers carry names unescaped: JSON has its own escapes.

use std::borrow::Cow;

/// Whether `c` is written as an escape.
fn escaped(c: char) -> bool {
    c == '\\' || c.is_ascii_control()
}

/// `value` as a TSV field; borrowed when nothing needs escaping.
pub fn field(value: &str) -> Cow<'_, str> {
    if !value.contains(escaped) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 8);
    push_field(&mut out, value);
    Cow::Owned(out)
}

/// Appends `value` to `line` as a TSV field.
pub(crate) fn push_field(line: &mut String, value: &str) {
    if !value.contains(escaped) {
        line.push_str(value);
        return;
    }
    for c in value.chars() {
        match c {
            '\\' => line.push_str("\\\\"),
            '\t' => line.push_str("\\t"),
            '\n' => line.push_str("\\n"),
            '\r' => line.push_str("\\r"),
            c if c.is_ascii_control() => {
                line.push_str(&format!("\\x{:02x}", c as u32));
            }
            c => line.push(c),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_fields_are_kept_and_controls_are_escaped() {
        assert!(matches!(field("gene_1 (blaKPC-2)"), Cow::Borrowed(_)));
        assert_eq!(field("ünïcode"), "ünïcode");
        assert_eq!(field("a\tb\nc\rd\\e"), "a\\tb\\nc\\rd\\\\e");
        assert_eq!(field("\u{1}x\u{7f}\u{1b}"), "\\x01x\\x7f\\x1b");
        assert_eq!(field(""), "");
        let mut line = String::from("q\t");
        push_field(&mut line, "x\ty");
        assert_eq!(line, "q\tx\\ty");
    }
}
