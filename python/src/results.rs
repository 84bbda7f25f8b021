//! [`QueryResult`]: the answer to one query, as Python sees it.
//!
//! A result keeps the Rust answer and builds Python objects only when asked: `hits` (a list
//! of `bitsift.Hit` named tuples, built once), `stats` and `batch_stats` (dicts with the keys
//! of `bitsift query --format json`), and `to_pandas()`. A gene query then costs Python a
//! handful of objects, and a threshold-0 query on a large collection builds its hundreds of
//! thousands of hits only if they are looked at.

use std::sync::{Arc, OnceLock};

use bitsift::answer::identity;
use bitsift::query::{BatchStats, Corrected, Coverage, GroupTally, Hit, Index, QueryStats};
use pyo3::exceptions::PyTypeError;

use crate::errors::names_error;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString, PyType};

/// To 4 decimals, as the command line writes fractions.
fn rounded(value: f64) -> f64 {
    (value * 1e4).round() / 1e4
}

/// `found / total`; 0 for an empty query (as the command line's `fraction` column).
fn fraction(found: u32, total: u64) -> f64 {
    bitsift::query::fraction(found, total)
}

/// The answer to one query: its hits, best first, and what it cost.
#[pyclass(module = "bitsift", frozen)]
pub struct QueryResult {
    /// Query name.
    name: String,
    index: Arc<Index>,
    /// k-mer positions per index file.
    kmers_total: Vec<u64>,
    hits: Vec<Hit>,
    /// Documents that reached the threshold, whatever the limit.
    total_hits: u64,
    /// Documents searched.
    documents_searched: u64,
    /// The hits counted by group, with `group_by`.
    groups: Option<Vec<GroupTally>>,
    /// Where each hit matches, in the order of `hits` (empty unless asked for).
    coverage: Vec<Coverage>,
    coverage_asked: bool,
    /// Each hit's score corrected for false positives, in the order of `hits` (empty for
    /// COBS's searches).
    corrected: Vec<Corrected>,
    stats: Option<QueryStats>,
    batch: Option<Arc<BatchStats>>,
    skipped: Option<String>,
    hit_list: OnceLock<Py<PyList>>,
}

impl QueryResult {
    /// A searched query; `coverage_asked` says whether where the hits match was asked for.
    pub fn answered(
        name: String,
        index: Arc<Index>,
        answer: bitsift::query::QueryResult,
        coverage_asked: bool,
        grouped: bool,
    ) -> Self {
        QueryResult {
            name,
            index,
            kmers_total: answer.kmers_total,
            hits: answer.hits,
            total_hits: answer.total_hits,
            documents_searched: answer.documents_searched,
            groups: grouped.then_some(answer.groups),
            coverage: answer.coverage,
            coverage_asked,
            corrected: answer.corrected,
            stats: Some(answer.stats),
            batch: Some(answer.batch),
            skipped: None,
            hit_list: OnceLock::new(),
        }
    }

    /// A query that was not searched, and why.
    pub fn not_searched(name: String, index: Arc<Index>, reason: String) -> Self {
        QueryResult {
            name,
            index,
            kmers_total: Vec::new(),
            hits: Vec::new(),
            total_hits: 0,
            documents_searched: 0,
            groups: None,
            coverage: Vec::new(),
            coverage_asked: false,
            corrected: Vec::new(),
            stats: None,
            batch: None,
            skipped: Some(reason),
            hit_list: OnceLock::new(),
        }
    }

    fn document(&self, hit: &Hit) -> PyResult<&str> {
        self.index
            .document_name(hit.index, hit.document)
            .map_err(names_error)
    }

    /// Reads the name pages of every hit at once (indexes whose names are read by page).
    fn names_ready(&self) -> PyResult<()> {
        self.index.prefetch_names(&self.hits).map_err(names_error)
    }

    /// The name of the hit's index: a collection's directory, or the file's path.
    fn label(&self, hit: &Hit) -> &str {
        self.index.source_name(hit.index)
    }

    fn total(&self, hit: &Hit) -> u64 {
        self.kmers_total[hit.index as usize]
    }

    /// The identity estimate of hit `i`: of its corrected containment, else of its fraction.
    fn identity(&self, i: usize) -> f64 {
        let hit = &self.hits[i];
        let basis = self.corrected.get(i).map_or_else(
            || fraction(hit.kmers_found, self.total(hit)),
            |c| c.containment,
        );
        identity(basis, self.index.headers()[hit.index as usize].k)
    }

