//! `bitsift iobench`: characterises a storage device for this workload (random reads of
//! index rows). Being written; see issue 4.
