# profile none: none: no read throttle, memory 2.0 GiB (no throttle: the memory cap only)
sync; echo 3 > /proc/sys/vm/drop_caches; REHEARSAL/bin2/bitsift query -i REHEARSAL/synth-min.cobs_compact -f REHEARSAL/min/genes/one/absent_q0000.fa --format json --batch 1 -t 0.8
sync; echo 3 > /proc/sys/vm/drop_caches; REHEARSAL/bin2/bitsift query -i REHEARSAL/synth-cobs.cobs_compact -f REHEARSAL/min/genes/one/absent_q0000.fa --format json --batch 1 -t 0.8
