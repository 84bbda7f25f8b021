//! `bitsift info`: what an index or a collection is, as its header and side files tell it,
//! and how it was built (its build record, [`build`]).

mod build;
mod collection;

use std::path::PathBuf;

use anyhow::Result;
use bitsift::answer::IndexFile;
use bitsift::format::document_table::{DocumentFacts, DocumentTable};
use bitsift::format::{is_placeholder, sidecar_path, ChecksumTable, IndexHeader, IndexKind};
use bitsift::summary::{BlockSummaries, SummarySource};
use bitsift::units::{format_bytes, plural, span};
use clap::Args;

use super::Outcome;
use build::{BuildInfo, NamedDocument};

#[derive(Args, Debug)]
pub(crate) struct InfoArgs {
    /// Index file (.cobs_compact or .cobs_classic) or collection directory
    #[arg(value_name = "INDEX")]
    index: PathBuf,
    /// Print as JSON
    #[arg(long)]
    json: bool,
    /// Also list the documents (block, position, name; bases and k-mers when recorded)
    #[arg(long)]
    documents: bool,
    /// Describe one document: where it lies, its bases, k-mers and false-positive rate
    #[arg(long, value_name = "NAME")]
    document: Option<String>,
    #[command(flatten)]
    remote: super::remote::RemoteArgs,
}

/// `info FILE --json`: the file as every front end describes it, then what only `info`
/// looks at (its side files, its document names).
#[derive(serde::Serialize)]
struct Info {
    #[serde(flatten)]
    file: IndexFile,
    /// "ok" (sidecar present, matches the header and size), "missing" or "mismatch".
    checksums: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    checksums_error: Option<String>,
    /// The block summaries beside the index (`null` when there are none).
    summaries: Option<SummaryInfo>,
    /// Bytes of the checksum sidecar (read page by page by searches).
    #[serde(skip_serializing_if = "Option::is_none")]
    checksum_bytes: Option<u64>,
    /// How the index was built: its build record, or why there is none.
    build: BuildInfo,
    #[serde(skip_serializing_if = "Option::is_none")]
    document_names: Option<Vec<String>>,
    /// With `--documents` and a build record: each shown document's bases and k-mers.
    #[serde(skip_serializing_if = "Option::is_none")]
    document_facts: Option<Vec<DocumentRow>>,
    /// With `--document NAME`: that document.
    #[serde(skip_serializing_if = "Option::is_none")]
    document: Option<NamedDocument>,
}

