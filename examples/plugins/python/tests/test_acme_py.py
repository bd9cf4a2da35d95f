"""acme_py's exports run natively in CPython, against the contract's generated Python bindings
(target/plugins-py/bindings, written by build.sh), with `facts.get` answered by the test. The
expected messages are the Rust acme pack's, word for word (examples/plugins/acme/src)."""

import dataclasses
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", "..", ".."))
sys.path[:0] = [
    os.path.join(ROOT, "target", "plugins-py", "bindings"),
    os.path.join(HERE, "..", "acme_py"),
    HERE,
]

import app  # noqa: E402
import volumes  # noqa: E402
import fixtures  # noqa: E402
from componentize_py_types import Err  # noqa: E402
from wit_world.imports import facts  # noqa: E402
from wit_world.imports import types as t  # noqa: E402


def run(host, cfg):
    """`check(cfg)` with `facts.get` returning `host`; the output, and how often facts were read."""
    calls = []

    def get():
        calls.append(1)
        return host

    saved = facts.get
    facts.get = get
    try:
        return app.WitWorld().check(cfg), len(calls)
    finally:
        facts.get = saved


def bad_config(host, cfg):
    try:
        run(host, cfg)
    except Err as e:
        assert isinstance(e.value, t.CheckError_BadConfig), e.value
        return e.value.value
    raise AssertionError("accepted")


def rust_docs():
    """The doc comment of the Rust rule, as `RuleMeta::docs` makes it Markdown."""
    path = os.path.join(ROOT, "examples", "plugins", "acme", "src", "log_label.rs")
    lines = []
    with open(path, encoding="utf-8") as src:
        for line in src:
            s = line.strip()
            if s.startswith("///"):
                body = s[3:]
                lines.append(body[1:] if body.startswith(" ") else body)
            elif lines:
                break
    return "\n".join(lines).strip() + "\n"


class Exports(unittest.TestCase):
    def test_info_and_rules_are_the_rust_rules(self):
        info = app.WitWorld().info()
        self.assertEqual((info.id, info.version, info.facts_schema_version), ("acme-py", "0.1.0", 1))
        [meta] = app.WitWorld().rules()
        self.assertEqual(
            (meta.code, meta.name, meta.severity, meta.params),
            ("ACM002", "log-volume-label", t.Severity.NOTE, []),
        )
        self.assertEqual(meta.summary, "Volumes holding user log files are labelled LOG")
        self.assertEqual(meta.docs, rust_docs())


