//! The document types against COBS's own test data (`tests/data/cobs`) and hand-made files.

use std::io::Read;

use super::*;

fn cobs_data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/cobs/tests/data")
        .join(path)
}

fn runs_of(entry: &DocumentEntry, k: usize) -> Vec<Vec<u8>> {
    let mut runs = Vec::new();
    entry
        .for_each_run(k, &mut |run| runs.push(run.to_vec()))
        .unwrap();
    runs
}

/// The terms of an entry as strings, in COBS's order.
fn terms_of(entry: &DocumentEntry, k: usize) -> Vec<String> {
    runs_of(entry, k)
        .iter()
        .flat_map(|run| {
            run.windows(k)
                .map(|w| String::from_utf8_lossy(w).into_owned())
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn types_by_extension_as_cobs() {
    for (name, file_type) in [
        ("a.txt", FileType::Text),
        ("a.ctx", FileType::Cortex),
        ("a.cortex", FileType::Cortex),
        ("a.cobs_doc", FileType::KMerBuffer),
        ("a.fa.gz", FileType::Fasta),
        ("a.faa", FileType::Fasta),
        ("a.frn.gz", FileType::Fasta),
        ("a.fastq.gz", FileType::Fastq),
        ("a.mfasta", FileType::FastaMulti),
        ("a.mfastq", FileType::FastqMulti),
        ("a.list", FileType::List),
        ("a.FA", FileType::Any),
        ("a.fa.bz2", FileType::Any),
        ("a.mfasta.gz", FileType::Any),
    ] {
        assert_eq!(FileType::identify(Path::new(name)), file_type, "{name}");
    }
    assert_eq!(FileType::parse("TXT").unwrap(), FileType::Text);
    assert_eq!(FileType::parse("cobs_doc").unwrap(), FileType::KMerBuffer);
    let error = FileType::parse("genbank").unwrap_err().to_string();
    assert!(error.contains("unknown file type \"genbank\""), "{error}");
}

/// COBS's `tests/cortex_file.cpp`: the header, the k-mer count and the sorted k-mers.
#[test]
fn cortex_graph_as_cobs_reads_it() {
    let entries = DocumentEntry::load(&cobs_data("cortex/document.ctx")).unwrap();
    let [entry] = &entries[..] else {
        panic!("{entries:?}")
    };
    assert_eq!(entry.name, "DRR030535");
    assert_eq!((entry.term_size, entry.term_count), (31, 24158));
    assert_eq!(entry.num_terms(31).unwrap(), 24158);
    assert_eq!(entry.num_terms(20).unwrap(), 24158 * 12);
    let mut kmers = terms_of(entry, 31);
    kmers.sort();
    let mut expected = String::new();
    flate2::read::GzDecoder::new(
        std::fs::File::open(cobs_data("cortex/document_sorted.txt.gz")).unwrap(),
    )
    .read_to_string(&mut expected)
    .unwrap();
    let expected: Vec<&str> = expected.lines().collect();
    assert_eq!(kmers.len(), expected.len());
    assert!(kmers.iter().zip(&expected).all(|(a, b)| a == b));

    let k15 = &DocumentEntry::load(&cobs_data("cortex/sample1-k15.ctx")).unwrap()[0];
    let expected = std::fs::read_to_string(cobs_data("cortex/sample1-k15.txt")).unwrap();
    assert_eq!(terms_of(k15, 15), expected.lines().collect::<Vec<_>>());
}

#[test]
fn text_is_every_byte() {
    let entry = &DocumentEntry::load(&cobs_data("text/sample1.txt")).unwrap()[0];
    assert_eq!((entry.name.as_str(), entry.size), ("sample1", 76));
    assert_eq!(entry.num_terms(31).unwrap(), 46);
    let terms = terms_of(entry, 31);
    assert_eq!(terms.len(), 46);
    assert_eq!(terms[0], "Hello, this is the first sample");
    assert_eq!(terms[45], "this is the first sample text.\n");
}

/// Past 64 KiB COBS carries the wrong `k − 1` bytes into the next chunk; replayed.
#[test]
fn long_text_chunks_as_cobs() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("long.txt");
    let bytes: Vec<u8> = (0..200_000u32)
        .map(|i| b"ACGT"[(i * 7 % 11 % 4) as usize])
        .collect();
    std::fs::write(&path, &bytes).unwrap();
    let entry = &DocumentEntry::load(&path).unwrap()[0];
    let k = 5;
    let runs = runs_of(entry, k);
    assert_eq!(runs.len(), 4);
    assert_eq!(runs[0], bytes[..65536]);
    // Second chunk: the k − 1 bytes before offset 65536 (correct: the first chunk was full),
    // then 65536 − 4 new bytes.
    assert_eq!(runs[1][..4], bytes[65532..65536]);
    assert_eq!(runs[1][4..], bytes[65536..131068]);
    // Third chunk: COBS carries the 4 bytes before buffer offset 65532 (the read's length),
    // which hold the second read's bytes 65524..65528, not its last four.
    let second_read = &bytes[65536..131068];
    assert_eq!(runs[2][..4], second_read[65524..65528]);
    assert_ne!(runs[2][..4], second_read[65528..]);
    assert_eq!(runs[2][4..], bytes[131068..196600]);
    let total: usize = runs.iter().map(|r| r.len() + 1 - k).sum();
    assert_eq!(total as u64, entry.num_terms(k as u64).unwrap());
}

#[test]
fn multi_fasta_records_are_documents() {
    let (_dir, path) = crate::testing::file_with(
        "set.v2.mfasta",
        ">r1 first\nACGTACGTAC\nGGGG\n;comment\n>r2\nAC\nTTTTTTTTTT\n>r3\n\n>r4\nACGTAAAAACCC",
    );
    let entries = DocumentEntry::load(&path).unwrap();
    let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(
        names,
        ["set_000000", "set_000001", "set_000002", "set_000003"]
    );
    let sizes: Vec<u64> = entries.iter().map(|e| e.size).collect();
    assert_eq!(sizes, [14, 12, 0, 12]);
    assert_eq!(terms_of(&entries[0], 4).len(), 11);
    // "AC" is shorter than k − 1 = 3 and dropped, as COBS's unsigned arithmetic drops it.
    assert_eq!(terms_of(&entries[1], 4), ["TTTT"; 7]);
    assert!(terms_of(&entries[2], 4).is_empty());
    assert_eq!(terms_of(&entries[3], 4).len(), 9);
}

#[test]
fn fasta_restarts_at_headers_and_empty_lines() {
    let (dir, path) = crate::testing::file_with("x.fa", ">a\nACGTA\nCGTAC\n\nGGGGG\n>b\nTTTTTT\n");
    let entry = &DocumentEntry::load(&path).unwrap()[0];
    assert_eq!(entry.size, 3 + 6 + 6 + 1 + 6 + 3 + 7);
    assert_eq!(entry.num_terms(4).unwrap(), 7 + 2 + 3);
    assert_eq!(terms_of(entry, 4).len(), 7 + 2 + 3);
    let not_fasta = dir.path().join("y.fa");
    std::fs::write(&not_fasta, "ACGT\nACGT\n").unwrap();
    let error = DocumentEntry::load(&not_fasta).unwrap_err().to_string();
    assert!(error.contains("does not start with '>'"), "{error}");
}

#[test]
fn fastq_sequence_lines_only() {
    let entry = &DocumentEntry::load(&cobs_data("fastq/sample2.fastq.gz")).unwrap()[0];
    assert_eq!(entry.name, "sample2");
    assert!(entry.size > std::fs::metadata(&entry.path).unwrap().len());
    let terms = terms_of(entry, 31);
    assert_eq!(terms.len() as u64, entry.num_terms(31).unwrap());
    assert!(!terms.is_empty());
}

#[test]
fn lists_directories_and_refusals() {
    let list = DocumentList::scan(&cobs_data("fasta_files.list"), FileType::Any).unwrap();
    let names: Vec<&str> = list.entries.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["sample1", "sample2", "sample3", "sample6"]);
    let all = DocumentList::scan(&cobs_data(""), FileType::Any).unwrap();
    // 7 FASTA, 3 FASTQ, 3 text (a graph's k-mer listing is one), 2 graphs, and the records
    // of two multi-FASTA files.
    let multi = all
        .entries
        .iter()
        .filter(|e| e.file_type == FileType::FastaMulti)
        .count();
    assert!(multi >= 2, "{multi}");
    assert_eq!(all.len(), 7 + 3 + 3 + 2 + multi);
    let fasta = DocumentList::scan(&cobs_data(""), FileType::Fasta).unwrap();
    assert_eq!(fasta.len(), 7);

    let dir = tempfile::tempdir().unwrap();
    for (name, error) in [
        ("a.mfastq", "no reader"),
        ("a.gbk", "not a document type COBS reads"),
        ("a.list", "is not a document"),
    ] {
        let path = dir.path().join(name);
        std::fs::write(&path, "x\n").unwrap();
        let message = DocumentEntry::load(&path).unwrap_err().to_string();
        assert!(message.contains(error), "{name}: {message}");
    }
    let missing = DocumentList::scan(&dir.path().join("none"), FileType::Any)
        .unwrap_err()
        .to_string();
    assert!(missing.contains("no such file"), "{missing}");
}

#[test]
fn kmer_buffer_reads_its_name_and_kmers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("doc.cobs_doc");
    let mut bytes = b"COBS:DOCUMENT".to_vec();
    bytes.extend(1u32.to_le_bytes());
    bytes.extend(31u32.to_le_bytes());
    bytes.extend(b"my doc\0DOCUMENT");
    // One 31-mer: all bits of the 8 bytes set except the top two bits of the last byte
    // (which holds 3 bases): TTT…T.
    bytes.extend([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3f]);
    bytes.extend([0u8; 8]);
    std::fs::write(&path, &bytes).unwrap();
    let entry = &DocumentEntry::load(&path).unwrap()[0];
    assert_eq!(entry.name, "my doc");
    assert_eq!((entry.term_size, entry.term_count), (31, 2));
    assert_eq!(terms_of(entry, 31), ["T".repeat(31), "A".repeat(31)]);
    let error = entry.for_each_run(21, &mut |_| {}).unwrap_err().to_string();
    assert!(error.contains("only as 31-mers with k = 31"), "{error}");
}

/// The table of COBS's automatic page sizes (docs: cobs-format §3.5).
#[test]
fn page_size_follows_cobs() {
    for (documents, page_size) in [
        (12, 8),
        (511, 8),
        (1_000, 16),
        (10_000, 64),
        (100_000, 128),
        (661_405, 512),
        (1_000_000, 512),
    ] {
        assert_eq!(cobs_page_size(documents), page_size, "{documents}");
    }
}
