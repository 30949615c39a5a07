//! Peak memory for the benchmarks: this process's VmHWM, which Linux resets on request, so
//! each step's peak is its own (record 0043: printed, never asserted).

/// The peak resident set since the last reset, in bytes (0 where /proc says nothing).
pub fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Starts a new peak. "5" resets the peak RSS (Linux 4.0+); without it the figure is the
/// whole run's peak.
pub fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
