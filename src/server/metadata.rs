//! Document metadata for the server: the shared TSV table of [`crate::metadata`].

pub use crate::metadata::{Metadata, MetadataError};
