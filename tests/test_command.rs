//! The README's test command, `./scripts/test.sh`, on a clean environment (issue 11, item 1):
//! its setup step must install its own COBS peer into an empty virtual environment, with
//! nothing borrowed from the machine's Python, and reuse it on the next run.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/test.sh")
}

/// Runs `scripts/test.sh ARGS` with a clean Python environment and `BITSIFT_VENV=venv`.
fn run_script(venv: &Path, args: &[&str]) -> Output {
    Command::new("bash")
        .arg(script())
        .args(args)
        .env("BITSIFT_VENV", venv)
        .env_remove("BITSIFT_PYTHON")
        .env_remove("BITSIFT_SKIP_COBS")
        .env_remove("PYTHONPATH")
        .env_remove("PYTHONHOME")
        .env_remove("VIRTUAL_ENV")
        .output()
        .expect("run bash scripts/test.sh")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn setup_installs_its_own_cobs_peer_into_an_empty_virtual_environment() {
    if std::env::var("BITSIFT_SKIP_COBS").as_deref() == Ok("1") {
        eprintln!("skipped because BITSIFT_SKIP_COBS=1 (this test installs COBS from PyPI)");
        return;
    }
    let dir = tempfile::Builder::new()
        .prefix("bitsift-venv-")
        .tempdir()
        .unwrap();
    let venv = dir.path().join("venv");
    std::fs::create_dir(&venv).unwrap();
    let python = venv.join("bin/python");
    assert!(!python.exists(), "the environment starts empty");

    let first = run_script(&venv, &["--setup-only", "--only", "cargo"]);
    let (out, err) = (text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "setup failed:\n{out}\n{err}");
    assert!(
        out.contains("installing cobs-reloaded==0.1.1 from PyPI"),
        "{out}"
    );
    assert!(!out.contains("cargo test"), "setup only: {out}");

    // The peer is importable from the new environment, and it lives inside it: isolated
    // (no system site-packages), so a copy installed on the machine cannot stand in.
    let probe = Command::new(&python)
        .args([
            "-c",
            "import sys, cobs_index; print(cobs_index.__version__); print(cobs_index.__file__); print(sys.prefix)",
        ])
        .env_remove("PYTHONPATH")
        .output()
        .expect("run the environment's python");
    let lines = text(&probe.stdout);
    assert!(probe.status.success(), "{}", text(&probe.stderr));
    let lines: Vec<&str> = lines.lines().collect();
    assert_eq!(lines[0], "0.1.1");
    let venv_real = venv.canonicalize().unwrap();
    let module = Path::new(lines[1]).canonicalize().unwrap();
    assert!(
        module.starts_with(&venv_real),
        "cobs_index comes from {} instead of {}",
        module.display(),
        venv_real.display()
    );
    let config = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap();
    assert!(
        config.contains("include-system-site-packages = false"),
        "{config}"
    );

    // A second run finds it and installs nothing.
    let second = run_script(&venv, &["--setup-only", "--only", "cargo"]);
    let out = text(&second.stdout);
    assert!(second.status.success(), "{}", text(&second.stderr));
    assert!(!out.contains("installing"), "{out}");
    assert!(out.contains("COBS peer: cobs_index 0.1.1"), "{out}");
}

#[test]
fn unknown_suites_and_arguments_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let output = run_script(dir.path(), &["--only", "nonsense"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        text(&output.stderr).contains(
            "unknown suite nonsense (suites: cargo python workflow slurm web remote bench mission)"
        ),
        "{}",
        text(&output.stderr)
    );
    let output = run_script(dir.path(), &["--frobnicate"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(text(&output.stderr).contains("unknown argument --frobnicate"));
    let help = run_script(dir.path(), &["--help"]);
    assert!(help.status.success());
    assert!(text(&help.stdout).contains("BITSIFT_SKIP_WEB=1"));
}
