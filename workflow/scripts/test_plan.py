#!/usr/bin/env python3
"""Unit tests of the shard planner (plan.py shards), run by workflow/test.sh:

    python3 workflow/scripts/test_plan.py

Sample sheets with a `size` column and paths that need not exist: planning reads no genome.
"""

import csv
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plan  # noqa: E402

# The bundled genomes (data/demo/genomes), grouped by the genus prefix of their names:
# Eco 2, Kpn 5, and five groups of one genome.
DEMO = [
    "Eco_O157_pOSAK1_AB011548", "Eco_pBK32602_KU295134", "Kpn_CAV1453_plasmids_CP018355_CP018354",
    "Kpn_HS11286_CP003200_pKPHS1-6", "Kpn_MGH78578_CP000647_pKPN3-7", "Kpn_pMCR_1511_KX377410",
    "Kpn_plasmid12_NC_011385", "Phage_lambda_NC_001416", "Psy_pPMA4326D_AY603981",
    "Sau_N315_NC_002745", "Sen_Choleraesuis_virulence_plasmid_AB040415",
    "Sso_53G_plasmids_NC_016833_NC_016823_NC_016834",
]


class PlanShards(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.TemporaryDirectory()
        self.addCleanup(self.directory.cleanup)

    def plan(self, rows, shard_documents, block_documents=32768, **options):
        """Plans a sheet of (name, group, size) rows; returns each shard's list of
        (name, group) in shard order."""
        sheet = os.path.join(self.directory.name, "samples.tsv")
        with open(sheet, "w") as handle:
            handle.write("path\tgroup\tsize\n")
            handle.write("".join("%s.fa.gz\t%s\t%d\n" % row for row in rows))
        out = os.path.join(self.directory.name, "shards")
        plan.plan_shards(sheet, out, shard_documents, block_documents=block_documents,
                         **options)
        group_of = {name: group for name, group, _ in rows}
        with open(os.path.join(out, "plan.tsv")) as handle:
            table = list(csv.DictReader(handle, delimiter="\t"))
        shards = []
        for row in table:
            with open(os.path.join(out, row["shard"] + ".list")) as handle:
                names = [plan.document_name(line.strip()) for line in handle if line.strip()]
            self.assertEqual(len(names), int(row["documents"]))
            self.assertEqual(len({group_of[n] for n in names}), int(row["groups"]))
            shards.append([(n, group_of[n]) for n in names])
        self.assertEqual(sorted(n for shard in shards for n, _ in shard),
                         sorted(name for name, _, _ in rows), "every sample exactly once")
        return shards

    def test_demo_genomes_pooled_not_one_shard_per_group(self):
        # Issue 21: 8 shards of which 5 held one genome. Now 4 shards of 3 at 3 a shard.
        rows = [(name, name.split("_")[0], 1000 + i) for i, name in enumerate(DEMO)]
        shards = self.plan(rows, 3)
        self.assertEqual([len(s) for s in shards], [3, 3, 3, 3])
        # Kpn (5) is split once at most: into whole shards first, then pooled.
        kpn = [i for i, s in enumerate(shards) if any(g == "Kpn" for _, g in s)]
        self.assertEqual(len(kpn), 2)
        # By default (a 32,768-document block), one shard holds every genome.
        self.assertEqual([len(s) for s in self.plan(rows, 32768)], [12])

    def test_whole_blocks(self):
        # 100,000 genomes at 32,768 a block: 4 blocks, 3 whole shards and the rest.
        self.assertEqual(plan.shard_sizes(100000, 32768, 32768)[0], [32768] * 3 + [1696])
        # 661,405 genomes: 21 blocks; 2 blocks a shard gives 11 shards, the partial block last.
        sizes, unit = plan.shard_sizes(661405, 65536, 32768)
        self.assertEqual((len(sizes), unit, sizes[-1]), (11, 32768, 6045))
        self.assertTrue(all(s % 32768 == 0 for s in sizes[:-1]))
        # A documents-per-shard that is not a multiple of the block rounds down to blocks.
        self.assertEqual(plan.shard_sizes(70000, 40000, 32768)[0], [32768, 32768, 4464])
        # Shards smaller than a block (tests, small collections): equal cuts.
        self.assertEqual(plan.shard_sizes(10, 4, 32768)[0], [4, 4, 2])

    def test_small_groups_pooled_into_blocks(self):
        # A species of 150 genomes, one of 40, and 100 species of one genome, at 64 a block
        # (page size 8): 290 genomes make 5 blocks, 2 a shard: shards of 128, 128, 34.
        rows = [("big_%03d" % i, "big", 500 + i) for i in range(150)]
        rows += [("mid_%03d" % i, "mid", 700) for i in range(40)]
        rows += [("one_%03d" % i, "one_%03d" % i, 300) for i in range(100)]
        shards = self.plan(rows, 128, block_documents=64)
        self.assertEqual([len(s) for s in shards], [128, 128, 34])
        blocks = [s[i:i + 64] for s in shards for i in range(0, len(s), 64)]
        self.assertEqual(len(blocks), 5)
        # The big species fills two whole blocks; its other 22 genomes and the species of 40
        # are not split; the species of one genome fill the room left.
        self.assertEqual([g for _, g in blocks[0] + blocks[1]], ["big"] * 128)
        for group in ("big", "mid"):
            holding = [b for b in blocks[2:] if any(g == group for _, g in b)]
            self.assertEqual(len(holding), 1, group)
        self.assertTrue(all(len({g for _, g in b}) > 1 for b in blocks[2:]))

    def test_pooled_species_of_a_genus_are_neighbours(self):
        # Species of one genome each, listed out of order; 2 a block (equal cuts of 8 into 4).
        species = ["Klebsiella pneumoniae", "Escherichia coli", "Salmonella enterica",
                   "Klebsiella oxytoca", "Escherichia albertii", "Salmonella bongori",
                   "Vibrio cholerae", "Vibrio fischeri"]
        rows = [("g%d" % i, name, 1000) for i, name in enumerate(species)]
        shards = self.plan(rows, 2)
        genera = [{group.split()[0] for _, group in shard} for shard in shards]
        self.assertEqual(genera, [{"Escherichia"}, {"Klebsiella"}, {"Salmonella"}, {"Vibrio"}])

    def test_group_column_order_writes_each_shards_rows(self):
        rows = [(name, name.split("_")[0], 1000 + i) for i, name in enumerate(DEMO)]
        self.plan(rows, 6, order="group:group")
        out = os.path.join(self.directory.name, "shards")
        tables = sorted(f for f in os.listdir(out) if f.endswith(".metadata.tsv"))
        self.assertEqual(tables, ["shard-0001.metadata.tsv", "shard-0002.metadata.tsv"])


class SheetFromList(unittest.TestCase):
    def test_allthebacteria_file_list(self):
        # The columns of AllTheBacteria's file_list.all.latest.tsv.gz; two made-up rows.
        import gzip
        import subprocess
        with tempfile.TemporaryDirectory() as directory:
            listing = os.path.join(directory, "file_list.tsv.gz")
            with gzip.open(listing, "wt") as handle:
                handle.write("sample\tspecies_sylph\tspecies_miniphy\tfilename_in_tar_xz\t"
                             "tar_xz\ttar_xz_url\ttar_xz_md5\ttar_xz_size_MB\n"
                             "SAMD1\tEscherichia coli\tecoli\tSAMD1.fa\tb1.tar.xz\tu\tm\t3\n"
                             "SAMD2\tKlebsiella pneumoniae\tkp\tSAMD2.fa\tb2.tar.xz\tu\tm\t3\n")
            sheet = os.path.join(directory, "samples.tsv")
            script = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                  "sheet_from_list.py")
            subprocess.run([sys.executable, script, listing, "--path", "atb/{sample}.fa",
                            "--group", "species_sylph", "--where", "species_miniphy=kp",
                            "-o", sheet], check=True, stderr=subprocess.DEVNULL)
            with open(sheet) as handle:
                rows = list(csv.DictReader(handle, delimiter="\t"))
            self.assertEqual([(r["path"], r["group"]) for r in rows],
                             [("atb/SAMD2.fa", "Klebsiella pneumoniae")])


if __name__ == "__main__":
    unittest.main()
