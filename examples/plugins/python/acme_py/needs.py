"""A rule's `needs`, as spindle's engine applies them: the sections of the facts without which it
cannot judge anything. When one was not collected the rule does not run, and the host as a whole
is not evaluated for it, once, naming the first missing section."""

from wit_world.imports import facts as f
from wit_world.imports import types as t

from volumes import collector_reason


def _has_files(host: f.HostFacts) -> bool:
    return any(db.files is not None for inst in host.sql_instances or [] for db in inst.databases or [])


# The section, as collectors name it in `not-collected`, and whether the facts have it.
VOLUMES = ("volumes", lambda host: host.volumes is not None)
DATABASE_FILES = ("sql_instances[].databases[].files", _has_files)


def unmet(host: f.HostFacts, code: str, needs) -> t.NotEvaluated | None:
    """The not-evaluated entry for the host when one of `needs` is missing, else None."""
    for fact, present in needs:
        if not present(host):
            return t.NotEvaluated(code=code, entity=None, missing=fact, reason=collector_reason(host, fact))
    return None