    /// The corrected score's columns, each a list in the order of the hits (None where the
    /// search did not correct).
    fn corrected_columns(&self, columns: &Bound<'_, PyDict>) -> PyResult<()> {
        let all = |f: fn(&Corrected) -> f64| -> Vec<Option<f64>> {
            (0..self.hits.len())
                .map(|i| self.corrected.get(i).map(f))
                .collect()
        };
        columns.set_item("containment", all(|c| rounded(c.containment)))?;
        columns.set_item("containment_low", all(|c| rounded(c.low)))?;
        columns.set_item("containment_high", all(|c| rounded(c.high)))?;
        let borderline: Vec<Option<bool>> = (0..self.hits.len())
            .map(|i| self.corrected.get(i).map(|c| c.borderline))
            .collect();
        columns.set_item("borderline", borderline)?;
        columns.set_item("fpr", all(|c| rounded(c.fpr)))?;
        columns.set_item("fp_expected", all(|c| c.fp_expected))?;
        columns.set_item("p_false", all(|c| c.p_false))?;
        Ok(())
    }
}

static HIT: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static RESULTS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
static FRAME: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// A `bitsift.Results` list of `results`.
pub fn results_list<'py>(
    py: Python<'py>,
    results: Vec<QueryResult>,
) -> PyResult<Bound<'py, PyAny>> {
    let list = PyList::empty(py);
    for result in results {
        list.append(Bound::new(py, result)?)?;
    }
    RESULTS
        .import(py, "bitsift._types", "Results")?
        .call1((list,))
}

/// A pandas DataFrame of `columns` (pandas imported only now, with a clear error if absent).
pub fn frame<'py>(py: Python<'py>, columns: Bound<'py, PyDict>) -> PyResult<Bound<'py, PyAny>> {
    let frame = FRAME.get_or_try_init(py, || {
        PyResult::Ok(py.import("bitsift._types")?.getattr("_frame")?.unbind())
    })?;
    frame.bind(py).call1((columns,))
}

/// Converts a JSON value (stats as the command line writes them) to Python objects.
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use pyo3::IntoPyObjectExt;
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_bound_py_any(py),
            (None, Some(i)) => i.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let list = PyList::empty(py);
            for item in items {
                list.append(json_to_py(py, item)?)?;
            }
            Ok(list.into_any())
        }
        Value::Object(fields) => {
            let dict = PyDict::new(py);
            for (key, item) in fields {
                dict.set_item(key, json_to_py(py, item)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

fn serialized<'py>(py: Python<'py>, value: &impl serde::Serialize) -> PyResult<Bound<'py, PyAny>> {
    let json = serde_json::to_value(value)
        .map_err(|e| PyTypeError::new_err(format!("cannot convert stats: {e}")))?;
    json_to_py(py, &json)
}

/// A matrix column: (file, document number, document name) keys and the hits' fractions.
type MatrixColumn<'a> = (Vec<(u32, u64, &'a str)>, Vec<f64>);

#[pymethods]
impl QueryResult {
    /// The query's name (`query` for a lone sequence, as on the command line).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// k-mer positions of the query (`L − k + 1`; the largest over the index files). 0 when
    /// the query was skipped.
    #[getter]
    fn kmers_total(&self) -> u64 {
        self.kmers_total.iter().copied().max().unwrap_or(0)
    }

    /// Documents that reached the threshold, whatever the limit (`len(hits)` is at most
    /// the limit).
    #[getter]
    fn total_hits(&self) -> u64 {
        self.total_hits
    }

    /// Documents the query searched (removed documents and placeholders not counted).
    #[getter]
    fn documents_searched(&self) -> u64 {
        self.documents_searched
    }

