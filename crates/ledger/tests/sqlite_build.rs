//! The bundled SQLite is built with the options `.cargo/config.toml` gives it
//! (LIBSQLITE3_FLAGS), as SQLite itself reports them (`PRAGMA compile_options`). Each one
//! was measured (docs/simulation.md, docs/benchmarks.md "Stop 38", record 0108); losing one
//! — a new build script, a `cargo` run from another directory, a libsqlite3-sys upgrade
//! that changes its defaults — makes every SQLite allocation slower without failing
//! anything else, so it fails here, named.

/// The options that must be there (exact `compile_options` words) and the ones that must not.
const REQUIRED: [&str; 2] = [
    // No process-wide mutex on every allocation for memory statistics nobody reads.
    "DEFAULT_MEMSTATUS=0",
    // No 20-page bulk allocation per page cache: one per ephemeral table (IN-list CHECKs,
    // INSERT ... SELECT into the outbox), ~20 page faults each (stop 38).
    "DEFAULT_PCACHE_INITSZ=0",
];
/// One page-cache pool behind one mutex for every connection of the process.
const FORBIDDEN: [&str; 1] = ["ENABLE_MEMORY_MANAGEMENT"];

/// What is wrong with a build that reports `options`: one line per missing or unwanted one.
fn problems(options: &[String]) -> Vec<String> {
    let mut out: Vec<String> =
        REQUIRED.iter().filter(|r| !options.iter().any(|o| o == *r)).map(|r| format!("{r} missing")).collect();
    out.extend(FORBIDDEN.iter().filter(|f| options.iter().any(|o| o == *f)).map(|f| format!("{f} present")));
    out
}

fn compile_options() -> Vec<String> {
    let c = rusqlite::Connection::open_in_memory().unwrap();
    let mut st = c.prepare("PRAGMA compile_options").unwrap();
    st.query_map([], |r| r.get::<_, String>(0)).unwrap().collect::<Result<_, _>>().unwrap()
}

#[test]
fn the_bundled_sqlite_has_the_measured_build_options() {
    let options = compile_options();
    let p = problems(&options);
    assert!(p.is_empty(), "the bundled SQLite's build options (.cargo/config.toml, LIBSQLITE3_FLAGS): {p:?}\nreported: {options:?}");
}

/// The check itself, on builds planted the way they go wrong: each bad option is named.
#[test]
fn a_build_without_the_options_is_named() {
    // A made-up good build (not this one: its own test says whether it is good).
    let good: Vec<String> = REQUIRED.iter().map(|o| o.to_string()).chain(["THREADSAFE=1".to_string()]).collect();
    assert!(problems(&good).is_empty());
    let mut default_cache = good.clone();
    default_cache.retain(|o| o != "DEFAULT_PCACHE_INITSZ=0");
    default_cache.push("DEFAULT_PCACHE_INITSZ=20".into());
    assert_eq!(problems(&default_cache), ["DEFAULT_PCACHE_INITSZ=0 missing"]);
    let mut pooled = good;
    pooled.retain(|o| o != "DEFAULT_MEMSTATUS=0");
    pooled.push("ENABLE_MEMORY_MANAGEMENT".into());
    assert_eq!(problems(&pooled), ["DEFAULT_MEMSTATUS=0 missing", "ENABLE_MEMORY_MANAGEMENT present"]);
}
