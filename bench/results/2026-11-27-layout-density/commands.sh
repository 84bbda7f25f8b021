# profile none: none: no read throttle, memory 2.0 GiB (no throttle: the memory cap only)
sync; echo 3 > /proc/sys/vm/drop_caches; /work/rehearsal/bin2/bitsift query -i /work/rehearsal/synth-min.cobs_compact -f /work/rehearsal/min/genes/one/absent_q0000.fa --format json --batch 1 -t 0.8
sync; echo 3 > /proc/sys/vm/drop_caches; /work/rehearsal/bin2/bitsift query -i /work/rehearsal/synth-cobs.cobs_compact -f /work/rehearsal/min/genes/one/absent_q0000.fa --format json --batch 1 -t 0.8
