fn main() {
    let a: Vec<String> = std::env::args().collect();
    let seed: u64 = a[1].parse().unwrap();
    let n: u64 = a[2].parse().unwrap();
    let mut cfg = paydesk_sim::SimConfig::new(seed, n, paydesk_sim::Profile::Chaos); cfg.avoid_known_bugs = std::env::var_os("AVOID").is_some();
    if a.len() > 3 { let d = tempfile::tempdir_in("/dev/shm").unwrap().keep(); cfg.ledger = paydesk_sim::LedgerMode::Dir(d); }
    let r = paydesk_sim::run(cfg);
    println!("{:#?}", r.violations);
}