/// One document of `--documents`.
#[derive(serde::Serialize)]
struct DocumentRow {
    block: u64,
    position: u64,
    name: String,
    #[serde(flatten)]
    facts: Option<DocumentFacts>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
enum SummaryInfo {
    Present {
        path: String,
        /// 2: read page by page; 1: an earlier version's file, read whole.
        format: u32,
        /// Bytes of the file.
        bytes: u64,
        /// Bytes of its filters.
        filter_bytes: u64,
        bits_set_per_kmer: u32,
        bits_per_kmer: f64,
        /// Pages a query reads per minimizer bucket (format 2).
        #[serde(skip_serializing_if = "Option::is_none")]
        pages_per_bucket: Option<u64>,
        /// What a search keeps in memory of the file: its header (format 2), or all of it.
        resident_bytes: u64,
    },
    Unusable {
        path: String,
        error: String,
    },
}

/// The names of the documents a search of `header`'s file shows (not its placeholders).
fn shown_names(header: &IndexHeader) -> Result<Vec<String>> {
    let names = header.names.all()?;
    Ok(names
        .iter()
        .filter(|n| !is_placeholder(n))
        .map(str::to_string)
        .collect())
}

fn summary_info(header: &IndexHeader, index: &std::path::Path) -> Option<SummaryInfo> {
    let path = bitsift::summary::summary_path(index).display().to_string();
    let unusable = |error: String| {
        Some(SummaryInfo::Unusable {
            path: path.clone(),
            error,
        })
    };
    match bitsift::summary::open(index, header) {
        Ok(None) => None,
        Ok(Some(SummarySource::Paged(layout))) => {
            let filter_bytes: u64 = layout.blocks.iter().map(|b| 8u64 << b.words_log2).sum();
            let kmers: u64 = layout.blocks.iter().map(|b| b.kmers_estimate).sum();
            Some(SummaryInfo::Present {
                path,
                format: 2,
                bytes: layout.file_bytes(),
                filter_bytes,
                bits_set_per_kmer: layout.hashes,
                bits_per_kmer: 8.0 * filter_bytes as f64 / kmers.max(1) as f64,
                pages_per_bucket: Some(layout.pages_per_bucket()),
                resident_bytes: layout.header_pages * bitsift::summary::PAGE_BYTES,
            })
        }
        // Format 1 (an earlier version's): only a whole read tells what it holds.
        Ok(Some(SummarySource::Whole { bytes })) => match BlockSummaries::load(index, header) {
            Ok(Some(s)) => {
                let kmers: u64 = (0..s.block_count()).map(|b| s.kmers_estimate(b)).sum();
                Some(SummaryInfo::Present {
                    path,
                    format: 1,
                    bytes,
                    filter_bytes: s.ram_bytes(),
                    bits_set_per_kmer: s.hashes(),
                    bits_per_kmer: 8.0 * s.ram_bytes() as f64 / kmers.max(1) as f64,
                    pages_per_bucket: None,
                    resident_bytes: bytes,
                })
            }
            Ok(None) => None,
            Err(e) => unusable(e.to_string()),
        },
        Err(e) => unusable(e.to_string()),
    }
}

pub(crate) fn run(args: InfoArgs) -> Result<Outcome> {
    args.remote.apply(None)?;
    if bitsift::collection::is_collection(&args.index) {
        return collection::collection_info(&args);
    }
    let header = IndexHeader::open(&args.index)?;
    let info = describe(&args, &header)?;
    if let Some(error) = &info.checksums_error {
        eprintln!("bitsift: warning: {error}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(Outcome::Success);
    }
    print_geometry(&info, &header);
    print_side_files(&info, &args.index);
    build::print(&info.build);
    if let Some(document) = &info.document {
        document.print();
    }
    if let Some(rows) = &info.document_facts {
        print_document_rows(rows);
    } else if info.document_names.is_some() {
        print_document_names(&header, info.file.documents_per_block)?;
    }
    Ok(Outcome::Success)
}

/// Everything `info FILE` says, read from the index and its side files.
fn describe(args: &InfoArgs, header: &IndexHeader) -> Result<Info> {
    let (checksums, checksums_error, checksum_pages) =
        match ChecksumTable::open(&args.index, header) {
            Ok(Some(table)) => ("ok", None, Some(table.sidecar_bytes())),
            Ok(None) => ("missing", None, None),
            Err(error) => ("mismatch", Some(error.to_string()), None),
        };
    let build = BuildInfo::of(header);
    let table = match args.documents || args.document.is_some() {
        true => build.table(header)?,
        false => None,
    };
    let document = match &args.document {
        Some(name) => Some(
            NamedDocument::find(header, table.as_ref(), name)?.ok_or_else(|| {
                anyhow::anyhow!("{}: no document named {name:?}", args.index.display())
            })?,
        ),
        None => None,
    };
    let document_facts = match (&table, args.documents) {
        (Some(table), true) => Some(document_rows(header, table)?),
        _ => None,
    };
    Ok(Info {
        file: IndexFile::of(header),
        checksums,
        checksums_error,
        summaries: summary_info(header, &args.index),
        checksum_bytes: checksum_pages,
        build,
        document_names: match args.documents {
            true => Some(shown_names(header)?),
            false => None,
        },
        document_facts,
        document,
    })
}

/// The shown documents of `header`'s index with their recorded facts, in header order.
fn document_rows(header: &IndexHeader, table: &DocumentTable) -> Result<Vec<DocumentRow>> {
    let names = header.names.all()?;
    let mut rows = Vec::with_capacity(names.iter().len());
    let mut block = 0usize;
    table.for_each(|position, facts| {
        while header.blocks[block].first_document + header.blocks[block].document_count <= position
        {
            block += 1;
        }
        let name = names.get(position as usize);
        if !is_placeholder(name) {
            rows.push(DocumentRow {
                block: block as u64,
                position,
                name: name.to_string(),
                facts,
            });
        }
    })?;
    Ok(rows)
}

fn print_geometry(info: &Info, header: &IndexHeader) {
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!("index            {}", info.file.path);
    match header.rows {
        bitsift::format::RowLayout::Cobs => println!(
            "format           COBS {}, version {}",
            header.kind.as_str(),
            info.file.version
        ),
        _ => println!(
            "format           bitsift compact, version {} (COBS cannot read it)",
            info.file.version
        ),
    }
    println!("row layout       {}", info.file.layout);
    println!("k                {}", info.file.k);
    println!("canonical        {}", yes_no(info.file.canonical));
    println!("hash functions   {}", info.file.hashes);
    print_documents_and_blocks(info, header);
    let row_unit = match header.kind {
        IndexKind::Compact => "page size",
        IndexKind::Classic => "row size",
    };
    println!("{row_unit:<17}{} bytes per row", info.file.page_size);
    if info.file.blocks == 1 {
        println!("rows             {}", info.file.rows_total);
    } else {
        println!(
            "rows per block   {} ({} in all)",
            span(info.file.rows_min, info.file.rows_max),
            info.file.rows_total
        );
    }
    println!(
        "data offset      {} (4 KiB aligned: {}; every row inside one 4 KiB page: {})",
        info.file.data_offset,
        yes_no(info.file.data_offset_4k_aligned),
        yes_no(rows_within_pages(header))
    );
    println!(
        "file size        {} ({} bytes)",
        format_bytes(info.file.file_size),
        info.file.file_size
    );
    match header.rows {
        bitsift::format::RowLayout::Cobs => println!(
            "cost per k-mer   {} of {} bytes",
            plural(info.file.reads_per_kmer, "row read"),
            info.file.page_size
        ),
        layout => println!(
            "cost per gene    ~1 read of up to {} bytes per distinct minimizer (~10 k-mers) and block",
            layout.range_rows() * info.file.page_size
        ),
    }
}

fn print_documents_and_blocks(info: &Info, header: &IndexHeader) {
    match info.file.placeholders {
        0 => println!("documents        {}", info.file.documents),
        n => println!(
            "documents        {} (and {} filling merged blocks, never reported)",
            info.file.documents,
            plural(n, "placeholder")
        ),
    }
    let last = header.blocks.last().map_or(0, |b| b.document_count);
    if info.file.blocks == 1 {
        println!(
            "blocks           1 (room for {}, {} used)",
            plural(info.file.documents_per_block, "document"),
            last
        );
    } else {
        println!(
            "blocks           {} ({} documents each, the last {})",
            info.file.blocks, info.file.documents_per_block, last
        );
    }
}

fn print_side_files(info: &Info, index: &std::path::Path) {
    let sidecar = sidecar_path(index);
    match info.checksums {
        "ok" => println!(
            "checksums        {} (matches the header and size; `bitsift verify` checks every page)",
            sidecar.display()
        ),
        "missing" => println!(
            "checksums        none: reads cannot be verified (create them with `bitsift checksum`)"
        ),
        _ => println!(
            "checksums        {}: DO NOT MATCH the index (see the warning above)",
            sidecar.display()
        ),
    }
    print_summaries(info.summaries.as_ref());
}

fn print_summaries(summaries: Option<&SummaryInfo>) {
    match summaries {
        None => println!("block summaries  none"),
        Some(SummaryInfo::Present {
            format,
            bytes,
            filter_bytes,
            bits_set_per_kmer,
            bits_per_kmer,
            pages_per_bucket,
            resident_bytes,
            ..
        }) => {
            println!(
                "block summaries  {} on disk, format {format} ({} of filters, {bits_per_kmer:.1} bits per distinct k-mer of a block, {bits_set_per_kmer} set per k-mer)",
                format_bytes(*bytes),
                format_bytes(*filter_bytes)
            );
            match pages_per_bucket {
                Some(pages) => println!(
                    "                 read page by page: {} per minimizer of a query; {} held for all queries",
                    plural(*pages, "page"),
                    format_bytes(*resident_bytes)
                ),
                None => println!(
                    "                 format 1: read whole by the first search ({}, within the side memory budget); rebuild the index to read them page by page",
                    format_bytes(*resident_bytes)
                ),
            }
        }
        Some(SummaryInfo::Unusable { error, .. }) => println!("block summaries  unusable: {error}"),
    }
}

fn print_document_names(header: &IndexHeader, documents_per_block: u64) -> Result<()> {
    println!();
    println!("block\tposition\tdocument");
    for block in &header.blocks {
        for d in block.first_document..block.first_document + block.document_count {
            let name = header.names.get(d as usize)?;
            if !is_placeholder(name) {
                let block_number = d / documents_per_block.max(1);
                println!("{block_number}\t{d}\t{}", bitsift::tsv::field(name));
            }
        }
    }
    Ok(())
}

fn print_document_rows(rows: &[DocumentRow]) {
    println!();
    println!("block\tposition\tdocument\tbases\tkmers");
    for row in rows {
        let (bases, kmers) = row.facts.map_or(("NA".into(), "NA".into()), |f| {
            (f.bases.to_string(), f.kmers.to_string())
        });
        println!(
            "{}\t{}\t{}\t{bases}\t{kmers}",
            row.block,
            row.position,
            bitsift::tsv::field(&row.name)
        );
    }
}

/// Whether no row straddles a 4 KiB boundary (so one row costs one page read).
fn rows_within_pages(header: &IndexHeader) -> bool {
    header.blocks.iter().all(|b| {
        let in_page = b.data_offset % 4096;
        b.row_bytes <= 4096 && 4096 % b.row_bytes == 0 && in_page % b.row_bytes == 0
    })
}
