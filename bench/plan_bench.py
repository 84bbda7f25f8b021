#!/usr/bin/env python3
"""How long Snakemake takes to plan a sharded build of N samples (issue 21): a sample sheet of
N rows pointing at files that need not exist (its `size` column spares the planner any stat),
then, each under /usr/bin/time:

1. `snakemake -n build` before the shards are planned (the checkpoint is pending);
2. `snakemake --cores 1 WORK/shards`: the planning checkpoint itself (plan.py);
3. `snakemake -n build` again, with the plan: every build_shard job in the DAG.

    python3 bench/plan_bench.py [--samples 661405] [--species 2800] [--metadata TSV]
                                [--order group:species] [--snakemake PATH] [--work DIR]

The sheet's groups are --species species with Zipf(1) abundances (as `bitsift-simulate
--species` draws them), or the `species` column of --metadata (a simulator's metadata.tsv:
document, species, clade; its first --samples rows). Prints one Markdown row per step.
"""

import argparse
import os
import random
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def arguments():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--samples", type=int, default=661405)
    p.add_argument("--species", type=int, default=2800)
    p.add_argument("--metadata", help="species of each sample from a simulator's metadata.tsv")
    p.add_argument("--order", default="group:species")
    p.add_argument("--snakemake", default=os.path.join(ROOT, "target/workflow-venv/bin/snakemake"),
                   help="snakemake executable (workflow/test.sh installs one here)")
    p.add_argument("--work", default=os.path.join(ROOT, "bench/artifacts/plan"))
    return p.parse_args()


def sheet_rows(args):
    """(document, species) of every sample."""
    if args.metadata:
        with open(args.metadata) as handle:
            next(handle)
            for number, line in enumerate(handle):
                if number == args.samples:
                    return
                document, species = line.rstrip("\n").split("\t")[:2]
                yield document, species
        return
    weights = [1 / (s + 1) for s in range(args.species)]
    draw = random.Random(1).choices(range(args.species), weights, k=args.samples)
    for number, species in enumerate(draw):
        yield "genome_%07d" % number, "sp%04d" % species


def timed(what, cmd, cwd):
    done = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit("plan_bench: %s failed:\n%s" % (what, done.stderr[-3000:]))
    wall, user, system, rss = done.stderr.strip().splitlines()[-1].split()
    print("| %s | %s s | %.1f s | %.0f MiB |"
          % (what, wall, float(user) + float(system), int(rss) / 1024))
    return done.stdout


def main():
    args = arguments()
    if os.path.isdir(args.work):
        shutil.rmtree(args.work)
    os.makedirs(args.work)
    rng = random.Random(2)
    with open(os.path.join(args.work, "samples.tsv"), "w") as handle:
        handle.write("path\tgroup\tsize\tspecies\n")
        for document, species in sheet_rows(args):
            # Sizes of gzipped 5 Mb assemblies, about 1.5 MB; the files need not exist.
            handle.write("genomes/%s.fa.gz\t%s\t%d\t%s\n"
                         % (document, species, rng.randint(1_200_000, 1_800_000), species))
    with open(os.path.join(args.work, "config.yaml"), "w") as handle:
        handle.write("samples: samples.tsv\ncollection: results/collection\n"
                     "work: plan\norder: %s\n" % args.order)
    snakemake = [args.snakemake, "-s", os.path.join(ROOT, "workflow/Snakefile"),
                 "--configfile", "config.yaml", "-d", "."]
    print("| step (%d samples, order %s) | wall | CPU | max RSS |" % (args.samples, args.order))
    print("|---|---:|---:|---:|")
    timed("`snakemake -n build`, before planning", snakemake + ["-n", "build"], args.work)
    # The planning checkpoint's output: the shard lists under the workflow's `work` key.
    timed("planning: the `shards` checkpoint (plan.py)",
          snakemake + ["--cores", "1", "plan/shards"], args.work)
    out = timed("`snakemake -n build`, planned", snakemake + ["-n", "build"], args.work)
    shards = [line.split()[1] for line in out.splitlines() if line.startswith("build_shard ")]
    print("\nbuild_shard jobs in the planned dry run: %s" % (shards[0] if shards else "?"))


if __name__ == "__main__":
    main()
