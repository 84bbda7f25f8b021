//! `merge`: combines compatible sub-indexes (same k, canonical form and hash functions) into
//! larger ones with fewer, fuller blocks, and drops removed documents, without reading a
//! genome.
//!
//! A COBS compact file is a header and independent blocks, and a document's Bloom filter is
//! its bit column in its block. A block whose documents are all shown, and whose page size the
//! merged file keeps, is copied verbatim. The shown documents of the other blocks (partly
//! filled blocks of small additions, blocks with removed documents or placeholders) are
//! re-packed: their bit columns are copied into new blocks, row by row, each tiled to the new
//! block's rows when its own row count divides them (the exact same filter: every score is
//! unchanged) or, within a false-positive bound, folded ([`super::merge_plan`] has the
//! arithmetic). Columns whose row counts do neither cannot share a block; only a rebuild from
//! the genomes can put them together, and the report says so. Sub-indexes added with
//! power-of-two row counts (`bitsift add --rows power-of-two`) always tile.
//!
//! When the collection does not fix a page size, the merged file gets the page size (a power
//! of two from its members' widest up to 4096) that gives the fewest blocks, then the fewest
//! bytes: every block costs one row read per k-mer hash. COBS wants every block but the last
//! to hold exactly `8 · page_size` documents; a re-packed block that is not full and not last
//! is filled with placeholder documents (zero columns, which take no room the block did not
//! already have: its rows are `page_size` bytes either way), listed in the manifest and never
//! reported.
//!
//! Nothing unchecked enters the collection: members are read through the checksum layer (a
//! damaged page fails the merge), and the merged file, its checksums and its block summaries
//! are verified ([`super::merge_check`]) before the manifest names it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::clean::{clean, remove_sidecars};
use super::lock::WriterLock;
use super::manifest::{subindex_path, Manifest, Provenance, SubIndex, SubIndexKind, PADDING_NAME};
use super::merge_plan::{self, Fills, Fold, OutBlock, Plan, SourceBlock};
use super::merge_record;
use super::merge_rows::{column_fills, repack, Sources};
use super::merge_summaries::{self, Source};
use super::{add, crash, merge_check, CollectionError};
use crate::builder::output::PendingFile;
use crate::format::ones::OnesCounter;
use crate::format::{write_compact_header, CompactLayout, FormatError, IndexHeader, RowLayout};

/// The widest page size a merge chooses by itself (one aligned 4 KiB page per row).
const PAGE_SIZE_MAX: u64 = 4096;

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
    /// The largest false-positive rate a document may get from folding its filter to share a
    /// block (`None`: the collection's target false-positive rate; 0: never fold).
    pub max_fpr: Option<f64>,
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
    /// Blocks of the members.
    pub blocks_before: u64,
    /// Blocks of the merged file.
    pub blocks: u64,
    /// Blocks the documents would need if they all had one row count: fewer than `blocks`
    /// only when row counts that neither divide nor fold keep blocks apart (a rebuild from
    /// the genomes could reach it).
    pub blocks_minimum: u64,
    /// Blocks copied verbatim.
    pub blocks_copied: u64,
    /// Blocks re-packed column by column.
    pub blocks_repacked: u64,
    /// Documents whose filters were folded to share a block.
    pub documents_folded: u64,
    /// The largest false-positive rate of a folded document (estimated from its bits set).
    pub fpr_folded_max: Option<f64>,
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
    /// Blocks of the whole collection before: the row reads of one k-mer hash.
    pub blocks_before: u64,
    /// Blocks of the whole collection after.
    pub blocks_after: u64,
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

/// One group's members, the blocks the planner saw, its plan and the fills it used.
struct Layout {
    members: Vec<Member>,
    sources: Vec<SourceBlock>,
    plan: Plan,
    fills: Fills,
    /// The widest page size the plan could choose.
    page_size_max: u64,
}

