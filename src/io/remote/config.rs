//! Where an S3 client finds its settings: the standard AWS environment variables, then the
//! profile files (`~/.aws/config`, `~/.aws/credentials`), as the AWS command-line tools do.
//!
//! `object_store`'s `AmazonS3Builder::from_env` reads the environment but not the profile
//! files, and falls back to the EC2 instance metadata service when it finds no credentials
//! (a multi-second timeout off EC2). So the settings are resolved here, and a client without
//! credentials of any kind sends unsigned (anonymous) requests, as public buckets expect.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Region used when neither the environment nor the profile names one.
pub(crate) const REGION_DEFAULT: &str = "us-east-1";

/// Static credentials: an access key, its secret, and a session token for temporary ones.
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Credentials {
    /// `AWS_ACCESS_KEY_ID` or `aws_access_key_id`.
    pub access_key_id: String,
    /// `AWS_SECRET_ACCESS_KEY` or `aws_secret_access_key`.
    pub secret_access_key: String,
    /// `AWS_SESSION_TOKEN` or `aws_session_token`.
    pub session_token: Option<String>,
}

impl std::fmt::Debug for Credentials {
    /// Never prints the secret or the token.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .finish_non_exhaustive()
    }
}

/// How requests to S3 are authenticated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Auth {
    /// Signed with these keys.
    Keys(Credentials),
    /// Left to `object_store`'s own providers (web identity tokens, container credentials),
    /// which the environment names.
    Provider,
    /// Unsigned requests: public buckets.
    Anonymous,
}

/// Everything an S3 client needs besides the bucket.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct S3Settings {
    /// The region.
    pub region: String,
    /// A custom endpoint (an S3-compatible server), or `None` for AWS.
    pub endpoint: Option<String>,
    /// How requests are signed.
    pub auth: Auth,
}

/// The settings from this process's environment and the profile files it names.
pub(crate) fn s3_settings() -> S3Settings {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let home = env("HOME").map(PathBuf::from);
    let files = ProfileFiles {
        config: env("AWS_CONFIG_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws/config"))),
        credentials: env("AWS_SHARED_CREDENTIALS_FILE")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".aws/credentials"))),
    };
    resolve(&env, &files)
}

/// Where the profile files are.
struct ProfileFiles {
    config: Option<PathBuf>,
    credentials: Option<PathBuf>,
}

