//! The check a merged sub-index passes before the manifest names it: what `bitsift verify`
//! checks (the header, the checksum sidecar, every page of the file against it), plus its
//! block summaries and the planned document names. A merge must never launder damage: a
//! byte that changed between the members and the manifest commit fails the merge, and the
//! collection stays as it was.

use super::merge_rows::Sources;
use super::CollectionError;
use crate::format::{ChecksumTable, IndexHeader};
use crate::summary::BlockSummaries;

/// Checks the committed merged file `written`: its names are `names`, its checksum sidecar
/// describes it and is whole, every page matches its checksum, and (when `summaries`) its
/// block summaries are sound and belong to it.
pub(super) fn check(
    written: &IndexHeader,
    names: &[&str],
    summaries: bool,
) -> Result<(), CollectionError> {
    let path = &written.path;
    let failed = |detail: String| CollectionError::MergedDamaged {
        path: path.clone(),
        detail,
    };
    if !written.names.all()?.iter().eq(names.iter().copied()) {
        return Err(failed(
            "its header does not list the planned documents".into(),
        ));
    }
    match ChecksumTable::open(path, written) {
        Ok(Some(table)) => {
            if let Some(detail) = table.sidecar_damage() {
                return Err(failed(format!("damaged checksum file: {detail}")));
            }
        }
        Ok(None) => return Err(failed("its checksum file is missing".into())),
        Err(error) => return Err(failed(error.to_string())),
    }
    let mut files = Sources::open(std::slice::from_ref(path))?;
    files
        .read(0, 0, written.file_size, &mut |_| Ok(()))
        .map_err(|error| match error {
            CollectionError::Read(read) => failed(read.to_string()),
            other => other,
        })?;
    if summaries {
        match BlockSummaries::load(path, written) {
            Ok(Some(_)) => {}
            Ok(None) => return Err(failed("its block summaries are missing".into())),
            Err(error) => return Err(failed(error.to_string())),
        }
    }
    Ok(())
}
