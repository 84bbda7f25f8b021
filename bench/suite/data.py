"""The data: real gene sets (scripts/fetch-data.sh --bench), the query sets drawn from them
with a fixed seed, and the collections: the bundled genomes, a simulated collection
(bitsift-simulate, real AMR genes inserted) and a `bitsift synth` index with the 661k
geometry. Everything is cached under the work directory and reused when its parameters
match."""

import glob
import os
import random
import re
import shutil
import subprocess

from .util import (BenchError, cached_meta, fits, human, log, read_fasta, run, sha256_file,
                   store_meta, write_fasta)

GENE_DBS = ("resfinder", "amrfinder", "plasmidfinder")
ACGT = re.compile(r"^[ACGT]+$")


# --------------------------------------------------------------------------------------------
# genes


def gene_sources(ctx):
    """{db: path} of the real gene sets, fetched once into WORK/genes."""
    gdir = os.path.join(ctx.work, "genes")
    os.makedirs(gdir, exist_ok=True)
    paths = {db: os.path.join(gdir, db + ".fa") for db in GENE_DBS}
    missing = [db for db, p in paths.items() if not os.path.exists(p)]
    if missing:
        dest = os.path.join(ctx.work, "fetch")
        log("data: scripts/fetch-data.sh --bench %s (gene sets %s)" % (dest, ", ".join(missing)))
        run(["bash", os.path.join(ctx.root, "scripts/fetch-data.sh"), "--bench", dest],
            what="scripts/fetch-data.sh --bench")
        for db in missing:
            src = os.path.join(dest, "genes", db + ".fa")
            if not os.path.exists(src):
                raise BenchError("fetch-data.sh --bench wrote no genes/%s.fa" % db)
            shutil.copyfile(src, paths[db])
    return paths


def clean_records(path, prefix):
    out = []
    for name, seq in read_fasta(path):
        seq = seq.upper()
        if len(seq) >= 100 and ACGT.match(seq):
            out.append(("%s:%s" % (prefix, name), seq))
    return out


def dedupe(records):
    seen, out = set(), []
    for name, seq in records:
        if seq not in seen:
            seen.add(seq)
            out.append((name, seq))
    return out


def gene_sets(ctx):
    """Writes and returns the query sets (paths and records):
    insert (genes put into the simulated collection), batch (the 500-gene batch: mostly
    inserted genes, the rest real genes that were not inserted), cold (the first N of the
    batch set, which is shuffled: the one-by-one runs) and stream (the warm-up stream)."""
    args = ctx.args
    sdir = os.path.join(ctx.work, "genes", "sets")
    rng = random.Random(args.seed)
    if ctx.quick:
        pool = []
        for f in ("amr_genes.fa", "replicons.fa"):
            pool += clean_records(os.path.join(ctx.root, "data/demo/queries", f), "demo")
        pool = dedupe(pool)
        rng.shuffle(pool)
        insert, batch = [], pool[:args.batch_genes]
        sources = {"demo": "data/demo/queries/{amr_genes,replicons}.fa"}
    else:
        src = gene_sources(ctx)
        amr = dedupe(clean_records(src["resfinder"], "resfinder") + clean_records(src["amrfinder"], "amrfinder"))
        plasmid = dedupe(clean_records(src["plasmidfinder"], "plasmidfinder"))
        amr.sort()
        plasmid.sort()
        insert = rng.sample(amr, min(args.insert_genes, len(amr)))
        inserted = {s for _, s in insert}
        others = [r for r in amr + plasmid if r[1] not in inserted]
        n_hit = min(len(insert), int(round(args.batch_genes * args.hit_fraction)))
        batch = rng.sample(insert, n_hit) + rng.sample(others, args.batch_genes - n_hit)
        rng.shuffle(batch)
        sources = {db: os.path.relpath(p, ctx.work) for db, p in src.items()}
    cold = batch[:args.genes]
    if len(cold) < args.genes:
        ctx.notes.append("only %d query genes available (--genes %d)" % (len(cold), args.genes))
    stream = batch[:args.warmup_genes]
    if len(stream) < args.warmup_genes and not ctx.quick:
        # a longer stream than the batch set: more real genes, not inserted ones first
        used = {s for _, s in stream}
        extra = [r for r in others + insert if r[1] not in used]
        stream += rng.sample(extra, min(len(extra), args.warmup_genes - len(stream)))
    sets = {"insert": insert, "batch": batch, "cold": cold, "stream": stream}
    paths = {}
    for name, records in sets.items():
        if records:
            paths[name] = os.path.join(sdir, name + ".fa")
            write_fasta(paths[name], records)
    inserted = {s for _, s in insert}
    log("data: gene sets: %s" % ", ".join("%s %d" % (k, len(v)) for k, v in sets.items()))
    return {"records": sets, "paths": paths, "sources": sources,
            "cold_inserted": sum(1 for _, s in cold if s in inserted),
            "batch_inserted": sum(1 for _, s in batch if s in inserted)}