class LogVolumeLabel(unittest.TestCase):
    def test_a_labelled_log_volume_passes_and_the_word_comes_from_the_config(self):
        out, reads = run(fixtures.FOLDER_MOUNTS, fixtures.config())
        self.assertEqual((out.findings, out.not_evaluated, reads), ([], [], 1))

        out, _ = run(fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": " SQLDATA "}'))
        self.assertEqual(
            out.findings,
            [
                t.Finding(
                    code="ACM002",
                    severity=None,
                    message="volume L:\\ holds 1 database file: Sales_log (Sales) but has the label "
                    '"sqllog01", without the word "SQLDATA" log volumes carry',
                    measured='"sqllog01"',
                    expected='a label containing "SQLDATA"',
                    measured_quantity=None,
                    expected_quantity=None,
                    entity="sql-prd-01/volume:l1",
                    field="label",
                    fix=None,
                )
            ],
        )
        # Compared without case.
        out, _ = run(fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": "Log01"}'))
        self.assertEqual(out.findings, [])

    def test_files_join_their_volumes_in_the_order_of_the_volumes(self):
        out, _ = run(fixtures.MANY, fixtures.config())
        self.assertEqual(
            [(f.entity, f.message, f.measured) for f in out.findings],
            [
                (
                    "h/volume:v1",
                    "volume L:\\ holds 3 database files: A_log2 (A), B_log (B) and 1 more but has the label "
                    '"Data", without the word "LOG" log volumes carry',
                    '"Data"',
                ),
                (
                    "h/volume:v2",
                    "volume v2 holds 2 database files: A_log (A), u_log (model) but has no label, "
                    'without the word "LOG" log volumes carry',
                    '""',
                ),
            ],
        )
        self.assertEqual(out.not_evaluated, [])

    def test_a_label_or_a_volume_not_collected_is_not_evaluated(self):
        out, _ = run(fixtures.LINUX, fixtures.config())
        self.assertEqual(out.findings, [])
        self.assertEqual(
            out.not_evaluated,
            [
                t.NotEvaluated(
                    code="ACM002",
                    entity="lnx-sql01/instance:MSSQLSERVER/database:A/file:C_log",
                    missing="volumes",
                    reason="the volume of C_log is unknown: no collected volume has its volume_id /dev/nope",
                ),
                t.NotEvaluated(
                    code="ACM002", entity="lnx-sql01/volume:/dev/md1", missing="label", reason=None
                ),
            ],
        )

    def test_the_collectors_reason_is_given(self):
        host = fixtures.LINUX
        with_reasons = fixtures.host_facts(
            "lnx-sql01",
            volumes=host.volumes,
            databases=host.sql_instances[0].databases,
            collectors=[("linux", [("volumes.label", "blkid not found")])],
        )
        out, _ = run(with_reasons, fixtures.config())
        self.assertEqual(out.not_evaluated[1].reason, "linux: blkid not found")

    def test_every_way_a_volume_is_unknown_is_worded_as_spindle_words_it(self):
        log = fixtures.LOG
        cases = [
            (
                (None, "D:\\b.ldf"),
                True,
                "volume_id",
                "no volume_id (sys.dm_os_volume_stats) was collected, and no collected volume is "
                "mounted at a prefix of D:\\b.ldf",
            ),
            (
                (" ", "\\\\fs\\l.ldf"),
                True,
                "volume_id",
                "SQL Server reported an empty volume_id (as for a file on a UNC share), and no "
                "collected volume is mounted at a prefix of \\\\fs\\l.ldf",
            ),
            (
                (None, None),
                True,
                "volume_id",
                "neither its volume_id (sys.dm_os_volume_stats) nor its physical_name was collected",
            ),
            (
                ("", None),
                True,
                "volume_id",
                "SQL Server reported an empty volume_id (as for a file on a UNC share), and the "
                "file's physical_name was not collected",
            ),
            (
                ("\\\\?\\Volume{a}\\", None),
                False,
                "volumes",
                # The collector's reason is about volume_id, not the volumes this file is missing.
                "its volume_id is \\\\?\\Volume{a}\\, but the host's volumes were not collected",
            ),
            (
                (None, "D:\\b.ldf"),
                False,
                "volume_id",
                "no volume_id (sys.dm_os_volume_stats) was collected, and the host's volumes were not "
                "collected to match D:\\b.ldf against their mount points; sql: VIEW SERVER STATE denied",
            ),
        ]
        for (volume_id, path), volumes_collected, missing, why in cases:
            db = fixtures.database("h", "D", [("b", log, path, volume_id, None)])
            collectors = [] if volumes_collected else [("sql", [("volume_id", "VIEW SERVER STATE denied")])]
            host = fixtures.host_facts(
                "h", volumes=[] if volumes_collected else None, databases=[db], collectors=collectors
            )
            expected = (missing, f"the volume of b is unknown: {why}")
            # ACM002 needs the volumes: without them it does not look at files (see below).
            self.assertEqual(volumes.unknown_volume(host, db.files[0]), expected)
            if volumes_collected:
                out, _ = run(host, fixtures.config())
                entity = "h/instance:MSSQLSERVER/database:D/file:b"
                self.assertEqual(out.not_evaluated, [t.NotEvaluated("ACM002", entity, *expected)])

    def test_without_the_volumes_or_the_files_the_host_is_not_evaluated(self):
        files = fixtures.FOLDER_MOUNTS.sql_instances[0].databases
        no_files = [dataclasses.replace(db, files=None) for db in files]
        volumes_reason = [("wmi", [("volumes", "Access denied")])]
        for host, missing, reason in [
            (fixtures.host_facts("h", volumes=None, databases=files), "volumes", None),
            (fixtures.host_facts("h", None, files, volumes_reason), "volumes", "wmi: Access denied"),
            (fixtures.host_facts("h", volumes=[], databases=None), "sql_instances[].databases[].files", None),
            (
                fixtures.host_facts("h", volumes=[], databases=no_files),
                "sql_instances[].databases[].files",
                None,
            ),
        ]:
            out, _ = run(host, fixtures.config())
            self.assertEqual(
                (out.findings, out.not_evaluated), ([], [t.NotEvaluated("ACM002", None, missing, reason)])
            )

    def test_a_file_naming_a_volume_that_is_not_there_is_bad_facts(self):
        db = fixtures.database("h", "D", [("b", fixtures.LOG, "L:\\b.ldf", None, "gone")])
        with self.assertRaises(Err) as e:
            run(fixtures.host_facts("h", volumes=[], databases=[db]), fixtures.config())
        self.assertIsInstance(e.exception.value, t.CheckError_BadFacts)

    def test_not_enabled_it_reads_no_facts(self):
        out, reads = run(fixtures.FOLDER_MOUNTS, fixtures.config(rules=()))
        self.assertEqual((out.findings, out.not_evaluated, reads), ([], [], 0))


class Config(unittest.TestCase):
    def test_a_bad_config_table_is_refused_in_the_rust_packs_words(self):
        for cfg, needle in [
            (
                '{"data_mount_windows": []}',
                "config of plugin acme-py: unknown field `data_mount_windows`, expected "
                "one of `data_mounts_windows`, `data_mounts_linux`, `log_label_word`, `production_hosts`",
            ),
            (
                '{"log_label_word": " "}',
                "config of plugin acme-py: log_label_word is empty: every label contains it",
            ),
            (
                '{"log_label_word": 3}',
                "config of plugin acme-py: invalid type: integer `3`, expected a string",
            ),
            (
                '{"production_hosts": "erp-sql1"}',
                'config of plugin acme-py: invalid type: string "erp-sql1", expected a sequence',
            ),
            (
                '{"data_mounts_linux": [null]}',
                "config of plugin acme-py: invalid type: null, expected a string",
            ),
            ("[1]", "config of plugin acme-py: expected a table, found [1]"),
            ("{", "config-json: "),
            ("[" * 100_000, "config-json: recursion limit exceeded at line 1 column 128"),
            ('{"a": "[[[' + "[" * 200 + '"}', "config of plugin acme-py: unknown field `a`"),
            ('{"a": "\\"[' + "[" * 200 + '"}', "config of plugin acme-py: unknown field `a`"),
        ]:
            self.assertTrue(
                bad_config(fixtures.FOLDER_MOUNTS, fixtures.config(config_json=cfg)).startswith(needle), cfg
            )

    def test_the_rust_packs_other_keys_are_accepted(self):
        cfg = '{"data_mounts_windows": ["?:\\\\"], "data_mounts_linux": [], "production_hosts": ["*"]}'
        out, _ = run(fixtures.FOLDER_MOUNTS, fixtures.config(config_json=cfg))
        self.assertEqual(out.findings, [])
        for empty in ("", "null"):
            out, _ = run(fixtures.MANY, fixtures.config(config_json=empty))
            self.assertEqual(len(out.findings), 2, empty)

    def test_an_unknown_rule_or_parameter_is_refused(self):
        self.assertEqual(
            bad_config(fixtures.FOLDER_MOUNTS, fixtures.config(rules=("ACM001",))),
            "enabled rule ACM001 is not a rule of plugin acme-py (its rules: ACM002)",
        )
        param = t.Param(name="min_free_percent", value=t.ParamValue_Num(30.0))
        self.assertEqual(
            bad_config(fixtures.FOLDER_MOUNTS, fixtures.config(params=[param])),
            "ACM002 has no parameter min_free_percent (its parameters: none)",
        )


if __name__ == "__main__":
    unittest.main()
