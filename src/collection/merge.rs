//! `merge`: combines compatible sub-indexes (same k, canonical form, hash functions and page
//! size) into larger ones and drops removed documents, without reading a genome.
//!
//! A COBS compact file is a header and independent blocks, and a document's Bloom filter is
//! its bit column in its block. A block whose documents are all shown is copied verbatim. The
//! shown documents of the other blocks (partly filled last blocks, blocks with removed
//! documents or placeholders) are re-packed: their bit columns are copied into new blocks,
//! row by row. Only columns of blocks with the same number of rows can share a block: a
//! column's bits are `hash mod rows`, and a filter of another size could only be made from
//! the k-mers themselves. So every document keeps its exact filter, and every score is the
//! same before and after a merge. COBS wants every block but the last to hold exactly
//! `8 · page_size` documents; a re-packed block that is not full and not last is filled with
//! placeholder documents (zero columns, which take no room the block did not already have:
//! its rows are `page_size` bytes either way), listed in the manifest and never reported.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::bits::or_bits;
use super::clean::{clean, remove_sidecars};
use super::lock::WriterLock;
use super::manifest::{subindex_path, Manifest, Provenance, SubIndex, SubIndexKind, PADDING_NAME};
use super::merge_summaries::{self, Source};
use super::{crash, time, CollectionError};
use crate::builder::output::PendingFile;
use crate::format::{
    write_compact_header, CompactLayout, HeaderOptions, IndexHeader, CHECKSUM_PAGE_BYTES,
};
use crate::io::{open_engine, EngineOptions, ReadEngine};
use crate::query::Index;
use crate::read::{read_range, with_layers, LayerScratch};

/// What to merge.
#[derive(Clone, Debug)]
pub struct MergeOptions {
    /// The collection.
    pub directory: PathBuf,
    /// Shown documents per merged sub-index at most.
    pub max_documents: u64,
    /// Plan only; change nothing.
    pub dry_run: bool,
    /// Memory for rows being re-packed.
    pub memory_bytes: u64,
}

/// One merged sub-index to write.
#[derive(Clone, Debug, serde::Serialize)]
pub struct PlannedOutput {
    /// The sub-indexes it replaces, in order.
    pub members: Vec<String>,
    /// Bytes per row.
    pub page_size: u64,
    /// Shown documents.
    pub documents: u64,
    /// Removed documents dropped.
    pub documents_dropped: u64,
    /// Placeholder documents filling re-packed blocks.
    pub placeholders: u64,
    /// Blocks copied verbatim.
    pub blocks_copied: u64,
    /// Blocks re-packed column by column.
    pub blocks_repacked: u64,
    /// Size of the new file (0 when every document was removed: nothing is written).
    pub bytes: u64,
    /// Size of the files it replaces.
    pub bytes_before: u64,
}

/// What a merge will do.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct MergePlan {
    /// New sub-indexes.
    pub outputs: Vec<PlannedOutput>,
    /// Sub-indexes left as they are.
    pub untouched: Vec<String>,
}

/// What a merge did.
#[derive(Clone, Debug, serde::Serialize)]
pub struct MergeReport {
    /// The plan carried out (or, with `dry_run`, only shown).
    pub plan: MergePlan,
    /// The new sub-index files.
    pub written: Vec<String>,
    /// The manifest's generation after the commit.
    pub generation: u64,
}

/// A sub-index taking part in a merge.
struct Member {
    entry: SubIndex,
    header: IndexHeader,
    visible: Vec<bool>,
}

/// A block of the merged file.
enum OutBlock {
    /// Block `block` of member `member`, byte for byte.
    Copy { member: usize, block: usize },
    /// Columns of blocks with `rows` rows, then `placeholders` zero columns.
    Pack {
        rows: u64,
        columns: Vec<Column>,
        placeholders: u64,
    },
}

/// A document's bit column: column `column` of block `block` of member `member`.
#[derive(Clone, Copy, Debug)]
struct Column {
    member: usize,
    block: usize,
    column: u64,
}

