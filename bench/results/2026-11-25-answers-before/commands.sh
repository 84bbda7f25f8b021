#!/usr/bin/env bash
# Every command bench/answers_scale.py ran, in order.
/work/rehearsal/bin/bitsift serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
