"""The Python plugin against its Rust twin: the acme pack built with the Rust SDK for contract
0.2.0 (examples/plugins/target/wasm32-wasip2/release/acme_rules.wasm, built by
scripts/build-plugins.sh; another path in $ACME_RULES_WASM), both run in wasmtime on the same
facts and configuration, must give the same findings, not-evaluated entries and errors for
ACM002, after spindle's own reading of their output: a `severity` of `none` is the rule's, a
`fix` of `none` the docs' How to fix, and a plugin names itself in its errors."""

import dataclasses
import json
import os
import random
import unittest

# First: it puts the bindings and the plugin on the path.
from test_acme_py import ROOT  # isort: skip

import fixtures
from wit_world.imports import facts as f
from runner import Loaded, plain
from test_component import COMPONENT

RUST = os.environ.get("ACME_RULES_WASM") or os.path.join(
    ROOT, "examples", "plugins", "target", "wasm32-wasip2", "release", "acme_rules.wasm"
)


def how_to_fix(docs: str) -> str:
    """The How to fix section of rule docs, as spindle takes it for a finding without a fix."""
    lines = docs.split("\n")
    start = lines.index("## How to fix") + 1
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("## ")), len(lines))
    return "\n".join(lines[start:end]).strip()


class Twin:
    """A plugin, and its output as spindle reads it."""

    def __init__(self, path):
        self.plugin = Loaded(path)
        host = fixtures.MANY
        self.id = plain(self.plugin.call(host, "info"))["id"]
        self.rules = {r["code"]: r for r in plain(self.plugin.call(host, "rules"))}

    def check(self, host, config_json):
        out = self.plugin.check(host, fixtures.config(config_json=config_json))
        if "err" in out:
            return {k: v.replace(f"plugin {self.id}:", "plugin PLUGIN:") for k, v in out["err"].items()}
        for finding in out["findings"]:
            rule = self.rules[finding["code"]]
            finding["severity"] = finding["severity"] or rule["severity"]
            finding["fix"] = finding["fix"] or how_to_fix(rule["docs"])
        return out


def unknown_volume_hosts():
    """One host per way a log file's volume can be unknown."""
    collectors = [("sql", [("volume_id", "VIEW SERVER STATE denied")])]
    for volume_id, path in [
        (None, "D:\\b.ldf"),
        (" ", "\\\\fs\\l.ldf"),
        (None, None),
        ("", None),
        ("x", None),
    ]:
        for volumes in ([], None):
            db = fixtures.database("h", "D", [("b", fixtures.LOG, path, volume_id, None)])
            yield fixtures.host_facts("h", volumes=volumes, databases=[db], collectors=collectors)


def random_host(rng: random.Random, n: int):
    """A host drawn at random, joined as spindle joins files to volumes: by volume id, else by the
    mount point holding the path (one drive letter per volume here, so no mount point holds
    another)."""
    name = f"r{n}"
    letters = rng.sample("DEFGHIJKLMNOPQRSTUVW", rng.randint(1, 6))
    labels = ["SQLLOG01", "sqllogs", "Data", "", None, "LOGS", "Log", "ǅlog", "İLOG", "ΣLOGΣ", "l o g"]
    vols = [
        fixtures.volume(name, f"vol{i}", rng.choice([[f"{d}:\\"], []]), rng.choice(labels))
        for i, d in enumerate(letters)
    ]
    mounted = {v.mount_points[0][0]: v for v in vols if v.mount_points}
    dbs = []
    for d in range(rng.randint(1, 5)):
        files = []
        for i in range(rng.randint(0, 4)):
            kind = rng.choice([fixtures.LOG, fixtures.LOG, fixtures.ROWS])
            how = rng.choice(
                ["id", "id", "id", "path", "path", "path", "lost id", "lost path", "nothing", "empty id"]
            )
            volume_id = path = key = None
            if how == "id" and vols:
                v = rng.choice(vols)
                volume_id, key = v.id, v.key
            elif how == "path" and mounted:
                letter = rng.choice(sorted(mounted))
                path, key = f"{letter}:\\db{d}\\f{i}.ldf", mounted[letter].key
            elif how == "lost id":
                volume_id = "gone"
            elif how == "lost path":
                path = f"Z:\\f{i}.ldf"
            elif how == "empty id":
                volume_id = rng.choice(["", "  "])
            files.append((f"f{d}_{i}", kind, path, volume_id, key and key.split("/volume:")[1]))
        # Unique names, the system databases' among them (by name when the role is not given).
        db_name = rng.choice(["Sales", "ERP", "HR", "master", "MSDB", "TempDB", "model"])
        db_name = db_name if all(db.name != db_name for db in dbs) else f"{db_name}{d}"
        db = fixtures.database(name, db_name, files, role=rng.choice([None, None, None, *f.DatabaseRole]))
        dbs.append(db if rng.random() > 0.1 else dataclasses.replace(db, files=None))
    collectors = rng.choice(
        [[], [("wmi", [("volumes.label", "no access")])], [("sql", [("volume_id", "denied")])]]
    )
    return fixtures.host_facts(
        name,
        volumes=vols if rng.random() > 0.1 else None,
        databases=dbs if rng.random() > 0.1 else None,
        collectors=collectors,
    )


