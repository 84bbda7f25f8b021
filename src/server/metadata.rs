//! Document metadata for the server: the shared TSV table of [`crate::metadata`].

pub(crate) use crate::metadata::Metadata;