/// [`s3_settings`] with the environment as a function, for tests.
fn resolve(env: &dyn Fn(&str) -> Option<String>, files: &ProfileFiles) -> S3Settings {
    let profile = env("AWS_PROFILE")
        .or_else(|| env("AWS_DEFAULT_PROFILE"))
        .unwrap_or_else(|| "default".into());
    let config_section = if profile == "default" {
        profile.clone()
    } else {
        format!("profile {profile}")
    };
    let config = read_section(files.config.as_deref(), &config_section);
    let credentials = read_section(files.credentials.as_deref(), &profile);
    let from_file = |key: &str| credentials.get(key).or_else(|| config.get(key)).cloned();
    let region = env("AWS_REGION")
        .or_else(|| env("AWS_DEFAULT_REGION"))
        .or_else(|| config.get("region").cloned())
        .unwrap_or_else(|| REGION_DEFAULT.into());
    let endpoint = env("AWS_ENDPOINT_URL_S3")
        .or_else(|| env("AWS_ENDPOINT_URL"))
        .or_else(|| config.get("endpoint_url").cloned());
    let keys = match (env("AWS_ACCESS_KEY_ID"), env("AWS_SECRET_ACCESS_KEY")) {
        (Some(id), Some(secret)) => Some(Credentials {
            access_key_id: id,
            secret_access_key: secret,
            session_token: env("AWS_SESSION_TOKEN"),
        }),
        _ => match (
            from_file("aws_access_key_id"),
            from_file("aws_secret_access_key"),
        ) {
            (Some(id), Some(secret)) => Some(Credentials {
                access_key_id: id,
                secret_access_key: secret,
                session_token: from_file("aws_session_token"),
            }),
            _ => None,
        },
    };
    let provider = [
        "AWS_WEB_IDENTITY_TOKEN_FILE",
        "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
        "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    ]
    .iter()
    .any(|name| env(name).is_some());
    let auth = match keys {
        Some(keys) => Auth::Keys(keys),
        None if provider => Auth::Provider,
        None => Auth::Anonymous,
    };
    S3Settings {
        region,
        endpoint,
        auth,
    }
}

/// The `key = value` pairs of `[section]` of an AWS profile file; empty when the file or the
/// section is missing. Nested settings (indented lines under `s3 =`) are skipped.
fn read_section(path: Option<&Path>, section: &str) -> HashMap<String, String> {
    let Some(text) = path.and_then(|p| std::fs::read_to_string(p).ok()) else {
        return HashMap::new();
    };
    parse_section(&text, section)
}

/// See [`read_section`].
fn parse_section(text: &str, section: &str) -> HashMap<String, String> {
    let mut values = HashMap::new();
    let mut inside = false;
    for line in text.lines() {
        let nested = line.starts_with([' ', '\t']);
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            inside = name.trim() == section;
            continue;
        }
        if !inside || nested {
            continue;
        }
        if let Some((key, value)) = line.split_once('=') {
            let value = value.trim();
            if !value.is_empty() {
                values.insert(key.trim().to_ascii_lowercase(), value.to_string());
            }
        }
    }
    values
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(vars: &[(&str, &str)], config: &str, credentials: &str) -> S3Settings {
        let dir = tempfile::tempdir().unwrap();
        let files = ProfileFiles {
            config: Some(dir.path().join("config")),
            credentials: Some(dir.path().join("credentials")),
        };
        std::fs::write(files.config.as_ref().unwrap(), config).unwrap();
        std::fs::write(files.credentials.as_ref().unwrap(), credentials).unwrap();
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        resolve(&|name| vars.get(name).cloned(), &files)
    }

    const CONFIG: &str = "[default]\nregion = eu-west-2\n\n[profile lab]\nregion = eu-north-1\nendpoint_url = http://minio:9000\ns3 =\n  addressing_style = path\n";
    const CREDENTIALS: &str = "# keys\n[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = s1\n[lab]\naws_access_key_id=AKIDLAB\naws_secret_access_key=s2\naws_session_token=t2\n";

    #[test]
    fn the_environment_comes_before_the_profile_files() {
        let got = settings(
            &[
                ("AWS_ACCESS_KEY_ID", "AKIDENV"),
                ("AWS_SECRET_ACCESS_KEY", "s0"),
                ("AWS_REGION", "ap-south-1"),
                ("AWS_ENDPOINT_URL", "http://a:1"),
                ("AWS_ENDPOINT_URL_S3", "http://s3:2"),
            ],
            CONFIG,
            CREDENTIALS,
        );
        assert_eq!(got.region, "ap-south-1");
        assert_eq!(got.endpoint.as_deref(), Some("http://s3:2"));
        assert!(
            matches!(&got.auth, Auth::Keys(k) if k.access_key_id == "AKIDENV" && k.session_token.is_none())
        );
    }

    #[test]
    fn a_named_profile_gives_region_endpoint_and_keys() {
        let got = settings(&[("AWS_PROFILE", "lab")], CONFIG, CREDENTIALS);
        assert_eq!(got.region, "eu-north-1");
        assert_eq!(got.endpoint.as_deref(), Some("http://minio:9000"));
        assert!(
            matches!(&got.auth, Auth::Keys(k) if k.access_key_id == "AKIDLAB" && k.session_token.as_deref() == Some("t2"))
        );
        let default = settings(&[], CONFIG, CREDENTIALS);
        assert_eq!(default.region, "eu-west-2");
        assert!(matches!(&default.auth, Auth::Keys(k) if k.access_key_id == "AKIDDEFAULT"));
    }

    #[test]
    fn no_credentials_means_anonymous_and_the_default_region() {
        let got = settings(&[], "", "");
        assert_eq!(got.region, REGION_DEFAULT);
        assert_eq!(got.endpoint, None);
        assert_eq!(got.auth, Auth::Anonymous);
        let web = settings(&[("AWS_WEB_IDENTITY_TOKEN_FILE", "/t")], "", "");
        assert_eq!(web.auth, Auth::Provider);
        let debug = format!("{:?}", settings(&[], CONFIG, CREDENTIALS));
        assert!(!debug.contains("s1"), "{debug}");
    }
}