/// Merges the collection as `options` say; see the module documentation.
pub fn merge(options: &MergeOptions) -> Result<MergeReport, CollectionError> {
    let directory = &options.directory;
    if !super::is_collection(directory) {
        return Err(CollectionError::Invalid(format!(
            "{}: not a bitsift collection (no collection.json)",
            directory.display()
        )));
    }
    if options.max_documents == 0 {
        return Err(CollectionError::Invalid(
            "the largest merged sub-index must hold at least one document".into(),
        ));
    }
    let _lock = WriterLock::acquire(directory)?;
    let mut manifest = Manifest::load(directory)?;
    if !options.dry_run {
        clean(directory, Some(&manifest))?;
    }
    let groups = plan_groups(&manifest, options.max_documents);
    let mut plan = MergePlan {
        outputs: Vec::new(),
        untouched: untouched(&manifest, &groups),
    };
    let mut layouts = Vec::new();
    for group in &groups {
        let members = open_members(directory, &manifest, group)?;
        let blocks = plan_blocks(&members);
        plan.outputs.push(describe(&members, &blocks));
        layouts.push((members, blocks));
    }
    if options.dry_run || groups.is_empty() {
        return Ok(MergeReport {
            plan,
            written: Vec::new(),
            generation: manifest.generation,
        });
    }
    let written = write_outputs(options, &mut manifest, &groups, &layouts)?;
    Ok(MergeReport {
        plan,
        written,
        generation: manifest.generation,
    })
}

/// Writes every merged file, commits the manifest, then deletes the replaced files.
fn write_outputs(
    options: &MergeOptions,
    manifest: &mut Manifest,
    groups: &[Vec<usize>],
    layouts: &[(Vec<Member>, Vec<OutBlock>)],
) -> Result<Vec<String>, CollectionError> {
    let directory = &options.directory;
    let mut replacements: Vec<(usize, Option<SubIndex>)> = Vec::new();
    let mut written: Vec<String> = Vec::new();
    for (group, (members, blocks)) in groups.iter().zip(layouts) {
        if blocks.is_empty() {
            replacements.push((group[0], None));
            continue;
        }
        let file = manifest.reserve_file("cobs_compact");
        let result = write_merged(directory, &file, members, blocks, options);
        match result {
            Ok(entry) => {
                written.push(file);
                replacements.push((group[0], Some(entry)));
            }
            Err(error) => {
                for file in &written {
                    let _ = std::fs::remove_file(subindex_path(directory, file));
                    let _ = remove_sidecars(directory, file);
                }
                return Err(error);
            }
        }
        crash::point("merge-wrote-one");
    }
    crash::point("merge-written");
    let replaced: Vec<String> = groups
        .iter()
        .flatten()
        .map(|&i| manifest.subindexes[i].file.clone())
        .collect();
    let mut next = Vec::with_capacity(manifest.subindexes.len());
    let in_group: std::collections::HashSet<usize> = groups.iter().flatten().copied().collect();
    for (position, sub) in manifest.subindexes.iter().enumerate() {
        if let Some((_, replacement)) = replacements.iter().find(|(at, _)| *at == position) {
            next.extend(replacement.iter().cloned());
        } else if !in_group.contains(&position) {
            next.push(sub.clone());
        }
    }
    manifest.subindexes = next;
    manifest.commit(directory)?;
    crash::point("merge-committed");
    for file in replaced {
        let path = subindex_path(directory, &file);
        if let Err(error) = std::fs::remove_file(&path) {
            tracing::warn!(
                "{}: cannot remove the merged sub-index: {error}; the next writer removes it",
                path.display()
            );
        }
        let _ = remove_sidecars(directory, &file);
    }
    Ok(written)
}

/// Groups of manifest positions to merge: compact sub-indexes of equal page size, in
/// manifest order, each group up to `max_documents` shown documents. A sub-index with
/// nothing to drop and no partner is left alone.
fn plan_groups(manifest: &Manifest, max_documents: u64) -> Vec<Vec<usize>> {
    let mut by_page_size: Vec<(u64, Vec<usize>)> = Vec::new();
    for (position, sub) in manifest.subindexes.iter().enumerate() {
        if sub.kind != SubIndexKind::Compact {
            continue;
        }
        match by_page_size.iter_mut().find(|(p, _)| *p == sub.page_size) {
            Some((_, members)) => members.push(position),
            None => by_page_size.push((sub.page_size, vec![position])),
        }
    }
    let dirty = |sub: &SubIndex| !sub.hidden.is_empty();
    let mut groups = Vec::new();
    for (_, positions) in by_page_size {
        let mut current: Vec<usize> = Vec::new();
        let mut current_documents = 0;
        let mut flush = |current: &mut Vec<usize>| {
            let alone_and_clean = current.len() == 1 && !dirty(&manifest.subindexes[current[0]]);
            if !current.is_empty() && !alone_and_clean {
                groups.push(current.clone());
            }
            current.clear();
        };
        for position in positions {
            let sub = &manifest.subindexes[position];
            let shown = sub.visible_count();
            if !dirty(sub) && shown >= max_documents {
                continue;
            }
            if !current.is_empty() && current_documents + shown > max_documents {
                flush(&mut current);
                current_documents = 0;
            }
            current.push(position);
            current_documents += shown;
        }
        flush(&mut current);
    }
    groups.sort_by_key(|group| group[0]);
    groups
}

