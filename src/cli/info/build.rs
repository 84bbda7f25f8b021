//! What `bitsift info` says of how an index was built: its build record
//! ([`bitsift::format::build_record`]), or that it has none and why.

use anyhow::Result;
use bitsift::format::build_record::{self, BuildRecord, RecordError, Spread};
use bitsift::format::document_table::{DocumentFacts, DocumentTable};
use bitsift::format::IndexHeader;

/// `info --json`'s `build`: the record beside the index and what follows from it.
#[derive(serde::Serialize)]
pub(super) struct BuildInfo {
    /// `ok`, `none` (COBS's files, and bitsift's before records), `stale` (a record of another
    /// index: ignored) or `unusable` (damaged or unreadable).
    pub status: &'static str,
    /// Why a record was not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(flatten)]
    pub record: Option<BuildRecord>,
    /// The false-positive rate each block reaches at its largest document (every other
    /// document of the block stays below it), in file order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fpr_reached: Vec<f64>,
}

impl BuildInfo {
    /// The build record of the index `header` was opened from; a record of another index is
    /// said in a notice on stderr.
    pub(super) fn of(header: &IndexHeader) -> BuildInfo {
        let (status, error, record) = match build_record::read_beside(header) {
            Ok(Some(record)) => ("ok", None, Some(record)),
            Ok(None) => ("none", None, None),
            Err(error @ RecordError::Stale { .. }) => ("stale", Some(error.to_string()), None),
            Err(error) => ("unusable", Some(error.to_string()), None),
        };
        if let Some(error) = &error {
            eprintln!("bitsift: notice: {error}");
        }
        let fpr_reached = record.as_ref().map_or(Vec::new(), |r| {
            r.blocks
                .iter()
                .map(|b| b.fpr(r.parameters.hashes))
                .collect()
        });
        BuildInfo {
            status,
            error,
            record,
            fpr_reached,
        }
    }

    /// The document table beside the index, when its record is usable.
    pub(super) fn table(&self, header: &IndexHeader) -> Result<Option<DocumentTable>> {
        if self.record.is_none() {
            return Ok(None);
        }
        Ok(build_record::documents_beside(header)?)
    }
}

/// `info --document NAME`: one document, where it lies and what it was built from.
#[derive(serde::Serialize)]
pub(super) struct NamedDocument {
    pub name: String,
    /// The sub-index holding it (a collection's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    pub block: u64,
    /// Its number in the index's header.
    pub position: u64,
    /// Bases and k-mer positions, when the index has a build record.
    #[serde(flatten)]
    pub facts: Option<DocumentFacts>,
    /// The false-positive rate of its own filter: its block's rows and hash functions
    /// holding its k-mers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fpr: Option<f64>,
}

impl NamedDocument {
    /// Document `name` of `header`'s index, with its facts from `table`; `None` when the index
    /// has no document of that name.
    pub(super) fn find(
        header: &IndexHeader,
        table: Option<&DocumentTable>,
        name: &str,
    ) -> Result<Option<NamedDocument>> {
        let names = header.names.all()?;
        let Some(position) = names.iter().position(|n| n == name) else {
            return Ok(None);
        };
        let position = position as u64;
        let Some(block) = header.blocks.iter().position(|b| {
            (b.first_document..b.first_document + b.document_count).contains(&position)
        }) else {
            return Ok(None);
        };
        let facts = match table {
            Some(table) => table.get(position)?,
            None => None,
        };
        let rows = header.blocks[block].row_count;
        Ok(Some(NamedDocument {
            name: name.to_string(),
            file: None,
            block: block as u64,
            position,
            facts,
            fpr: facts.map(|f| build_record::bloom_fpr(f.kmers, rows, header.num_hashes)),
        }))
    }

    /// Prints the document in `info`'s words.
    pub(super) fn print(&self) {
        let within = self
            .file
            .as_ref()
            .map_or(String::new(), |file| format!("{file}, "));
        println!(
            "document         {}: {within}block {}, position {}",
            self.name, self.block, self.position
        );
        match (self.facts, self.fpr) {
            (Some(facts), Some(fpr)) => println!(
                "                 {} bases, {} k-mers; false-positive rate of its filter {fpr:.4}",
                facts.bases, facts.kmers
            ),
            _ => {
                println!("                 bases and k-mers unknown: the index has no build record")
            }
        }
    }
}

/// Prints the record (or its absence) in `info`'s words.
pub(super) fn print(info: &BuildInfo) {
    let Some(record) = &info.record else {
        match info.status {
            "none" => println!(
                "build record     none: COBS's format does not say how an index was built (COBS's indexes, and those of bitsift before build records, have none); the lines above are what its header gives"
            ),
            status => println!(
                "build record     {status}, ignored (see the notice above); the lines above are what the header gives"
            ),
        }
        return;
    };
    let p = &record.parameters;
    println!(
        "built            {} by bitsift {} ({}): fpr {}, {} rows, {} order{}",
        record.created,
        record.bitsift_version,
        record.command,
        p.fpr.map_or("mixed".into(), |f| f.to_string()),
        p.rows,
        p.order,
        if p.per_record {
            ", one document per record"
        } else {
            ""
        }
    );
    println!("built from       {}", inputs(record));
    print_spread("bases", record.documents, &record.bases);
    print_spread("k-mers", record.documents, &record.kmers);
    print_reached(info, record);
}

fn inputs(record: &BuildRecord) -> String {
    let inputs = &record.inputs;
    let mut given: Vec<String> = inputs.given.iter().take(3).cloned().collect();
    if inputs.given_count > given.len() as u64 {
        given.push(format!(
            "and {} more",
            inputs.given_count - given.len() as u64
        ));
    }
    let lists = match inputs.lists.len() {
        0 => String::new(),
        _ => format!("; lists {}", inputs.lists.join(", ")),
    };
    let unit = if record.command == "merge" {
        "sub-index"
    } else {
        "file"
    };
    format!(
        "{}: {}{lists}",
        bitsift::units::plural(inputs.files, unit),
        given.join(" ")
    )
}

/// `bases   TOTAL in all; per document MIN smallest, MEDIAN median, MAX largest`.
pub(super) fn print_spread(what: &str, documents: u64, spread: &Spread) {
    println!(
        "{what:<17}{} in all; per document (of {documents}) {} smallest, {} median, {} largest",
        spread.total, spread.min, spread.median, spread.max
    );
}

fn print_reached(info: &BuildInfo, record: &BuildRecord) {
    let asked = record
        .parameters
        .fpr
        .map_or(String::new(), |f| format!(" (built for {f})"));
    let reached: Vec<f64> = record
        .blocks
        .iter()
        .zip(&info.fpr_reached)
        .filter(|(b, _)| b.documents > 0)
        .map(|(_, f)| *f)
        .collect();
    let min = reached.iter().copied().fold(f64::INFINITY, f64::min);
    let max = reached.iter().copied().fold(0.0, f64::max);
    match reached.len() {
        0 => println!("fpr reached      none: no block holds a document"),
        1 => println!(
            "fpr reached      {max:.4}{asked}, at the block's largest document; smaller documents have lower rates"
        ),
        n => println!(
            "fpr reached      {min:.4} to {max:.4} over {n} blocks{asked}, each at its largest document"
        ),
    }
}
