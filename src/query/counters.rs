//! The scores of a chunk of queries: one bit-sliced counter ([`super::sliced`]) and one
//! pruning state ([`Unit`]) per (block, query) *unit*.
//!
//! Units are numbered block-major (`block · queries + query`), so the units of a range of
//! blocks are contiguous: threads that score disjoint block ranges get disjoint slices
//! ([`CountersSlice::split_at_block`]). A unit has just enough planes for its query's k-mer
//! positions in the block's index, and lanes for the block's used row bytes.

use super::plan::PlanBlock;
use super::sliced::{planes_for, words_for, SlicedCounters, SlicedView};

/// Pruning state of one (block, query).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Unit {
    /// Positions the query must find (`T`); `u64::MAX` disables pruning for the unit.
    pub needed: u64,
    /// The query's positions in this block's index (`n`).
    pub positions: u64,
    /// Positions whose rows in this block have all been added.
    pub processed: u64,
    /// Check again once `processed` reaches this.
    pub next_check: u64,
    /// No document of the block can reach `needed` any more, or the query does not search
    /// this block's index.
    pub dead: bool,
    /// Killed by pruning (as opposed to not selected).
    pub pruned: bool,
}

impl Unit {
    /// A unit for a query of `positions` positions needing `needed` of them.
    pub(crate) fn new(positions: u64, needed: u64, pruning: bool) -> Unit {
        let allowed_misses = positions.saturating_sub(needed);
        Unit {
            needed: if pruning && needed > 0 {
                needed
            } else {
                u64::MAX
            },
            positions,
            processed: 0,
            // Before more than `allowed_misses` positions are in, nobody can be excluded.
            next_check: allowed_misses + 1,
            dead: false,
            pruned: false,
        }
    }

    /// Records `weight` more processed positions; when a check is due, asks `can_reach` whether
    /// any document can still reach the given count, and kills the unit if none can. Returns
    /// whether the unit died now.
    #[inline]
    pub(crate) fn advance(&mut self, weight: u64, can_reach: impl FnOnce(u64) -> bool) -> bool {
        self.processed += weight;
        if self.needed == u64::MAX || self.processed < self.next_check {
            return false;
        }
        let remaining = self.positions.saturating_sub(self.processed);
        // Check again after another 1/32 of the positions.
        self.next_check = self.processed + (self.positions / 32).max(1);
        if can_reach(self.needed.saturating_sub(remaining)) {
            return false;
        }
        self.dead = true;
        self.pruned = true;
        true
    }
}

/// Where a unit's counters live.
#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    offset: usize,
    used_bytes: usize,
    planes: usize,
}

/// Counters and pruning states of a chunk; see the module documentation.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    data: Vec<u64>,
    slots: Vec<Slot>,
    units: Vec<Unit>,
    queries: usize,
}

impl Counters {
    /// Sizes and zeroes the counters of `queries` queries over `blocks`; `unit(number, block,
    /// query)` gives each unit's positions, threshold count and whether it is searched.
    pub(crate) fn reset(
        &mut self,
        blocks: &[PlanBlock],
        queries: usize,
        mut unit: impl FnMut(usize, &PlanBlock, usize) -> (Unit, bool),
    ) {
        self.slots.clear();
        self.units.clear();
        self.queries = queries;
        let mut offset = 0;
        for (number, block) in blocks.iter().enumerate() {
            for query in 0..queries {
                let (mut state, searched) = unit(number, block, query);
                state.dead |= !searched;
                let used_bytes = block.used_bytes as usize;
                let planes = if searched {
                    planes_for(state.positions)
                } else {
                    0
                };
                let words = if searched {
                    words_for(used_bytes, planes)
                } else {
                    0
                };
                self.slots.push(Slot {
                    offset,
                    used_bytes,
                    planes,
                });
                self.units.push(state);
                offset += words;
            }
        }
        self.data.clear();
        self.data.resize(offset, 0);
    }

    /// Bytes of counter storage a query of `positions` positions needs over `blocks`.
    pub(crate) fn bytes_for(blocks: &[PlanBlock], positions: u64) -> usize {
        let planes = planes_for(positions);
        blocks
            .iter()
            .map(|b| words_for(b.used_bytes as usize, planes) * 8)
            .sum()
    }

