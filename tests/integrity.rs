//! Issue 12, "never a silent wrong answer": checksum sidecars written by every build and
//! checked by `bitsift verify`, damaged headers refused, non-regular files refused without
//! hanging, temporary files removed on signals and after kills, and option values that cannot
//! be honoured refused. Each test names the defect it guards against.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Output, Stdio};
use std::time::{Duration, Instant};

use bitsift::format::{sidecar_path, Checksums, FormatError, IndexHeader};
use bitsift::summary::summary_path;
use common::*;

fn plasmid(name: &str) -> PathBuf {
    demo_file(&format!("genomes/{name}"))
}

/// A small index (two plasmids, phage lambda) with its sidecar.
fn small_index(dir: &Path) -> PathBuf {
    let index = dir.join("small.cobs_compact");
    let output = run(&[
        "build",
        "-q",
        "-o",
        index.to_str().unwrap(),
        plasmid("Kpn_pMCR_1511_KX377410.fa.gz").to_str().unwrap(),
        plasmid("Eco_pBK32602_KU295134.fa.gz").to_str().unwrap(),
        plasmid("Phage_lambda_NC_001416.fa.gz").to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    index
}

/// A copy of `index` and its sidecar under `name`, with `edit` applied to the index bytes.
fn damaged_copy(index: &Path, name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = std::fs::read(index).unwrap();
    edit(&mut bytes);
    let path = index.with_file_name(name);
    std::fs::write(&path, bytes).unwrap();
    std::fs::copy(sidecar_path(index), sidecar_path(&path)).unwrap();
    path
}

fn verify(path: &Path) -> Output {
    run(&["verify", path.to_str().unwrap()])
}

fn assert_no_panic(output: &Output) {
    let text = stderr(output);
    assert!(!text.contains("panicked"), "must not panic: {text}");
    assert!(output.status.code().is_some(), "killed by a signal: {text}");
}

#[test]
fn build_writes_checksums_that_verify_and_copies_stay_valid() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let sidecar = sidecar_path(&index);
    assert!(sidecar.exists(), "build writes the sidecar");
    let size = std::fs::metadata(&index).unwrap().len();
    assert_eq!(
        std::fs::metadata(&sidecar).unwrap().len(),
        68 + 4 * size.div_ceil(4096),
        "4 bytes per 4 KiB page plus 68"
    );
    let output = verify(&index);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let summaries = bitsift::summary::summary_path(&index);
    assert_eq!(
        stdout(&output),
        format!(
            "{}: ok ({} pages, {})\n{}: ok (block summaries, format 2, {})\n",
            index.display(),
            size.div_ceil(4096),
            bitsift::units::format_bytes(size),
            summaries.display(),
            bitsift::units::format_bytes(std::fs::metadata(&summaries).unwrap().len())
        )
    );
    let info = run(&["info", "--json", index.to_str().unwrap()]);
    assert!(
        stdout(&info).contains("\"checksums\": \"ok\""),
        "{}",
        stdout(&info)
    );

    // `cp INDEX* elsewhere/` keeps a valid pair: nothing ties the sidecar to a path or time.
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let copy = elsewhere.join("renamed.cobs_compact");
    std::fs::copy(&index, &copy).unwrap();
    std::fs::copy(&sidecar, sidecar_path(&copy)).unwrap();
    assert_eq!(verify(&copy).status.code(), Some(0));
    assert_eq!(verify(&elsewhere).status.code(), Some(0), "a directory");
}

/// Issue 12: one byte of the header (k at 22, the canonical flag at 26, the hash count at 51)
/// turned 55 real hits into 0 with exit 0. With a sidecar each is an error.
#[test]
fn header_bytes_22_26_51_changed_with_a_sidecar_are_errors() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let edits: [(&str, usize, u8); 3] = [("k", 22, 30), ("canonical", 26, 0), ("hashes", 51, 2)];
    for (name, offset, value) in edits {
        let copy = damaged_copy(&index, &format!("{name}.cobs_compact"), |b| {
            assert_ne!(b[offset], value);
            b[offset] = value;
        });
        // The header still parses: only the checksums can tell.
        let header = IndexHeader::open(&copy).unwrap();
        let error = Checksums::load(&copy, &header).unwrap_err();
        assert!(
            matches!(error, FormatError::ChecksumMismatch { .. }),
            "{name}: {error}"
        );
        assert_eq!(
            error.to_string(),
            format!("{}: does not match its checksums: its header bytes differ from the ones checksummed; the index was changed or damaged after they were made: restore a good copy, or, if this file is known to be good, recreate its checksums with `bitsift checksum`", copy.display())
        );
        let output = verify(&copy);
        assert_eq!(output.status.code(), Some(1), "{name}");
        assert_no_panic(&output);
        let report = stdout(&output);
        assert!(
            report.contains(&format!(
                "{}: the header differs from the one checksummed",
                copy.display()
            )),
            "{report}"
        );
        assert!(
            report.contains("damaged page at offset 0 (the header)"),
            "{report}"
        );
        let info = run(&["info", copy.to_str().unwrap()]);
        assert!(
            stderr(&info).contains("does not match its checksums"),
            "{name}: {}",
            stderr(&info)
        );
        assert!(stdout(&info).contains("DO NOT MATCH"), "{}", stdout(&info));
    }
}

