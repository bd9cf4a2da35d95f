"""The built component (target/plugins-py/acme_py.wasm), run in wasmtime as spindle runs it, with
a `facts.get` of the test's: each export must answer exactly what the same Python code answers
natively (test_acme_py.py pins those answers to the Rust pack's words)."""

import os
import unittest

# First: it puts the bindings and the plugin on the path.
from test_acme_py import ROOT, run  # isort: skip

import fixtures
import wasmtime
from componentize_py_types import Err
from runner import Loaded, plain, result, to_component

COMPONENT = os.path.join(ROOT, "target", "plugins-py", "acme_py.wasm")


def native(host, cfg):
    """What the Python code answers, natively, as `plain` has it."""
    try:
        return plain(run(host, cfg)[0])
    except Err as e:
        return plain(e)


class Component(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(COMPONENT):
            raise unittest.SkipTest(f"{COMPONENT} is not built: run examples/plugins/python/build.sh")
        cls.py = Loaded(COMPONENT)

    def test_the_memory_limit_binds(self):
        # 8 MiB cannot hold the interpreter's heap: the limit that lets the others pass is real.
        with self.assertRaises(wasmtime.WasmtimeError):
            self.py.instance(fixtures.MANY, memory_bytes=8 << 20)

    def test_info_and_rules(self):
        from app import WitWorld

        self.assertEqual(plain(self.py.call(fixtures.MANY, "info")), plain(WitWorld().info()))
        self.assertEqual(plain(self.py.call(fixtures.MANY, "rules")), plain(WitWorld().rules()))

    def test_check_answers_as_the_python_code_does(self):
        cases = [
            (fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": "SQLDATA"}')),
            (fixtures.MANY, fixtures.config()),
            (fixtures.LINUX, fixtures.config()),
            (fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": ""}')),
            (fixtures.FOLDER_MOUNTS, fixtures.config(rules=("ACM001",))),
            (fixtures.FOLDER_MOUNTS, fixtures.config(config_json="[" * 100_000)),
        ]
        for host, cfg in cases:
            self.assertEqual(self.py.check(host, cfg), native(host, cfg))
        # Not vacuous: findings, not-evaluated entries and errors all crossed the boundary.
        self.assertEqual(len(self.py.check(fixtures.MANY, fixtures.config())["findings"]), 2)
        self.assertEqual(len(self.py.check(fixtures.LINUX, fixtures.config())["not-evaluated"]), 2)
        self.assertIn("err", self.py.check(fixtures.FOLDER_MOUNTS, fixtures.config(rules=("ACM001",))))

    def test_one_instance_checks_host_after_host(self):
        store, instance, serving = self.py.instance(fixtures.MANY)
        check = instance.get_func(store, "check")
        cfg = to_component(fixtures.config(), self.py.config_ty)
        for host in (fixtures.MANY, fixtures.LINUX, fixtures.MANY):
            serving[0] = host
            self.assertEqual(result(check(store, cfg)), native(host, fixtures.config()))


if __name__ == "__main__":
    unittest.main()
