//! Embeds the bundled demo data (`data/demo`) in the binary, so `bitsift demo` works from
//! any directory.

use std::fmt::Write;
use std::path::Path;

fn files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.path())
                .filter(|p| p.is_file())
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/demo");
    println!("cargo:rerun-if-changed=data/demo");
    let mut code = String::new();
    for (name, sub) in [("GENOMES", "genomes"), ("QUERIES", "queries")] {
        let dir = root.join(sub);
        println!("cargo:rerun-if-changed={}", dir.display());
        writeln!(
            code,
            "/// Bundled files of `data/demo/{sub}`: (file name, bytes)."
        )
        .unwrap();
        writeln!(code, "pub static {name}: &[(&str, &[u8])] = &[").unwrap();
        for path in files(&dir) {
            let file_name = path.file_name().unwrap().to_string_lossy();
            writeln!(
                code,
                "    ({file_name:?}, include_bytes!({:?})),",
                path.display().to_string()
            )
            .unwrap();
        }
        writeln!(code, "];").unwrap();
    }
    let expected = root.join("EXPECTED_HITS.md");
    if expected.is_file() {
        writeln!(code, "/// `data/demo/EXPECTED_HITS.md`.\npub static EXPECTED_HITS: &str = include_str!({:?});", expected.display().to_string()).unwrap();
    } else {
        writeln!(code, "/// `data/demo/EXPECTED_HITS.md` (missing in this build).\npub static EXPECTED_HITS: &str = \"\";").unwrap();
    }
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("demo_data.rs");
    std::fs::write(out, code).unwrap();
}
