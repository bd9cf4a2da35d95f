"""Runs a component of contract 0.2.0 in wasmtime (its Python package) the way spindle does: WASI
linked with nothing to reach, `log` and `facts.get` provided by the host, spindle's per-call
limits; and turns values of either side (the generated bindings', wasmtime's) into plain dicts
to compare."""

import dataclasses
import enum
import re

import wasmtime
from componentize_py_types import Err
from wasmtime import component as wc

FACTS = "spindle:plugin/facts@0.2.0"
# spindle's default per-call memory limit (plugin-host/src/limits.rs).
MEMORY_BYTES = 64 << 20
ENGINE = wasmtime.Engine()


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


class Loaded:
    """A compiled component, with the WIT types its host function and `check` take."""

    def __init__(self, path: str):
        self.component = wc.Component.from_file(ENGINE, path)
        types = self.component.type
        imports = types.imports(ENGINE)
        self.contract_0_2 = FACTS in imports
        if self.contract_0_2:
            self.facts_ty = imports[FACTS].ty.exports(ENGINE)["get"].ty.result
            self.config_ty = types.exports(ENGINE)["check"].ty.params[0][1]

    def instance(self, host, memory_bytes=MEMORY_BYTES):
        """A fresh instance whose `facts.get` returns `serving[0]` (`host` to begin with): the
        store, the instance, and the list `serving`."""
        store = wasmtime.Store(ENGINE)
        store.set_wasi(wasmtime.WasiConfig())
        # spindle's per-call limits (plugin-host/src/limits.rs).
        store.set_limits(
            memory_size=memory_bytes, table_elements=1 << 20, instances=1000, tables=1000, memories=100
        )
        linker = wc.Linker(ENGINE)
        linker.add_wasip2()
        serving = [host]
        with linker.root() as root:
            root.add_func("log", lambda _store, level, message: None)
            with root.add_instance(FACTS) as facts:
                facts.add_func("get", lambda _store: to_component(serving[0], self.facts_ty))
        return store, linker.instantiate(store, self.component), serving

    def call(self, host, name, *args):
        store, instance, _ = self.instance(host)
        return instance.get_func(store, name)(store, *args)

    def check(self, host, cfg):
        """`check(cfg)` on `host` in a fresh instance, as `plain` has it (`{"err": ...}` for an
        error)."""
        return result(self.call(host, "check", to_component(cfg, self.config_ty)))


def result(got):
    """A `result<check-output, check-error>` from wasmtime, as `plain` has a native one."""
    return plain(got) if isinstance(got, wc.Record) else {"err": plain(got)}
