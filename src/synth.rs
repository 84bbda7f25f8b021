//! `bitsift synth`: indexes with the exact geometry of a real collection and random rows.
//! Being written; see issue 4.
