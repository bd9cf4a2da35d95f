"""The built component (target/plugins-py/acme_py.wasm), run in wasmtime through its Python
package, with `facts.get` and `log` provided by the test as spindle provides them: each export
must answer exactly what the same Python code answers natively (test_acme_py.py pins those
answers to the Rust pack's)."""

import dataclasses
import enum
import os
import re
import unittest

# First: it puts the bindings and the plugin on the path.
from test_acme_py import ROOT, run  # isort: skip

import fixtures
import wasmtime
from componentize_py_types import Err
from wasmtime import component as wc

COMPONENT = os.path.join(ROOT, "target", "plugins-py", "acme_py.wasm")
# spindle's default per-call memory limit (plugin-host/src/limits.rs).
MEMORY_BYTES = 64 << 20


def kebab(name: str) -> str:
    """`volume_label` and `VirtualDisk` as WIT spells them: `volume-label`, `virtual-disk`."""
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "-", name).replace("_", "-").lower()


def to_component(v, ty):
    """A value of the generated bindings as wasmtime's Python package passes a value of WIT type
    `ty` to a component. That package reads a variant (and an option) untagged, as its payload,
    when the Python classes of its cases tell them apart, and as a `Variant` when they do not:
    `option<max-size>` is `Variant("some", None)` for `some(unlimited)`. It decides which with
    `_tagged()`, which is asked here too."""
    if isinstance(ty, wc.RecordType):
        r = wc.Record()
        for name, field_ty in ty.fields:
            setattr(r, name, to_component(getattr(v, name.replace("-", "_")), field_ty))
        return r
    if isinstance(ty, wc.ListType):
        return [to_component(x, ty.element) for x in v]
    if isinstance(ty, wc.OptionType):
        if not ty._tagged():
            return None if v is None else to_component(v, ty.payload)
        return wc.Variant("none") if v is None else wc.Variant("some", to_component(v, ty.payload))
    if isinstance(ty, wc.VariantType):
        tag = kebab(type(v).__name__.split("_", 1)[1])  # `Backing_VirtualDisk`
        case_ty = dict(ty.cases)[tag]
        payload = None if case_ty is None else to_component(v.value, case_ty)
        return wc.Variant(tag, payload) if ty._tagged() else payload
    if isinstance(ty, wc.EnumType):
        return kebab(v.name)
    return v


def plain(v):
    """A value of either side as plain dicts, lists and words, to compare them."""
    if isinstance(v, list):
        return [plain(x) for x in v]
    if isinstance(v, enum.Enum):
        return kebab(v.name)
    if isinstance(v, Err):
        return {"err": plain(v.value)}
    if isinstance(v, wc.Variant):
        return {v.tag: plain(v.payload)}
    if isinstance(v, wc.Record):
        return {k: plain(x) for k, x in vars(v).items()}
    if dataclasses.is_dataclass(v):
        cls = type(v).__name__
        if "_" in cls:
            return {kebab(cls.split("_", 1)[1]): plain(getattr(v, "value", None))}
        return {kebab(f.name): plain(getattr(v, f.name)) for f in dataclasses.fields(v)}
    return v


class Component(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(COMPONENT):
            raise unittest.SkipTest(f"{COMPONENT} is not built: run examples/plugins-py/build.sh")
        cls.engine = wasmtime.Engine()
        cls.component = wc.Component.from_file(cls.engine, COMPONENT)
        types = cls.component.type
        cls.facts_ty = (
            types.imports(cls.engine)["spindle:plugin/facts@0.2.0"].ty.exports(cls.engine)["get"].ty.result
        )
        cls.config_ty = types.exports(cls.engine)["check"].ty.params[0][1]

    def instance(self, host, memory_bytes=MEMORY_BYTES):
        """A fresh instance whose `facts.get` returns `host`; the store, the instance, the log."""
        store = wasmtime.Store(self.engine)
        store.set_wasi(wasmtime.WasiConfig())
        # spindle's per-call limits (plugin-host/src/limits.rs).
        store.set_limits(
            memory_size=memory_bytes, table_elements=1 << 20, instances=1000, tables=1000, memories=100
        )
        linker = wc.Linker(self.engine)
        linker.add_wasip2()
        logged = []
        with linker.root() as root:
            root.add_func("log", lambda _store, level, message: logged.append((level, message)))
            with root.add_instance("spindle:plugin/facts@0.2.0") as facts:
                facts.add_func("get", lambda _store: to_component(host, self.facts_ty))
        return store, linker.instantiate(store, self.component), logged

    def call(self, host, name, *args):
        store, instance, _ = self.instance(host)
        return instance.get_func(store, name)(store, *args)

    def test_the_memory_limit_binds(self):
        # 8 MiB cannot hold the interpreter's heap: the limit that lets the others pass is real.
        with self.assertRaises(wasmtime.WasmtimeError):
            self.instance(fixtures.MANY, memory_bytes=8 << 20)

    def test_info_and_rules(self):
        from app import WitWorld

        self.assertEqual(plain(self.call(fixtures.MANY, "info")), plain(WitWorld().info()))
        self.assertEqual(plain(self.call(fixtures.MANY, "rules")), plain(WitWorld().rules()))

    def test_check_answers_as_the_python_code_does(self):
        cases = [
            (fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": "SQLDATA"}')),
            (fixtures.MANY, fixtures.config()),
            (fixtures.LINUX, fixtures.config()),
            (fixtures.FOLDER_MOUNTS, fixtures.config(config_json='{"log_label_word": ""}')),
            (fixtures.FOLDER_MOUNTS, fixtures.config(rules=("ACM001",))),
        ]
        for host, cfg in cases:
            try:
                native, _ = run(host, cfg)
            except Err as e:
                native = e
            got = self.call(host, "check", to_component(cfg, self.config_ty))
            self.assertEqual(plain(got) if isinstance(got, wc.Record) else {"err": plain(got)}, plain(native))
        # Not vacuous: findings, not-evaluated entries and errors all crossed the boundary.
        self.assertTrue(
            plain(self.call(fixtures.MANY, "check", to_component(fixtures.config(), self.config_ty)))[
                "findings"
            ]
        )

    def test_one_instance_checks_host_after_host(self):
        store, instance, _ = self.instance(fixtures.MANY)
        check = instance.get_func(store, "check")
        first = plain(check(store, to_component(fixtures.config(), self.config_ty)))
        self.assertEqual(plain(check(store, to_component(fixtures.config(), self.config_ty))), first)
        self.assertEqual(len(first["findings"]), 2)


if __name__ == "__main__":
    unittest.main()