/// Issue 12: 120 of 150 header bit flips silently renamed documents.
#[test]
fn a_header_bit_flip_that_renames_a_document_is_an_error_with_a_sidecar() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let header = IndexHeader::open(&index).unwrap();
    let bytes = std::fs::read(&index).unwrap();
    let first_name = header.names.get(0).unwrap().to_string();
    let at = bytes
        .windows(first_name.len())
        .position(|w| w == first_name.as_bytes())
        .unwrap();
    let copy = damaged_copy(&index, "renamed.cobs_compact", |b| b[at + 1] ^= 0x02);
    let renamed = IndexHeader::open(&copy).unwrap();
    assert_ne!(
        renamed.names.get(0).unwrap(),
        first_name,
        "the flip renames a document"
    );
    assert!(Checksums::load(&copy, &renamed).is_err());
    let output = verify(&copy);
    assert_eq!(output.status.code(), Some(1));
    assert!(stdout(&output).contains("damaged page at offset 0 (the header"));
}

#[test]
fn damaged_pages_are_listed_with_block_and_offset() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let header = IndexHeader::open(&index).unwrap();
    let block = header.blocks[0];
    let offset = block.data_offset + block.data_bytes() / 2;
    let page = offset / 4096 * 4096;
    let copy = damaged_copy(&index, "flipped.cobs_compact", |b| {
        b[offset as usize] ^= 0x01;
        b[(offset + 3 * 4096) as usize] ^= 0x80;
    });
    let output = verify(&copy);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    let expected = format!(
        "{path}: damaged page at offset {page} (block 0)\n{path}: damaged page at offset {} (block 0)\n",
        page + 3 * 4096,
        path = copy.display()
    );
    assert_eq!(stdout(&output), expected);
    assert_eq!(
        stderr(&output),
        format!(
            "bitsift: {}: damaged (2 problems listed above)\n",
            copy.display()
        )
    );

    // A read of the damaged page, as the query path checks it, is an error naming the page.
    let checksums = Checksums::load(&copy, &header).unwrap().unwrap();
    let bytes = std::fs::read(&copy).unwrap();
    let error = checksums
        .verify(page, &bytes[page as usize..page as usize + 4096])
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with(&format!(
            "{}: checksum mismatch in block 0, page at offset {page}",
            copy.display()
        )),
        "{error}"
    );
    checksums.verify(0, &bytes[..4096]).unwrap();

    let truncated = damaged_copy(&index, "short.cobs_compact", |b| b.truncate(b.len() - 1));
    let output = verify(&truncated);
    assert_eq!(output.status.code(), Some(1));
    assert_no_panic(&output);
    assert!(
        stdout(&output).contains("short.cobs_compact: invalid header")
            || stdout(&output).contains("short.cobs_compact: truncated")
    );
    assert!(stdout(&output).contains("when the checksums were made"));
}

#[test]
fn checksum_creates_sidecars_and_refuses_to_replace_a_mismatching_one() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    std::fs::remove_file(sidecar_path(&index)).unwrap();
    let output = verify(&index);
    assert_eq!(
        output.status.code(),
        Some(3),
        "no sidecar: not verified (partial)"
    );
    assert!(stdout(&output).contains("not verified: it has no checksums"));

    let output = run(&["checksum", index.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("wrote"), "{}", stdout(&output));
    assert_eq!(verify(&index).status.code(), Some(0));
    let output = run(&["checksum", index.to_str().unwrap()]);
    assert!(stdout(&output).contains("checksums up to date"));

    let mut bytes = std::fs::read(&index).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&index, &bytes).unwrap();
    let output = run(&["checksum", index.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        stderr(&output).contains("exists and does not match the index as it is now")
            && stderr(&output).contains("pass --force"),
        "{}",
        stderr(&output)
    );
    assert_eq!(
        verify(&index).status.code(),
        Some(1),
        "the old sidecar is kept"
    );
    let output = run(&["checksum", "--force", index.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).contains("replaced"));
    // Issue 30: the block summaries were made for the data before the change, and say so.
    let output = verify(&index);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        format!("{}{}", stdout(&output), stderr(&output))
            .contains("small.cobs_compact.bitsift-summaries: block summaries do not match"),
        "{}",
        stdout(&output)
    );
    std::fs::remove_file(summary_path(&index)).unwrap();
    assert_eq!(verify(&index).status.code(), Some(0));

    let garbage = dir.path().join("garbage.cobs_compact");
    std::fs::write(&garbage, b"COBS:COMPACT_INDEX nonsense").unwrap();
    let output = run(&["checksum", garbage.to_str().unwrap()]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "a damaged index gets no checksums"
    );
    assert!(!sidecar_path(&garbage).exists());
}

