//! Clustering documents by their sketches, in time linear in the number of documents.
//!
//! Leader clustering (as in CD-HIT or Linclust, here on MinHash sketches): documents are taken
//! in a fixed order; each joins the most similar existing cluster leader whose estimated
//! Jaccard similarity reaches the threshold, or leads a new cluster. Candidate leaders come
//! from an inverted index of the leaders' sketch bins (LSH with bands of one bin): only
//! leaders sharing at least one bin value with the document are compared, and a bucket
//! remembers at most [`BUCKET_MAX`] leaders, so a document costs at most `64 · BUCKET_MAX`
//! lookups whatever the collection size. There is no single-linkage chaining: a cluster is
//! the set of documents close to its leader.
//!
//! Clusters are refined level by level at the thresholds of [`LEVELS`], each level splitting
//! the clusters of the one before, so the final order keeps a species together, then its
//! lineages, then its closest strains.

use std::collections::HashMap;

use super::sketch::{Sketch, BINS, EMPTY};

/// Jaccard thresholds of the levels. With 31-mers, Jaccard 0.1 is about 95 % average
/// nucleotide identity (the usual species boundary), 0.3 about 98.3 % and 0.6 about 99.1 %
/// (Mash distance `−ln(2J / (1 + J)) / k`).
pub(crate) const LEVELS: [f64; 3] = [0.1, 0.3, 0.6];
/// Leaders remembered per (bin, value) bucket.
pub(crate) const BUCKET_MAX: usize = 32;
/// Candidate leaders compared exactly per document (those sharing the most bins).
const CANDIDATES_MAX: usize = 16;

/// Groups of similar documents, each a top-level cluster with its members in nested cluster
/// order. `rank[d]` orders documents (the size order): it decides who leads and the order
/// within the finest clusters.
pub(crate) fn similarity_groups(sketches: &[Sketch], rank: &[usize]) -> Vec<Vec<usize>> {
    assert_eq!(sketches.len(), rank.len(), "one rank per sketch");
    let mut all: Vec<usize> = (0..sketches.len()).collect();
    all.sort_by_key(|&d| rank[d]);
    leader_clusters(&all, sketches, LEVELS[0])
        .into_iter()
        .map(|cluster| {
            let mut ordered = Vec::with_capacity(cluster.len());
            nest(cluster, 1, sketches, rank, &mut ordered);
            ordered
        })
        .collect()
}

/// Appends `members` to `out`, clustered at `LEVELS[level..]`, biggest clusters first.
fn nest(
    mut members: Vec<usize>,
    level: usize,
    sketches: &[Sketch],
    rank: &[usize],
    out: &mut Vec<usize>,
) {
    if level == LEVELS.len() || members.len() <= 1 {
        members.sort_by_key(|&d| rank[d]);
        out.extend(members);
        return;
    }
    for cluster in leader_clusters(&members, sketches, LEVELS[level]) {
        nest(cluster, level + 1, sketches, rank, out);
    }
}

/// Leader clustering of `members` (in this order) at `threshold`; clusters by size,
/// descending, then by their leader's position. Each cluster lists its leader first.
pub(crate) fn leader_clusters(
    members: &[usize],
    sketches: &[Sketch],
    threshold: f64,
) -> Vec<Vec<usize>> {
    let mut clusters: Vec<Vec<usize>> = Vec::new();
    let mut buckets: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut shared: HashMap<u32, u32> = HashMap::new();
    for &d in members {
        let sketch = &sketches[d];
        shared.clear();
        for (bin, &value) in sketch.bins.iter().enumerate() {
            if value == EMPTY {
                continue;
            }
            if let Some(leaders) = buckets.get(&bucket_key(bin, value)) {
                for &c in leaders {
                    *shared.entry(c).or_insert(0) += 1;
                }
            }
        }
        let mut candidates: Vec<(u32, u32)> = shared.iter().map(|(&c, &n)| (n, c)).collect();
        candidates.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let best = candidates
            .iter()
            .take(CANDIDATES_MAX)
            .map(|&(_, c)| (sketch.similarity(&sketches[clusters[c as usize][0]]), c))
            .filter(|&(similarity, _)| similarity >= threshold)
            .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
        match best {
            Some((_, c)) => clusters[c as usize].push(d),
            None => {
                let c = clusters.len() as u32;
                for (bin, &value) in sketch.bins.iter().enumerate() {
                    if value != EMPTY {
                        let leaders = buckets.entry(bucket_key(bin, value)).or_default();
                        if leaders.len() < BUCKET_MAX {
                            leaders.push(c);
                        }
                    }
                }
                clusters.push(vec![d]);
            }
        }
    }
    // Stable: equal sizes keep their leaders' order.
    clusters.sort_by_key(|c| std::cmp::Reverse(c.len()));
    clusters
}

