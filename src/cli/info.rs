//! `bitsift info`.

use std::path::PathBuf;

use anyhow::Result;
use bitsift::answer::IndexFile;
use bitsift::collection::{Manifest, SubIndexKind};
use bitsift::format::{is_placeholder, sidecar_path, ChecksumTable, IndexHeader, IndexKind};
use bitsift::summary::{BlockSummaries, SummarySource};
use bitsift::units::{format_bytes, plural, span};
use clap::Args;

use super::Outcome;

#[derive(Args, Debug)]
pub(crate) struct InfoArgs {
    /// Index file (.cobs_compact or .cobs_classic) or collection directory
    #[arg(value_name = "INDEX")]
    index: PathBuf,
    /// Print as JSON
    #[arg(long)]
    json: bool,
    /// Also list the documents (block, position, name)
    #[arg(long)]
    documents: bool,
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
    #[serde(skip_serializing_if = "Option::is_none")]
    document_names: Option<Vec<String>>,
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
        return collection_info(&args);
    }
    let header = IndexHeader::open(&args.index)?;
    let (checksums, checksums_error, checksum_pages) =
        match ChecksumTable::open(&args.index, &header) {
            Ok(Some(table)) => ("ok", None, Some(table.sidecar_bytes())),
            Ok(None) => ("missing", None, None),
            Err(error) => ("mismatch", Some(error.to_string()), None),
        };
    let info = Info {
        file: IndexFile::of(&header),
        checksums,
        checksums_error,
        summaries: summary_info(&header, &args.index),
        checksum_bytes: checksum_pages,
        document_names: match args.documents {
            true => Some(shown_names(&header)?),
            false => None,
        },
    };
    if let Some(error) = &info.checksums_error {
        eprintln!("bitsift: warning: {error}");
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(Outcome::Success);
    }
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
        yes_no(rows_within_pages(&header))
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
    let sidecar = sidecar_path(&args.index);
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
    match &info.summaries {
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
    if info.document_names.is_some() {
        println!();
        println!("block\tposition\tdocument");
        for block in &header.blocks {
            for d in block.first_document..block.first_document + block.document_count {
                let name = header.names.get(d as usize)?;
                if !is_placeholder(name) {
                    let block_number = d / info.file.documents_per_block.max(1);
                    println!("{block_number}\t{d}\t{}", bitsift::tsv::field(name));
                }
            }
        }
    }
    Ok(Outcome::Success)
}

/// Whether no row straddles a 4 KiB boundary (so one row costs one page read).
fn rows_within_pages(header: &IndexHeader) -> bool {
    header.blocks.iter().all(|b| {
        let in_page = b.data_offset % 4096;
        b.row_bytes <= 4096 && 4096 % b.row_bytes == 0 && in_page % b.row_bytes == 0
    })
}

#[derive(serde::Serialize)]
struct CollectionInfo<'a> {
    path: String,
    format: &'static str,
    version: u32,
    generation: u64,
    k: u32,
    canonical: bool,
    hashes: u32,
    fpr: Option<f64>,
    page_size: Option<u64>,
    /// The row layout of new sub-indexes.
    layout: bitsift::format::LayoutChoice,
    documents: u64,
    documents_hidden: u64,
    subindexes: Vec<SubIndexInfo<'a>>,
    blocks: u64,
    bytes: u64,
    reads_per_kmer: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    document_names: Option<Vec<(&'a str, &'a str)>>,
}

#[derive(serde::Serialize)]
struct SubIndexInfo<'a> {
    file: &'a str,
    kind: SubIndexKind,
    page_size: u64,
    layout: bitsift::format::RowLayout,
    blocks: u64,
    documents: u64,
    hidden: u64,
    placeholders: u64,
    bytes: u64,
    created: &'a str,
    command: &'a str,
}

/// `info DIR` of a collection: its manifest, summed up.
fn collection_info(args: &InfoArgs) -> Result<Outcome> {
    let mut manifest = Manifest::load(&args.index)?;
    if args.documents {
        // Only the list of names needs them: they stay in the sub-indexes' headers.
        manifest.load_names(&args.index)?;
    }
    let subindexes: Vec<SubIndexInfo> = manifest
        .subindexes
        .iter()
        .map(|sub| {
            let shown = sub.visible_count();
            SubIndexInfo {
                file: &sub.file,
                kind: sub.kind,
                page_size: sub.page_size,
                layout: sub.layout,
                blocks: sub.blocks,
                documents: shown,
                hidden: sub.document_count - shown - sub.placeholder_count(),
                placeholders: sub.placeholder_count(),
                bytes: sub.bytes,
                created: &sub.created,
                command: &sub.provenance.command,
            }
        })
        .collect();
    let parameters = &manifest.parameters;
    let info = CollectionInfo {
        path: args.index.display().to_string(),
        format: "collection",
        version: manifest.version,
        generation: manifest.generation,
        k: parameters.k,
        canonical: parameters.canonical,
        hashes: parameters.hashes,
        fpr: parameters.fpr,
        page_size: parameters.page_size,
        layout: parameters.layout,
        documents: subindexes.iter().map(|s| s.documents).sum(),
        documents_hidden: subindexes.iter().map(|s| s.hidden).sum(),
        blocks: subindexes.iter().map(|s| s.blocks).sum(),
        bytes: subindexes.iter().map(|s| s.bytes).sum(),
        reads_per_kmer: subindexes.iter().map(|s| s.blocks).sum::<u64>() * parameters.hashes as u64,
        document_names: args.documents.then(|| {
            manifest
                .subindexes
                .iter()
                .flat_map(|sub| {
                    sub.visible_names()
                        .map(move |name| (sub.file.as_str(), name))
                })
                .collect()
        }),
        subindexes,
    };
    if args.json {
        println!("{}", serde_json::to_string_pretty(&info)?);
        return Ok(Outcome::Success);
    }
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    println!("collection       {}", info.path);
    println!(
        "format           bitsift collection, version {}, generation {}",
        info.version, info.generation
    );
    println!("k                {}", info.k);
    println!("canonical        {}", yes_no(info.canonical));
    println!("hash functions   {}", info.hashes);
    println!(
        "fpr              {}",
        info.fpr.map_or("unknown".into(), |f| f.to_string())
    );
    println!(
        "page size        {}",
        info.page_size
            .map_or("chosen per sub-index".into(), |p| format!(
                "{p} bytes per row"
            ))
    );
    println!("row layout       {} (of new sub-indexes)", info.layout);
    println!(
        "documents        {} ({} removed, hidden until a merge)",
        info.documents, info.documents_hidden
    );
    println!(
        "sub-indexes      {} ({}, {} in all)",
        info.subindexes.len(),
        plural(info.blocks, "block"),
        format_bytes(info.bytes)
    );
    println!(
        "cost per k-mer   {}",
        plural(info.reads_per_kmer, "row read")
    );
    println!();
    println!("file\tkind\tpage_size\tblocks\tdocuments\thidden\tplaceholders\tbytes\tcreated\tby");
    for s in &info.subindexes {
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            s.file,
            if s.kind == SubIndexKind::Compact {
                "compact"
            } else {
                "classic"
            },
            s.page_size,
            s.blocks,
            s.documents,
            s.hidden,
            s.placeholders,
            s.bytes,
            s.created,
            s.command
        );
    }
    if let Some(names) = &info.document_names {
        println!();
        println!("sub-index\tdocument");
        for (file, name) in names {
            println!(
                "{}\t{}",
                bitsift::tsv::field(file),
                bitsift::tsv::field(name)
            );
        }
    }
    Ok(Outcome::Success)
}
