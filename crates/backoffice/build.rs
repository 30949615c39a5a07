//! Rebuild the back office when its migrations change. `refinery::embed_migrations!` reads
//! the `migrations` folder at compile time, but cargo only tracks files a crate's sources
//! name: a new `V…__….sql` was not picked up by an incremental build until a Rust file of
//! the crate changed (a clean build, as CI's, was never affected).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