fn bucket_key(bin: usize, value: u32) -> u64 {
    debug_assert!(bin < BINS);
    ((bin as u64) << 32) | value as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sketch that agrees with `base` in the first `agree` bins and has its own values
    /// (from `salt`) elsewhere.
    fn variant(base: &Sketch, agree: usize, salt: u32) -> Sketch {
        let mut s = base.clone();
        for (i, bin) in s.bins.iter_mut().enumerate().skip(agree) {
            *bin = salt.wrapping_mul(2654435761).wrapping_add(i as u32 * 7919) & 0x7fff_ffff;
        }
        s
    }

    fn base(seed: u32) -> Sketch {
        let mut s = Sketch::default();
        for (i, bin) in s.bins.iter_mut().enumerate() {
            *bin = seed.wrapping_mul(97).wrapping_add(i as u32 * 31337) | 0x8000_0000;
            *bin &= !1; // never EMPTY
        }
        s
    }

    #[test]
    fn species_and_lineages_are_found() {
        // Two "species" with two "lineages" each, interleaved in the input.
        let mut sketches = Vec::new();
        let mut truth = Vec::new();
        for i in 0..40u32 {
            let species = i % 2;
            let lineage = (i / 2) % 2;
            let root = base(species + 1);
            let lineage_root = variant(&root, 40, 1000 + species * 10 + lineage);
            // Same lineage: agree in 40 + 16 bins; other lineage: 40 bins (0.62).
            let mut s = variant(&lineage_root, 56, 5000 + i);
            if i == 0 {
                s = lineage_root.clone();
            }
            sketches.push(s);
            truth.push((species, lineage));
        }
        sketches.push(Sketch::default());
        truth.push((9, 9));
        let rank: Vec<usize> = (0..sketches.len()).collect();
        let groups = similarity_groups(&sketches, &rank);
        // Every document exactly once.
        let mut seen: Vec<usize> = groups.iter().flatten().copied().collect();
        seen.sort_unstable();
        assert_eq!(seen, rank);
        // Two species groups and the empty document alone.
        assert_eq!(groups.len(), 3, "{groups:?}");
        for group in &groups[..2] {
            let species = truth[group[0]].0;
            assert!(group.iter().all(|&d| truth[d].0 == species));
            assert_eq!(group.len(), 20);
        }
        assert_eq!(groups[2], vec![40]);
        // Leader clustering at 0.3 keeps each species together (0.62 between lineages).
        let clusters = leader_clusters(&groups[0], &sketches, 0.3);
        assert_eq!(clusters.len(), 1);
        // At 0.7 the lineages (0.875 within, 0.62 between) separate.
        let clusters = leader_clusters(&groups[0], &sketches, 0.7);
        assert_eq!(clusters.len(), 2);
        for cluster in &clusters {
            let lineage = truth[cluster[0]];
            assert!(cluster.iter().all(|&d| truth[d] == lineage));
        }
        // Determinism.
        assert_eq!(similarity_groups(&sketches, &rank), groups);
    }

    #[test]
    fn unrelated_documents_are_singletons_and_buckets_stay_bounded() {
        let sketches: Vec<Sketch> = (0..200).map(|i| base(1000 + i * 7)).collect();
        let members: Vec<usize> = (0..200).collect();
        let clusters = leader_clusters(&members, &sketches, 0.1);
        assert!(clusters.len() > 150, "{}", clusters.len());
        // Identical sketches form one cluster however many there are.
        let same = vec![base(5); 500];
        let members: Vec<usize> = (0..500).collect();
        assert_eq!(leader_clusters(&members, &same, 0.9).len(), 1);
    }
}