fn untouched(manifest: &Manifest, groups: &[Vec<usize>]) -> Vec<String> {
    let merged: std::collections::HashSet<usize> = groups.iter().flatten().copied().collect();
    manifest
        .subindexes
        .iter()
        .enumerate()
        .filter(|(position, _)| !merged.contains(position))
        .map(|(_, sub)| sub.file.clone())
        .collect()
}

fn open_members(
    directory: &Path,
    manifest: &Manifest,
    group: &[usize],
) -> Result<Vec<Member>, CollectionError> {
    group
        .iter()
        .map(|&position| {
            let entry = manifest.subindexes[position].clone();
            let header = IndexHeader::open(&subindex_path(directory, &entry.file))?;
            if header.document_count() != entry.document_count {
                return Err(CollectionError::Manifest {
                    path: header.path.clone(),
                    detail: format!(
                        "has {} documents but the collection manifest records {}; the sub-index was changed outside bitsift",
                        header.document_count(),
                        entry.document_count
                    ),
                });
            }
            let visible = entry.visible_mask();
            Ok(Member {
                entry,
                header,
                visible,
            })
        })
        .collect()
}

/// The blocks of the merged file: full clean blocks copied, the rest re-packed by row count.
fn plan_blocks(members: &[Member]) -> Vec<OutBlock> {
    let page_size = members[0].header.page_size;
    let per_block = 8 * page_size;
    let mut blocks = Vec::new();
    let mut pools: Vec<(u64, Vec<Column>)> = Vec::new();
    for (member_number, member) in members.iter().enumerate() {
        for (block_number, block) in member.header.blocks.iter().enumerate() {
            let shown: Vec<u64> = (0..block.document_count)
                .filter(|&c| member.visible[(block.first_document + c) as usize])
                .collect();
            if shown.len() as u64 == per_block {
                blocks.push(OutBlock::Copy {
                    member: member_number,
                    block: block_number,
                });
                continue;
            }
            let columns = shown.into_iter().map(|column| Column {
                member: member_number,
                block: block_number,
                column,
            });
            match pools.iter_mut().find(|(rows, _)| *rows == block.row_count) {
                Some((_, pool)) => pool.extend(columns),
                None => pools.push((block.row_count, columns.collect())),
            }
        }
    }
    let mut partial = Vec::new();
    for (rows, pool) in pools {
        for chunk in pool.chunks(per_block as usize) {
            let block = OutBlock::Pack {
                rows,
                columns: chunk.to_vec(),
                placeholders: per_block - chunk.len() as u64,
            };
            if chunk.len() as u64 == per_block {
                blocks.push(block);
            } else {
                partial.push(block);
            }
        }
    }
    blocks.extend(partial);
    if let Some(OutBlock::Pack { placeholders, .. }) = blocks.last_mut() {
        *placeholders = 0;
    }
    blocks
}

fn block_rows(members: &[Member], block: &OutBlock) -> u64 {
    match block {
        OutBlock::Copy { member, block } => members[*member].header.blocks[*block].row_count,
        OutBlock::Pack { rows, .. } => *rows,
    }
}

/// Names of the merged file in header order, and the placeholders' numbers.
fn merged_names<'a>(members: &'a [Member], blocks: &[OutBlock]) -> (Vec<&'a str>, Vec<u64>) {
    let mut names = Vec::new();
    let mut padding = Vec::new();
    for out in blocks {
        match out {
            OutBlock::Copy { member, block } => {
                let header = &members[*member].header;
                let block = &header.blocks[*block];
                for d in block.first_document..block.first_document + block.document_count {
                    names.push(header.names.get(d as usize));
                }
            }
            OutBlock::Pack {
                columns,
                placeholders,
                ..
            } => {
                for c in columns {
                    let header = &members[c.member].header;
                    let first = header.blocks[c.block].first_document;
                    names.push(header.names.get((first + c.column) as usize));
                }
                for _ in 0..*placeholders {
                    padding.push(names.len() as u64);
                    names.push(PADDING_NAME);
                }
            }
        }
    }
    (names, padding)
}

