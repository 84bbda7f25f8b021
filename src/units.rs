//! Byte sizes as people write them (`8G`, `512MiB`, `4096`) and as we print them, and the
//! small words of printed counts: `1 block`, `2 blocks`, `5 to 9`.

/// Parses a byte size: a number with an optional suffix K, M, G, T (powers of 1024; `KB`,
/// `KiB` and lowercase are accepted too).
pub fn parse_bytes(text: &str) -> Result<u64, SizeError> {
    let trimmed = text.trim();
    let split = trimmed
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(trimmed.len());
    let (number, suffix) = trimmed.split_at(split);
    let value: f64 = number
        .parse()
        .map_err(|_| SizeError::NotASize(text.to_string()))?;
    let multiplier: u64 = match suffix.trim().to_ascii_uppercase().as_str() {
        "" | "B" => 1,
        "K" | "KB" | "KIB" => 1 << 10,
        "M" | "MB" | "MIB" => 1 << 20,
        "G" | "GB" | "GIB" => 1 << 30,
        "T" | "TB" | "TIB" => 1 << 40,
        other => {
            return Err(SizeError::Suffix {
                text: text.to_string(),
                suffix: other.to_string(),
            })
        }
    };
    let bytes = value * multiplier as f64;
    if !bytes.is_finite() || bytes < 0.0 || bytes > u64::MAX as f64 {
        return Err(SizeError::OutOfRange(text.to_string()));
    }
    Ok(bytes.round() as u64)
}

/// Why a text is not a byte size.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SizeError {
    /// No number where the size should start.
    #[error("{0:?} is not a size (expected e.g. 4096, 512M, 8G)")]
    NotASize(String),
    /// A suffix that is not a unit.
    #[error("{text:?}: unknown size suffix {suffix:?} (use K, M, G or T)")]
    Suffix {
        /// The text given.
        text: String,
        /// Its suffix, in capitals.
        suffix: String,
    },
    /// A size larger than 64 bits can count.
    #[error("{0:?} is out of range")]
    OutOfRange(String),
}

/// Physical memory of the machine in bytes (`sysinfo(2)`).
pub fn memory_total_bytes() -> Option<u64> {
    // SAFETY: sysinfo fills the zeroed struct it is given and reads nothing else.
    let mut info: libc::sysinfo = unsafe { std::mem::zeroed() };
    if unsafe { libc::sysinfo(&mut info) } != 0 {
        return None;
    }
    (info.totalram as u64).checked_mul(info.mem_unit.max(1) as u64)
}

/// Formats bytes with a binary unit and three significant digits: `1.50 GiB`.
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else if value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else if value >= 10.0 {
        format!("{value:.1} {}", UNITS[unit])
    } else {
        format!("{value:.2} {}", UNITS[unit])
    }
}

/// A count and its noun in the right number: `1 block`, `21 blocks`, `2 hashes`,
/// `3 indexes`, `5 queries`.
pub fn plural(count: u64, noun: &str) -> String {
    // `query` → `queries`, but `day` → `days`.
    let consonant_y = noun
        .strip_suffix('y')
        .filter(|stem| !stem.ends_with(['a', 'e', 'o', 'u']));
    if count == 1 {
        format!("1 {noun}")
    } else if let Some(stem) = consonant_y {
        format!("{count} {stem}ies")
    } else if noun.ends_with(['h', 'x', 's']) {
        format!("{count} {noun}es")
    } else {
        format!("{count} {noun}s")
    }
}

/// A range of values as words: one value when both ends agree (`5`), else `5 to 9`.
pub fn span(min: u64, max: u64) -> String {
    if min == max {
        min.to_string()
    } else {
        format!("{min} to {max}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert_eq!(parse_bytes("8G").unwrap(), 8 << 30);
        assert_eq!(parse_bytes("512MiB").unwrap(), 512 << 20);
        assert_eq!(parse_bytes("1.5k").unwrap(), 1536);
        assert!(parse_bytes("lots").is_err());
        assert!(parse_bytes("5X").is_err());
    }

    #[test]
    fn sizes_format() {
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_bytes(1536), "1.50 KiB");
        assert_eq!(format_bytes(3 << 30), "3.00 GiB");
    }

    #[test]
    fn counts_read_as_words() {
        assert_eq!(plural(1, "block"), "1 block");
        assert_eq!(plural(0, "block"), "0 blocks");
        assert_eq!(plural(3, "hash"), "3 hashes");
        assert_eq!(plural(2, "index"), "2 indexes");
        assert_eq!(plural(47, "query"), "47 queries");
        assert_eq!(plural(2, "key"), "2 keys");
        assert_eq!(span(7, 7), "7");
        assert_eq!(span(3, 9), "3 to 9");
    }
}
