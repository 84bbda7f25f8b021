//! Error text as the command line prints it (no Python here, so it is tested by plain
//! `cargo test`).

/// An error and its causes on one line, each said once: a cause whose text the message
/// already holds (`{path}: cannot open: {source}`, then `source` itself) is not repeated. The
/// command line prints errors the same way.
pub fn error_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = String::new();
    let mut cause = Some(error);
    while let Some(current) = cause {
        let part = current.to_string();
        if !part.is_empty() && !text.contains(&part) {
            if !text.is_empty() {
                text.push_str(": ");
            }
            text.push_str(&part);
        }
        cause = current.source();
    }
    text
}

/// The kind of the first operating-system error in the chain of `error`, if any.
pub fn io_kind(error: &(dyn std::error::Error + 'static)) -> Option<std::io::ErrorKind> {
    let mut cause = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            return Some(io.kind());
        }
        cause = current.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use bitsift::format::FormatError;
    use bitsift::IoAt;

    #[test]
    fn causes_already_said_are_not_repeated() {
        let source = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let error = FormatError::Io(IoAt::new("x.cobs_compact", "cannot open", source));
        assert_eq!(
            error_text(&error),
            "x.cobs_compact: cannot open: no such file"
        );
        assert_eq!(io_kind(&error), Some(std::io::ErrorKind::NotFound));
    }

    #[derive(Debug)]
    struct Outer(std::io::Error);

    impl std::fmt::Display for Outer {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "reading the list")
        }
    }

    impl std::error::Error for Outer {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn new_causes_are_joined_with_colons() {
        let error = Outer(std::io::Error::other("disk on fire"));
        assert_eq!(error_text(&error), "reading the list: disk on fire");
        assert_eq!(io_kind(&error), Some(std::io::ErrorKind::Other));
    }
}