# --------------------------------------------------------------------------------------------
# collections


QUICK_MAX_FILE_BYTES = 200_000


def bundled(ctx):
    """The bundled genomes; --quick keeps the files under 200 kB (plasmids, phage), so that its
    builds take a second."""
    files = sorted(glob.glob(os.path.join(ctx.root, "data/demo/genomes/*.fa.gz")))
    if not files:
        raise BenchError("no bundled genomes in data/demo/genomes")
    what = "%d real genomes and plasmids (data/demo/genomes, gzip)" % len(files)
    if ctx.quick:
        files = [f for f in files if os.path.getsize(f) < QUICK_MAX_FILE_BYTES]
        what = "the %d bundled plasmid and phage files under 200 kB (data/demo/genomes, gzip)" % len(files)
    coll = {"name": "bundled", "files": files, "documents": len(files),
            "input_bytes": sum(os.path.getsize(f) for f in files), "description": what}
    if ctx.quick:
        coll["list"] = os.path.join(ctx.work, "bundled.list")
        with open(coll["list"], "w") as f:
            f.write("".join(p + "\n" for p in files))
    return coll


def simulated(ctx, sets):
    args = ctx.args
    name = "sim%d" % args.sim_genomes
    sdir = os.path.join(ctx.work, name)
    train = os.path.join(ctx.root, "data/demo/genomes/Kpn_MGH78578_CP000647_pKPN3-7.fa.gz")
    genes = sets["paths"]["insert"]
    params = {"genomes": args.sim_genomes, "genome_size": args.sim_genome_size, "seed": args.sim_seed,
              "train": os.path.basename(train), "genes_sha256": sha256_file(genes), "gzip": args.sim_gzip}
    marker = os.path.join(sdir, "collection.json")
    cmd = [ctx.simulate, "-o", sdir, "--genomes", args.sim_genomes, "--genome-size",
           args.sim_genome_size, "--train", train, "--genes", genes, "--seed", args.sim_seed, "-q"]
    if args.sim_gzip:
        cmd.append("--gzip")
    meta = cached_meta(marker, params)
    if meta is None:
        need = int(args.sim_genomes * args.sim_genome_size * (0.5 if args.sim_gzip else 1.5))
        if not fits(ctx.work, need, "simulating %d genomes" % args.sim_genomes, ctx.notes):
            return None
        if os.path.exists(sdir):
            shutil.rmtree(sdir)
        log("data: simulating %d genomes of %s bases into %s" % (args.sim_genomes, args.sim_genome_size, sdir))
        done = run(cmd, what="bitsift-simulate")
        meta = store_meta(marker, params, command=[str(c) for c in cmd], wall_s=done.wall_s)
        log("data: simulated in %.0f s" % done.wall_s)
    else:
        log("data: reusing simulated collection %s (made %s)" % (sdir, meta["made"]))
    files = sorted(glob.glob(os.path.join(sdir, "genome_*.fa")) + glob.glob(os.path.join(sdir, "genome_*.fa.gz")))
    if len(files) != args.sim_genomes:
        raise BenchError("%s holds %d genome files, expected %d" % (sdir, len(files), args.sim_genomes))
    listing = os.path.join(ctx.work, name + ".list")
    with open(listing + ".tmp", "w") as f:
        f.write("".join(p + "\n" for p in files))
    os.replace(listing + ".tmp", listing)
    return {"name": name, "files": files, "list": listing, "documents": len(files),
            "input_bytes": sum(os.path.getsize(p) for p in files), "command": meta["command"],
            "description": "%d simulated genomes (bitsift-simulate, %s-base core, seed %s, %d real "
                           "AMR genes inserted)" % (args.sim_genomes, args.sim_genome_size,
                                                    args.sim_seed, len(sets["records"]["insert"]))}


DRY = {"blocks": re.compile(r"(\d+) blocks? of (\d+) documents, (\d+)-byte rows, (\d+)\.\.(\d+) rows"),
       "bytes": re.compile(r"\((\d+) bytes\)")}