/// Issue 12: a header with page size 2^30 that the parser accepted made `query` and `serve`
/// abort allocating 32 GiB.
#[test]
fn a_page_size_of_2_30_is_refused() {
    let dir = temp_dir();
    let path = dir.path().join("huge_page.cobs_compact");
    let page_size: u64 = 1 << 30;
    let mut header = Vec::new();
    header.extend_from_slice(b"COBS:COMPACT_INDEX");
    header.extend_from_slice(&1u32.to_le_bytes());
    header.extend_from_slice(&31u32.to_le_bytes());
    header.push(1);
    header.extend_from_slice(&1u32.to_le_bytes()); // blocks
    header.extend_from_slice(&1u32.to_le_bytes()); // documents
    header.extend_from_slice(&page_size.to_le_bytes());
    header.extend_from_slice(&1u64.to_le_bytes()); // rows of block 0
    header.extend_from_slice(&1u64.to_le_bytes()); // hashes
    header.extend_from_slice(b"genome\n");
    // Zero padding up to the end magic, so the data section starts at 2^30; one row of 2^30
    // bytes. A sparse file: exactly the size such a header implies.
    let file = std::fs::File::create(&path).unwrap();
    use std::os::unix::fs::FileExt;
    file.write_all_at(&header, 0).unwrap();
    file.write_all_at(b"COMPACT_INDEX", page_size - 13).unwrap();
    file.set_len(2 * page_size).unwrap();
    drop(file);
    for args in [
        vec!["info", path.to_str().unwrap()],
        vec![
            "query",
            "-i",
            path.to_str().unwrap(),
            "ACGTACGTACGTACGTACGTACGTACGTACGTACG",
        ],
    ] {
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(1),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(
            stderr(&output).contains(
                "huge_page.cobs_compact: invalid header: page size = 1073741824 bytes per row (expected 1..=1048576)"
            ),
            "{}",
            stderr(&output)
        );
    }
}

/// Waits for `child` at most `limit`; kills it and fails the test if it is still running.
fn wait_or_kill(mut child: Child, limit: Duration, what: &str) -> Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{what} hangs: still running after {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

fn make_fifo(path: &Path) {
    let c_path = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) }, 0);
}

/// Issue 12: a FIFO named `x.cobs_compact` hung `query`.
#[test]
fn a_fifo_is_refused_not_waited_for() {
    let dir = temp_dir();
    let fifo = dir.path().join("x.cobs_compact");
    make_fifo(&fifo);
    let fasta_fifo = dir.path().join("genome.fa");
    make_fifo(&fasta_fifo);
    let out = dir.path().join("out.cobs_compact");
    let commands: [(&str, Vec<&str>, String); 4] = [
        (
            "query",
            vec!["query", "-i", fifo.to_str().unwrap(), "ACGTACGTACGTACGTACGTACGTACGTACGTACG"],
            format!("bitsift: {}: a named pipe (FIFO), not a regular file; an index must be a regular file (bitsift reads it at any offset)\n", fifo.display()),
        ),
        (
            "info",
            vec!["info", fifo.to_str().unwrap()],
            format!("bitsift: {}: a named pipe (FIFO), not a regular file", fifo.display()),
        ),
        (
            "serve",
            vec!["serve", "-i", fifo.to_str().unwrap(), "--listen", "127.0.0.1:0"],
            format!("{}: a named pipe (FIFO), not a regular file", fifo.display()),
        ),
        (
            "build",
            vec!["build", "-q", "-o", out.to_str().unwrap(), fasta_fifo.to_str().unwrap()],
            format!("bitsift: {}: a named pipe (FIFO), not a regular file; inputs are read twice, so save the sequences to a file first\n", fasta_fifo.display()),
        ),
    ];
    for (what, args, expected) in commands {
        let child = bitsift()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = wait_or_kill(child, Duration::from_secs(20), what);
        assert_eq!(output.status.code(), Some(1), "{what}: {}", stderr(&output));
        assert!(
            stderr(&output).contains(&expected),
            "{what}: {}",
            stderr(&output)
        );
    }
    assert!(!out.exists());
}

