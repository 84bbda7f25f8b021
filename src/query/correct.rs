//! Scores corrected for the index's false positives: what a hit's count says once the
//! k-mers its document's Bloom filter reports by chance are taken out.
//!
//! A document whose filter has a fraction `ρ` of its bits set reports an absent k-mer with
//! probability `p = ρ^H` (`H` hash functions). A query of `n` k-mers of which the document
//! truly holds `c·n` then finds `x ≈ c·n + (1 − c)·n·p` of them, so
//! `ĉ = (x/n − p) / (1 − p)` estimates the containment `c` ([`Corrected::containment`]).
//! `ρ` comes from the document's own column ([`DocumentFill`], read by [`super::fill`]), not
//! from the nominal false-positive rate: documents smaller than the largest of their block
//! have sparser filters.
//!
//! The confidence is twofold: [`Corrected::p_false`], the probability that false positives
//! alone (`c = 0`) find at least `x` k-mers (a binomial tail), and a 95 % interval for `c`
//! ([`Corrected::low`], [`Corrected::high`]) that adds the sampling error of `ρ` to that of
//! the false positives among the `(1 − c)·n` absent k-mers. A search that filters on these
//! ([`Corrected::reported`]) reports a document when the interval's top reaches the
//! threshold and `p_false` is under [`P_FALSE_MAX`]; one whose interval reaches under the
//! threshold is [`Corrected::borderline`].

/// Two-sided 95 % normal quantile.
const Z: f64 = 1.959_963_984_540_054;

/// A hit whose count false positives alone reach with at least this probability is not
/// reported by a corrected search: one in a million, so that a search of a million
/// documents that hold none of a query expects about one such document at worst, and
/// typically none (a true carrier's `p_false` is smaller by hundreds of orders of magnitude).
pub(crate) const P_FALSE_MAX: f64 = 1e-6;

/// What is known of a document's filter: `ones` bits set among `sampled` bits of its column
/// (every row of its block when `sampled` equals the block's rows), with `hashes` hash
/// functions per k-mer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DocumentFill {
    /// Bits set in the rows sampled.
    pub ones: u64,
    /// Rows sampled.
    pub sampled: u64,
    /// Rows of the block: a sample of all of them is exact.
    pub row_count: u64,
    /// Hash functions per k-mer.
    pub hashes: u32,
}

impl DocumentFill {
    /// The false-positive rate of one k-mer lookup, with its 95 % interval: `ρ^H` for the
    /// document's ratio of ones `ρ`.
    fn fpr(&self) -> (f64, f64, f64) {
        let sampled = self.sampled.max(1) as f64;
        let rho = self.ones as f64 / sampled;
        let power = |r: f64| r.clamp(0.0, 1.0).powi(self.hashes.max(1) as i32);
        if self.sampled >= self.row_count {
            let p = power(rho);
            return (p, p, p);
        }
        let (low, high) = wilson(rho, sampled);
        (power(rho), power(low), power(high))
    }
}

/// A hit's score corrected for false positives; see the module documentation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct Corrected {
    /// The document's false-positive rate per k-mer lookup.
    pub fpr: f64,
    /// False-positive k-mers expected among those found: `n · (1 − ĉ) · fpr`.
    pub fp_expected: f64,
    /// Containment corrected for false positives, `ĉ`, from 0 to 1.
    pub containment: f64,
    /// Lower end of the 95 % interval of the containment.
    pub low: f64,
    /// Upper end of the 95 % interval of the containment.
    pub high: f64,
    /// Probability that false positives alone find at least as many k-mers.
    pub p_false: f64,
    /// The interval reaches under the threshold of the search that reported the hit.
    pub borderline: bool,
}

