//! The FASTA/FASTQ reader (plain or compressed, detected from the content) on any bytes: no
//! panic, and every record it returns has a name without whitespace and a sequence without
//! line breaks.

#![no_main]

use std::path::Path;

use bitsift::seqfile::{SeqReader, SeqRecord};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let input = std::io::Cursor::new(data.to_vec());
    let Ok(mut reader) = SeqReader::from_reader(Path::new("fuzz.fa"), input) else {
        return;
    };
    let mut record = SeqRecord::default();
    while let Ok(true) = reader.next_into(&mut record) {
        assert!(
            !record.name.bytes().any(|b| b.is_ascii_whitespace()),
            "{:?}",
            record.name
        );
        assert!(!record.sequence.contains(&b'\n') && !record.sequence.contains(&b'\r'));
    }
});
