#!/usr/bin/env bash
# Every command bench/answers_scale.py ran, in order.
sync
sh -c 'echo 3 > /proc/sys/vm/drop_caches'
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 -o bench/results/2026-11-25-answers/hits.tsv
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 -o bench/results/2026-11-25-answers/hits.tsv
sync
sh -c 'echo 3 > /proc/sys/vm/drop_caches'
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 --metadata /work/rehearsal/mission/sim/metadata.tsv --group-by species -o bench/results/2026-11-25-answers/groups.tsv
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 --metadata /work/rehearsal/mission/sim/metadata.tsv --group-by species -o bench/results/2026-11-25-answers/groups.tsv
sync
sh -c 'echo 3 > /proc/sys/vm/drop_caches'
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 --metadata /work/rehearsal/mission/sim/metadata.tsv --group-by species --format json -o bench/results/2026-11-25-answers/hits.json
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/sim/queries_universal.fa -t 0.8 --metadata /work/rehearsal/mission/sim/metadata.tsv --group-by species --format json -o bench/results/2026-11-25-answers/hits.json
sync
sh -c 'echo 3 > /proc/sys/vm/drop_caches'
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/batch.fa -t 0.8 --format matrix -o bench/results/2026-11-25-answers/matrix.tsv
/work/rehearsal/bin/bitsift-19 query -i /work/rehearsal/mission/wf/collection -f /work/rehearsal/mission/genes/batch.fa -t 0.8 --format matrix -o bench/results/2026-11-25-answers/matrix.tsv
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
/work/rehearsal/bin/bitsift-19 serve -i /work/rehearsal/mission/wf/collection --metadata /work/rehearsal/mission/sim/metadata.tsv --listen 127.0.0.1:0 --max-queued 256 --timeout 600
