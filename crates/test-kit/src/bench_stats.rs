//! The benchmarks' one test of "with X on, is checkout slower beyond the machine's own
//! noise" (latency_bench, copy_bench): one figure per block (a median, a mean, a p99), the
//! ratio of the means of the "on" blocks to the "off" blocks, and where that ratio stands
//! among the ratios of random relabellings of the same blocks. Never used to pass or fail a
//! test: the benchmarks print it.

/// The `p` quantile (0 to 1) of `v`, nearest rank.
pub fn percentile(v: &[f64], p: f64) -> f64 {
    let mut v = v.to_vec();
    v.sort_by(f64::total_cmp);
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// A small deterministic generator (xorshift64*): the relabellings are the same every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// The ratio mean(on)/mean(off) of one figure per block, the middle 95% of that ratio
/// under `relabelings` random relabellings, and the two-sided p-value of the observed ratio.
pub fn permutation(off: &[f64], on: &[f64], relabelings: usize) -> (f64, f64, f64, f64) {
    let observed = mean(on) / mean(off);
    let mut all: Vec<f64> = off.iter().chain(on).copied().collect();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut ratios = Vec::with_capacity(relabelings);
    let mut as_far = 0usize;
    for _ in 0..relabelings {
        for i in (1..all.len()).rev() {
            all.swap(i, rng.below(i + 1));
        }
        let r = mean(&all[off.len()..]) / mean(&all[..off.len()]);
        if r.ln().abs() >= observed.ln().abs() - 1e-12 {
            as_far += 1;
        }
        ratios.push(r);
    }
    (observed, percentile(&ratios, 0.025), percentile(&ratios, 0.975), as_far as f64 / relabelings as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_far_apart_stand_out_and_the_same_blocks_do_not() {
        let off = [10.0, 11.0, 10.5, 9.5, 10.0, 10.2, 9.8, 10.1];
        let on = [20.0, 21.0, 19.5, 20.5, 20.0, 19.8, 20.2, 20.1];
        let (r, lo, hi, p) = permutation(&off, &on, 5_000);
        assert!(r > 1.9 && r > hi && p < 0.01, "{r} {lo} {hi} {p}");
        let (r, lo, hi, p) = permutation(&off, &off, 5_000);
        assert!((r - 1.0).abs() < 1e-12 && lo <= 1.0 && 1.0 <= hi && p > 0.9, "{r} {lo} {hi} {p}");
        assert_eq!(percentile(&[3.0, 1.0, 2.0], 0.5), 2.0);
    }
}
