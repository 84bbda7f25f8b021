#!/bin/sh
# $REHEARSAL: the 661k rehearsal's directory (bench/mission_scale.sh --out); $BITSIFT (or $BITSIFT_BEFORE/$BITSIFT_AFTER): the release binaries compared (see BENCHMARKS.md next to this table)
# commands of bench/remote_latency.py, in order
python3 tests/remote/servers.py start --dir $REHEARSAL/cobs/wf --rtt-ms 0 --no-upload --state STATE
python3 tests/remote/servers.py rtt --rtt-ms 0 --state STATE
$BITSIFT query -i http://127.0.0.1:38365/collection -f $REHEARSAL/min/genes/one/core_sp0000_q000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
$BITSIFT query -i http://127.0.0.1:38365/collection -f $REHEARSAL/min/genes/one/blaKPC-2_1_AY034847.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
$BITSIFT query -i http://127.0.0.1:38365/collection -f $REHEARSAL/min/genes/one/universal_00.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
$BITSIFT query -i http://127.0.0.1:38365/collection -f $REHEARSAL/min/genes/one/absent_q0000.fa -t 0.8 --format json --remote-ranges 1 --merge-gap 64K
python3 tests/remote/servers.py stop --state STATE
