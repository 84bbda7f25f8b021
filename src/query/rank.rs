//! From counters to the reported documents: COBS's threshold, order and limit.

use super::counters::Counters;
use super::grouping::{GroupTally, Grouping};
use super::hit::{count_threshold, Hit};
use super::index::HiddenDocuments;
use super::plan::PlanBlock;

/// How to select and order documents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct RankOptions {
    /// Fraction of k-mers required; the count threshold is `ceil(threshold · n)` in f64 as in
    /// COBS, so 0 reports every document.
    pub threshold: f64,
    /// At most this many (0 = all).
    pub limit: usize,
    /// Skip this many of the ranked documents first (paging through a large answer).
    pub offset: usize,
    /// Keep document order instead of sorting (COBS does this when a query has one lookup).
    pub unsorted: bool,
}

/// What [`rank`] selected.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Ranked {
    /// The documents shown: `offset..offset + limit` of the ranking.
    pub hits: Vec<Hit>,
    /// Every document that reached the threshold (before offset and limit).
    pub total: u64,
    /// Hits by group, over all of them (with a grouping).
    pub groups: Vec<GroupTally>,
}

/// Selects the documents of query `query`, as [`rank_kept`] with every document kept.
#[cfg(test)]
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank(
    blocks: &[PlanBlock],
    counters: &Counters,
    query: usize,
    kmers_total: &[u64],
    options: &RankOptions,
    include: impl Fn(u32) -> bool,
    hidden: &[Option<HiddenDocuments>],
    grouping: Option<(&Grouping, Option<u32>)>,
) -> Ranked {
    let everything = |_: u32, _: u64, _: u64| true;
    let filter = (include, everything);
    rank_kept(
        blocks,
        counters,
        query,
        kmers_total,
        options,
        filter,
        hidden,
        grouping,
    )
}

/// Selects the documents of query `query` whose count reaches the threshold of their index,
/// over the blocks whose index `filter.0` accepts, and orders them by score descending, then
/// index, then document (COBS's order). Documents in `hidden[index]` are never reported, nor
/// those `filter.1` refuses (called with block number, position in the block and count: a
/// corrected search's test, [`super::correct`]); they are dropped before totals, groups,
/// offset and limit. With a grouping, the hits are tallied by group, and with a group too
/// (its number), only that group's hits are shown.
#[allow(clippy::too_many_arguments)]
pub(crate) fn rank_kept<I, K>(
    blocks: &[PlanBlock],
    counters: &Counters,
    query: usize,
    kmers_total: &[u64],
    options: &RankOptions,
    filter: (I, K),
    hidden: &[Option<HiddenDocuments>],
    grouping: Option<(&Grouping, Option<u32>)>,
) -> Ranked
where
    I: Fn(u32) -> bool,
    K: Fn(u32, u64, u64) -> bool,
{
    let (include, keep) = filter;
    let mut hits = Vec::new();
    for (number, block) in blocks.iter().enumerate() {
        if !include(block.index) {
            continue;
        }
        let needed = count_threshold(options.threshold, kmers_total[block.index as usize]);
        let view = counters.view(counters.unit_index(query as u32, number as u32));
        let hidden = hidden.get(block.index as usize).and_then(Option::as_ref);
        view.for_each_at_least(needed, block.document_count, |local, count| {
            let document = block.first_document + local;
            if hidden.is_some_and(|h| h.contains(document)) || !keep(number as u32, local, count) {
                return;
            }
            hits.push(Hit {
                index: block.index,
                document,
                kmers_found: u32::try_from(count).unwrap_or(u32::MAX),
            });
        });
    }
    let total = hits.len() as u64;
    let groups = grouping.map_or_else(Vec::new, |(g, _)| g.tally(&hits, kmers_total, &include));
    if let Some((grouping, Some(only))) = grouping {
        hits.retain(|hit| grouping.group_of(hit) == only);
    }
    page(&mut hits, options);
    Ranked {
        hits,
        total,
        groups,
    }
}

