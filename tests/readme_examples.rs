//! The README's examples are real (issue 36): every ```` ```console ```` block of README.md
//! is run, and what it shows must be what the commands print.
//!
//! A block holds commands (lines starting with `$ `) each followed by its output, standard
//! error merged into standard output as a terminal shows them. The blocks run in order in
//! one temporary folder, so a later block can use what an earlier one built; `data/` there
//! is the repository's `data/`, and `bitsift` on `PATH` is the binary under test. Times,
//! speeds, memory peaks and the demo's automatic engine change from run to run, so they are
//! compared as `#`.
//!
//! After a change of output, rewrite the README's blocks with the real output:
//!
//! ```sh
//! BITSIFT_UPDATE_README=1 cargo test --test readme_examples
//! ```
//!
//! and read the diff before committing it.

mod common;

use std::path::{Path, PathBuf};

/// A `console` block of the README: where its body lies, and its commands with their
/// shown output.
struct Block {
    /// Line numbers (from 0) of the body: after the opening fence, up to the closing one.
    body: std::ops::Range<usize>,
    commands: Vec<(String, String)>,
}

fn readme_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")
}

fn blocks(lines: &[&str]) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if lines[index].trim_end() != "```console" {
            index += 1;
            continue;
        }
        let start = index + 1;
        let mut end = start;
        while end < lines.len() && lines[end].trim_end() != "```" {
            end += 1;
        }
        let mut commands: Vec<(String, String)> = Vec::new();
        for line in &lines[start..end] {
            match line.strip_prefix("$ ") {
                Some(command) => commands.push((command.to_string(), String::new())),
                None => {
                    let (_, shown) = commands.last_mut().expect("a block starts with `$ `");
                    shown.push_str(line);
                    shown.push('\n');
                }
            }
        }
        blocks.push(Block {
            body: start..end,
            commands,
        });
        index = end + 1;
    }
    blocks
}

/// A folder where `data/` is the repository's and `bitsift` is the binary under test.
fn workspace() -> tempfile::TempDir {
    let dir = common::temp_dir();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("data");
    std::os::unix::fs::symlink(data, dir.path().join("data")).unwrap();
    dir
}

/// Runs `command` in `dir` through `sh`, standard error merged into standard output.
fn run_shell(dir: &Path, command: &str) -> String {
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_bitsift"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("exec 2>&1; {command}"))
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("BITSIFT_LOG")
        .output()
        .expect("run sh");
    assert!(
        output.status.success(),
        "`{command}` failed:\n{}",
        String::from_utf8_lossy(&output.stdout)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Units after which a number is a measurement of this run, not a result.
const VOLATILE_UNITS: &[&str] = &[" s", " ms", " M k-mers/s", " µs"];

/// `text` with its measurements (times, speeds, the memory peak) replaced by `#`.
fn normalize(text: &str) -> String {
    text.lines()
        .map(normalize_line)
        .collect::<Vec<_>>()
        .join("\n")
}

fn normalize_line(line: &str) -> String {
    let mut line = line.to_string();
    // The demo's automatic engine follows the page cache (the index just written is usually
    // held there, and scored in place).
    if let Some(rest) = line.strip_prefix("2. search  engine ") {
        let end = rest.find(',').unwrap_or(rest.len());
        line = format!("2. search  engine #{}", &rest[end..]);
    }
    if let Some(at) = line.find("peak memory ") {
        let rest = &line[at + "peak memory ".len()..];
        let end = rest.find([',', ')', ';']).unwrap_or(rest.len());
        line = format!("{}peak memory #{}", &line[..at], &rest[end..]);
    }
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut index = 0;
    while index < chars.len() {
        if chars[index].is_ascii_digit() {
            let start = index;
            while index < chars.len() && (chars[index].is_ascii_digit() || chars[index] == '.') {
                index += 1;
            }
            let rest: String = chars[index..].iter().collect();
            let volatile = VOLATILE_UNITS.iter().any(|unit| {
                rest.starts_with(unit)
                    && !rest[unit.len()..].starts_with(|c: char| c.is_alphanumeric())
            });
            match volatile {
                true => out.push('#'),
                false => out.extend(&chars[start..index]),
            }
        } else {
            out.push(chars[index]);
            index += 1;
        }
    }
    out
}

#[test]
fn readme_examples_show_real_output() {
    let path = readme_path();
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let found = blocks(&lines);
    assert!(
        found.len() >= 3,
        "README.md has {} console blocks",
        found.len()
    );
    let dir = workspace();
    let update = std::env::var_os("BITSIFT_UPDATE_README").is_some();
    let mut rewritten: Vec<String> = Vec::new();
    let mut next = 0;
    let mut differences = Vec::new();
    for block in &found {
        rewritten.extend(lines[next..block.body.start].iter().map(|l| l.to_string()));
        for (command, shown) in &block.commands {
            let real = run_shell(dir.path(), command);
            rewritten.push(format!("$ {command}"));
            rewritten.extend(real.lines().map(str::to_string));
            if normalize(&real) != normalize(shown) {
                differences.push(format!(
                    "$ {command}\n--- README.md shows\n{shown}--- it prints\n{real}"
                ));
            }
        }
        next = block.body.end;
    }
    rewritten.extend(lines[next..].iter().map(|l| l.to_string()));
    if update {
        std::fs::write(&path, rewritten.join("\n") + "\n").unwrap();
        return;
    }
    assert!(
        differences.is_empty(),
        "README.md's examples differ from the real output (rewrite them with BITSIFT_UPDATE_README=1 cargo test --test readme_examples):\n{}",
        differences.join("\n")
    );
}

#[test]
fn measurements_are_compared_as_hashes() {
    assert_eq!(
        normalize("x: 12 documents, 4.2 Mbp, in 0.31 s (13.5 M k-mers/s, peak memory 40.1 MiB)"),
        "x: 12 documents, 4.2 Mbp, in # s (# M k-mers/s, peak memory #)"
    );
    assert_eq!(normalize("3 sub-indexes, 12 ms"), "3 sub-indexes, # ms");
    assert_eq!(normalize("2 samples"), "2 samples");
    assert_eq!(
        normalize("2. search  engine mmap, threshold 0.8"),
        "2. search  engine #, threshold 0.8"
    );
}