class Parity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(RUST):
            raise unittest.SkipTest(f"{RUST} is not built: run scripts/build-plugins.sh")
        if not os.path.exists(COMPONENT):
            raise unittest.SkipTest(f"{COMPONENT} is not built: run examples/plugins/python/build.sh")
        cls.rust = Twin(RUST)
        if not cls.rust.plugin.contract_0_2:
            raise unittest.SkipTest(
                f"{RUST} is a plugin of contract 0.1.0: rebuild it (scripts/build-plugins.sh)"
            )
        cls.py = Twin(COMPONENT)

    def same(self, host, config_json="{}"):
        rust, py = self.rust.check(host, config_json), self.py.check(host, config_json)
        self.assertEqual(py, rust, f"{host.host.name} {config_json}")
        return py

    def test_the_rule_is_declared_alike(self):
        rust = dict(self.rust.rules["ACM002"])
        self.assertEqual(self.py.rules, {"ACM002": rust})

    def test_the_same_findings(self):
        for word in ("SQLDATA", " SQLDATA ", "Log01", "LOG"):
            self.same(fixtures.FOLDER_MOUNTS, f'{{"log_label_word": "{word}"}}')
        self.assertEqual(len(self.same(fixtures.MANY)["findings"]), 2)
        self.assertEqual(
            len(self.same(fixtures.FOLDER_MOUNTS, '{"log_label_word": "SQLDATA"}')["findings"]), 1
        )

    def test_the_same_not_evaluated_entries(self):
        self.assertEqual(len(self.same(fixtures.LINUX)["not-evaluated"]), 2)
        for reason in ("volumes.label", "label", "volumes"):
            host = fixtures.host_facts(
                "lnx-sql01",
                volumes=fixtures.LINUX.volumes,
                databases=fixtures.LINUX.sql_instances[0].databases,
                collectors=[("linux", [(reason, "blkid not found")])],
            )
            self.same(host)
        for host in unknown_volume_hosts():
            self.assertEqual(len(self.same(host)["not-evaluated"]), 1)

    def test_the_same_config_errors(self):
        for cfg in (
            '{"log_label_word": " "}',
            '{"bogus": 1}',
            '{"log_label_word": 3}',
            '{"production_hosts": "erp-sql1"}',
            '{"data_mounts_linux": [null]}',
            '{"data_mounts_windows": true}',
            "[1]",
            "null",
            "[" * 1000,
            '{"log_label_word": "[{",\n "x": ' + "[" * 1000,
        ):
            self.same(fixtures.FOLDER_MOUNTS, cfg)

    def test_random_hosts(self):
        rng = random.Random(2026)
        words = ["LOG", "log", " Lo ", "İ", "σ", "LOG01", "\u00a0LOG\u2003"]
        findings = not_evaluated = 0
        for n in range(150):
            out = self.same(random_host(rng, n), json.dumps({"log_label_word": rng.choice(words)}))
            findings += len(out["findings"])
            not_evaluated += len(out["not-evaluated"])
        # Not vacuous: these hosts give 39 findings and 110 entries.
        self.assertGreater(findings, 30)
        self.assertGreater(not_evaluated, 100)

    def test_the_one_config_the_twins_read_differently(self):
        # ACM001's standard with no data mount at all: the Rust pack, which runs ACM001 too,
        # refuses it; the Python pack, which does not, has no reason to.
        cfg = '{"data_mounts_windows": [], "data_mounts_linux": []}'
        self.assertIn("both empty", self.rust.check(fixtures.FOLDER_MOUNTS, cfg)["bad-config"])
        self.assertEqual(self.py.check(fixtures.FOLDER_MOUNTS, cfg)["findings"], [])


if __name__ == "__main__":
    unittest.main()
