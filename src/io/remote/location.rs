//! Which locations are remote, and how a URL splits into a client (a server or a bucket) and
//! the key of a file in it.

use std::io;

use object_store::path::Path as KeyPath;

/// A remote file's URL, split.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct RemoteUrl {
    /// What names the client: `scheme://host[:port]` for HTTP, `s3://bucket` for S3.
    pub store: String,
    /// The bucket, for S3.
    pub bucket: Option<String>,
    /// The file's key inside the store (the URL's path, percent-decoded).
    pub key: KeyPath,
}

impl RemoteUrl {
    /// Parses `http://host[:port]/path`, `https://…` or `s3://bucket/key`.
    pub(crate) fn parse(url: &str) -> io::Result<RemoteUrl> {
        let invalid = |why: &str| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("{url}: not a usable URL: {why}"),
            )
        };
        let (scheme, rest) = url.split_once("://").ok_or_else(|| invalid("no scheme"))?;
        if rest.contains(['?', '#']) {
            return Err(invalid("query strings and fragments are not supported"));
        }
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        if authority.is_empty() {
            return Err(invalid("no host or bucket"));
        }
        if path.is_empty() || path.ends_with('/') {
            return Err(invalid("it names no file"));
        }
        let key = KeyPath::from_url_path(path).map_err(|e| invalid(&e.to_string()))?;
        match scheme {
            "http" | "https" => Ok(RemoteUrl {
                store: format!("{scheme}://{authority}"),
                bucket: None,
                key,
            }),
            "s3" => Ok(RemoteUrl {
                store: format!("s3://{authority}"),
                bucket: Some(authority.to_string()),
                key,
            }),
            _ => Err(invalid("the scheme must be http, https or s3")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_store_and_key() {
        let http = RemoteUrl::parse("http://10.0.0.1:8080/a/b%20c.cobs_compact").unwrap();
        assert_eq!(http.store, "http://10.0.0.1:8080");
        assert_eq!(http.bucket, None);
        assert_eq!(http.key.as_ref(), "a/b c.cobs_compact");
        let s3 = RemoteUrl::parse("s3://bitsift/dir/x.cobs_classic").unwrap();
        assert_eq!(s3.store, "s3://bitsift");
        assert_eq!(s3.bucket.as_deref(), Some("bitsift"));
        assert_eq!(s3.key.as_ref(), "dir/x.cobs_classic");
        for bad in [
            "ftp://h/x",
            "http://h/",
            "s3://bucket",
            "http:///x",
            "https://h/x?sig=1",
        ] {
            assert!(RemoteUrl::parse(bad).is_err(), "{bad}");
        }
    }
}