fn describe(members: &[Member], blocks: &[OutBlock]) -> PlannedOutput {
    let page_size = members[0].header.page_size;
    let (names, padding) = merged_names(members, blocks);
    let header_bytes = if blocks.is_empty() {
        0
    } else {
        write_compact_header(&layout(members, blocks), names.iter().copied())
            .map_or(0, |h| h.len() as u64)
    };
    let data: u64 = blocks
        .iter()
        .map(|b| block_rows(members, b) * page_size)
        .sum();
    let before_documents: u64 = members.iter().map(|m| m.entry.visible_count()).sum();
    let shown = names.len() as u64 - padding.len() as u64;
    PlannedOutput {
        members: members.iter().map(|m| m.entry.file.clone()).collect(),
        page_size,
        documents: shown,
        documents_dropped: members
            .iter()
            .map(|m| m.entry.document_count - m.entry.padding.len() as u64)
            .sum::<u64>()
            - before_documents,
        placeholders: padding.len() as u64,
        blocks_copied: blocks
            .iter()
            .filter(|b| matches!(b, OutBlock::Copy { .. }))
            .count() as u64,
        blocks_repacked: blocks
            .iter()
            .filter(|b| matches!(b, OutBlock::Pack { .. }))
            .count() as u64,
        bytes: if blocks.is_empty() {
            0
        } else {
            header_bytes + data
        },
        bytes_before: members.iter().map(|m| m.header.file_size).sum(),
    }
}

fn layout(members: &[Member], blocks: &[OutBlock]) -> CompactLayout {
    let first = &members[0].header;
    CompactLayout {
        k: first.k,
        canonical: first.canonical,
        num_hashes: first.num_hashes,
        page_size: first.page_size,
        block_rows: blocks.iter().map(|b| block_rows(members, b)).collect(),
    }
}

/// Writes one merged file as `file` (atomically) and returns its manifest entry.
fn write_merged(
    directory: &Path,
    file: &str,
    members: &[Member],
    blocks: &[OutBlock],
    options: &MergeOptions,
) -> Result<SubIndex, CollectionError> {
    let path = subindex_path(directory, file);
    let (names, padding) = merged_names(members, blocks);
    let layout = layout(members, blocks);
    let header = write_compact_header(&layout, names.iter().copied())
        .map_err(|detail| CollectionError::Invalid(format!("{}: {detail}", path.display())))?;
    let mut files = Sources::open(members)?;
    // The checksum sidecar is computed from the bytes as they are written and committed
    // with the file; summaries (issue 14) are not written for merged files.
    let mut pending = PendingFile::create_index(&path, false, header.len() as u64)?;
    pending.write_all(&header)?;
    for out in blocks {
        match out {
            OutBlock::Copy { member, block } => {
                let block = &members[*member].header.blocks[*block];
                files.read(
                    *member,
                    block.data_offset,
                    block.data_bytes(),
                    &mut |bytes| Ok(pending.write_all(bytes)?),
                )?;
            }
            OutBlock::Pack { rows, columns, .. } => {
                repack(
                    members,
                    &mut files,
                    *rows,
                    columns,
                    layout.page_size,
                    options.memory_bytes,
                    &mut pending,
                )?;
            }
        }
    }
    let expected = header.len() as u64 + layout.data_bytes();
    assert_eq!(
        pending.written(),
        expected,
        "merged file size follows its layout"
    );
    pending.commit()?;
    let written = IndexHeader::open(&path)?;
    assert_eq!(written.document_count(), names.len() as u64);
    // Summaries from the members' (a crash before the manifest names the file leaves both
    // to the next clean).
    let packed: Vec<Vec<(usize, usize)>> = blocks
        .iter()
        .map(|out| match out {
            OutBlock::Pack { columns, .. } => {
                let mut parts: Vec<(usize, usize)> =
                    columns.iter().map(|c| (c.member, c.block)).collect();
                parts.sort_unstable();
                parts.dedup();
                parts
            }
            OutBlock::Copy { .. } => Vec::new(),
        })
        .collect();
    let sources: Vec<Source> = blocks
        .iter()
        .zip(&packed)
        .map(|(out, parts)| match out {
            OutBlock::Copy { member, block } => Source::Copy {
                member: *member,
                block: *block,
            },
            OutBlock::Pack { .. } => Source::Pack(parts),
        })
        .collect();
    let headers: Vec<&IndexHeader> = members.iter().map(|m| &m.header).collect();
    merge_summaries::write(&headers, &sources, &written)?;
    Ok(SubIndex {
        file: file.to_string(),
        kind: SubIndexKind::Compact,
        page_size: written.page_size,
        blocks: written.blocks.len() as u64,
        bytes: written.file_size,
        document_count: written.document_count(),
        names_digest: Some(written.names.digest()),
        documents: names.iter().map(|n| n.to_string()).collect(),
        hidden: Vec::new(),
        padding,
        created: time::now_rfc3339(),
        provenance: Provenance {
            bitsift_version: env!("CARGO_PKG_VERSION").into(),
            command: "merge".into(),
            options: serde_json::json!({ "max_documents": options.max_documents }),
            inputs: members.iter().map(|m| m.entry.file.clone()).collect(),
        },
    })
}

