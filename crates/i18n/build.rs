// Compiles every locales/<lang>/<area>.ftl into the crate (record 0070): a new screen
// area is a new file in both language folders, with no list to keep in step.
use std::fmt::Write;
use std::path::Path;

const LANGS: [&str; 2] = ["en", "ja"];

fn main() {
    // Read at run time, not baked in with env!(): a build script compiled in one checkout
    // and reused from a shared target dir must still read THIS checkout's catalogs.
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR for build scripts");
    let root = Path::new(&manifest_dir).join("locales");
    println!("cargo:rerun-if-changed={}", root.display());
    let mut out = String::new();
    for lang in LANGS {
        let dir = root.join(lang);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("a locales entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "ftl"))
            .collect();
        files.sort();
        writeln!(out, "pub(crate) const FILES_{}: &[(&str, &str)] = &[", lang.to_uppercase()).unwrap();
        for f in files {
            let area = f.file_stem().and_then(|s| s.to_str()).expect("a UTF-8 file name");
            writeln!(out, "    ({area:?}, include_str!({:?})),", f.display().to_string()).unwrap();
        }
        writeln!(out, "];").unwrap();
    }
    let dest = Path::new(&std::env::var("OUT_DIR").expect("OUT_DIR")).join("catalog_files.rs");
    std::fs::write(dest, out).expect("write catalog_files.rs");
}