def synth_plan(ctx, scale):
    args = ctx.args
    cmd = [ctx.bitsift, "synth", "-o", os.path.join(ctx.work, "dry.cobs_compact"), "--documents",
           args.synth_documents, "--genome-size", args.synth_genome_size, "--scale", scale, "--dry-run"]
    text = run(cmd, what="bitsift synth --dry-run").stderr
    m, b = DRY["blocks"].search(text), DRY["bytes"].search(text)
    if not (m and b):
        raise BenchError("cannot parse `bitsift synth --dry-run` output: %r" % text[:300])
    return {"blocks": int(m.group(1)), "page_size": int(m.group(3)), "rows_min": int(m.group(4)),
            "rows_max": int(m.group(5)), "file_size": int(b.group(1)), "documents": int(args.synth_documents)}


def choose_scale(ctx):
    """The largest scale (0.001 steps) whose file is at most --synth-max-bytes."""
    args = ctx.args
    if args.synth_scale:
        return args.synth_scale, synth_plan(ctx, args.synth_scale)
    full = synth_plan(ctx, 1)
    scale = max(0.001, min(1.0, int(args.synth_max_bytes / full["file_size"] * 1000) / 1000))
    plan = synth_plan(ctx, "%g" % scale)
    while plan["file_size"] > args.synth_max_bytes and scale > 0.001:
        scale = round(scale - 0.001, 3)
        plan = synth_plan(ctx, "%g" % scale)
    return "%g" % scale, plan


def info(ctx, path):
    return run([ctx.bitsift, "info", "--json", path], what="bitsift info").json()


def matches(plan, inf):
    return all(inf.get(k) == plan[k] for k in ("documents", "blocks", "page_size", "rows_min",
                                                 "rows_max", "file_size"))


def synth(ctx):
    args = ctx.args
    p = subprocess.run([ctx.bitsift, "synth", "--help"], capture_output=True, text=True)
    if p.returncode != 0 or "--scale" not in p.stdout:
        ctx.notes.append("skipped the synth index: this bitsift has no `synth --scale`")
        return None
    scale, plan = choose_scale(ctx)
    params = {"documents": int(args.synth_documents), "genome_size": int(args.synth_genome_size),
              "scale": scale, "seed": 1}
    own = os.path.join(ctx.work, "synth661k.cobs_compact")
    for path in (own,):
        if os.path.exists(path):
            inf = info(ctx, path)
            if matches(plan, inf):
                log("data: reusing synth index %s (scale %s, %s; geometry matches `bitsift info --json`)"
                    % (path, scale, human(inf["file_size"])))
                return {"name": "synth661k", "path": path, "scale": scale, "plan": plan, "info": inf,
                        "reused": True, "documents": inf["documents"],
                        "description": "`bitsift synth` index, 661,405 documents of median %s bases "
                                       "× scale %s (random rows, 661k geometry)" % (args.synth_genome_size, scale)}
            log("data: %s does not match the planned geometry (scale %s): not reused" % (path, scale))
    if not fits(ctx.work, plan["file_size"], "writing the synth index (scale %s)" % scale, ctx.notes):
        return None
    cmd = [ctx.bitsift, "synth", "-o", own, "--documents", args.synth_documents, "--genome-size",
           args.synth_genome_size, "--scale", scale, "--force"]
    log("data: bitsift synth, scale %s, %s" % (scale, human(plan["file_size"])))
    done = run(cmd, what="bitsift synth")
    inf = info(ctx, own)
    store_meta(own, params, command=[str(c) for c in cmd], wall_s=done.wall_s)
    return {"name": "synth661k", "path": own, "scale": scale, "plan": plan, "info": inf,
            "reused": False, "documents": inf["documents"], "wall_s": done.wall_s,
            "description": "`bitsift synth` index, 661,405 documents of median %s bases × scale %s "
                           "(random rows, 661k geometry)" % (args.synth_genome_size, scale)}


def prepare(ctx):
    sets = gene_sets(ctx)
    collections = {"bundled": bundled(ctx)}
    synth_index = None
    if not ctx.quick:
        if ctx.args.sim_genomes > 0:
            sim = simulated(ctx, sets)
            if sim:
                collections[sim["name"]] = sim
        else:
            ctx.notes.append("no simulated collection (--sim-genomes 0)")
        synth_index = synth(ctx)
    return {"sets": sets, "collections": collections, "synth": synth_index}
