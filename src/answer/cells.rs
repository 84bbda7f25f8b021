//! The cells of a presence matrix ([`super::matrix`]), gathered in bounded memory and read back in document
//! order.
//!
//! A matrix of 1,000 genes over 661,405 genomes may have hundreds of millions of cells, and
//! the queries answer in query order while the matrix is written in document order. Each
//! cell is packed in a `u64` (document, query, value) so that sorting the numbers sorts the
//! cells; when the cells in memory reach the budget they are sorted and written to an
//! unnamed temporary file (a run), and [`MatrixCells::finish`] merges the runs: memory is
//! the budget plus a read buffer per run, whatever the matrix's size (an external merge
//! sort).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, Write};

/// Bits of a cell's value: fractions in 1/10,000 (0..=10,000).
const VALUE_BITS: u32 = 14;
/// Bits of a cell's query column.
const COLUMN_BITS: u32 = 18;
/// The most queries a matrix has.
pub(super) const COLUMNS_MAX: u32 = (1 << COLUMN_BITS) - 1;
/// Bytes of cells held in memory before a run is written, by default.
pub(super) const BUDGET_DEFAULT: usize = 128 << 20;
/// Bytes read ahead per run while merging.
const RUN_BUFFER: usize = 256 << 10;

/// One cell: a document (numbered across the index files), a query column, a fraction in
/// 1/10,000.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Cell {
    pub(super) document: u32,
    pub(super) column: u32,
    pub(super) value: u16,
}

impl Cell {
    fn pack(self) -> u64 {
        assert!(self.column <= COLUMNS_MAX, "column {} fits", self.column);
        assert!(u32::from(self.value) < 1 << VALUE_BITS, "value fits");
        (u64::from(self.document) << 32)
            | (u64::from(self.column) << VALUE_BITS)
            | u64::from(self.value)
    }

    fn unpack(packed: u64) -> Cell {
        Cell {
            document: (packed >> 32) as u32,
            column: ((packed >> VALUE_BITS) & u64::from(COLUMNS_MAX)) as u32,
            value: (packed & ((1 << VALUE_BITS) - 1)) as u16,
        }
    }
}

/// Cells gathered in any order, spilled to sorted runs past the budget.
pub(super) struct MatrixCells {
    cells: Vec<u64>,
    budget_cells: usize,
    runs: Vec<File>,
}

impl MatrixCells {
    /// Gathers cells holding at most `budget_bytes` of them in memory.
    pub(super) fn new(budget_bytes: usize) -> MatrixCells {
        MatrixCells {
            cells: Vec::new(),
            budget_cells: (budget_bytes / 8).max(1024),
            runs: Vec::new(),
        }
    }

    /// Adds a cell; writes a run when memory holds the budget.
    pub(super) fn push(&mut self, cell: Cell) -> io::Result<()> {
        self.cells.push(cell.pack());
        if self.cells.len() >= self.budget_cells {
            self.spill()?;
        }
        Ok(())
    }

    /// Runs written to disk so far.
    #[cfg(test)]
    pub(super) fn runs(&self) -> usize {
        self.runs.len()
    }

    fn spill(&mut self) -> io::Result<()> {
        self.cells.sort_unstable();
        let mut file = tempfile::tempfile()?;
        {
            let mut out = BufWriter::with_capacity(RUN_BUFFER, &mut file);
            for cell in &self.cells {
                out.write_all(&cell.to_le_bytes())?;
            }
            out.flush()?;
        }
        file.rewind()?;
        self.runs.push(file);
        self.cells.clear();
        Ok(())
    }

    /// The cells in (document, column) order.
    pub(super) fn finish(mut self) -> io::Result<SortedCells> {
        self.cells.sort_unstable();
        let mut heap = BinaryHeap::with_capacity(self.runs.len() + 1);
        let mut readers = Vec::with_capacity(self.runs.len());
        for (run, file) in self.runs.into_iter().enumerate() {
            let mut reader = BufReader::with_capacity(RUN_BUFFER, file);
            if let Some(first) = next_packed(&mut reader)? {
                heap.push(Reverse((first, run)));
            }
            readers.push(reader);
        }
        let memory = self.cells.into_iter();
        Ok(SortedCells {
            heap,
            readers,
            memory: memory.peekable(),
        })
    }
}

fn next_packed(reader: &mut BufReader<File>) -> io::Result<Option<u64>> {
    let mut bytes = [0u8; 8];
    match reader.read_exact(&mut bytes) {
        Ok(()) => Ok(Some(u64::from_le_bytes(bytes))),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
        Err(e) => Err(e),
    }
}

/// The gathered cells, merged from memory and the runs in (document, column) order.
pub(super) struct SortedCells {
    heap: BinaryHeap<Reverse<(u64, usize)>>,
    readers: Vec<BufReader<File>>,
    memory: std::iter::Peekable<std::vec::IntoIter<u64>>,
}

impl SortedCells {
    /// The next cell, or `None` when all are read.
    pub(super) fn next_cell(&mut self) -> io::Result<Option<Cell>> {
        let from_runs = self.heap.peek().map(|Reverse((packed, _))| *packed);
        let from_memory = self.memory.peek().copied();
        let take_memory = match (from_memory, from_runs) {
            (None, None) => return Ok(None),
            (Some(m), Some(r)) => m <= r,
            (Some(_), None) => true,
            (None, Some(_)) => false,
        };
        if take_memory {
            return Ok(self.memory.next().map(Cell::unpack));
        }
        let Some(Reverse((packed, run))) = self.heap.pop() else {
            return Ok(None);
        };
        if let Some(next) = next_packed(&mut self.readers[run])? {
            debug_assert!(next >= packed, "a run is sorted");
            self.heap.push(Reverse((next, run)));
        }
        Ok(Some(Cell::unpack(packed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_come_back_sorted_from_memory_and_runs() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut want = Vec::new();
        // A tiny budget: 1,024 cells per run, so 10,000 cells make 9 runs and a remainder.
        let mut cells = MatrixCells::new(0);
        for _ in 0..10_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let cell = Cell {
                document: (state % 5_000) as u32,
                column: ((state >> 20) % 1_000) as u32,
                value: ((state >> 40) % 10_001) as u16,
            };
            want.push(cell.pack());
            cells.push(cell).unwrap();
        }
        assert_eq!(cells.runs(), 9);
        want.sort_unstable();
        let mut sorted = cells.finish().unwrap();
        let mut got = Vec::new();
        while let Some(cell) = sorted.next_cell().unwrap() {
            got.push(cell.pack());
        }
        assert_eq!(got, want);
    }

    #[test]
    fn packing_keeps_every_field() {
        let cell = Cell {
            document: u32::MAX,
            column: COLUMNS_MAX,
            value: 10_000,
        };
        assert_eq!(Cell::unpack(cell.pack()), cell);
    }
}
