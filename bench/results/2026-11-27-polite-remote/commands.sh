#!/bin/sh
# commands of bench/polite_remote.py, in order
python3 tests/remote/servers.py start --dir $TMP --state $STATE --rtt-ms 0 --no-upload
python3 tests/remote/small_server.py --dir $TMP --backlog 5
$BITSIFT_BEFORE query -i $URL/synth.cobs_compact -f $STATE/genes-100.fa -t 0.3
$BITSIFT_BEFORE query -i $URL/synth.cobs_compact -f $STATE/genes-100.fa -t 0.3
$TMP/bitsift-after3 query -i $URL/synth.cobs_compact -f $STATE/genes-100.fa -t 0.3
$TMP/bitsift-after3 query -i $URL/synth.cobs_compact -f $STATE/genes-100.fa -t 0.3
$BITSIFT_BEFORE query -i $URL/synth.cobs_compact -f $STATE/genes-800.fa -t 0.3
$BITSIFT_BEFORE query -i $URL/synth.cobs_compact -f $STATE/genes-800.fa -t 0.3
$TMP/bitsift-after3 query -i $URL/synth.cobs_compact -f $STATE/genes-800.fa -t 0.3
$TMP/bitsift-after3 query -i $URL/synth.cobs_compact -f $STATE/genes-800.fa -t 0.3
