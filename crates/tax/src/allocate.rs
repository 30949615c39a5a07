//! Spreading a sale discount over the rates (record 0056).

/// Splits `total` over `weights` in proportion, in whole units, exactly (`sum == total`).
///
/// Rule, so that the same cart always gives the same split: each part first gets
/// `floor(total * weight / sum)`; the units left over (fewer than the number of parts) go one
/// each to the parts with the largest remainder `total * weight mod sum`, ties to the lower
/// index. The caller orders parts standard, reduced, exempt, so a tie favours discounting the
/// standard rate.
///
/// A part never gets more than its weight when `total <= sum(weights)`: a part that gets a
/// leftover unit had a non-zero remainder, so its share was strictly below its weight.
/// Returns `None` if `total` or a weight is negative, or `total` exceeds the sum.
pub fn allocate_proportionally(total: i64, weights: &[i64]) -> Option<Vec<i64>> {
    if total < 0 || weights.iter().any(|w| *w < 0) {
        return None;
    }
    let sum: i128 = weights.iter().map(|w| i128::from(*w)).sum();
    if i128::from(total) > sum {
        return None;
    }
    if sum == 0 {
        return Some(vec![0; weights.len()]);
    }
    largest_remainder(i128::from(total), weights, sum)
}

/// Splits a rate's tax over the taxes stacked in it (record 0131), in proportion to their
/// rates and exactly (`sum == total`), by the same rule as [`allocate_proportionally`]. Unlike
/// a discount a tax may exceed the sum of its weights (they are rates, not amounts). `None`
/// if `total` or a weight is negative; all weights zero gives all shares zero only for a zero
/// total (a tax at 0 % is zero).
pub(crate) fn split_by_rate(total: i64, weights: &[u32]) -> Option<Vec<i64>> {
    let weights: Vec<i64> = weights.iter().map(|w| i64::from(*w)).collect();
    let sum: i128 = weights.iter().map(|w| i128::from(*w)).sum();
    if total < 0 || (sum == 0 && total != 0) {
        return None;
    }
    if sum == 0 {
        return Some(vec![0; weights.len()]);
    }
    largest_remainder(i128::from(total), &weights, sum)
}

fn largest_remainder(t: i128, weights: &[i64], sum: i128) -> Option<Vec<i64>> {
    let mut shares: Vec<i128> = weights.iter().map(|w| t * i128::from(*w) / sum).collect();
    let mut left = t - shares.iter().sum::<i128>();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    // Largest remainder first; the sort is stable, so equal remainders keep index order.
    order.sort_by_key(|&i| std::cmp::Reverse(t * i128::from(weights[i]) % sum));
    for i in order {
        if left == 0 {
            break;
        }
        shares[i] += 1;
        left -= 1;
    }
    // Each share is at most the total, which came from an i64.
    shares.into_iter().map(|s| i64::try_from(s).ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::allocate_proportionally as a;

    #[test]
    fn splits_exactly_with_largest_remainder_then_lowest_index() {
        // 100 over three equal parts → 33.33 each; the leftover unit goes to the first (tie).
        assert_eq!(a(100, &[200, 200, 200]), Some(vec![34, 33, 33]));
        // 10 over 300:700 is exact.
        assert_eq!(a(10, &[300, 700]), Some(vec![3, 7]));
        // 5 over 10:20 → 1.67 / 3.33: the larger remainder (first) gets the unit.
        assert_eq!(a(5, &[10, 20]), Some(vec![2, 3]));
        // 4 over 10:20 → 1.33 / 2.67: now the second has the larger remainder.
        assert_eq!(a(4, &[10, 20]), Some(vec![1, 3]));
        assert_eq!(a(0, &[5, 5]), Some(vec![0, 0]));
        assert_eq!(a(0, &[]), Some(vec![]));
    }

    #[test]
    fn splits_a_tax_over_stacked_rates() {
        use super::split_by_rate as r;
        // 89 cents over 4 % + 4.5 % + 0.375 %: 40.11, 45.13, 3.76 → 40, 45, 3 and the cent
        // left goes to the largest remainder, the 0.375 %.
        assert_eq!(r(89, &[40_000, 45_000, 3_750]), Some(vec![40, 45, 4]));
        // A tax larger than the sum of the rates still splits.
        assert_eq!(r(887_500, &[40_000, 45_000, 3_750]), Some(vec![400_000, 450_000, 37_500]));
        assert_eq!(r(0, &[0]), Some(vec![0]));
        assert_eq!(r(1, &[0, 0]), None);
        assert_eq!(r(-1, &[1]), None);
    }

    #[test]
    fn refuses_what_cannot_be_split() {
        assert_eq!(a(11, &[5, 5]), None);
        assert_eq!(a(-1, &[5]), None);
        assert_eq!(a(1, &[-5, 10]), None);
    }
}