    /// With `search(..., group_by=COLUMN)`: one dict per value of the column (`value`,
    /// `carriers`, `searched`, `fraction`, `score_min`, `score_median`, `score_max`, as the
    /// `groups` of `bitsift query --group-by --format json`), most carriers first; else None.
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.groups.as_ref().map(|g| serialized(py, g)).transpose()
    }

    /// The reported documents, best first: a list of `bitsift.Hit(document, index,
    /// kmers_found, kmers_total, fraction, identity, coverage, containment, containment_low,
    /// containment_high, borderline, fpr, fp_expected, p_false)`, built on first access.
    #[getter]
    fn hits<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        if let Some(list) = self.hit_list.get() {
            return Ok(list.bind(py).clone());
        }
        let class = HIT.import(py, "bitsift._types", "Hit")?;
        let list = PyList::empty(py);
        self.names_ready()?;
        for (i, hit) in self.hits.iter().enumerate() {
            let total = self.total(hit);
            let coverage = match self.coverage.get(i) {
                Some(coverage) => serialized(py, coverage)?,
                None => py.None().into_bound(py),
            };
            let scores = PyDict::new(py);
            if let Some(c) = self.corrected.get(i) {
                scores.set_item("containment", rounded(c.containment))?;
                scores.set_item("containment_low", rounded(c.low))?;
                scores.set_item("containment_high", rounded(c.high))?;
                scores.set_item("borderline", c.borderline)?;
                scores.set_item("fpr", rounded(c.fpr))?;
                scores.set_item("fp_expected", c.fp_expected)?;
                scores.set_item("p_false", c.p_false)?;
            }
            let fields = (
                self.document(hit)?,
                self.label(hit),
                hit.kmers_found,
                total,
                fraction(hit.kmers_found, total),
                self.identity(i),
                coverage,
            );
            list.append(class.call(fields, Some(&scores))?)?;
        }
        let _ = self.hit_list.set(list.clone().unbind());
        Ok(self.hit_list.get().map_or(list, |l| l.bind(py).clone()))
    }

    /// What the query cost: a dict with the keys of the `stats` of `bitsift query --format
    /// json` (engine, k-mers, rows, reads, bytes, times in ms). `None` when it was skipped.
    #[getter]
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.stats.as_ref().map(|s| serialized(py, s)).transpose()
    }

    /// What the batch the query was answered in did as a whole (shared by its queries): the
    /// keys of the `batches` of `bitsift query --format json`. `None` when it was skipped.
    #[getter]
    fn batch_stats<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        self.batch
            .as_ref()
            .map(|b| serialized(py, b.as_ref()))
            .transpose()
    }

    /// Why the query was not searched (`search(..., on_invalid="skip")`), else `None`.
    #[getter]
    fn skipped(&self) -> Option<&str> {
        self.skipped.as_deref()
    }

    /// The hits as columns: `query`, `index`, `document`, `kmers_found`, `kmers_total`,
    /// `fraction`, `identity`, the corrected score's columns (`containment` … `p_false`), and
    /// with coverage `intervals` (`1-850,870-1200`, `-` for none) and
    /// `longest_gap`, as the command line's TSV (lists of equal length).
    fn _columns<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let columns = PyDict::new(py);
        columns.set_item("query", vec![self.name.as_str(); self.hits.len()])?;
        let labels: Vec<&str> = self.hits.iter().map(|h| self.label(h)).collect();
        columns.set_item("index", labels)?;
        self.names_ready()?;
        let documents: Vec<&str> = self
            .hits
            .iter()
            .map(|h| self.document(h))
            .collect::<PyResult<_>>()?;
        columns.set_item("document", documents)?;
        let found: Vec<u32> = self.hits.iter().map(|h| h.kmers_found).collect();
        columns.set_item("kmers_found", &found)?;
        let totals: Vec<u64> = self.hits.iter().map(|h| self.total(h)).collect();
        columns.set_item("kmers_total", &totals)?;
        let fractions: Vec<f64> = found
            .iter()
            .zip(&totals)
            .map(|(&f, &t)| fraction(f, t))
            .collect();
        columns.set_item("fraction", fractions)?;
        let identities: Vec<f64> = (0..self.hits.len()).map(|i| self.identity(i)).collect();
        columns.set_item("identity", identities)?;
        self.corrected_columns(&columns)?;
        if self.coverage_asked {
            let intervals: Vec<String> = self.coverage.iter().map(|c| c.intervals_text()).collect();
            columns.set_item("intervals", intervals)?;
            let gaps: Vec<u64> = self.coverage.iter().map(|c| c.longest_gap).collect();
            columns.set_item("longest_gap", gaps)?;
        }
        Ok(columns)
    }

    /// The hits as matrix cells: (file, document number, document name) keys, which sort in
    /// index order, and the hits' fractions.
    fn _matrix_column(&self) -> PyResult<MatrixColumn<'_>> {
        self.names_ready()?;
        let keys = self
            .hits
            .iter()
            .map(|h| Ok((h.index, h.document, self.document(h)?)))
            .collect::<PyResult<_>>()?;
        // As the command line's matrix: the corrected containment, when there is one.
        let values = self
            .hits
            .iter()
            .enumerate()
            .map(|(i, h)| match self.corrected.get(i) {
                Some(c) => rounded(c.containment),
                None => fraction(h.kmers_found, self.total(h)),
            })
            .collect();
        Ok((keys, values))
    }

    /// The hits as a pandas DataFrame, one row per hit (pandas must be installed).
    fn to_pandas<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        frame(py, self._columns(py)?)
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let name = PyString::new(py, &self.name).repr()?;
        Ok(match &self.skipped {
            Some(reason) => {
                let reason = PyString::new(py, reason).repr()?;
                format!("QueryResult(name={name}, skipped={reason})")
            }
            None => format!(
                "QueryResult(name={name}, kmers_total={}, total_hits={}, hits=<{} shown>)",
                self.kmers_total(),
                self.total_hits,
                self.hits.len()
            ),
        })
    }
}