    /// The unit of `query` in block number `block`.
    #[inline]
    pub(crate) fn unit_index(&self, query: u32, block: u32) -> usize {
        block as usize * self.queries + query as usize
    }

    /// Pruning state of unit `unit`.
    #[inline]
    pub(crate) fn unit(&self, unit: usize) -> &Unit {
        &self.units[unit]
    }

    /// Counters of unit `unit`, read-only.
    pub(crate) fn view(&self, unit: usize) -> SlicedView<'_> {
        view_of(&self.data, &self.slots, unit, 0)
    }

    /// Mutable access to every unit.
    pub(crate) fn slice_mut(&mut self) -> CountersSlice<'_> {
        CountersSlice {
            data: &mut self.data,
            slots: &self.slots,
            units: &mut self.units,
            first_unit: 0,
            data_base: 0,
        }
    }
}

fn view_of<'a>(data: &'a [u64], slots: &[Slot], unit: usize, data_base: usize) -> SlicedView<'a> {
    let slot = slots[unit];
    let at = slot.offset - data_base;
    if slot.planes == 0 {
        // A unit that is not searched has no counters: an empty view counts nothing.
        return SlicedView::new(&data[at..at], 0, 1);
    }
    let words = words_for(slot.used_bytes, slot.planes);
    SlicedView::new(&data[at..at + words], slot.used_bytes, slot.planes)
}

/// Mutable access to the units of a range of blocks.
pub(crate) struct CountersSlice<'a> {
    data: &'a mut [u64],
    slots: &'a [Slot],
    units: &'a mut [Unit],
    first_unit: usize,
    data_base: usize,
}

impl<'a> CountersSlice<'a> {
    /// Splits into the units of blocks before `block` and those from `block` on (block
    /// numbers count from the start of the whole chunk).
    pub(crate) fn split_at_block(self, block: usize, queries: usize) -> (Self, Self) {
        let unit = (block * queries).clamp(self.first_unit, self.first_unit + self.units.len());
        let at = self
            .slots
            .get(unit)
            .map_or(self.data_base + self.data.len(), |s| s.offset)
            - self.data_base;
        let (low_data, high_data) = self.data.split_at_mut(at);
        let (low_units, high_units) = self.units.split_at_mut(unit - self.first_unit);
        (
            CountersSlice {
                data: low_data,
                slots: self.slots,
                units: low_units,
                first_unit: self.first_unit,
                data_base: self.data_base,
            },
            CountersSlice {
                data: high_data,
                slots: self.slots,
                units: high_units,
                first_unit: unit,
                data_base: self.data_base + at,
            },
        )
    }

    /// Pruning state of unit `unit` (numbered as in [`Counters`]).
    #[inline]
    pub(crate) fn unit(&self, unit: usize) -> &Unit {
        &self.units[unit - self.first_unit]
    }

    /// Counters of unit `unit`.
    #[inline]
    pub(crate) fn counters(&mut self, unit: usize) -> SlicedCounters<'_> {
        let slot = self.slots[unit];
        let words = words_for(slot.used_bytes, slot.planes);
        let at = slot.offset - self.data_base;
        SlicedCounters::new(&mut self.data[at..at + words], slot.used_bytes, slot.planes)
    }

    /// Adds `row` with `weight` into unit `unit` and advances its pruning state (the first
    /// `documents` documents of the block count). Returns whether the unit died now.
    #[inline]
    pub(crate) fn add(&mut self, unit: usize, row: &[u8], weight: u32, documents: u64) -> bool {
        debug_assert!(!self.unit(unit).dead);
        self.counters(unit).add_row(row, weight);
        self.advance(unit, weight as u64, documents)
    }

    /// Records `weight` processed positions for unit `unit` (whose rows were added already);
    /// returns whether it died now.
    #[inline]
    pub(crate) fn advance(&mut self, unit: usize, weight: u64, documents: u64) -> bool {
        let view = view_of(self.data, self.slots, unit, self.data_base);
        self.units[unit - self.first_unit]
            .advance(weight, |count| view.any_at_least(count, documents))
    }
}