impl Corrected {
    /// The score of `found` of `total` k-mers in a document of fill `fill`, for a search of
    /// threshold `threshold` (a fraction of k-mers, on the corrected containment).
    pub(crate) fn of(found: u64, total: u64, fill: DocumentFill, threshold: f64) -> Corrected {
        let n = total.max(1) as f64;
        let f = (found as f64 / n).min(1.0);
        let (p, p_low, p_high) = fill.fpr();
        let containment = contained(f, p);
        // Only the (1 − c)·n absent k-mers vary: each is a false positive with probability p.
        let spread = |p: f64| {
            let absent = (1.0 - containment).max(1.0 / n);
            Z * (absent * p / (n * (1.0 - p).max(1e-12))).sqrt()
        };
        let low = (contained(f, p_high) - spread(p_high)).clamp(0.0, 1.0);
        let high = (contained(f, p_low) + spread(p_low)).clamp(0.0, 1.0);
        Corrected {
            fpr: p,
            fp_expected: n * (1.0 - containment) * p,
            containment,
            low,
            high,
            p_false: binomial_tail(total, p_high, found),
            borderline: low < threshold,
        }
    }

    /// Whether a corrected search of threshold `threshold` reports the hit: its interval
    /// reaches the threshold (a carrier just over it whose estimate fell under is kept, and
    /// marked [`Corrected::borderline`]) and false positives alone are unlikely to explain it.
    pub(crate) fn reported(&self, threshold: f64) -> bool {
        self.high >= threshold && self.p_false < P_FALSE_MAX
    }
}

/// `(f − p) / (1 − p)` clamped to 0..=1 (1 when every bit is set: nothing is known).
fn contained(f: f64, p: f64) -> f64 {
    if p >= 1.0 {
        return if f >= 1.0 { 1.0 } else { 0.0 };
    }
    ((f - p) / (1.0 - p)).clamp(0.0, 1.0)
}