/// Merges the collection as `options` say; see the module documentation.
pub fn merge(options: &MergeOptions) -> Result<MergeReport, CollectionError> {
    let directory = &options.directory;
    super::manifest_file::require_manifest(directory)?;
    if options.max_documents == 0 {
        return Err(CollectionError::Invalid(
            "the largest merged sub-index must hold at least one document".into(),
        ));
    }
    if options.max_fpr.is_some_and(|f| !(0.0..1.0).contains(&f)) {
        return Err(CollectionError::Invalid(
            "the largest false-positive rate of a folded filter must be at least 0 and below 1"
                .into(),
        ));
    }
    let _lock = WriterLock::acquire(directory)?;
    let mut manifest = Manifest::load_for_writing(directory)?;
    if !options.dry_run {
        clean(directory, Some(&manifest))?;
    }
    let groups = plan_groups(&manifest, options.max_documents);
    let mut layouts = Vec::new();
    for group in &groups {
        let members = open_members(directory, &manifest, group)?;
        layouts.push(plan_group(&manifest, members, options)?);
    }
    let plan = describe_all(&manifest, &groups, &layouts)?;
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

/// The plan of one group: its page sizes to try, and folds within the bound (reading the bit
/// counts of the columns that might fold).
fn plan_group(
    manifest: &Manifest,
    members: Vec<Member>,
    options: &MergeOptions,
) -> Result<Layout, CollectionError> {
    let sources = source_blocks(&members);
    let page_sizes = page_sizes(manifest, &members);
    let bound = options
        .max_fpr
        .or(manifest.parameters.fpr)
        .filter(|&fpr| fpr > 0.0);
    let mut fills = Fills::new();
    if bound.is_some() {
        let wanted = merge_plan::fold_candidates(&sources, &page_sizes);
        if !wanted.is_empty() {
            let headers: Vec<&IndexHeader> = members.iter().map(|m| &m.header).collect();
            let mut files = Sources::open(&paths(&members))?;
            fills = column_fills(&headers, &mut files, &wanted, options.memory_bytes)?;
        }
    }
    let fold = bound.map(|fpr_max| Fold {
        fpr_max,
        hashes: members[0].header.num_hashes,
        fills: &fills,
    });
    let plan = merge_plan::plan(&sources, &page_sizes, fold);
    // The widest page size holds each source block's columns in one block, so some plan
    // always has at most the members' blocks.
    assert!(
        plan.blocks.len() <= sources.len(),
        "a merge never adds blocks"
    );
    Ok(Layout {
        members,
        sources,
        plan,
        fills,
        page_size_max: page_sizes.last().copied().unwrap_or(1),
    })
}

/// The page sizes a merged file may have, narrowest first: the group's when the collection
/// fixes one (its groups share a page size); else the members' own and every power-of-two
/// multiple of the narrowest up to [`PAGE_SIZE_MAX`] (or the widest member's). The plan with
/// the fewest blocks wins, so rows are narrowed only where that costs no block.
fn page_sizes(manifest: &Manifest, members: &[Member]) -> Vec<u64> {
    let own: Vec<u64> = members.iter().map(|m| m.header.page_size).collect();
    let narrowest = own.iter().copied().min().unwrap_or(1);
    let widest = own.iter().copied().max().unwrap_or(1);
    if manifest.parameters.page_size.is_some() {
        return vec![widest];
    }
    let mut sizes = own;
    let mut size = narrowest;
    while size <= PAGE_SIZE_MAX.max(widest) {
        sizes.push(size);
        size *= 2;
    }
    sizes.sort_unstable();
    sizes.dedup();
    sizes
}

fn paths(members: &[Member]) -> Vec<PathBuf> {
    members.iter().map(|m| m.header.path.clone()).collect()
}

/// Every block of every member, with its shown columns.
fn source_blocks(members: &[Member]) -> Vec<SourceBlock> {
    let mut sources = Vec::new();
    for (member_number, member) in members.iter().enumerate() {
        for (block_number, block) in member.header.blocks.iter().enumerate() {
            sources.push(SourceBlock {
                member: member_number,
                block: block_number,
                rows: block.row_count,
                page_size: member.header.page_size,
                documents: block.document_count,
                shown: (0..block.document_count)
                    .filter(|&c| member.visible[(block.first_document + c) as usize])
                    .collect(),
            });
        }
    }
    sources
}
/// Groups of manifest positions to merge, in manifest order, each up to `max_documents` shown
/// documents: every compact sub-index of one row layout together, or, when the collection
/// fixes a page size, those of each page size apart (a file has one row layout, and rows laid
/// out one way cannot be moved to the other without the genomes). A sub-index with nothing to
/// drop and no partner is left alone.
fn plan_groups(manifest: &Manifest, max_documents: u64) -> Vec<Vec<usize>> {
    let fixed = manifest.parameters.page_size.is_some();
    let mut by_page_size: Vec<((u64, RowLayout), Vec<usize>)> = Vec::new();
    for (position, sub) in manifest.subindexes.iter().enumerate() {
        if sub.kind != SubIndexKind::Compact {
            continue;
        }
        let key = (if fixed { sub.page_size } else { 0 }, sub.layout);
        match by_page_size.iter_mut().find(|(p, _)| *p == key) {
            Some((_, members)) => members.push(position),
            None => by_page_size.push((key, vec![position])),
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
            entry
                .check_header(&manifest.parameters, &header)
                .map_err(|detail| CollectionError::Manifest {
                    path: header.path.clone(),
                    detail: detail.to_string(),
                })?;
            // The merged file gets fresh checksums: bytes nobody could check must not get them.
            if !crate::format::sidecar_path(&header.path).is_file() {
                return Err(CollectionError::Unverified {
                    path: header.path.clone(),
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

/// Writes every merged file, commits the manifest, then deletes the replaced files.
fn write_outputs(
    options: &MergeOptions,
    manifest: &mut Manifest,
    groups: &[Vec<usize>],
    layouts: &[Layout],
) -> Result<Vec<String>, CollectionError> {
    let directory = &options.directory;
    let mut replacements: Vec<(usize, Option<SubIndex>)> = Vec::new();
    let mut written: Vec<String> = Vec::new();
    for (group, layout) in groups.iter().zip(layouts) {
        if layout.plan.blocks.is_empty() {
            replacements.push((group[0], None));
            continue;
        }
        let file = manifest.reserve_file("cobs_compact");
        match write_merged(directory, &file, layout, options) {
            Ok(entry) => {
                written.push(file);
                replacements.push((group[0], Some(entry)));
            }
            Err(error) => {
                for file in written.iter().chain([&file]) {
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
    let in_group: HashSet<usize> = groups.iter().flatten().copied().collect();
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

/// Names of the merged file in header order, and the placeholders' numbers.
fn merged_names<'a>(
    members: &'a [Member],
    blocks: &[OutBlock],
) -> Result<(Vec<&'a str>, Vec<u64>), FormatError> {
    let mut names = Vec::new();
    let mut padding = Vec::new();
    for source in merged_sources(members, blocks) {
        match source {
            Some((member, document)) => {
                names.push(members[member].header.names.get(document as usize)?)
            }
            None => {
                padding.push(names.len() as u64);
                names.push(PADDING_NAME);
            }
        }
    }
    Ok((names, padding))
}

/// Where each document of the merged file comes from, in header order: a member and its
/// document number, or `None` for a placeholder filling a re-packed block.
fn merged_sources(members: &[Member], blocks: &[OutBlock]) -> Vec<Option<(usize, u64)>> {
    let mut sources = Vec::new();
    for out in blocks {
        match out {
            OutBlock::Copy { member, block } => {
                let block = &members[*member].header.blocks[*block];
                let documents = block.first_document..block.first_document + block.document_count;
                sources.extend(documents.map(|d| Some((*member, d))));
            }
            OutBlock::Pack {
                columns,
                placeholders,
                ..
            } => {
                for c in columns {
                    let first = members[c.member].header.blocks[c.block].first_document;
                    sources.push(Some((c.member, first + c.column)));
                }
                sources.extend((0..*placeholders).map(|_| None));
            }
        }
    }
    sources
}

/// The collection-wide plan: every group's output, and the blocks before and after.
fn describe_all(
    manifest: &Manifest,
    groups: &[Vec<usize>],
    layouts: &[Layout],
) -> Result<MergePlan, FormatError> {
    let outputs: Vec<PlannedOutput> = layouts.iter().map(describe).collect::<Result<_, _>>()?;
    let blocks_before: u64 = manifest.subindexes.iter().map(|s| s.blocks).sum();
    let replaced: u64 = outputs.iter().map(|o| o.blocks_before).sum();
    let merged: u64 = outputs.iter().map(|o| o.blocks).sum();
    Ok(MergePlan {
        outputs,
        untouched: untouched(manifest, groups),
        blocks_before,
        blocks_after: blocks_before - replaced + merged,
    })
}

fn describe(layout: &Layout) -> Result<PlannedOutput, FormatError> {
    let Layout {
        members,
        sources,
        plan,
        fills,
        ..
    } = layout;
    let (names, padding) = merged_names(members, &plan.blocks)?;
    let header_bytes = if plan.blocks.is_empty() {
        0
    } else {
        write_compact_header(&compact_layout(layout), names.iter().copied())
            .map_or(0, |h| h.len() as u64)
    };
    let before_documents: u64 = members.iter().map(|m| m.entry.visible_count()).sum();
    let shown = names.len() as u64 - padding.len() as u64;
    let count = |copied: bool| {
        plan.blocks
            .iter()
            .filter(|b| matches!(b, OutBlock::Copy { .. }) == copied)
            .count() as u64
    };
    let folded: Vec<f64> = plan
        .folded()
        .map(|(c, factor)| {
            let set = fills.get(&c.source()).map_or(0, |f| f[c.column as usize]);
            merge_plan::folded_fpr(set, c.rows, factor, members[0].header.num_hashes)
        })
        .collect();
    Ok(PlannedOutput {
        members: members.iter().map(|m| m.entry.file.clone()).collect(),
        page_size: plan.page_size,
        documents: shown,
        documents_dropped: members
            .iter()
            .map(|m| m.entry.document_count - m.entry.padding.len() as u64)
            .sum::<u64>()
            - before_documents,
        placeholders: padding.len() as u64,
        blocks_before: members.iter().map(|m| m.header.blocks.len() as u64).sum(),
        blocks: plan.blocks.len() as u64,
        blocks_minimum: shown.div_ceil(8 * layout.page_size_max),
        blocks_copied: count(true),
        blocks_repacked: count(false),
        documents_folded: folded.len() as u64,
        fpr_folded_max: folded.iter().copied().reduce(f64::max),
        bytes: if plan.blocks.is_empty() {
            0
        } else {
            header_bytes + plan.data_bytes(sources)
        },
        bytes_before: members.iter().map(|m| m.header.file_size).sum(),
    })
}

fn compact_layout(layout: &Layout) -> CompactLayout {
    let first = &layout.members[0].header;
    assert!(
        layout.members.iter().all(|m| m.header.rows == first.rows),
        "a merge group shares one row layout"
    );
    CompactLayout {
        k: first.k,
        canonical: first.canonical,
        num_hashes: first.num_hashes,
        page_size: layout.plan.page_size,
        block_rows: layout
            .plan
            .blocks
            .iter()
            .map(|b| b.rows(&layout.sources))
            .collect(),
        rows: first.rows,
    }
}

/// Writes one merged file as `file` (atomically), its block summaries, checks them all, and
/// returns its manifest entry.
fn write_merged(
    directory: &Path,
    file: &str,
    layout: &Layout,
    options: &MergeOptions,
) -> Result<SubIndex, CollectionError> {
    let path = subindex_path(directory, file);
    let (names, padding) = merged_names(&layout.members, &layout.plan.blocks)?;
    write_rows(&path, layout, &names, options.memory_bytes)?;
    crash::damage("merge-output", &path);
    let written = IndexHeader::open(&path)?;
    // Summaries from the members' (a crash before the manifest names the file leaves both
    // to the next clean).
    let headers: Vec<&IndexHeader> = layout.members.iter().map(|m| &m.header).collect();
    let summaries = merge_summaries::write(&headers, &summary_sources(layout), &written)?;
    crash::damage("merge-summaries", &crate::summary::summary_path(&path));
    merge_check::check(&written, &names, summaries)?;
    let files: Vec<String> = layout
        .members
        .iter()
        .map(|m| m.entry.file.clone())
        .collect();
    let sources = merged_sources(&layout.members, &layout.plan.blocks);
    merge_record::write(&path, &headers, &files, &sources);
    let provenance = Provenance::now(
        "merge",
        serde_json::json!({
            "max_documents": options.max_documents,
            "max_fpr": options.max_fpr,
        }),
        files,
    );
    debug_assert_eq!(SubIndexKind::from(written.kind), SubIndexKind::Compact);
    let documents = names.iter().map(|n| n.to_string()).collect();
    Ok(add::entry_named(
        file.to_string(),
        &written,
        documents,
        padding,
        provenance,
    ))
}

/// Writes the merged file at `path`: header, then every block copied or re-packed from the
/// members (read through their checksums), with its checksum sidecar; commits both.
fn write_rows(
    path: &Path,
    layout: &Layout,
    names: &[&str],
    memory_bytes: u64,
) -> Result<(), CollectionError> {
    let members = &layout.members;
    let geometry = compact_layout(layout);
    let header = write_compact_header(&geometry, names.iter().copied())
        .map_err(|detail| CollectionError::Invalid(format!("{}: {detail}", path.display())))?;
    let headers: Vec<&IndexHeader> = members.iter().map(|m| &m.header).collect();
    let mut files = Sources::open(&paths(members))?;
    // The checksum sidecar is computed from the bytes as they are written and committed
    // with the file.
    let mut pending = PendingFile::create_index(path, false, header.len() as u64)?;
    pending.count_ones(OnesCounter::compact(
        header.len() as u64,
        geometry.page_size,
        &geometry.block_rows,
        names.len() as u64,
    ));
    pending.write_all(&header)?;
    for out in &layout.plan.blocks {
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
                let page_size = geometry.page_size;
                repack(
                    &headers,
                    &mut files,
                    *rows,
                    columns,
                    page_size,
                    memory_bytes,
                    &mut pending,
                )?;
            }
        }
    }
    let expected = header.len() as u64 + geometry.data_bytes();
    assert_eq!(
        pending.written(),
        expected,
        "merged file size follows its layout"
    );
    pending.commit()?;
    Ok(())
}

/// Where each merged block's summary comes from: a copied block's own, or the union of the
/// source blocks of a re-packed one's columns (folding and tiling change rows, never the
/// k-mers a block holds, which is all a summary records).
fn summary_sources(layout: &Layout) -> Vec<Source> {
    layout
        .plan
        .blocks
        .iter()
        .map(|out| match out {
            OutBlock::Copy { member, block } => Source::Copy {
                member: *member,
                block: *block,
            },
            OutBlock::Pack { columns, .. } => {
                let mut parts: Vec<(usize, usize)> = columns.iter().map(|c| c.source()).collect();
                parts.sort_unstable();
                parts.dedup();
                Source::Pack(parts)
            }
        })
        .collect()
}
