"""acme_py: the acme rule pack's ACM002 (`log-volume-label`) as a Python component of the
`spindle:plugin@0.2.0` contract, written without the Rust SDK: the exports of world `plugin`,
the facts from the imported `facts` interface, the findings naming the facts' entity keys.

Built with componentize-py (`examples/plugins/python/build.sh`), which bundles CPython into the
component."""

import log_label
import wit_world
from componentize_py_types import Err
from pack_config import ConfigError, PackConfig
from volumes import BadFacts
from wit_world.imports import facts
from wit_world.imports import types as t

ID = "acme-py"
VERSION = "0.1.0"
# The facts schema version of spindle's model this plugin was written against.
FACTS_SCHEMA_VERSION = 1

RULES = [log_label.META]


def _bad_config(message: str) -> Err:
    return Err(t.CheckError_BadConfig(message))


class WitWorld(wit_world.WitWorld):
    def info(self) -> t.PackInfo:
        return t.PackInfo(id=ID, version=VERSION, facts_schema_version=FACTS_SCHEMA_VERSION)

    def rules(self) -> list:
        return RULES

    def check(self, config: t.CheckConfig) -> t.CheckOutput:
        """Raises `Err(CheckError)` for a configuration this pack cannot run or facts that
        contradict themselves, as the contract's `result` error."""
        known = ", ".join(r.code for r in RULES)
        for rule in config.rules:
            meta = next((r for r in RULES if r.code == rule.code), None)
            if meta is None:
                raise _bad_config(
                    f"enabled rule {rule.code} is not a rule of plugin {ID} (its rules: {known})"
                )
            declared = [p.name for p in meta.params]
            for p in rule.params:
                if p.name not in declared:
                    raise _bad_config(
                        f"{rule.code} has no parameter {p.name} "
                        f"(its parameters: {', '.join(declared) or 'none'})"
                    )
        try:
            cfg = PackConfig.from_json(config.config_json)
        except ValueError as e:  # not JSON (json.JSONDecodeError is a ValueError), or too deep
            raise _bad_config(f"config-json: {e}")
        except ConfigError as e:
            raise _bad_config(f"config of plugin {ID}: {e}")

        out = t.CheckOutput(findings=[], not_evaluated=[])
        enabled = {r.code for r in config.rules}
        if log_label.CODE not in enabled:
            return out
        host = facts.get()
        try:
            log_label.check(host, cfg.log_label_word, out)
        except BadFacts as e:
            raise Err(t.CheckError_BadFacts(str(e)))
        return out