#[test]
fn option_values_that_cannot_be_honoured_are_errors_not_panics() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let index = index.to_str().unwrap();
    let cases: [(Vec<&str>, &str); 5] = [
        (
            vec![
                "serve",
                "-i",
                index,
                "--timeout",
                "1e30",
                "--listen",
                "127.0.0.1:0",
            ],
            "invalid value '1e30' for '--timeout <SECONDS>': 1e30 seconds is out of range",
        ),
        (
            vec![
                "query",
                "-i",
                index,
                "--cache-size",
                "100000T",
                "ACGTACGTACGTACGTACGTACGTACGTACGTACGT",
            ],
            "100000T is more than this machine's memory",
        ),
        (
            vec![
                "serve",
                "-i",
                index,
                "--cache-size",
                "100000T",
                "--listen",
                "127.0.0.1:0",
            ],
            "100000T is more than this machine's memory",
        ),
        (
            vec!["build", "-o", "never.cobs_compact", "-m", "100000T", index],
            "100000T is more than this machine's memory",
        ),
        (
            vec![
                "query",
                "-i",
                index,
                "--read-max",
                "8G",
                "ACGTACGTACGTACGTACGTACGTACGTACGTACGT",
            ],
            "8G is too large",
        ),
    ];
    for (args, expected) in cases {
        let child = bitsift()
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let output = wait_or_kill(child, Duration::from_secs(20), args[0]);
        assert_no_panic(&output);
        assert!(!output.status.success(), "{args:?}");
        assert!(
            stderr(&output).contains(expected),
            "{args:?}: {}",
            stderr(&output)
        );
    }
}

/// Temporary files in `dir` (`.NAME.bitsift-tmp-PID`).
fn temporaries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().contains(".bitsift-tmp-"))
        .collect()
}

/// A genome large enough that filling its block takes a while (so a signal can arrive
/// while the temporary file exists).
fn large_genome(dir: &Path) -> PathBuf {
    let path = dir.join("large.fa");
    let mut rng = Rng(12);
    let records: Vec<(String, Vec<u8>)> = (0..4)
        .map(|i| (format!("contig{i}"), rng.dna(6_000_000)))
        .collect();
    write_fasta(&path, &records);
    path
}

