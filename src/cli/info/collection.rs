//! `bitsift info DIR` of a collection: its manifest, summed up, with its sub-indexes' build
//! records.

use std::path::Path;

use anyhow::Result;
use bitsift::collection::{CollectionRecords, Manifest, SubIndexKind};
use bitsift::format::build_record;
use bitsift::format::IndexHeader;
use bitsift::units::{format_bytes, plural};

use super::build::{print_spread, NamedDocument};
use super::InfoArgs;
use crate::cli::Outcome;

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
    /// The sub-indexes' build records, summed up over the documents the collection shows.
    build: CollectionRecords,
    #[serde(skip_serializing_if = "Option::is_none")]
    document_names: Option<Vec<(&'a str, &'a str)>>,
    /// With `--document NAME`: that document.
    #[serde(skip_serializing_if = "Option::is_none")]
    document: Option<NamedDocument>,
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
    /// Its build record: `ok`, `none`, `stale` or `unusable`.
    build_record: &'static str,
}

/// Each sub-index as the manifest describes it, with the status of its build record.
fn subindex_infos<'a>(manifest: &'a Manifest, statuses: &[&'static str]) -> Vec<SubIndexInfo<'a>> {
    manifest
        .subindexes
        .iter()
        .zip(statuses)
        .map(|(sub, status)| {
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
                build_record: status,
            }
        })
        .collect()
}

/// `info DIR` of a collection: its manifest, summed up.
pub(super) fn collection_info(args: &InfoArgs) -> Result<Outcome> {
    let mut manifest = Manifest::load(&args.index)?;
    if args.documents || args.document.is_some() {
        // Only the list of names needs them: they stay in the sub-indexes' headers.
        manifest.load_names(&args.index)?;
    }
    let build = bitsift::collection::records(&args.index, &manifest)?;
    for problem in &build.problems {
        eprintln!("bitsift: notice: {problem}");
    }
    let document = match &args.document {
        Some(name) => Some(find_document(&args.index, &manifest, name)?),
        None => None,
    };
    let subindexes = subindex_infos(&manifest, &build.status);
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
        build,
        document,
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
    print_parameters(&info);
    print_records(&info.build, info.subindexes.len());
    if let Some(document) = &info.document {
        document.print();
    }
    print_subindexes(&info.subindexes);
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

fn print_parameters(info: &CollectionInfo) {
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
}

/// What the sub-indexes' build records say, summed up.
fn print_records(records: &CollectionRecords, subindexes: usize) {
    let recorded = records.status.iter().filter(|s| **s == "ok").count();
    if recorded == 0 {
        println!(
            "build records    none of {subindexes} sub-indexes has one (COBS's indexes, and those of bitsift before build records, have none)"
        );
        return;
    }
    let asked: Vec<String> = records.fpr_asked.iter().map(f64::to_string).collect();
    println!(
        "build records    {recorded} of {subindexes} sub-indexes, built {} to {} by bitsift {}; fpr {}",
        records.built_first.as_deref().unwrap_or("?"),
        records.built_last.as_deref().unwrap_or("?"),
        records.bitsift_versions.join(", "),
        if asked.is_empty() { "mixed".into() } else { asked.join(", ") }
    );
    print_spread("bases", records.documents, &records.bases);
    print_spread("k-mers", records.documents, &records.kmers);
    if let Some(reached) = records.fpr_reached_max {
        println!(
            "fpr reached      at most {reached:.4} (the highest of any block, at its largest document)"
        );
    }
}

fn print_subindexes(subindexes: &[SubIndexInfo]) {
    println!();
    println!("file\tkind\tpage_size\tblocks\tdocuments\thidden\tplaceholders\tbytes\tcreated\tby\tbuild_record");
    for s in subindexes {
        println!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
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
            s.command,
            s.build_record
        );
    }
}

/// Document `name` of the collection in `directory`: the first sub-index that shows it,
/// with its facts when that sub-index has a usable build record.
fn find_document(directory: &Path, manifest: &Manifest, name: &str) -> Result<NamedDocument> {
    for sub in &manifest.subindexes {
        if !sub.visible_names().any(|n| n == name) {
            continue;
        }
        let header = IndexHeader::open(&directory.join(&sub.file))?;
        let table = match build_record::read_beside(&header) {
            Ok(Some(_)) => build_record::documents_beside(&header).ok().flatten(),
            _ => None,
        };
        if let Some(mut document) = NamedDocument::find(&header, table.as_ref(), name)? {
            document.file = Some(sub.file.clone());
            return Ok(document);
        }
    }
    anyhow::bail!("{}: no document named {name:?}", directory.display())
}