/// Orders `hits` (in document order) and keeps `offset..offset + limit` of them.
fn page(hits: &mut Vec<Hit>, options: &RankOptions) {
    // Blocks are visited in (index, document) order, so `hits` already is in document order.
    let end = match options.limit {
        0 => hits.len(),
        limit => options.offset.saturating_add(limit).min(hits.len()),
    };
    if !options.unsorted {
        let order = |a: &Hit, b: &Hit| {
            b.kmers_found
                .cmp(&a.kmers_found)
                .then(a.index.cmp(&b.index))
                .then(a.document.cmp(&b.document))
        };
        if end > 0 && end < hits.len() {
            hits.select_nth_unstable_by(end - 1, order);
        }
        hits.truncate(end);
        hits.sort_unstable_by(order);
    }
    hits.truncate(end);
    hits.drain(..options.offset.min(hits.len()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::counters::Unit;

    fn block(index: u32, docs: u64, first: u64) -> PlanBlock {
        PlanBlock {
            index,
            file: index,
            data_offset: 0,
            row_count: 1,
            row_bytes: docs.div_ceil(8),
            used_bytes: docs.div_ceil(8),
            num_hashes: 1,
            document_count: docs,
            first_document: first,
            rows: crate::format::RowMap::new(crate::format::RowLayout::Cobs, 1),
        }
    }

    /// Counters of one query over `blocks` holding `scores` (per block, per document).
    fn counters(blocks: &[PlanBlock], scores: &[Vec<u32>]) -> Counters {
        let mut counters = Counters::default();
        counters.reset(blocks, 1, |_, _, _| (Unit::new(10, 0, false), true));
        for (number, (block, scores)) in blocks.iter().zip(scores).enumerate() {
            let unit = counters.unit_index(0, number as u32);
            for (document, &score) in scores.iter().enumerate() {
                let mut row = vec![0u8; block.used_bytes as usize];
                row[document / 8] |= 1 << (document % 8);
                if score > 0 {
                    counters.slice_mut().counters(unit).add_row(&row, score);
                }
            }
        }
        counters
    }

    #[test]
    fn threshold_is_ceil_in_f64() {
        assert_eq!(count_threshold(0.8, 10), 8);
        assert_eq!(count_threshold(0.8, 11), 9);
        assert_eq!(count_threshold(0.0, 11), 0);
        assert_eq!(count_threshold(1.0, 7), 7);
        // 0.28 · 25 = 7.000000000000001 in f64, so COBS asks for 8 (verified against COBS).
        assert_eq!(count_threshold(0.28, 25), 8);
        assert_eq!(count_threshold(0.3, 10), 3);
    }

    #[test]
    fn order_is_score_then_index_then_document() {
        let blocks = vec![block(0, 4, 0), block(1, 3, 0)];
        let counters = counters(&blocks, &[vec![5, 9, 9, 0], vec![9, 1, 5]]);
        let all = RankOptions {
            threshold: 0.0,
            limit: 0,
            offset: 0,
            unsorted: false,
        };
        let hits = rank(&blocks, &counters, 0, &[10, 10], &all, |_| true, &[], None).hits;
        let only_second = rank(
            &blocks,
            &counters,
            0,
            &[10, 10],
            &all,
            |index| index == 1,
            &[],
            None,
        )
        .hits;
        assert!(only_second.iter().all(|h| h.index == 1));
        assert_eq!(only_second.len(), 3);
        let keys: Vec<(u32, u64, u32)> = hits
            .iter()
            .map(|h| (h.index, h.document, h.kmers_found))
            .collect();
        assert_eq!(
            keys,
            vec![
                (0, 1, 9),
                (0, 2, 9),
                (1, 0, 9),
                (0, 0, 5),
                (1, 2, 5),
                (1, 1, 1),
                (0, 3, 0)
            ]
        );
        let top = rank(
            &blocks,
            &counters,
            0,
            &[10, 10],
            &RankOptions {
                threshold: 0.5,
                limit: 2,
                offset: 0,
                unsorted: false,
            },
            |_| true,
            &[],
            None,
        );
        assert_eq!(
            top.total, 5,
            "every document reaching 0.5, whatever the limit"
        );
        let top = top.hits;
        assert_eq!(top.len(), 2);
        assert_eq!((top[0].document, top[1].document), (1, 2));
        let unsorted = rank(
            &blocks,
            &counters,
            0,
            &[10, 10],
            &RankOptions {
                threshold: 0.0,
                limit: 0,
                offset: 0,
                unsorted: true,
            },
            |_| true,
            &[],
            None,
        )
        .hits;
        assert_eq!(unsorted[0].document, 0);
        // Pages of two, one after the other, are the whole ranking.
        let mut pages = Vec::new();
        for offset in (0..8).step_by(2) {
            let options = RankOptions {
                threshold: 0.0,
                limit: 2,
                offset,
                unsorted: false,
            };
            pages.extend(
                rank(
                    &blocks,
                    &counters,
                    0,
                    &[10, 10],
                    &options,
                    |_| true,
                    &[],
                    None,
                )
                .hits,
            );
        }
        assert_eq!(pages, hits);
        assert_eq!(unsorted[0].kmers_found, 5);
    }

    #[test]
    fn hidden_documents_are_dropped_before_the_limit() {
        let blocks = vec![block(0, 4, 0), block(1, 3, 0)];
        let counters = counters(&blocks, &[vec![5, 9, 9, 0], vec![9, 1, 5]]);
        assert!(!HiddenDocuments::default().contains(1));
        let hidden = vec![Some(hidden_set(&[1, 2], 4)), None];
        let options = RankOptions {
            threshold: 0.5,
            limit: 2,
            offset: 0,
            unsorted: false,
        };
        let top = rank(
            &blocks,
            &counters,
            0,
            &[10, 10],
            &options,
            |_| true,
            &hidden,
            None,
        );
        assert_eq!(top.total, 3, "hidden documents are not counted");
        let top = top.hits;
        let keys: Vec<(u32, u64)> = top.iter().map(|h| (h.index, h.document)).collect();
        // (0, 1) and (0, 2) score 9 but are hidden; the limit still yields two documents.
        assert_eq!(keys, vec![(1, 0), (0, 0)]);
    }

    fn hidden_set(documents: &[u64], count: u64) -> HiddenDocuments {
        let mut words = vec![0u64; count.div_ceil(64) as usize];
        for &d in documents {
            words[(d / 64) as usize] |= 1 << (d % 64);
        }
        HiddenDocuments::from_words(words)
    }
}