/// Starts a single-threaded build of `input` into `out_dir` and waits until its temporary
/// file exists.
fn build_until_temporary(input: &Path, out_dir: &Path) -> (Child, PathBuf) {
    use std::os::unix::process::CommandExt;
    let output = out_dir.join("big.cobs_compact");
    let mut command = bitsift();
    command
        .args(["build", "-q", "-T", "1", "-o"])
        .arg(&output)
        .arg(input)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // The build keeps a signal its parent ignored ignored (`cmd &` in a script starts it so
    // for SIGINT); these tests are about a build that can be interrupted, whatever runs them.
    // SAFETY: signal() is async-signal-safe; the closure touches nothing else.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGINT, libc::SIG_DFL);
            libc::signal(libc::SIGTERM, libc::SIG_DFL);
            Ok(())
        });
    }
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    loop {
        if let Some(temporary) = temporaries(out_dir).pop() {
            return (child, temporary);
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the build ended ({status}) before its temporary file was seen; make the input larger");
        }
        assert!(
            started.elapsed() < Duration::from_secs(120),
            "no temporary file"
        );
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Issue 12: every SIGTERM/SIGINT left the build's temporary file (up to 109 MB) forever.
#[test]
fn sigterm_and_sigint_during_a_build_remove_its_temporary_file() {
    let dir = temp_dir();
    let input = large_genome(dir.path());
    for signal in [libc::SIGTERM, libc::SIGINT] {
        let out_dir = dir.path().join(format!("out{signal}"));
        std::fs::create_dir(&out_dir).unwrap();
        let (child, temporary) = build_until_temporary(&input, &out_dir);
        // SAFETY: kill with a valid signal number and the child's pid.
        assert_eq!(unsafe { libc::kill(child.id() as i32, signal) }, 0);
        let output = wait_or_kill(child, Duration::from_secs(60), "the interrupted build");
        assert_eq!(
            output.status.signal(),
            Some(signal),
            "ends as the signal would: {:?} {}",
            output.status,
            stderr(&output)
        );
        assert!(!temporary.exists(), "{} left behind", temporary.display());
        assert_eq!(
            std::fs::read_dir(&out_dir).unwrap().count(),
            0,
            "nothing left"
        );
    }
}

/// Issue 12: every killed build (25 of 25) left its temporary file; the next build in the
/// directory now removes it.
#[test]
fn a_killed_builds_temporary_file_is_removed_by_the_next_build() {
    let dir = temp_dir();
    let input = large_genome(dir.path());
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let (child, temporary) = build_until_temporary(&input, &out_dir);
    // SAFETY: kill with a valid signal number and the child's pid.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGKILL) }, 0);
    let output = wait_or_kill(child, Duration::from_secs(60), "the killed build");
    assert_eq!(output.status.signal(), Some(libc::SIGKILL));
    assert!(
        temporary.exists(),
        "SIGKILL cannot be caught: the file stays"
    );

    let next = out_dir.join("next.cobs_compact");
    let output = run(&[
        "build",
        "-v",
        "-o",
        next.to_str().unwrap(),
        plasmid("Phage_lambda_NC_001416.fa.gz").to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(!temporary.exists(), "the next build removed it");
    assert!(
        stderr(&output).contains(&format!(
            "removed {}, the temporary file of an interrupted build",
            temporary.display()
        )),
        "{}",
        stderr(&output)
    );
    assert!(temporaries(&out_dir).is_empty());
}

/// Makes a file of some kind at a path.
type MakeFile = fn(&Path);

/// Issue 30, item 5: a FIFO, a directory or a device in place of a checksum sidecar or a
/// block summaries file hung `query` and `verify` (opening a FIFO waits for a writer, a
/// device never ends). Each is refused at open with a message naming the path and what it
/// is; so is a device in place of the index.
#[test]
fn side_files_that_are_not_regular_files_are_refused_not_waited_for() {
    let dir = temp_dir();
    let index = small_index(dir.path());
    let gene = "ACGTTGCATGCATGCATGCAAGGCTTACGATCGATCGGATCGATTTACG";
    let kinds: [(&str, MakeFile); 3] = [
        ("a named pipe (FIFO), not a regular file", make_fifo),
        ("a directory, not a regular file", |p| {
            std::fs::create_dir(p).unwrap()
        }),
        ("a character device, not a regular file", |p| {
            std::os::unix::fs::symlink("/dev/zero", p).unwrap()
        }),
    ];
    let mut cases = Vec::new();
    for suffix in [".bitsift-checksums", ".bitsift-summaries"] {
        for (number, (kind, make)) in kinds.iter().enumerate() {
            let copy = dir
                .path()
                .join(format!("copy{number}{suffix}.cobs_compact"));
            std::fs::copy(&index, &copy).unwrap();
            for other in [".bitsift-checksums", ".bitsift-summaries"] {
                let side = PathBuf::from(format!("{}{other}", index.display()));
                assert!(side.is_file(), "the build wrote {}", side.display());
                if other != suffix {
                    std::fs::copy(&side, format!("{}{other}", copy.display())).unwrap();
                }
            }
            let side = PathBuf::from(format!("{}{suffix}", copy.display()));
            make(&side);
            cases.push((copy, side, *kind));
        }
    }
    let device = dir.path().join("device.cobs_compact");
    std::os::unix::fs::symlink("/dev/zero", &device).unwrap();
    cases.push((
        device.clone(),
        device,
        "a character device, not a regular file",
    ));
    for (index, named, kind) in &cases {
        for args in [
            vec!["query", "-i", text(index), gene],
            vec!["verify", text(index)],
        ] {
            let what = format!("{} {}", args[0], named.display());
            let child = bitsift()
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let output = wait_or_kill(child, Duration::from_secs(20), &what);
            let message = stderr(&output);
            // Summaries that cannot be read are set aside with a warning: the search reads
            // every block instead. Anything else fails.
            let set_aside = args[0] == "query" && named.to_string_lossy().ends_with("summaries");
            if set_aside {
                assert_eq!(output.status.code(), Some(0), "{what}: {message}");
                assert!(
                    message.contains("searched without its block summaries"),
                    "{what}: {message}"
                );
            } else {
                assert!(
                    matches!(output.status.code(), Some(code) if code != 0),
                    "{what}: {:?} {message}",
                    output.status
                );
            }
            assert!(
                message.contains(&format!("{}:", named.display())) && message.contains(kind),
                "{what}: {message}"
            );
            assert_no_panic(&output);
        }
    }
}
