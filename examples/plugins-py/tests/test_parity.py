"""The Python plugin against its Rust twin: the acme pack built with the Rust SDK for contract
0.2.0 (examples/plugins/target/wasm32-wasip2/release/acme_rules.wasm, built by
scripts/build-plugins.sh; another path in $ACME_RULES_WASM), both run in wasmtime on the same
facts and configuration, must give the same findings, not-evaluated entries and errors for
ACM002, after spindle's own reading of their output: a `severity` of `none` is the rule's, a
`fix` of `none` the docs' How to fix, and a plugin names itself in its errors."""

import os
import unittest

# First: it puts the bindings and the plugin on the path.
from test_acme_py import ROOT  # isort: skip

import fixtures
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
        for f in out["findings"]:
            rule = self.rules[f["code"]]
            f["severity"] = f["severity"] or rule["severity"]
            f["fix"] = f["fix"] or how_to_fix(rule["docs"])
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


class Parity(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(RUST):
            raise unittest.SkipTest(f"{RUST} is not built: run scripts/build-plugins.sh")
        if not os.path.exists(COMPONENT):
            raise unittest.SkipTest(f"{COMPONENT} is not built: run examples/plugins-py/build.sh")
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
        ):
            self.same(fixtures.FOLDER_MOUNTS, cfg)

    def test_the_one_config_the_twins_read_differently(self):
        # ACM001's standard with no data mount at all: the Rust pack, which runs ACM001 too,
        # refuses it; the Python pack, which does not, has no reason to.
        cfg = '{"data_mounts_windows": [], "data_mounts_linux": []}'
        self.assertIn("both empty", self.rust.check(fixtures.FOLDER_MOUNTS, cfg)["bad-config"])
        self.assertEqual(self.py.check(fixtures.FOLDER_MOUNTS, cfg)["findings"], [])


if __name__ == "__main__":
    unittest.main()
