"""Database files and the volumes that hold them, from the host's facts. spindle already joined
each file to its volume (`db-file.volume-key`); what is left here is what the Rust acme pack's
`files.rs` and spindle's `Ctx` add on top: the order, the wording, and the not-evaluated entries
for a file whose volume is unknown, worded as spindle's own rules word them."""

import re

import rust_text
from wit_world.imports import facts as f
from wit_world.imports import types as t


def collector_reason(host: f.HostFacts, fact: str):
    """The reason a collector gave for not collecting `fact` (`collector: reason`), if any: the
    first entry naming it, its last path segment, or a prefix of it (spindle's
    `collector_reason`)."""
    leaf = re.split(r"[./]", fact)[-1]
    for c in host.collectors:
        for n in c.not_collected:
            if n.fact == fact or n.fact.endswith(leaf) or fact.startswith(n.fact):
                return f"{c.name}: {n.reason}"
    return None


def is_user(db: f.Database) -> bool:
    """A user database: by its role, else by its name (spindle's `effective_role`)."""
    if db.role is not None:
        return db.role == f.DatabaseRole.USER
    return rust_text.to_ascii_lowercase(db.name) not in ("tempdb", "master", "model", "msdb")


def files(host: f.HostFacts):
    """Every database file with its database, in the order of the facts."""
    for inst in host.sql_instances or []:
        for db in inst.databases or []:
            for file in db.files or []:
                yield db, file


class FilesOnVolume:
    """A volume and the selected database files on it, in the order of the facts."""

    def __init__(self, volume: f.Volume):
        self.volume = volume
        self.files = []

    def describe(self) -> str:
        """`2 database files: Sales_Data (Sales), Sales_Log (Sales)`; two names at most."""
        n = len(self.files)
        names = ", ".join(f"{file.logical_name} ({db.name})" for db, file in self.files[:2])
        noun = "database file" if n == 1 else "database files"
        if n <= 2:
            return f"{n} {noun}: {names}"
        return f"{n} {noun}: {names} and {n - 2} more"


def display_name(v: f.Volume) -> str:
    """The name people know a volume by: its first mount point, else its id."""
    return v.mount_points[0] if v.mount_points else v.id


class BadFacts(Exception):
    """The facts contradict themselves (a file names a volume that is not there)."""


def volumes_holding(host: f.HostFacts, code: str, keep, not_evaluated: list):
    """The volumes holding the files `keep(db, file)` selects, each once, in the order of the
    facts' `volumes`. A selected file whose volume is unknown is not evaluated (an entry appended
    to `not_evaluated` for rule `code`), never passed."""
    volumes = host.volumes or []
    position = {v.key: i for i, v in reversed(list(enumerate(volumes)))}
    held = {}
    for db, file in files(host):
        if not keep(db, file):
            continue
        if file.volume_key is None:
            # spindle says why (contract 0.2.0's `volume-unknown`); the derivation is for facts
            # made without it (the native tests').
            if file.volume_unknown is not None:
                missing, reason = file.volume_unknown.missing, file.volume_unknown.reason
            else:
                missing, reason = unknown_volume(host, file)
            not_evaluated.append(t.NotEvaluated(code=code, entity=file.key, missing=missing, reason=reason))
            continue
        if file.volume_key not in position:
            raise BadFacts(f"{file.key}: volume-key {file.volume_key} is not the key of any volume")
        if file.volume_key not in held:
            held[file.volume_key] = FilesOnVolume(volumes[position[file.volume_key]])
        held[file.volume_key].files.append((db, file))
    return sorted(held.values(), key=lambda h: position[h.volume.key])


def unknown_volume(host: f.HostFacts, file: f.DbFile):
    """The missing fact and the reason for a file spindle found no volume for, in the words of
    spindle's own rules (`UnknownVolume`). (ACM002 needs the volumes, so it never meets the
    cases where they were not collected; they are here for a rule that does not.)"""
    volumes_collected = host.volumes is not None
    empty_id = file.volume_id is not None
    volume_id = rust_text.trim(file.volume_id or "") or None
    path = file.physical_name
    if empty_id:
        no_id = "SQL Server reported an empty volume_id (as for a file on a UNC share)"
    else:
        no_id = "no volume_id (sys.dm_os_volume_stats) was collected"
    if volume_id is not None:
        missing = "volumes"
        if volumes_collected:
            why = f"no collected volume has its volume_id {volume_id}"
        else:
            why = f"its volume_id is {volume_id}, but the host's volumes were not collected"
    else:
        missing = "volume_id"
        if path is not None and volumes_collected:
            why = f"{no_id}, and no collected volume is mounted at a prefix of {path}"
        elif path is not None:
            why = (
                f"{no_id}, and the host's volumes were not collected to match {path} against their "
                "mount points"
            )
        elif empty_id:
            why = (
                "SQL Server reported an empty volume_id (as for a file on a UNC share), and the file's "
                "physical_name was not collected"
            )
        else:
            why = "neither its volume_id (sys.dm_os_volume_stats) nor its physical_name was collected"
    reason = collector_reason(host, missing)
    if reason is None and not volumes_collected:
        reason = collector_reason(host, "volumes")
    text = f"the volume of {file.logical_name} is unknown: {why}"
    if reason is not None:
        text += f"; {reason}"
    return missing, text