/// Wilson's 95 % score interval of a proportion `p` observed in `n` trials.
fn wilson(p: f64, n: f64) -> (f64, f64) {
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// `P(X ≥ x)` for `X ~ Binomial(n, p)`, summed in log space from the side away from the
/// mode, so that a far tail costs a few terms and a near one a few standard deviations.
pub(crate) fn binomial_tail(n: u64, p: f64, x: u64) -> f64 {
    if x == 0 || p >= 1.0 {
        return 1.0;
    }
    if x > n || p <= 0.0 {
        return 0.0;
    }
    let ratio = p / (1.0 - p);
    let log_pmf = |k: u64| ln_choose(n, k) + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln();
    if x as f64 > n as f64 * p {
        // Upper tail: terms fall from x on.
        let (mut term, mut sum) = (log_pmf(x).exp(), 0.0);
        let mut k = x;
        while term > 0.0 && k <= n {
            sum += term;
            if term < sum * 1e-17 {
                break;
            }
            term *= (n - k) as f64 / (k + 1) as f64 * ratio;
            k += 1;
        }
        sum.min(1.0)
    } else {
        // 1 − P(X ≤ x − 1): terms fall from x − 1 down.
        let mut k = x - 1;
        let (mut term, mut sum) = (log_pmf(k).exp(), 0.0);
        loop {
            sum += term;
            if k == 0 || term < sum * 1e-17 {
                break;
            }
            term *= k as f64 / (n - k + 1) as f64 / ratio;
            k -= 1;
        }
        (1.0 - sum).clamp(0.0, 1.0)
    }
}

/// `ln C(n, k)`.
fn ln_choose(n: u64, k: u64) -> f64 {
    ln_factorial(n) - ln_factorial(k) - ln_factorial(n - k)
}

/// `ln n!`: exact sums up to 256, Stirling's series beyond (error under 1e-13).
fn ln_factorial(n: u64) -> f64 {
    if n < 256 {
        return (2..=n).map(|i| (i as f64).ln()).sum();
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x * x * x)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `P(X ≥ x)` by summing every term with exact factorials in f64.
    fn tail_brute(n: u64, p: f64, x: u64) -> f64 {
        (x..=n)
            .map(|k| {
                let ln = (2..=n).map(|i| (i as f64).ln()).sum::<f64>()
                    - (2..=k).map(|i| (i as f64).ln()).sum::<f64>()
                    - (2..=n - k).map(|i| (i as f64).ln()).sum::<f64>();
                (ln + k as f64 * p.ln() + (n - k) as f64 * (1.0 - p).ln()).exp()
            })
            .sum()
    }

    fn exact(ones: u64, rows: u64) -> DocumentFill {
        DocumentFill {
            ones,
            sampled: rows,
            row_count: rows,
            hashes: 1,
        }
    }

    #[test]
    fn binomial_tails_match_a_brute_force_sum() {
        for (n, p, x) in [
            (10, 0.3, 3),
            (10, 0.3, 0),
            (10, 0.3, 10),
            (100, 0.3, 30),
            (100, 0.3, 50),
            (100, 0.3, 12),
            (1000, 0.25, 400),
            (1000, 0.25, 240),
            (700, 0.01, 5),
        ] {
            let (fast, brute) = (binomial_tail(n, p, x), tail_brute(n, p, x));
            assert!(
                (fast - brute).abs() <= 1e-9 * brute.max(1e-300) + 1e-12,
                "n {n} p {p} x {x}: {fast} vs {brute}"
            );
        }
        assert_eq!(binomial_tail(10, 0.0, 1), 0.0);
        assert_eq!(binomial_tail(10, 1.0, 10), 1.0);
        assert_eq!(binomial_tail(10, 0.5, 11), 0.0);
    }

    #[test]
    fn ln_factorial_is_continuous_where_stirling_takes_over() {
        let sum: f64 = (2..=300u64).map(|i| (i as f64).ln()).sum();
        assert!(
            (ln_factorial(300) - sum).abs() < 1e-9,
            "{}",
            ln_factorial(300) - sum
        );
    }

    #[test]
    fn false_positives_alone_correct_to_nothing_and_are_not_reported() {
        // 30 % of the bits set: a document holding none of 1,000 k-mers finds ~300.
        let fill = exact(300, 1000);
        let none = Corrected::of(300, 1000, fill, 0.2);
        assert_eq!(none.containment, 0.0);
        assert!(none.p_false > 0.4, "{none:?}");
        assert!(!none.reported(0.2) && !none.reported(0.0));
        assert!((none.fp_expected - 300.0).abs() < 1e-9);
        // The replicon: 380 of 530 k-mers truly present, 426 found at p ≈ 0.3.
        let replicon = Corrected::of(426, 530, exact(3, 10), 0.8);
        assert!(
            (replicon.containment - 380.0 / 530.0).abs() < 0.01,
            "{replicon:?}"
        );
        assert!(!replicon.reported(0.8));
        assert!(replicon.reported(0.6) && replicon.p_false < 1e-30);
    }

    #[test]
    fn a_whole_copy_stays_whole_and_an_interval_straddling_the_threshold_is_borderline() {
        let whole = Corrected::of(1000, 1000, exact(3, 10), 0.8);
        assert_eq!(whole.containment, 1.0);
        assert!(whole.low > 0.99 && !whole.borderline, "{whole:?}");
        let near = Corrected::of(860, 1000, exact(3, 10), 0.8);
        assert!((near.containment - 0.8).abs() < 1e-9);
        assert!(near.reported(0.8) && near.borderline, "{near:?}");
        assert!(near.low < 0.8 && near.high > 0.8);
    }

    #[test]
    fn a_sampled_fill_widens_the_interval() {
        let exact_fill = Corrected::of(700, 1000, exact(300, 1000), 0.5);
        let sampled = DocumentFill {
            ones: 300,
            sampled: 1000,
            row_count: 100_000,
            hashes: 1,
        };
        let estimate = Corrected::of(700, 1000, sampled, 0.5);
        assert_eq!(estimate.containment, exact_fill.containment);
        assert!(estimate.low < exact_fill.low && estimate.high > exact_fill.high);
        // Two hash functions: p = ρ².
        let two = DocumentFill {
            hashes: 2,
            ..exact(500, 1000)
        };
        assert!((Corrected::of(500, 1000, two, 0.5).fpr - 0.25).abs() < 1e-12);
    }
}
