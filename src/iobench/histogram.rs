//! A latency histogram of fixed size (HDR-style log-linear buckets), so that a run records
//! every request's latency without storing samples: memory does not grow with IOPS.
//!
//! Values below 128 get one bucket each; above, every power of two is split into 128 equal
//! buckets. A reported quantile is the upper edge of its bucket (never below the true value),
//! at most 1/128 (< 0.8 %) above it, and never above the largest value recorded.

/// Sub-buckets per power of two, as a power of two.
const SUB_BITS: u32 = 7;
const SUB_COUNT: u64 = 1 << SUB_BITS;
/// Buckets for every u64: band 0 holds 0..128, band b ≥ 1 holds [128·2^(b-1), 128·2^b).
const BUCKET_COUNT: usize = (64 - SUB_BITS as usize + 1) * SUB_COUNT as usize;

/// Counts of values (nanoseconds, here) in log-linear buckets, plus exact count, sum, min and
/// max. About 58 KiB, allocated once.
#[derive(Clone)]
pub(crate) struct Histogram {
    counts: Box<[u64]>,
    count: u64,
    sum: u128,
    min: u64,
    max: u64,
}

impl Histogram {
    /// An empty histogram.
    pub(crate) fn new() -> Histogram {
        Histogram {
            counts: vec![0; BUCKET_COUNT].into_boxed_slice(),
            count: 0,
            sum: 0,
            min: u64::MAX,
            max: 0,
        }
    }

    /// Records one value.
    #[inline]
    pub(crate) fn record(&mut self, value: u64) {
        self.counts[bucket_index(value)] += 1;
        self.count += 1;
        self.sum += value as u128;
        self.min = self.min.min(value);
        self.max = self.max.max(value);
    }

    /// Adds every value of `other`.
    pub(crate) fn merge(&mut self, other: &Histogram) {
        for (mine, theirs) in self.counts.iter_mut().zip(other.counts.iter()) {
            *mine += theirs;
        }
        self.count += other.count;
        self.sum += other.sum;
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
    }

    /// Values recorded.
    #[cfg(test)]
    pub(crate) fn count(&self) -> u64 {
        self.count
    }

    /// Largest value recorded (0 when empty).
    pub(crate) fn max(&self) -> u64 {
        self.max
    }

    /// Mean value (0 when empty).
    pub(crate) fn mean(&self) -> f64 {
        if self.count == 0 {
            return 0.0;
        }
        self.sum as f64 / self.count as f64
    }

    /// The value at quantile `q` (0..=1): the upper edge of the bucket holding the
    /// `ceil(q · count)`-th smallest value, clamped to [min, max]. 0 when empty.
    pub(crate) fn quantile(&self, q: f64) -> u64 {
        if self.count == 0 {
            return 0;
        }
        let rank = ((q.clamp(0.0, 1.0) * self.count as f64).ceil() as u64).clamp(1, self.count);
        let mut seen = 0;
        for (index, &count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                return bucket_high(index).clamp(self.min, self.max);
            }
        }
        self.max
    }
}

impl Default for Histogram {
    fn default() -> Self {
        Histogram::new()
    }
}

impl std::fmt::Debug for Histogram {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Histogram")
            .field("count", &self.count)
            .field("min", &self.min)
            .field("max", &self.max)
            .finish()
    }
}

#[inline]
fn bucket_index(value: u64) -> usize {
    if value < SUB_COUNT {
        return value as usize;
    }
    let exponent = 63 - value.leading_zeros();
    let shift = exponent - SUB_BITS;
    (((shift + 1) as u64) << SUB_BITS) as usize + ((value >> shift) - SUB_COUNT) as usize
}

/// Smallest value of bucket `index`.
fn bucket_low(index: usize) -> u64 {
    let band = (index as u64) >> SUB_BITS;
    if band == 0 {
        return index as u64;
    }
    ((index as u64 & (SUB_COUNT - 1)) + SUB_COUNT) << (band - 1)
}

/// Largest value of bucket `index`.
fn bucket_high(index: usize) -> u64 {
    let band = (index as u64) >> SUB_BITS;
    let width_minus_one = if band <= 1 {
        0
    } else {
        (1u64 << (band - 1)) - 1
    };
    bucket_low(index).saturating_add(width_minus_one)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_range() {
        let mut previous = 0;
        for value in (0..100_000u64).chain([u64::MAX / 3, u64::MAX - 1, u64::MAX]) {
            let index = bucket_index(value);
            assert!(index < BUCKET_COUNT);
            assert!(index >= previous, "monotonic at {value}");
            previous = index;
            assert!(
                bucket_low(index) <= value && value <= bucket_high(index),
                "{value}"
            );
        }
        for index in 1..BUCKET_COUNT {
            assert_eq!(bucket_low(index), bucket_high(index - 1) + 1, "{index}");
        }
        assert_eq!(bucket_high(BUCKET_COUNT - 1), u64::MAX);
    }

    #[test]
    fn quantiles_are_within_one_percent() {
        let mut histogram = Histogram::new();
        for value in 1..=100_000u64 {
            histogram.record(value * 1000);
        }
        for (q, exact) in [
            (0.5, 50_000_000.0),
            (0.99, 99_000_000.0),
            (0.999, 99_900_000.0),
        ] {
            let got = histogram.quantile(q) as f64;
            assert!(
                got >= exact && got <= exact * 1.008,
                "q {q}: {got} vs {exact}"
            );
        }
        assert_eq!(histogram.quantile(1.0), 100_000_000);
        assert_eq!(histogram.max(), 100_000_000);
        assert_eq!(histogram.count(), 100_000);
        assert!((histogram.mean() - 50_000_500.0).abs() < 1.0);
    }

    #[test]
    fn empty_single_and_merged() {
        let mut a = Histogram::new();
        assert_eq!(a.quantile(0.5), 0);
        a.record(53_000);
        assert_eq!(a.quantile(0.0), 53_000, "clamped to the only value");
        assert_eq!(a.quantile(0.99), 53_000);
        let mut b = Histogram::new();
        for _ in 0..99 {
            b.record(10);
        }
        a.merge(&b);
        assert_eq!(a.count(), 100);
        assert_eq!(a.quantile(0.5), 10);
        assert_eq!(a.quantile(0.995), 53_000);
        let p50 = a.quantile(0.5);
        let p99 = a.quantile(0.99);
        assert!(p50 <= p99 && p99 <= a.max());
    }
}
