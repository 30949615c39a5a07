//! Benchmark: see `mock-psp bench --help`.
#[derive(clap::Args, Debug, Clone)]
pub struct BenchArgs {
    /// Stored keys for the replay-latency and purge measurements.
    #[arg(long, default_value_t = 1_000_000)]
    pub keys: usize,
    /// Seconds per throughput measurement.
    #[arg(long, default_value_t = 3.0)]
    pub seconds: f64,
}

pub async fn run(_args: BenchArgs) -> Result<(), String> {
    Err("not yet".into())
}