/// The members' files, read through the read path ([`crate::read`]): every byte a merge
/// copies is checked against its sub-index's checksums first, so a damaged page fails the
/// merge instead of entering the merged file under fresh checksums.
struct Sources {
    index: Arc<Index>,
    engine: Box<dyn ReadEngine>,
    layers: LayerScratch,
    buffer: Vec<u8>,
}

impl Sources {
    fn open(members: &[Member]) -> Result<Sources, CollectionError> {
        let paths: Vec<PathBuf> = members.iter().map(|m| m.header.path.clone()).collect();
        let index = Index::open(&paths, &HeaderOptions::default())?;
        let engine = open_engine(index.read_paths(), &EngineOptions::default())?.engine;
        Ok(Sources {
            index,
            engine,
            layers: LayerScratch::default(),
            buffer: Vec::new(),
        })
    }

    /// Hands bytes `offset..offset + len` of member `member` to `sink`, checked, in order.
    fn read(
        &mut self,
        member: usize,
        offset: u64,
        len: u64,
        sink: &mut dyn FnMut(&[u8]) -> Result<(), CollectionError>,
    ) -> Result<(), CollectionError> {
        let layers = self.index.layers(None);
        let alignment = self.engine.alignment().max(CHECKSUM_PAGE_BYTES);
        let buffer = &mut self.buffer;
        with_layers(self.engine.as_mut(), &layers, &mut self.layers, |engine| {
            read_range(engine, alignment, member as u32, offset, len, buffer, sink)
        })?;
        Ok(())
    }
}

/// A run of adjacent columns of one source block that land adjacent in the new block.
struct Run {
    source: usize,
    from: usize,
    to: usize,
    len: usize,
}

/// Writes a block of `rows` rows holding `columns` (then zero columns), reading the source
/// blocks' rows in chunks that fit `memory_bytes`.
fn repack(
    members: &[Member],
    files: &mut Sources,
    rows: u64,
    columns: &[Column],
    page_size: u64,
    memory_bytes: u64,
    pending: &mut PendingFile,
) -> Result<(), CollectionError> {
    let mut sources: Vec<(usize, usize)> = Vec::new();
    let mut source_of: HashMap<(usize, usize), usize> = HashMap::new();
    let mut runs: Vec<Run> = Vec::new();
    for (to, c) in columns.iter().enumerate() {
        let source = *source_of.entry((c.member, c.block)).or_insert_with(|| {
            sources.push((c.member, c.block));
            sources.len() - 1
        });
        let from = c.column as usize;
        match runs.last_mut() {
            Some(run)
                if run.source == source && run.from + run.len == from && run.to + run.len == to =>
            {
                run.len += 1
            }
            _ => runs.push(Run {
                source,
                from,
                to,
                len: 1,
            }),
        }
    }
    let row_bytes = page_size as usize;
    let buffers_per_row = (sources.len() + 1) as u64 * page_size;
    let chunk_rows = (memory_bytes / buffers_per_row).clamp(1, rows.max(1)) as usize;
    let mut inputs: Vec<Vec<u8>> = vec![Vec::new(); sources.len()];
    let mut out = Vec::new();
    let mut row = 0u64;
    while row < rows {
        let count = chunk_rows.min((rows - row) as usize);
        for ((member, block), buffer) in sources.iter().zip(&mut inputs) {
            let header = &members[*member].header;
            let block = &header.blocks[*block];
            assert_eq!(block.row_count, rows, "re-packed columns share a row count");
            buffer.clear();
            files.read(
                *member,
                block.row_offset(row),
                (count * row_bytes) as u64,
                &mut |bytes| {
                    buffer.extend_from_slice(bytes);
                    Ok(())
                },
            )?;
        }
        out.clear();
        out.resize(count * row_bytes, 0);
        for r in 0..count {
            let target = &mut out[r * row_bytes..(r + 1) * row_bytes];
            for run in &runs {
                let source = &inputs[run.source][r * row_bytes..(r + 1) * row_bytes];
                or_bits(source, run.from, target, run.to, run.len);
            }
        }
        pending.write_all(&out)?;
        row += count as u64;
    }
    Ok(())
}
